package media

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// unmarshalSidecar decodes a sidecar's YAML into it (a zero Item). A start
// without a checkpoint decodes every sidecar, and yaml.v3 spent most of
// that time (5.6 of 6.9 s of BenchmarkOpen10k/cold's rescan): sidecars
// have one fixed shape, the one encodeSidecar writes (and cmd/folio-gen,
// and most hand edits keep), so a strict reader of exactly that shape
// decodes them, and anything it does not recognise, to the last
// character, goes to yaml.v3 as before. The reader never decides what
// yaml.v3 would decode differently: FuzzSidecarDecoders checks that
// whatever it accepts, yaml.v3 decodes to the same item.
func unmarshalSidecar(data []byte, it *Item) error {
	if parseSidecarFast(data, it) {
		return nil
	}
	*it = Item{}
	return yaml.Unmarshal(data, it)
}

// parseSidecarFast decodes data into it when data is a sidecar of the
// plain shape, and reports whether it did (it is then left half filled
// when false: the caller resets it). The shape, line by line:
//
//	key: value                 one of Item's fields, each at most once
//	sizes:                     then one or more entries, all at one indent:
//	  - width: 150             "- " and the entry's first field,
//	    height: 112            its other fields two columns further in
//	altByLocale:               (titleByLocale, descriptionByLocale) then
//	  fr: Un chat              one or more tag: text lines at one indent
//
// A value is a plain scalar that is a string for yaml.v3 whatever it
// resolves to (no indicator first, no ": " or " #" inside, no space at
// either end, not null), a single-quoted one or a double-quoted one
// without escapes; a number is a plain decimal without leading zeros or
// sign; the time is RFC 3339. Comments, blank lines, tabs, carriage
// returns, block and flow styles, anchors, tags, documents markers,
// unknown keys and everything else make it give up.
func parseSidecarFast(data []byte, it *Item) bool {
	if !plainText(data) {
		return false
	}
	var seen uint32
	for len(data) > 0 {
		line, rest := cutLine(data)
		if len(line) == 0 || line[0] == ' ' {
			return false
		}
		key, val, ok := cutKey(line)
		if !ok {
			return false
		}
		f := sidecarField(key)
		if f < 0 || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		data = rest
		if f == fieldSizes || f == fieldAltByLocale || f == fieldTitleByLocale || f == fieldDescriptionByLocale {
			if val != nil {
				return false
			}
			var n int
			switch f {
			case fieldSizes:
				it.Sizes, n, ok = parseSizes(data)
			case fieldAltByLocale:
				it.AltByLocale, n, ok = parseLocaleMap(data)
			case fieldTitleByLocale:
				it.TitleByLocale, n, ok = parseLocaleMap(data)
			default:
				it.DescriptionByLocale, n, ok = parseLocaleMap(data)
			}
			if !ok {
				return false
			}
			data = data[n:]
			continue
		}
		if val == nil || !setField(it, f, val) {
			return false
		}
	}
	return seen != 0
}

// The fields of a sidecar, as bits of parseSidecarFast's seen.
const (
	fieldID = iota
	fieldFilename
	fieldMimeType
	fieldSize
	fieldWidth
	fieldHeight
	fieldAlt
	fieldTitle
	fieldDescription
	fieldAltByLocale
	fieldTitleByLocale
	fieldDescriptionByLocale
	fieldFolder
	fieldFocalX
	fieldFocalY
	fieldCreatedAt
	fieldKey
	fieldSizes
	fieldPlaceholder
	fieldDominantColor
	fieldVersion
)

func sidecarField(key []byte) int {
	switch string(key) {
	case "id":
		return fieldID
	case "filename":
		return fieldFilename
	case "mimeType":
		return fieldMimeType
	case "size":
		return fieldSize
	case "width":
		return fieldWidth
	case "height":
		return fieldHeight
	case "alt":
		return fieldAlt
	case "title":
		return fieldTitle
	case "description":
		return fieldDescription
	case "altByLocale":
		return fieldAltByLocale
	case "titleByLocale":
		return fieldTitleByLocale
	case "descriptionByLocale":
		return fieldDescriptionByLocale
	case "folder":
		return fieldFolder
	case "focalX":
		return fieldFocalX
	case "focalY":
		return fieldFocalY
	case "createdAt":
		return fieldCreatedAt
	case "key":
		return fieldKey
	case "sizes":
		return fieldSizes
	case "placeholder":
		return fieldPlaceholder
	case "dominantColor":
		return fieldDominantColor
	case "version":
		return fieldVersion
	}
	return -1
}

