package write

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/content"
)

// Front matter formats of a new document (folio.yaml: types.<type>.format).
const (
	FormatYAML = "yaml"
	FormatTOML = "toml"
	FormatJSON = "json"
)

// file is a content file split into its parts: the front matter (or the
// whole data file) in its format, and the Markdown body.
type file struct {
	format   string // FormatYAML, FormatTOML or FormatJSON
	markdown bool   // a .md file: front matter plus body
	open     string // the front matter's opening line ("---", "+++", ";;;", "---json"); "" for a data file or JSON braces
	close    string // its closing line
	braces   bool   // JSON front matter written as a bare { … } object
	fm       []byte // the front matter, without its delimiter lines
	body     []byte // the Markdown body
}

// isMarkdownPath tells whether p is a front matter and body file: Markdown,
// MDX, or HTML (Hugo's HTML content files, whose body is written as given).
func isMarkdownPath(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".markdown" || content.IsHTMLExt(ext) || content.IsMDXExt(ext)
}

func dataFormat(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".toml":
		return FormatTOML
	case ".json":
		return FormatJSON
	}
	return FormatYAML
}

var fmDelims = []struct{ open, close, format string }{
	{"---", "---", FormatYAML}, {"---yaml", "---", FormatYAML},
	{"+++", "+++", FormatTOML}, {"---toml", "---", FormatTOML},
	{";;;", ";;;", FormatJSON}, {"---json", "---", FormatJSON},
}

// splitFile splits data, the bytes of the file at p; data nil is a new
// file, whose front matter is in format newFormat.
func splitFile(p string, data []byte, newFormat string) (*file, error) {
	if !isMarkdownPath(p) {
		return &file{format: dataFormat(p), fm: data}, nil
	}
	f := &file{markdown: true}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	line := strings.TrimRight(string(first), " \t\r")
	for _, d := range fmDelims {
		if line != d.open {
			continue
		}
		f.format, f.open, f.close = d.format, d.open, d.close
		end := 0
		for end <= len(rest) {
			l, _, found := bytes.Cut(rest[end:], []byte("\n"))
			if strings.TrimRight(string(l), " \t\r") == d.close {
				f.fm = rest[:end]
				if found {
					f.body = rest[end+len(l)+1:]
				}
				return f, nil
			}
			if !found {
				break
			}
			end += len(l) + 1
		}
		return nil, errors.New("the front matter has no closing line")
	}
	if line == "{" {
		// JSON front matter as a bare object, closed by a line "}".
		end := len(first) + 1
		for end <= len(data) {
			l, _, found := bytes.Cut(data[end:], []byte("\n"))
			if strings.TrimRight(string(l), " \t\r") == "}" {
				f.format, f.braces = FormatJSON, true
				f.fm = data[:end+len(l)]
				if found {
					f.body = data[end+len(l)+1:]
				}
				return f, nil
			}
			if !found {
				break
			}
			end += len(l) + 1
		}
	}
	// No front matter: the whole file is the body.
	f.body = data
	f.format = newFormat
	f.open, f.close = delimsOf(newFormat)
	return f, nil
}

func delimsOf(format string) (string, string) {
	switch format {
	case FormatTOML:
		return "+++", "+++"
	case FormatJSON:
		return "---json", "---"
	}
	return "---", "---"
}

// bytes joins the parts back into a file.
func (f *file) bytes() []byte {
	if !f.markdown {
		return f.fm
	}
	var b bytes.Buffer
	if f.braces {
		b.Write(bytes.TrimRight(f.fm, "\n"))
		b.WriteString("\n")
	} else {
		b.WriteString(f.open + "\n")
		b.Write(f.fm)
		if len(f.fm) > 0 && f.fm[len(f.fm)-1] != '\n' {
			b.WriteString("\n")
		}
		b.WriteString(f.close + "\n")
	}
	b.Write(f.body)
	return b.Bytes()
}

// change is what a write does to a file's front matter and body.
type change struct {
	set    map[string]any // keys to set, with JSON-like values
	order  []string       // the order in which new keys are appended
	remove map[string]bool
	body   *string // nil: the body is kept
}

// apply rewrites f's front matter in its own format, keeping the order,
// formatting and comments of the keys the change does not touch, and
// sets the body.
func (f *file) apply(c change) error {
	var err error
	if len(c.set) > 0 || len(c.remove) > 0 {
		switch f.format {
		case FormatYAML:
			f.fm, err = editYAML(f.fm, c)
		case FormatTOML:
			f.fm, err = editTOML(f.fm, c)
		case FormatJSON:
			f.fm, err = editJSON(f.fm, c, f.braces || !f.markdown)
		}
		if err != nil {
			return err
		}
	}
	if c.body != nil {
		if !f.markdown && *c.body == "" {
			return nil // a data file has no body to empty
		}
		if !f.markdown {
			return &fieldError{"body", "this document is a data file (" + f.format + "); it has no Markdown body"}
		}
		b := *c.body
		if b != "" && !strings.HasSuffix(b, "\n") {
			b += "\n"
		}
		f.body = []byte(b)
	}
	return nil
}

