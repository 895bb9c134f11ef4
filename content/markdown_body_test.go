package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A Markdown body encodes exactly as its HTML as a string would, with and
// without HTML escaping, in maps and structs, and renders once.
func TestMarkdown_JSON(t *testing.T) {
	src := "# Tom & Jerry\n\n<b>raw</b> \"quoted\" \u2028 line sep, <https://x.test/?a=1&b=2>, `a<b`\n\n| a |\n|---|\n| é |\n"
	doc := mustParse(t, "x.md", "---\ntitle: T\n---\n"+src)
	if doc.Body.Source() != src {
		t.Fatalf("source = %q, want %q", doc.Body.Source(), src)
	}
	if doc.Body.Rendered() {
		t.Fatal("rendered at parse time")
	}
	html := doc.Body.HTML()
	if !doc.Body.Rendered() || html == "" {
		t.Fatalf("HTML = %q", html)
	}
	for _, escape := range []bool{false, true} {
		enc := func(v any) string {
			var b bytes.Buffer
			e := json.NewEncoder(&b)
			e.SetEscapeHTML(escape)
			if err := e.Encode(v); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		type wrap struct {
			Data map[string]any `json:"data"`
		}
		got := enc(wrap{Data: map[string]any{"body": doc.Body, "n": 1}})
		want := enc(wrap{Data: map[string]any{"body": html, "n": 1}})
		if got != want {
			t.Errorf("escape %v:\n got %s\nwant %s", escape, got, want)
		}
	}
	var zero Markdown
	if b, err := json.Marshal(zero); err != nil || string(b) != `""` || zero.HTML() != "" || zero.Source() != "" {
		t.Errorf("zero Markdown = %s, %v", b, err)
	}
}

// Copies of a body share its one render, also when asked concurrently
// (run with -race).
func TestMarkdown_Shared(t *testing.T) {
	doc := mustParse(t, "x.md", post(3))
	want, _ := Parse("y.md", []byte(post(3)))
	copies := []Markdown{doc.Body, doc.Body}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = copies[i%2].HTML() })
	}
	wg.Wait()
	for i := range got {
		if got[i] != want.Body.HTML() {
			t.Fatalf("render %d differs", i)
		}
	}
	if !doc.Body.Rendered() {
		t.Error("the copies' render did not reach the document")
	}
}

// A body that did not come through Parse is still bounded: nested deeper
// than the limit, it renders empty instead of holding goldmark.
func TestMarkdown_DepthGuardAtRender(t *testing.T) {
	deep := NewMarkdown(strings.Repeat("> ", maxMarkdownDepth+1) + "x\n")
	if html := deep.HTML(); html != "" {
		t.Fatalf("HTML = %q, want empty", html)
	}
	if html := NewMarkdown(strings.Repeat("> ", 3) + "x\n").HTML(); !strings.Contains(html, "<blockquote>") {
		t.Fatalf("HTML = %q", html)
	}
}

// A lazy body reads its source on demand, each time (it keeps none),
// renders once, and encodes exactly as the same body held in memory; a
// source it cannot read makes it fail to encode, not encode empty.
func TestMarkdown_Lazy(t *testing.T) {
	src := post(2)
	held := NewMarkdown(src)
	var reads atomic.Int64
	lazy := NewLazyMarkdown(func() (string, error) { reads.Add(1); return src, nil })
	if !lazy.Lazy() || held.Lazy() || (Markdown{}).Lazy() {
		t.Fatal("Lazy() wrong")
	}
	if lazy.Source() != src || lazy.Source() != src || reads.Load() != 2 {
		t.Fatalf("Source read %d times", reads.Load())
	}
	if lazy.Rendered() {
		t.Fatal("rendered before use")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { lazy.HTML() })
	}
	wg.Wait()
	if lazy.HTML() != held.HTML() || reads.Load() != 3 {
		t.Fatalf("HTML differs or read %d times (want one read for the render)", reads.Load())
	}
	a, errA := json.Marshal(map[string]any{"b": lazy})
	b, errB := json.Marshal(map[string]any{"b": held})
	if errA != nil || errB != nil || string(a) != string(b) {
		t.Fatalf("JSON %s (%v), want %s (%v)", a, errA, b, errB)
	}

	gone := errors.New("blob gone")
	bad := NewLazyMarkdown(func() (string, error) { return "", gone })
	if s, err := bad.SourceErr(); s != "" || !errors.Is(err, gone) {
		t.Fatalf("SourceErr = %q, %v", s, err)
	}
	if _, err := json.Marshal(map[string]any{"b": bad}); !errors.Is(err, gone) {
		t.Fatalf("encoding an unreadable body: err = %v", err)
	}
}

// A render that fails (a source it cannot read now, a panic) is an error
// each time, kept nowhere: once the source reads again, the body renders.
func TestMarkdown_RenderRetries(t *testing.T) {
	var fail atomic.Int64 // 0: read, 1: error, 2: panic
	gone := errors.New("blob gone")
	m := NewLazyMarkdown(func() (string, error) {
		switch fail.Load() {
		case 1:
			return "", gone
		case 2:
			panic("renderer bug")
		}
		return "*back*", nil
	})
	fail.Store(1)
	for range 2 {
		if html, err := m.Render(); html != "" || !errors.Is(err, gone) {
			t.Fatalf("unreadable source: %q, %v", html, err)
		}
	}
	fail.Store(2)
	if _, err := m.Render(); !errors.Is(err, ErrRenderPanic) || !strings.Contains(err.Error(), "renderer bug") {
		t.Fatalf("panic: err = %v", err)
	}
	if _, err := json.Marshal(map[string]any{"b": m}); !errors.Is(err, ErrRenderPanic) {
		t.Fatalf("encoding a body whose render panics: err = %v", err)
	}
	if m.Rendered() {
		t.Fatal("a failed render is kept")
	}
	fail.Store(0)
	if html, err := m.Render(); err != nil || html != "<p><em>back</em></p>\n" {
		t.Fatalf("readable again: %q, %v", html, err)
	}
	fail.Store(1)
	if html, err := m.Render(); err != nil || html == "" {
		t.Fatalf("a rendered body read its source again: %q, %v", html, err)
	}
}