// setField sets the scalar field f from its value val.
func setField(it *Item, f int, val []byte) bool {
	var ok bool
	switch f {
	case fieldID:
		it.ID, ok = stringValue(val)
	case fieldFilename:
		it.Filename, ok = stringValue(val)
	case fieldMimeType:
		it.MimeType, ok = stringValue(val)
	case fieldAlt:
		it.Alt, ok = stringValue(val)
	case fieldTitle:
		it.Title, ok = stringValue(val)
	case fieldDescription:
		it.Description, ok = stringValue(val)
	case fieldFolder:
		it.Folder, ok = stringValue(val)
	case fieldKey:
		it.Key, ok = stringValue(val)
	case fieldPlaceholder:
		it.Placeholder, ok = stringValue(val)
	case fieldDominantColor:
		it.DominantColor, ok = stringValue(val)
	case fieldSize:
		var n int64
		n, ok = intValue(val)
		it.Size = n
	case fieldWidth:
		var n int64
		n, ok = intValue(val)
		it.Width = int(n)
	case fieldHeight:
		var n int64
		n, ok = intValue(val)
		it.Height = int(n)
	case fieldVersion:
		var n int64
		n, ok = intValue(val)
		it.Version = int(n)
	case fieldFocalX:
		it.FocalX, ok = floatValue(val)
	case fieldFocalY:
		it.FocalY, ok = floatValue(val)
	case fieldCreatedAt:
		it.CreatedAt, ok = timeValue(val)
	}
	return ok
}

// parseSizes reads the entries of sizes: from data, the lines after
// "sizes:", and returns them and how many bytes they took.
func parseSizes(data []byte) ([]Size, int, bool) {
	var sizes []Size
	indent := -1
	n := 0
	for n < len(data) {
		line, _ := cutLine(data[n:])
		ind := leadingSpaces(line)
		if ind == 0 {
			break // the next field
		}
		if indent < 0 {
			indent = ind
		}
		if ind != indent || !bytes.HasPrefix(line[ind:], []byte("- ")) {
			return nil, 0, false
		}
		// The entry: its first field after "- ", the others two columns
		// further in.
		var s Size
		var seen uint8
		first := true
		for n < len(data) {
			line, _ := cutLine(data[n:])
			var body []byte
			if first {
				body = line[indent+2:]
			} else {
				if leadingSpaces(line) != indent+2 {
					break
				}
				body = line[indent+2:]
			}
			if len(body) == 0 || body[0] == ' ' {
				return nil, 0, false
			}
			key, val, ok := cutKey(body)
			if !ok || val == nil {
				return nil, 0, false
			}
			var bit uint8
			switch string(key) {
			case "width":
				bit = 1
				var v int64
				v, ok = intValue(val)
				s.Width = int(v)
			case "height":
				bit = 2
				var v int64
				v, ok = intValue(val)
				s.Height = int(v)
			case "key":
				bit = 4
				s.Key, ok = stringValue(val)
			default:
				return nil, 0, false
			}
			if !ok || seen&bit != 0 {
				return nil, 0, false
			}
			seen |= bit
			n += len(line) + 1
			first = false
		}
		sizes = append(sizes, s)
	}
	if len(sizes) == 0 {
		return nil, 0, false
	}
	return sizes, min(n, len(data)), true
}

// parseLocaleMap reads the "tag: text" lines of a ByLocale map from data,
// the lines after its key, and returns the map and how many bytes they
// took.
func parseLocaleMap(data []byte) (map[string]string, int, bool) {
	m := map[string]string{}
	indent := -1
	n := 0
	for n < len(data) {
		line, _ := cutLine(data[n:])
		ind := leadingSpaces(line)
		if ind == 0 {
			break
		}
		if indent < 0 {
			indent = ind
		}
		if ind != indent || ind == len(line) || line[ind] == ' ' {
			return nil, 0, false
		}
		k, val, ok := cutScalarKey(line[ind:])
		if !ok || val == nil {
			return nil, 0, false
		}
		tag, ok := stringValue(k)
		if !ok {
			return nil, 0, false
		}
		text, ok := stringValue(val)
		if !ok {
			return nil, 0, false
		}
		if _, dup := m[tag]; dup {
			return nil, 0, false
		}
		m[tag] = text
		n += len(line) + 1
	}
	if len(m) == 0 {
		return nil, 0, false
	}
	return m, min(n, len(data)), true
}

// cutLine splits data at its first newline: the line without it, and
// what follows.
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

