package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// MaxDepth bounds how deeply maps and lists may nest in a document. Real
// content stays far below it; deeper input is an attack on a recursive
// parser or on JSON encoding later. The write API refuses a body nested
// deeper before it encodes it.
const MaxDepth = 100

const maxDepth = MaxDepth

// maxAliasNodes bounds the nodes that YAML alias expansion may add. Anchors
// in real content reuse small fragments; a "billion laughs" document needs
// exponentially many and is stopped here, long before memory grows.
const maxAliasNodes = 100_000

// problemAt builds a Problem whose Path Parse fills in later.
func problemAt(line int, format string, args ...any) Problem {
	return Problem{Line: line, Message: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// yamlParserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner). For those it reports a 0-based line (go-yaml's fail() adds one
// for scanner errors only), so one is added here.
var yamlParserErrors = []string{"did not find expected ',' or", "did not find expected '-' indicator",
	"did not find expected <", "did not find expected key", "did not find expected node content",
	"found duplicate %", "found incompatible YAML document", "found undefined tag handle"}

// yamlErrorLine returns the 1-based line of a yaml.v3 error and its message
// without the position. An error without a line is on line 1, except for
// errors that are not about syntax (unknown anchor), whose line is 0.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	msg = strings.TrimSpace(msg)
	for _, pe := range yamlParserErrors {
		if strings.HasPrefix(msg, pe) {
			return line + 1, msg
		}
	}
	if line == 0 && (strings.HasPrefix(msg, "found ") || strings.HasPrefix(msg, "did not find") ||
		strings.HasPrefix(msg, "mapping values") || strings.HasPrefix(msg, "could not find")) {
		line = 1
	}
	return line, msg
}

// flowQuestionHint explains the one YAML error real sites hit that other
// parsers let pass: a "?" inside a plain value of a {…} or […] flow
// collection (`- {label: Thumbnail Only?, name: preview_only}`, from a Decap
// config), which the YAML library folio uses rejects with "did not find
// expected ','". It returns "" for every other error.
func flowQuestionHint(src []byte, line int, msg string) string {
	if line < 1 || !strings.HasPrefix(msg, "did not find expected ','") {
		return ""
	}
	lines := bytes.SplitN(src, []byte("\n"), line+1)
	if len(lines) < line {
		return ""
	}
	l := lines[line-1]
	if bytes.IndexByte(l, '?') < 0 || bytes.IndexAny(l, "{[") < 0 {
		return ""
	}
	return ` (a "?" inside a {…} or […] value must be quoted: write "Only?", not Only?)`
}

// decodeYAML decodes one YAML mapping. offset is the file line just before
// src starts, so that problems carry file lines. lines, when not nil,
// receives the file line of each top-level key, and with deep of every
// nested key and list entry too, under its path (see Doc.Lines).
func decodeYAML(src []byte, offset int, lines map[string]int, deep bool) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		msg += flowQuestionHint(src, line, msg)
		if line > 0 {
			line += offset
		}
		return nil, problemAt(line, "invalid YAML: %s", msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return map[string]any{}, nil // empty document
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return map[string]any{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, problemAt(root.Line+offset, "expected a map of keys and values, found %s", yamlKind(root))
	}
	w := yamlWalker{offset: offset, lines: lines, deep: deep && lines != nil}
	v, err := w.value(root, 0)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

type yamlWalker struct {
	offset  int
	lines   map[string]int // top-level key lines, filled when not nil
	deep    bool           // also record nested keys' lines, by path
	path    []string       // the keys and indexes leading to the value walked
	aliased int            // nodes produced by alias expansion so far
	inAlias int            // >0 while expanding an alias
	// expanding holds the anchors being expanded, to catch an anchor that
	// contains an alias of itself.
	expanding []*yaml.Node
}

func (w *yamlWalker) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, problemAt(n.Line+w.offset, "nested more than %d levels deep", maxDepth)
	}
	if w.inAlias > 0 {
		w.aliased++
		if w.aliased > maxAliasNodes {
			return nil, problemAt(n.Line+w.offset, "YAML aliases expand to more than %d values", maxAliasNodes)
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		for _, a := range w.expanding {
			if a == n.Alias {
				return nil, problemAt(n.Line+w.offset, "alias *%s is inside its own anchor", n.Value)
			}
		}
		w.expanding = append(w.expanding, n.Alias)
		w.inAlias++
		v, err := w.value(n.Alias, depth)
		w.inAlias--
		w.expanding = w.expanding[:len(w.expanding)-1]
		return v, err
	case yaml.MappingNode:
		return w.mapping(n, depth)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			if w.deep && w.inAlias == 0 {
				w.path = append(w.path, strconv.Itoa(i))
				w.lines[LinePath(w.path)] = c.Line + w.offset
			}
			v, err := w.value(c, depth+1)
			if w.deep && w.inAlias == 0 {
				w.path = w.path[:len(w.path)-1]
			}
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		return w.scalar(n)
	}
	return nil, problemAt(n.Line+w.offset, "unsupported YAML node")
}

func (w *yamlWalker) mapping(n *yaml.Node, depth int) (any, error) {
	m := make(map[string]any, len(n.Content)/2)
	lines := make(map[string]int, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return nil, problemAt(k.Line+w.offset, "a key must be a plain value, found %s", yamlKind(k))
		}
		if first, dup := lines[k.Value]; dup {
			return nil, problemAt(k.Line+w.offset, "key %q repeated (first on line %d)", k.Value, first+w.offset)
		}
		lines[k.Value] = k.Line
		if depth == 0 && w.inAlias == 0 && w.lines != nil {
			w.lines[k.Value] = k.Line + w.offset
		}
		if w.deep && w.inAlias == 0 {
			w.path = append(w.path, k.Value)
			if depth > 0 {
				w.lines[LinePath(w.path)] = k.Line + w.offset
			}
		}
		v, err := w.value(vn, depth+1)
		if w.deep && w.inAlias == 0 {
			w.path = w.path[:len(w.path)-1]
		}
		if err != nil {
			return nil, err
		}
		m[k.Value] = v
	}
	// Keys of "<<: *anchor" merges fill in only what the map does not set
	// itself; of several merged maps the first wins, as YAML 1.1 says.
	for _, mn := range merges {
		srcs := []*yaml.Node{mn}
		if mn.Kind == yaml.SequenceNode {
			srcs = mn.Content
		}
		for _, s := range srcs {
			v, err := w.value(s, depth)
			if err != nil {
				return nil, err
			}
			mm, ok := v.(map[string]any)
			if !ok {
				return nil, problemAt(s.Line+w.offset, "\"<<\" merges only maps")
			}
			for k, v := range mm {
				if _, set := m[k]; !set {
					m[k] = v
				}
			}
		}
	}
	return m, nil
}