// fieldError is a change that cannot be written, for one field.
type fieldError struct{ field, message string }

func (e *fieldError) Error() string { return e.field + ": " + e.message }

// sameValue tells whether a (as decoded from a file) and b (as the API
// gives it) are the same value: equal once both are in JSON's forms, or
// the same instant when both are dates.
func sameValue(a, b any) bool {
	if sameJSON(a, b) {
		return true
	}
	if isDateLike(a) && isDateLike(b) {
		ta, errA := content.ParseDate(a)
		tb, errB := content.ParseDate(b)
		return errA == nil && errB == nil && ta.Equal(tb)
	}
	return false
}

// sameJSON is reflect.DeepEqual(jsonForm(a), jsonForm(b)) walking maps and
// lists itself, with the common scalars compared as they are: jsonForm of
// a big value marshals and decodes it whole, which for a list of many
// objects cost more memory than the rest of a write.
func sameJSON(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		if len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !sameJSON(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !sameJSON(av[i], bv[i]) {
				return false
			}
		}
		return true
	case string:
		if bv, ok := b.(string); ok && (av == bv || utf8.ValidString(av) && utf8.ValidString(bv)) {
			return av == bv
		}
	case bool:
		if bv, ok := b.(bool); ok {
			return av == bv
		}
	case float64:
		if bv, ok := b.(float64); ok && !math.IsNaN(av) && !math.IsInf(av, 0) {
			return av == bv
		}
	}
	return reflect.DeepEqual(jsonForm(a), jsonForm(b))
}

func isDateLike(v any) bool {
	switch v.(type) {
	case string:
		return true
	}
	return reflect.TypeOf(v) != nil && reflect.TypeOf(v).String() == "time.Time"
}

func jsonForm(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// editYAML edits YAML through yaml.v3's node API, so that every key the
// change does not touch keeps its place, style and comments.
func editYAML(src []byte, c change) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("the front matter is not valid YAML: %v", err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the YAML is not a mapping of keys")
	}
	m := doc.Content[0]
	if m.Style&yaml.FlowStyle != 0 {
		m.Style = 0
	}
	index := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		index[m.Content[i].Value] = i
	}
	for k := range c.remove {
		i, ok := index[k]
		if !ok {
			continue
		}
		m.Content = slices.Delete(m.Content, i, i+2)
		index = map[string]int{}
		for j := 0; j+1 < len(m.Content); j += 2 {
			index[m.Content[j].Value] = j
		}
	}
	for _, k := range c.keys() {
		v := c.set[k]
		n, err := yamlValue(v)
		if err != nil {
			return nil, &fieldError{k, fmt.Sprintf("cannot be written as YAML: %v", err)}
		}
		quoteDelimiters(n)
		if i, ok := index[k]; ok {
			old := m.Content[i+1]
			var cur any
			if old.Decode(&cur) == nil && sameValue(cur, v) {
				continue
			}
			n.LineComment, n.FootComment = old.LineComment, old.FootComment
			m.Content[i+1] = n
			continue
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
		index[k] = len(m.Content)
		m.Content = append(m.Content, key, n)
	}
	if len(m.Content) == 0 {
		return nil, nil
	}
	// Encoded against the cap: a value that makes more YAML than a
	// content file may hold stops the encoder there.
	var b capBuffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		if overCap(err) {
			return nil, tooLargeEncoded("YAML")
		}
		return nil, fmt.Errorf("encode YAML: %v", err)
	}
	if err := enc.Close(); err != nil {
		if overCap(err) {
			return nil, tooLargeEncoded("YAML")
		}
		return nil, err
	}
	return b.Bytes(), nil
}

// quoteDelimiters writes a multi-line string that has a line like a front
// matter delimiter ("---") double-quoted: as a block scalar, that line
// would end the front matter.
func quoteDelimiters(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") {
		for _, l := range strings.Split(n.Value, "\n") {
			switch strings.TrimSpace(l) {
			case "---", "+++", ";;;", "...", "}", "{":
				n.Style = yaml.DoubleQuotedStyle
				return
			}
		}
	}
	for _, c := range n.Content {
		quoteDelimiters(c)
	}
}