func leadingSpaces(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// cutKey splits "name: value" (value nil for "name:" at the end of the
// line), name being letters only.
func cutKey(line []byte) (key, val []byte, ok bool) {
	i := 0
	for i < len(line) && ('a' <= line[i] && line[i] <= 'z' || 'A' <= line[i] && line[i] <= 'Z') {
		i++
	}
	if i == 0 || i == len(line) || line[i] != ':' {
		return nil, nil, false
	}
	if i+1 == len(line) {
		return line[:i], nil, true
	}
	if line[i+1] != ' ' || i+2 == len(line) {
		return nil, nil, false
	}
	return line[:i], line[i+2:], true
}

// cutScalarKey splits "key: value" where key is a scalar as stringValue
// reads it (a locale tag, maybe quoted).
func cutScalarKey(line []byte) (key, val []byte, ok bool) {
	var i int
	switch line[0] {
	case '\'', '"':
		// The closing quote: the first one not doubled (single) or the
		// first one (double, which has no escapes here).
		q := line[0]
		i = 1
		for ; i < len(line); i++ {
			if line[i] == q {
				if q == '\'' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		if i == len(line) {
			return nil, nil, false
		}
		i++
	default:
		i = bytes.Index(line, []byte(": "))
		if i < 0 {
			return nil, nil, false
		}
	}
	if i+2 > len(line) || line[i] != ':' || line[i+1] != ' ' || i+2 == len(line) {
		return nil, nil, false
	}
	return line[:i], line[i+2:], true
}

// stringValue reads a scalar that yaml.v3 decodes into a string field as
// its text: a single-quoted one, a double-quoted one without escapes, or
// a plain one that is not null and holds nothing yaml.v3 would read as
// structure, a comment or a continuation.
func stringValue(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '\'':
		if len(v) < 2 || v[len(v)-1] != '\'' {
			return "", false
		}
		inner := v[1 : len(v)-1]
		if bytes.IndexByte(inner, '\'') < 0 {
			return string(inner), true
		}
		var b strings.Builder
		for i := 0; i < len(inner); i++ {
			if inner[i] == '\'' {
				if i+1 >= len(inner) || inner[i+1] != '\'' {
					return "", false
				}
				i++
			}
			b.WriteByte(inner[i])
		}
		return b.String(), true
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			return "", false
		}
		inner := v[1 : len(v)-1]
		if bytes.IndexByte(inner, '"') >= 0 || bytes.IndexByte(inner, '\\') >= 0 {
			return "", false
		}
		return string(inner), true
	}
	if !plainString(v) {
		return "", false
	}
	return string(v), true
}

// plainString reports whether v, a plain scalar, is read by yaml.v3 as a
// string of exactly its bytes.
func plainString(v []byte) bool {
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '<', '=', '~':
		return false
	}
	last := v[len(v)-1]
	if last == ' ' || last == ':' {
		return false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) {
		return false
	}
	switch string(v) {
	case "null", "Null", "NULL":
		return false
	}
	return true
}

// intValue reads a plain decimal integer as yaml.v3 reads it into an int:
// no sign but "-", no leading zero (yaml.v3 reads 010 as octal), no
// separators, at most 18 digits.
func intValue(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	d := v
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && (len(d) > 1 || len(v) > 1) {
		return 0, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// floatValue reads a plain decimal number (an integer as intValue reads
// it, or one with a fraction) as yaml.v3 reads it into a float64.
func floatValue(v []byte) (float64, bool) {
	intPart, frac, hasFrac := bytes.Cut(v, []byte("."))
	if _, ok := intValue(intPart); !ok {
		return 0, false
	}
	if hasFrac {
		if len(frac) == 0 || len(frac) > 20 {
			return 0, false
		}
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// timeValue reads a plain RFC 3339 time with the layout yaml.v3 tries
// first for a timestamp.
func timeValue(v []byte) (time.Time, bool) {
	// YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)
	const head = len("2006-01-02T15:04:05")
	if len(v) < head+1 {
		return time.Time{}, false
	}
	for i, c := range v[:head] {
		switch i {
		case 4, 7:
			if c != '-' {
				return time.Time{}, false
			}
		case 10:
			if c != 'T' {
				return time.Time{}, false
			}
		case 13, 16:
			if c != ':' {
				return time.Time{}, false
			}
		default:
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
		}
	}
	tail := v[head:]
	if tail[0] == '.' {
		i := 1
		for i < len(tail) && '0' <= tail[i] && tail[i] <= '9' {
			i++
		}
		if i == 1 || i > 10 {
			return time.Time{}, false
		}
		tail = tail[i:]
	}
	switch {
	case len(tail) == 1 && tail[0] == 'Z':
	case len(tail) == 6 && (tail[0] == '+' || tail[0] == '-') && tail[3] == ':' &&
		isDigits(tail[1:3]) && isDigits(tail[4:6]):
	default:
		return time.Time{}, false
	}
	t, err := time.Parse("2006-1-2T15:4:5.999999999Z07:00", string(v))
	return t, err == nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainText reports whether data holds only what the fast reader handles
// as yaml.v3 does: printable ASCII and newlines, and UTF-8 that yaml.v3
// reads as printable text (no byte order mark, no C1 controls, none of
// YAML 1.1's extra line breaks U+0085, U+2028, U+2029).
func plainText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c != '\n' && (c < 0x20 || c == 0x7f) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError ||
			r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff ||
			0xd800 <= r && r <= 0xdfff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}