// scalar resolves a YAML scalar. Timestamps stay strings, as yaml.v3 itself
// decodes them into an interface; see docs/content.md "Values".
func (w *yamlWalker) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, problemAt(n.Line+w.offset, "bad value %q", n.Value)
		}
		v, err := normNumber(v)
		if err != nil {
			return nil, problemAt(n.Line+w.offset, "%v", err)
		}
		return v, nil
	}
	return n.Value, nil // custom tags: keep the text
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a map"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a single value"
}

// normNumber makes integers int64 and rejects the floats JSON cannot carry.
func normNumber(v any) (any, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return float64(x), nil
		}
		return int64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("NaN and infinity are not allowed (JSON cannot carry them)")
		}
	}
	return v, nil
}

// decodeJSON decodes one JSON object.
func decodeJSON(src []byte, offset int) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return nil, problemAt(offset+lineAt(src, int(dec.InputOffset())), "invalid JSON: extra data after the object")
		}
	}
	if err != nil {
		line := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = offset + lineAt(src, int(se.Offset))
		}
		return nil, problemAt(line, "invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, problemAt(offset+1, "expected a JSON object")
	}
	if _, err := normTree(m, 0); err != nil {
		return nil, problemAt(0, "%v", err)
	}
	return m, nil
}

// decodeTOML decodes one TOML document.
func decodeTOML(src []byte, offset int) (map[string]any, error) {
	if line := tomlTooDeep(src); line > 0 {
		return nil, problemAt(offset+line, "nested more than %d levels deep", maxDepth)
	}
	m := map[string]any{}
	if err := toml.Unmarshal(src, &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, problemAt(offset+pe.Position.Line, "invalid TOML: %s", pe.Message)
		}
		return nil, problemAt(0, "invalid TOML: %v", err)
	}
	if _, err := normTree(m, 0); err != nil {
		return nil, problemAt(0, "%v", err)
	}
	return m, nil
}

// tomlTooDeep returns the line where brackets nest beyond maxDepth, or 0.
// The TOML parser recurses without a limit and slows down quadratically on
// nested inline tables, so depth is checked before it runs. Strings and
// comments are skipped; the check is conservative, not a TOML parser.
func tomlTooDeep(src []byte) int {
	depth, line := 0, 1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			line++
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case '"', '\'':
			multi := i+2 < len(src) && src[i+1] == c && src[i+2] == c
			if multi {
				i += 3
				for i+2 < len(src) && !(src[i] == c && src[i+1] == c && src[i+2] == c) {
					if src[i] == '\\' && c == '"' {
						i++
					} else if src[i] == '\n' {
						line++
					}
					i++
				}
				i += 2
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' && c == '"' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth > maxDepth {
				return line
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0
}

// normTree normalises decoded JSON/TOML values in place to the shapes YAML
// gives: map[string]any, []any, string, int64, float64, bool, nil.
func normTree(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested more than " + strconv.Itoa(maxDepth) + " levels deep")
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n, err := normTree(e, depth+1)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case []any:
		for i, e := range x {
			n, err := normTree(e, depth+1)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	case []map[string]any: // TOML arrays of tables
		list := make([]any, len(x))
		for i, e := range x {
			n, err := normTree(e, depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = n
		}
		return list, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, errors.New("number " + string(x) + " out of range")
		}
		return f, nil
	case time.Time:
		return tomlTime(x), nil
	case int64, float64:
		return normNumber(x)
	}
	return v, nil
}

// tomlTime writes a TOML date/time as the string YAML would have kept, so
// that documents look the same whatever their format.
func tomlTime(t time.Time) string {
	switch t.Location().String() {
	case "date-local":
		return t.Format(time.DateOnly)
	case "datetime-local":
		return t.Format("2006-01-02T15:04:05.999999999")
	case "time-local":
		return t.Format("15:04:05.999999999")
	}
	return t.Format(time.RFC3339Nano)
}

// lineAt is the 1-based line of byte offset off in src.
func lineAt(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(src[:off], []byte{'\n'})
}