// keys are the keys the change sets: existing ones in any order, new ones
// in c.order (then sorted).
func (c *change) keys() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range c.order {
		if _, ok := c.set[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	var rest []string
	for k := range c.set {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// editJSON keeps the order of the object's keys and the text of the
// values it does not change (re-indented).
func editJSON(src []byte, c change, _ bool) ([]byte, error) {
	type kv struct {
		k string
		v json.RawMessage
	}
	var pairs []kv
	trimmed := bytes.TrimSpace(src)
	if len(trimmed) > 0 {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		t, err := dec.Token()
		if err != nil || t != json.Delim('{') {
			return nil, errors.New("the JSON is not an object")
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("the JSON is not valid: %v", err)
			}
			k, _ := t.(string)
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("the JSON is not valid: %v", err)
			}
			pairs = append(pairs, kv{k, raw})
		}
	}
	out := pairs[:0]
	for _, p := range pairs {
		if !c.remove[p.k] {
			out = append(out, p)
		}
	}
	pairs = out
	for _, k := range c.keys() {
		v := c.set[k]
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &fieldError{k, fmt.Sprintf("cannot be written as JSON: %v", err)}
		}
		i := slices.IndexFunc(pairs, func(p kv) bool { return p.k == k })
		if i >= 0 {
			var cur any
			if json.Unmarshal(pairs[i].v, &cur) == nil && sameValue(cur, v) {
				continue
			}
			pairs[i].v = raw
			continue
		}
		pairs = append(pairs, kv{k, raw})
	}
	// Written against the cap (see editYAML).
	var b capBuffer
	b.WriteString("{\n")
	var ind bytes.Buffer
	for i, p := range pairs {
		key, _ := json.Marshal(p.k)
		b.WriteString("  ")
		b.Write(key)
		b.WriteString(": ")
		if b.Len()+indentedAtLeast(p.v) > content.MaxFileSize {
			return nil, tooLargeEncoded("JSON")
		}
		ind.Reset()
		if err := json.Indent(&ind, p.v, "  ", "  "); err != nil {
			return nil, err
		}
		if _, err := b.Write(ind.Bytes()); err != nil {
			return nil, tooLargeEncoded("JSON")
		}
		if i < len(pairs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if _, err := b.WriteString("}\n"); err != nil || b.over {
		return nil, tooLargeEncoded("JSON")
	}
	return b.Bytes(), nil
}

// editTOML edits the top-level keys written on one line each (key =
// value, before the first table) in place, line by line, so that other
// lines and comments stay as they are. A change that needs more (a
// table, a value written over several lines) re-encodes the whole front
// matter: key order and comments are then lost (TOML has no node API in
// Go that keeps them).
func editTOML(src []byte, c change) ([]byte, error) {
	var cur map[string]any
	if _, err := toml.Decode(string(src), &cur); err != nil {
		return nil, fmt.Errorf("the front matter is not valid TOML: %v", err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	top := len(lines) // first table header
	keyLine := map[string]int{}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			top = i
			break
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		var one map[string]any
		md, err := toml.Decode(t, &one)
		if err != nil || len(one) != 1 {
			continue
		}
		for k := range one {
			if len(md.Keys()) == 1 {
				keyLine[k] = i
			}
		}
	}
	simple := func(k string, v any) (string, bool) {
		switch v.(type) {
		case map[string]any:
			return "", false
		case []any:
			for _, e := range v.([]any) {
				if _, ok := e.(map[string]any); ok {
					return "", false
				}
			}
		}
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(map[string]any{k: v}); err != nil {
			return "", false
		}
		s := b.String()
		if strings.Count(strings.TrimRight(s, "\n"), "\n") > 0 {
			return "", false
		}
		return strings.TrimRight(s, "\n") + "\n", true
	}
	reencode := false
	for k := range c.remove {
		if _, ok := cur[k]; ok {
			if _, ok := keyLine[k]; !ok {
				reencode = true
			}
		}
	}
	for k, v := range c.set {
		if old, ok := cur[k]; ok && sameValue(old, v) {
			continue
		}
		if _, ok := simple(k, v); !ok {
			reencode = true
		}
		if _, ok := cur[k]; ok {
			if _, ok := keyLine[k]; !ok {
				reencode = true
			}
		}
	}
	if reencode {
		for k := range c.remove {
			delete(cur, k)
		}
		if cur == nil {
			cur = map[string]any{}
		}
		for k, v := range c.set {
			cur[k] = v
		}
		var b capBuffer // written against the cap (see editYAML)
		if err := toml.NewEncoder(&b).Encode(cur); err != nil {
			if overCap(err) {
				return nil, tooLargeEncoded("TOML")
			}
			return nil, fmt.Errorf("encode TOML: %v", err)
		}
		return b.Bytes(), nil
	}
	drop := map[int]bool{}
	for k := range c.remove {
		if i, ok := keyLine[k]; ok {
			drop[i] = true
		}
	}
	var added []string
	for _, k := range c.keys() {
		v := c.set[k]
		if old, ok := cur[k]; ok && sameValue(old, v) {
			continue
		}
		line, _ := simple(k, v)
		if i, ok := keyLine[k]; ok {
			lines[i] = line
			continue
		}
		added = append(added, line)
	}
	var b strings.Builder
	for i, l := range lines {
		if i == top {
			for _, a := range added {
				b.WriteString(a)
			}
			added = nil
		}
		if !drop[i] {
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n")
			}
		}
	}
	for _, a := range added {
		b.WriteString(a)
	}
	return []byte(b.String()), nil
}
