package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchEngineSite is the 10k-file site of the engine benchmarks: the
// folio-gen site named by FOLIO_BENCH_SITE (a bare repository, e.g.
// bench/out/data/site-n10000-s1/site.git, cloned so pushes never change
// it), else benchSite's generated one.
func benchEngineSite(b *testing.B) string {
	if dir := os.Getenv("FOLIO_BENCH_SITE"); dir != "" {
		bare := filepath.Join(b.TempDir(), "site.git")
		args := []string{"clone", "-q", "--bare"}
		// FOLIO_BENCH_SITE_CONFIG: settings of the served clone, such as
		// "core.looseCompression=0" (docs/deploy.md)
		for _, kv := range strings.Fields(os.Getenv("FOLIO_BENCH_SITE_CONFIG")) {
			args = append(args, "-c", kv)
		}
		srcGit(b, filepath.Dir(bare), append(args, dir, bare)...)
		return bare
	}
	return benchSite(b, 10000, 50)
}

// BenchmarkEngine measures what a server feels on a 10k-file site: Open
// with an empty parse cache up to the first encoded page list and item
// (cold start), and a one-file push up to the changed item's new body
// (Reload: load, assemble, view, encode).
func BenchmarkEngine(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a large repository")
	}
	benchEngine(b, benchEngineSite(b))
}

// benchEngineModel declares the front matter of benchSite's files: ten
// fields for posts and docs, some of them with defaults.
const benchEngineModel = `types:
  posts:
    fields: &fields
      title: {kind: string, required: true, maxLength: 200}
      date: {kind: datetime, required: true}
      tags: {kind: list, of: string, max: 10}
      draft: boolean
      weight: {kind: integer, min: 0}
      summary: {kind: text, maxLength: 500}
      category: {kind: enum, values: [news, guides], default: news}
      author: {kind: reference, to: posts}
      cover: media
      featured: {kind: boolean, default: false}
  docs:
    fields: *fields
globals:
  fields:
    siteName: {kind: string, required: true}
`

// BenchmarkEngineModel is BenchmarkEngine on the same site with a content
// model of ten fields per type (benchEngineModel): the cost of validating
// every document at a cold start and the changed one at a reload.
func BenchmarkEngineModel(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a large repository")
	}
	site := benchEngineSite(b)
	work := filepath.Join(b.TempDir(), "work")
	srcGit(b, filepath.Dir(work), "clone", "-q", site, work)
	r := &srcTestRepo{TB: b, Dir: work, Bare: site}
	r.Commit(srcT0.AddDate(2, 0, 0), map[string]string{"folio.yaml": benchEngineModel})
	r.Push(false)
	benchEngine(b, site)
}

func benchEngine(b *testing.B, site string) {
	ctx := context.Background()
	open := func(b *testing.B, cacheDir string) *Engine {
		e, err := Open(ctx, Config{Site: site, CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	firstItem := func(b *testing.B, e *Engine) (string, string) {
		site := e.Published().Site
		for _, typ := range []string{"posts", "docs"} {
			for _, it := range site.Items[typ] {
				if it.Meta.Visible(it.PublishedAt, e.cfg.Now()) {
					return typ, it.Meta.Path
				}
			}
		}
		b.Fatal("no visible item")
		return "", ""
	}
	if e := open(b, b.TempDir()); len(e.Status().Problems) > 0 {
		b.Fatalf("the site has problems: %v", e.Status().Problems[0])
	} else {
		e.Close()
	}
	serve := func(b *testing.B, e *Engine) {
		v := e.View(false)
		for _, r := range v.Pages() {
			r.Body()
		}
	}

	b.Run("Cold", func(b *testing.B) {
		for b.Loop() {
			e := open(b, b.TempDir())
			serve(b, e)
			b.StopTimer()
			e.Close()
			b.StartTimer()
		}
	})

	b.Run("ReloadOneFile", func(b *testing.B) {
		e := open(b, b.TempDir())
		defer e.Close()
		typ, p := firstItem(b, e)
		r, orig := benchWorkClone(b, site, p)
		var slug string
		for _, it := range e.Published().Site.Items[typ] {
			if it.Meta.Path == p {
				slug = it.Slug
			}
		}
		n := 0
		for b.Loop() {
			b.StopTimer()
			n++
			marker := fmt.Sprintf("edit %d", n)
			r.Commit(srcT0.AddDate(1, 0, n), map[string]string{p: string(orig) + "\n" + marker + "\n"})
			r.Push(false)
			b.StartTimer()
			if err := e.Reload(ctx); err != nil {
				b.Fatal(err)
			}
			t, ok := e.View(false).Type(typ)
			if !ok {
				b.Fatal("no type")
			}
			res, ok := t.Item(slug)
			if !ok {
				b.Fatalf("no item %s", slug)
			}
			body, _, _ := res.Body()
			if !strings.Contains(string(body), marker) {
				b.Fatalf("item does not show %q", marker)
			}
		}
	})
	// The first request on a branch one file ahead of the served one:
	// its snapshot built from the published one's.
	b.Run("BranchAhead", func(b *testing.B) {
		e := open(b, b.TempDir())
		defer e.Close()
		_, p := firstItem(b, e)
		r, orig := benchWorkClone(b, site, p)
		n := 0
		for b.Loop() {
			b.StopTimer()
			n++
			branch := fmt.Sprintf("ahead-%d", n)
			r.Commit(srcT0.AddDate(1, 0, n), map[string]string{p: string(orig) + "\n" + branch + "\n"})
			srcGit(b, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
			srcGit(b, r.Dir, "reset", "-q", "--hard", "HEAD~1")
			b.StartTimer()
			ref, err := e.ResolveRef(ctx, branch)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.RefSnapshot(ctx, ref); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchWorkClone is a work clone of the bare site that pushes to it, and
// the bytes of its file p.
func benchWorkClone(b *testing.B, site, p string) (*srcTestRepo, []byte) {
	b.Helper()
	work := filepath.Join(b.TempDir(), "work")
	// only p checked out: a work tree of a 1M-file site takes minutes
	srcGit(b, filepath.Dir(work), "clone", "-q", "--sparse", site, work)
	srcGit(b, work, "sparse-checkout", "set", "--no-cone", "/"+p)
	orig, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(p)))
	if err != nil {
		b.Fatal(err)
	}
	return &srcTestRepo{TB: b, Dir: work, Bare: site}, orig
}
