package write

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// The encoders write against the cap (issue 29): a change whose file
// would be over content.MaxFileSize stops the encoder there with a
// TooLarge error, in each format, instead of building the whole file.
func TestEncodersStopAtTheCap(t *testing.T) {
	// 60,000 strings of 80 bytes: 4.8 MB as values, 5 MB as a YAML list
	// of "- xxxx…" lines, more as indented JSON or TOML; fewer tokens than
	// MaxTokens, so only the encoders' cap stands in the way. (600,000
	// short strings took 4.4 s of CPU under -race to encode.)
	list := make([]any, 60_000)
	for i := range list {
		list[i] = strings.Repeat("abcd", 20)
	}
	ch := change{set: map[string]any{"list": list}}
	for _, tc := range []struct {
		name string
		edit func() ([]byte, error)
	}{
		{"yaml", func() ([]byte, error) { return editYAML([]byte("title: x\n"), ch) }},
		{"json", func() ([]byte, error) { return editJSON([]byte(`{"title": "x"}`), ch, true) }},
		{"toml", func() ([]byte, error) {
			return editTOML([]byte("title = 'x'\n"), change{set: map[string]any{"t": map[string]any{"list": list}}})
		}},
	} {
		out, err := tc.edit()
		if fault.CodeOf(err) != fault.TooLarge || out != nil {
			t.Errorf("%s: %d bytes, %v; want a TooLarge error", tc.name, len(out), err)
		}
	}
	var b capBuffer
	if _, err := b.WriteString(strings.Repeat("x", content.MaxFileSize)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteString("y"); err == nil || b.Len() != content.MaxFileSize {
		t.Fatalf("past the cap: %v, %d bytes", err, b.Len())
	}
	if _, err := b.WriteString(""); err == nil {
		t.Fatal("a buffer over its cap took another write")
	}
}

// checkSize measures a document before anything encodes it.
func TestCheckSize(t *testing.T) {
	deep := any("leaf")
	for range content.MaxDepth + 1 {
		deep = map[string]any{"a": deep}
	}
	many := make([]any, MaxTokens)
	big := strings.Repeat("x", content.MaxFileSize/2+1)
	body := strings.Repeat("x", content.MaxFileSize/2)
	for _, tc := range []struct {
		name string
		d    Doc
		code fault.Code
	}{
		{"deep", Doc{Fields: map[string]any{"x": deep}}, fault.Invalid},
		{"many", Doc{Fields: map[string]any{"x": many}}, fault.TooLarge},
		{"big", Doc{Fields: map[string]any{"a": big}, Body: &body}, fault.TooLarge},
	} {
		if err := checkSize(tc.d); fault.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want code %v", tc.name, err, tc.code)
		}
	}
	if err := checkSize(Doc{Fields: map[string]any{"a": big, "list": many[:1000]}}); err != nil {
		t.Errorf("within the limits: %v", err)
	}
}

// indentedAtLeast never says more than json.Indent writes.
func TestIndentedAtLeast(t *testing.T) {
	for _, raw := range []string{`1`, `"a,b"`, `{}`, `[]`, `[1,2,3]`, `{"a":[1,{"b":[]}],"c":{}}`, `[[[1,2],[3]],"x\"y,"]`, ` { "a" : [ 1 , 2 ] } `} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(raw), "  ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentedAtLeast([]byte(raw)); got > b.Len() {
			t.Errorf("%s: %d, json.Indent writes %d", raw, got, b.Len())
		}
	}
}
