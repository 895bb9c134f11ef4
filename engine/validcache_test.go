package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content/schema"
)

// TestValidationCache: a restart on the same commit and model takes the
// validation results the last run kept (no document is validated again)
// and reports the same problems; a changed model validates afresh; a
// corrupt file is ignored.
func TestValidationCache(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	files := map[string]string{"folio.yaml": modelYAML + "      sku: {kind: string, unique: true}\n"}
	for i := range 40 {
		price := fmt.Sprint(i)
		if i%7 == 0 {
			price = "cheap" // a violation
		}
		files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: P%d\nprice: %s\nsku: S%d\n---\nBody\n", i, price, i%30)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	cache := t.TempDir()
	open := func() *Engine {
		t.Helper()
		e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	want := problems(e)
	if want == "" || e.models["main"].gen == 0 {
		t.Fatalf("first start: problems %q, validations %d", want, e.models["main"].gen)
	}
	body := itemBody(t, e, "posts", "p00")
	e.Close()

	e = open()
	if got := problems(e); got != want {
		t.Errorf("restart: problems\n%s\nwant\n%s", got, want)
	}
	if n := e.models["main"].gen; n != 0 {
		t.Errorf("restart validated %d times, want 0 (results from the cache)", n)
	}
	if got := itemBody(t, e, "posts", "p00"); got != body {
		t.Errorf("restart serves %s, want %s", got, body)
	}
	e.Close()

	// Another model: everything is validated again.
	r.Commit(srcDay(1), map[string]string{"folio.yaml": modelYAML})
	r.Push(false)
	e = open()
	if e.models["main"].gen == 0 {
		t.Error("a changed model took the cached results")
	}
	want = problems(e)
	e.Close()

	// A corrupt file: ignored, documents validated.
	path := validPath(e.src)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	if e.models["main"].gen == 0 || problems(e) != want {
		t.Errorf("after a corrupt file: validations %d, problems %q", e.models["main"].gen, problems(e))
	}
}

// TestPersistedResultsGet: results are told apart by the whole blob, the
// extension and the type, also when blobs share the first 8 bytes the
// index keys them by; asked in the file's order or not.
func TestPersistedResultsGet(t *testing.T) {
	var a, b plumbing.Hash
	for i := range a {
		a[i], b[i] = byte(i), byte(i)
	}
	b[19] = 0xff // same first 8 bytes as a
	type ask struct {
		h        plumbing.Hash
		ext, typ string
		want     string
	}
	stored := []ask{
		{a, ".md", "type:posts", "a md posts"},
		{b, ".md", "type:posts", "b md posts"},
		{a, ".yaml", "type:posts", "a yaml posts"},
		{a, ".md", "type:docs", "a md docs"},
	}
	missing := []ask{
		{b, ".md", "type:docs", ""},
		{b, ".yaml", "type:posts", ""},
		{plumbing.Hash{1}, ".md", "type:posts", ""},
	}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {0, 2, 1, 3}, {1, 3, 0, 2}} {
		p := &persistedResults{}
		for _, e := range stored {
			p.entries = append(p.entries, persistEntry{blob: e.h, ext: e.ext, typ: e.typ, res: newDocResult([]schema.Violation{{Message: e.want}}, nil, nil)})
		}
		var asks []ask
		for i, j := range order {
			asks = append(asks, stored[j])
			if i == 1 {
				asks = append(asks, missing...)
			}
		}
		for _, c := range asks {
			r, ok := p.get(c.h, c.ext, c.typ)
			got := ""
			if ok {
				got = r.violations()[0].Message
			}
			if got != c.want {
				t.Errorf("order %v: get(%x, %s, %s) = %q, want %q", order, c.h[:], c.ext, c.typ, got, c.want)
			}
		}
		if slices.Equal(order, []int{0, 1, 2, 3}) && p.index == nil {
			t.Error("missing documents were answered without the index")
		}
	}
	// asked in the file's order, no index is made
	p := &persistedResults{}
	for _, e := range stored {
		p.entries = append(p.entries, persistEntry{blob: e.h, ext: e.ext, typ: e.typ})
	}
	for _, e := range stored {
		if _, ok := p.get(e.h, e.ext, e.typ); !ok {
			t.Fatalf("%v not found", e)
		}
	}
	if p.index != nil {
		t.Error("the index was made for results asked in order")
	}
}

func TestParseHash(t *testing.T) {
	h := plumbing.NewHash("0123456789abcdefABCDEF0123456789abcdef01")
	if got, ok := parseHash("0123456789abcdefABCDEF0123456789abcdef01"); !ok || got != h {
		t.Errorf("parseHash = %x, %v; want %x", got, ok, h)
	}
	for _, s := range []string{"", "0123", "0123456789abcdefABCDEF0123456789abcdef0g", "0123456789abcdefABCDEF0123456789abcdef012", " 123456789abcdefABCDEF0123456789abcdef01"} {
		if _, ok := parseHash(s); ok {
			t.Errorf("parseHash(%q) ok", s)
		}
	}
}

// TestValidationCacheNotRewrittenPerPush: a reload that validates a few
// documents leaves the validation cache's file as it is (it was
// rewritten whole after every push); Close writes what it lacks, and a
// restart then validates nothing and reports what the running engine
// did.
func TestValidationCacheNotRewrittenPerPush(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	files := map[string]string{"folio.yaml": modelYAML}
	for i := range 40 {
		files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: P%d\nprice: %d\n---\nBody\n", i, i)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	cache := t.TempDir()
	open := func() *Engine {
		t.Helper()
		e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	if err := e.saveValidation(false); err != nil { // the first: the file has no results yet
		t.Fatal(err)
	}
	path := validPath(e.src)
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no validation cache after the first save: %v", err)
	}
	for i := range 3 {
		r.Commit(srcDay(1+i), map[string]string{fmt.Sprintf("content/posts/p%02d.md", i): fmt.Sprintf("---\ntitle: P%d\nprice: cheap%d\n---\nBody\n", i, i)})
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := e.saveValidation(false); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, first) {
			t.Fatalf("push %d rewrote the validation cache (err %v)", i, err)
		}
	}
	want := problems(e)
	if !strings.Contains(want, "p02.md") {
		t.Fatalf("the pushes' violations are not reported: %q", want)
	}
	e.Close()
	if got, err := os.ReadFile(path); err != nil || bytes.Equal(got, first) {
		t.Fatalf("Close did not write the pushes' results (err %v)", err)
	}
	e = open()
	defer e.Close()
	if n := e.models["main"].gen; n != 0 {
		t.Errorf("restart validated %d times, want 0 (results from the cache)", n)
	}
	if got := problems(e); got != want {
		t.Errorf("restart: problems\n%s\nwant\n%s", got, want)
	}
}

// TestDocResultSmall: the last load's checks and the results kept for the
// next load hold a result for every document (100k of them at 100k
// files), and most documents have no violation, unique value or bare
// reference: such a result is a nil pointer, not three empty slices.
func TestDocResultSmall(t *testing.T) {
	if n := unsafe.Sizeof(docResult{}); n > 8 {
		t.Fatalf("docResult is %d bytes, want at most 8", n)
	}
	if r := newDocResult(nil, []uniqueValue{}, nil); r.f != nil {
		t.Fatal("a result with nothing found holds findings")
	}
	r := newDocResult(nil, []uniqueValue{{"sku", "a1"}}, nil)
	if len(r.unique()) != 1 || r.violations() != nil || r.bare() != nil {
		t.Fatalf("findings read back as %v %v %v", r.violations(), r.unique(), r.bare())
	}
}
