package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

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
	r.commit(srcDay(0), files)
	r.push(false)
	cache := t.TempDir()
	open := func() *Engine {
		t.Helper()
		e, err := Open(context.Background(), Config{Site: r.site(), CacheDir: cache, Now: func() time.Time { return now }})
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
	r.commit(srcDay(1), map[string]string{"folio.yaml": modelYAML})
	r.push(false)
	e = open()
	if e.models["main"].gen == 0 {
		t.Error("a changed model took the cached results")
	}
	want = problems(e)
	e.Close()

	// A corrupt file: ignored, documents validated.
	path := e.src.validPath()
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
// index keys them by.
func TestPersistedResultsGet(t *testing.T) {
	p := &persistedResults{index: map[uint64]int32{}}
	var a, b plumbing.Hash
	for i := range a {
		a[i], b[i] = byte(i), byte(i)
	}
	b[19] = 0xff // same first 8 bytes as a
	add := func(h plumbing.Hash, ext, typ, msg string) {
		p.add(persistEntry{blob: h, ext: ext, typ: typ, res: docResult{vs: []schema.Violation{{Message: msg}}}})
	}
	add(a, ".md", "type:posts", "a md posts")
	add(b, ".md", "type:posts", "b md posts")
	add(a, ".yaml", "type:posts", "a yaml posts")
	add(a, ".md", "type:docs", "a md docs")
	for _, c := range []struct {
		h        plumbing.Hash
		ext, typ string
		want     string
	}{
		{a, ".md", "type:posts", "a md posts"},
		{b, ".md", "type:posts", "b md posts"},
		{a, ".yaml", "type:posts", "a yaml posts"},
		{a, ".md", "type:docs", "a md docs"},
		{b, ".md", "type:docs", ""},
		{b, ".yaml", "type:posts", ""},
		{plumbing.Hash{1}, ".md", "type:posts", ""},
	} {
		r, ok := p.get(c.h, c.ext, c.typ)
		got := ""
		if ok {
			got = r.vs[0].Message
		}
		if got != c.want {
			t.Errorf("get(%x, %s, %s) = %q, want %q", c.h[:], c.ext, c.typ, got, c.want)
		}
	}
}
