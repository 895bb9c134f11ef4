package gitsource

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content"
)

func TestSource_LocalBare(t *testing.T) {
	r := newSrcBareSite(t)
	want := r.Commit(srcDay(0), map[string]string{
		"globals.yaml":              "siteName: x\n",
		"content/posts/hello.md":    "# hello\n",
		"content/posts/a/b/deep.md": "deep\n",
		"README.md":                 "not content\n",
		"static/logo.svg":           "<svg/>",
	})
	r.Push(false)

	p := &srcTestParser{}
	src := openSrc(t, r.Site(), t.TempDir(), p)
	if src.Remote() {
		t.Fatal("a local path is not remote")
	}
	got, err := src.Resolve("main")
	if err != nil || got != want {
		t.Fatalf("Resolve(main) = %q, %v; want %q", got, err, want)
	}
	if _, err := src.Resolve("nope"); !errors.Is(err, ErrUnknownBranch) {
		t.Fatalf("Resolve(nope) err = %v, want ErrUnknownBranch", err)
	}
	tree := srcLoad(t, src, "main")
	if tree.Commit != want || !tree.Time.Equal(srcDay(0)) {
		t.Fatalf("tree = %s at %v, want %s at %v", tree.Commit, tree.Time, want, srcDay(0))
	}
	wantPaths := []string{"content/posts/a/b/deep.md", "content/posts/hello.md", "globals.yaml"}
	if got := srcPaths(tree); !reflect.DeepEqual(got, wantPaths) {
		t.Fatalf("paths = %v, want %v", got, wantPaths)
	}
	f := srcFile(t, tree, "content/posts/hello.md")
	if f.Err != nil || f.Doc == nil || f.Doc.Body.Source() != "# hello\n" {
		t.Fatalf("hello.md = %+v", f)
	}
	if p.count("README.md") != 0 {
		t.Fatal("irrelevant file was parsed")
	}
}

func TestSource_WorkTree(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	want := r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "committed\n"})
	// Uncommitted edits and files never reach a snapshot.
	r.Write(map[string]string{"content/posts/a.md": "edited\n", "content/posts/new.md": "new\n"})

	src := openSrc(t, r.Site(), "", &srcTestParser{})
	got, err := src.Resolve("main")
	if err != nil || got != want {
		t.Fatalf("Resolve = %q, %v; want %q", got, err, want)
	}
	tree := srcLoad(t, src, "main")
	if got := srcPaths(tree); !reflect.DeepEqual(got, []string{"content/posts/a.md"}) {
		t.Fatalf("paths = %v", got)
	}
	if body := srcFile(t, tree, "content/posts/a.md").Doc.Body.Source(); body != "committed\n" {
		t.Fatalf("body = %q, want the committed one", body)
	}
}

func TestSource_Remote(t *testing.T) {
	r := newSrcBareSite(t)
	c1 := r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "one\n"})
	r.Push(false)
	url := "file://" + r.Bare
	cacheDir := t.TempDir()

	src := openSrc(t, url, cacheDir, &srcTestParser{})
	if !src.Remote() {
		t.Fatal("a file:// URL is remote")
	}
	if !strings.HasPrefix(src.GitDir(), filepath.Join(cacheDir, "clones")) {
		t.Fatalf("clone at %s, want under the cache dir", src.GitDir())
	}
	if got, _ := src.Resolve("main"); got != c1 {
		t.Fatalf("Resolve = %s, want %s", got, c1)
	}

	t.Run("Fetch", func(t *testing.T) {
		c2 := r.Commit(srcDay(1), map[string]string{"content/posts/b.md": "two\n"})
		r.Push(false)
		srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/draft")
		if got, _ := src.Resolve("main"); got != c1 {
			t.Fatalf("before Fetch Resolve = %s, want still %s", got, c1)
		}
		if err := src.Fetch(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, _ := src.Resolve("main"); got != c2 {
			t.Fatalf("after Fetch Resolve = %s, want %s", got, c2)
		}
		if got, _ := src.Resolve("draft"); got != c2 {
			t.Fatalf("draft = %s, want %s", got, c2)
		}
		if got := srcPaths(srcLoad(t, src, "main")); len(got) != 2 {
			t.Fatalf("paths = %v", got)
		}
	})

	t.Run("ForcePush", func(t *testing.T) {
		srcGit(t, r.Dir, "reset", "-q", "--hard", c1)
		c3 := r.Commit(srcDay(2), map[string]string{"content/posts/c.md": "three\n"})
		r.Push(true)
		srcGit(t, r.Dir, "push", "-q", "origin", ":refs/heads/draft")
		if err := src.Fetch(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, _ := src.Resolve("main"); got != c3 {
			t.Fatalf("after force push Resolve = %s, want %s", got, c3)
		}
		if _, err := src.Resolve("draft"); !errors.Is(err, ErrUnknownBranch) {
			t.Fatalf("deleted branch: err = %v, want ErrUnknownBranch", err)
		}
		tree := srcLoad(t, src, "main")
		if got := srcPaths(tree); !reflect.DeepEqual(got, []string{"content/posts/a.md", "content/posts/c.md"}) {
			t.Fatalf("paths = %v", got)
		}
		if got := srcFile(t, tree, "content/posts/a.md").Updated; !got.Equal(srcDay(0)) {
			t.Fatalf("a.md updated %v, want %v", got, srcDay(0))
		}
	})

	t.Run("Reopen", func(t *testing.T) {
		again := openSrc(t, url, cacheDir, &srcTestParser{})
		if again.GitDir() != src.GitDir() {
			t.Fatalf("reopened clone at %s, want %s", again.GitDir(), src.GitDir())
		}
		want, _ := src.Resolve("main")
		if got, _ := again.Resolve("main"); got != want {
			t.Fatalf("Resolve = %s, want %s", got, want)
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		_, err := OpenSource(context.Background(), SourceConfig{Site: "file://" + filepath.Join(t.TempDir(), "none.git"), CacheDir: t.TempDir()})
		if err == nil {
			t.Fatal("opening a missing remote succeeded")
		}
	})
}

func TestSource_Updated(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/posts/a.md": "a1", "content/posts/b.md": "b1",
		"content/docs/x/c.md": "c1", "globals.yaml": "g1",
	})
	r.Commit(srcDay(1), map[string]string{"content/posts/a.md": "a2", "README.md": "r"})
	r.Commit(srcDay(2), map[string]string{"content/docs/x/d.md": "d1"})
	srcGit(t, r.Dir, "mv", "content/posts/b.md", "content/posts/b2.md")
	r.Commit(srcDay(3), nil)
	r.Commit(srcDay(4), map[string]string{"README.md": "r2"}) // touches no content
	r.Push(false)

	want := map[string]time.Time{
		"content/posts/a.md": srcDay(1), "content/posts/b2.md": srcDay(3),
		"content/docs/x/c.md": srcDay(0), "content/docs/x/d.md": srcDay(2),
		"globals.yaml": srcDay(0),
	}
	check := func(t *testing.T, tree *Tree, want map[string]time.Time) {
		t.Helper()
		if tree.Files.Len() != len(want) {
			t.Fatalf("paths = %v", srcPaths(tree))
		}
		for _, f := range tree.Files.All() {
			if !f.Updated.Equal(want[f.Path]) {
				t.Errorf("%s updated %v, want %v", f.Path, f.Updated, want[f.Path])
			}
		}
	}

	src := openSrc(t, r.Site(), "", &srcTestParser{})
	check(t, srcLoad(t, src, "main"), want)

	t.Run("Incremental", func(t *testing.T) {
		before := src.Stats().CommitsWalked
		r.Commit(srcDay(5), map[string]string{"content/posts/b2.md": "b3"})
		r.Commit(srcDay(6), map[string]string{"content/posts/new.md": "n"}, "globals.yaml")
		r.Push(false)
		delete(want, "globals.yaml")
		want["content/posts/b2.md"] = srcDay(5)
		want["content/posts/new.md"] = srcDay(6)
		check(t, srcLoad(t, src, "main"), want)
		if walked := src.Stats().CommitsWalked - before; walked != 2 {
			t.Fatalf("walked %d commits for two new ones, want 2", walked)
		}
		// A fresh source walks the whole history and agrees.
		check(t, srcLoad(t, openSrc(t, r.Site(), "", &srcTestParser{}), "main"), want)
	})

	t.Run("ForcePush", func(t *testing.T) {
		srcGit(t, r.Dir, "reset", "-q", "--hard", "HEAD~2")
		r.Commit(srcDay(7), map[string]string{"content/posts/a.md": "a3"})
		r.Push(true)
		check(t, srcLoad(t, src, "main"), map[string]time.Time{
			"content/posts/a.md": srcDay(7), "content/posts/b2.md": srcDay(3),
			"content/docs/x/c.md": srcDay(0), "content/docs/x/d.md": srcDay(2),
			"globals.yaml": srcDay(0),
		})
	})

	t.Run("HistoryLimit", func(t *testing.T) {
		lim, err := OpenSource(context.Background(), SourceConfig{Site: r.Site(), Parse: (&srcTestParser{}).parse, Relevant: srcRelevant, HistoryLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		tree := srcLoad(t, lim, "main")
		// Only the newest commit was compared: what it did not change gets
		// the time of the oldest commit looked at, its parent.
		if got := srcFile(t, tree, "content/posts/a.md").Updated; !got.Equal(srcDay(7)) {
			t.Errorf("a.md = %v, want %v", got, srcDay(7))
		}
		if got := srcFile(t, tree, "globals.yaml").Updated; !got.Equal(srcDay(4)) {
			t.Errorf("globals.yaml = %v, want %v", got, srcDay(4))
		}
	})
}

func TestSource_Symlink(t *testing.T) {
	r := newSrcBareSite(t)
	if err := os.MkdirAll(filepath.Join(r.Dir, "content/posts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(r.Dir, "content/posts/evil.md")); err != nil {
		t.Fatal(err)
	}
	r.Commit(srcDay(0), map[string]string{"content/posts/ok.md": "ok"})
	r.Push(false)

	p := &srcTestParser{}
	tree := srcLoad(t, openSrc(t, r.Site(), "", p), "main")
	f := srcFile(t, tree, "content/posts/evil.md")
	if f.Doc != nil || srcProblem(f.Err) != "symlink not followed" {
		t.Fatalf("evil.md = %+v, want the symlink problem", f)
	}
	if p.count("content/posts/evil.md") != 0 {
		t.Fatal("symlink was read and parsed")
	}
	if srcFile(t, tree, "content/posts/ok.md").Doc == nil {
		t.Fatal("ok.md not loaded")
	}
}

func TestSource_LargeAndBroken(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/posts/big.md":    strings.Repeat("x", content.MaxFileSize+1),
		"content/posts/broken.md": "BROKEN",
		"content/posts/fine.md":   "fine",
		// One blob under two extensions parses twice, once per parser.
		"content/posts/same.md":   "same",
		"content/posts/same.yaml": "same",
		"content/posts/same2.md":  "same",
	})
	r.Push(false)

	p := &srcTestParser{}
	src := openSrc(t, r.Site(), "", p)
	tree := srcLoad(t, src, "main")
	big := srcFile(t, tree, "content/posts/big.md")
	if big.Doc != nil || !strings.Contains(srcProblem(big.Err), "limit") {
		t.Fatalf("big.md = %v, want the size problem", big.Err)
	}
	if p.count("content/posts/big.md") != 0 {
		t.Fatal("oversized blob was parsed")
	}
	broken := srcFile(t, tree, "content/posts/broken.md")
	var prob content.Problem
	if broken.Doc != nil || !errors.As(broken.Err, &prob) || prob.Line != 1 {
		t.Fatalf("broken.md = %+v", broken)
	}
	if srcFile(t, tree, "content/posts/fine.md").Doc == nil {
		t.Fatal("fine.md not loaded")
	}
	if a, b := srcFile(t, tree, "content/posts/same.md").Doc, srcFile(t, tree, "content/posts/same2.md").Doc; a == nil || a != b {
		t.Fatal("one blob under one extension should be one document")
	}
	if got := p.count("content/posts/same.md") + p.count("content/posts/same2.md"); got != 1 {
		t.Fatalf("same blob parsed %d times, want once", got)
	}
	if p.count("content/posts/same.yaml") != 1 {
		t.Fatal("same blob as .yaml not parsed on its own")
	}
	if st := src.Stats(); st.Parsed != 3 {
		t.Fatalf("parsed %d, want 3 (fine, same.md, same.yaml; failures are not cached)", st.Parsed)
	}

	// A reload of a new commit parses only the changed blob; failures are
	// parsed again, they are not cached.
	r.Commit(srcDay(1), map[string]string{"content/posts/fine.md": "finer"})
	r.Push(false)
	srcLoad(t, src, "main")
	if st := src.Stats(); st.LastParsed != 1 {
		t.Fatalf("reload parsed %d, want 1", st.LastParsed)
	}
	if p.count("content/posts/broken.md") != 2 {
		t.Fatalf("broken.md parsed %d times, want 2", p.count("content/posts/broken.md"))
	}
}

func TestSource_Cache(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files["content/posts/"+n+".md"] = "post " + n
	}
	r.Commit(srcDay(0), files)
	r.Commit(srcDay(1), map[string]string{"content/posts/b.md": "post b2"})
	r.Push(false)
	cacheDir := t.TempDir()

	first := openSrc(t, r.Site(), cacheDir, &srcTestParser{})
	want := srcLoad(t, first, "main")
	if err := first.SaveCache(); err != nil {
		t.Fatal(err)
	}

	p := &srcTestParser{}
	second := openSrc(t, r.Site(), cacheDir, p)
	if st := second.Stats(); st.LoadedFromDisk != 4 {
		t.Fatalf("loaded %d documents from disk, want 4", st.LoadedFromDisk)
	}
	got := srcLoad(t, second, "main")
	if st := second.Stats(); st.Parsed != 0 || st.CommitsWalked != 0 {
		t.Fatalf("after restart: parsed %d, walked %d commits; want 0, 0", st.Parsed, st.CommitsWalked)
	}
	if d := srcTreeDiff(got, want); d != "" {
		t.Fatalf("restarted tree differs: %s", d)
	}
	for _, f := range got.Files.All() {
		if !f.Doc.Body.Lazy() {
			t.Fatalf("%s: body held in memory after a restart", f.Path)
		}
	}

	t.Run("OtherBuild", func(t *testing.T) {
		other, err := OpenSource(context.Background(), SourceConfig{Site: r.Site(), CacheDir: cacheDir,
			Parse: (&srcTestParser{}).parse, Relevant: srcRelevant, CacheKey: "another parser"})
		if err != nil {
			t.Fatal(err)
		}
		srcLoad(t, other, "main")
		if st := other.Stats(); st.LoadedFromDisk != 0 || st.Parsed != 4 {
			t.Fatalf("other build: loaded %d, parsed %d; want 0, 4", st.LoadedFromDisk, st.Parsed)
		}
	})

	t.Run("Corrupt", func(t *testing.T) {
		if err := os.WriteFile(first.cache, []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
		src := openSrc(t, r.Site(), cacheDir, &srcTestParser{})
		if tree := srcLoad(t, src, "main"); tree.Files.Len() != 4 {
			t.Fatalf("paths = %v", srcPaths(tree))
		}
	})
}

func TestSource_CacheCodec(t *testing.T) {
	when := time.Date(2024, 5, 6, 7, 8, 9, 10, time.FixedZone("", 2*3600))
	doc := content.NewDoc(map[string]any{
		"title": "Hi", "n": 3, "i64": int64(-5), "u": uint64(7), "f": 1.5, "yes": true, "no": false,
		"nil": nil, "when": when, "tags": []any{"a", 2, map[string]any{"k": "v"}},
		"nested":   map[string]any{"deep": []any{when, 2.25}},
		"strs":     []string{"x", "y"},
		"anykeys":  map[any]any{1: "one", "two": 2},
		"tables":   []map[string]any{{"a": 1}, {"b": "c"}},
		"emptyMap": map[string]any{},
	})
	doc.Body, doc.HasBody, doc.Line = content.NewMarkdown("# body\n"), true, 4
	noBlob := func(int) content.BodySource { t.Fatal("body said to be in the blob"); return nil }
	e := &cacheEncoder{}
	if err := e.doc(doc, -1); err != nil {
		t.Fatal(err)
	}
	d := newCacheDecoder(e.B)
	got, off := d.doc(".md", noBlob)
	if d.Err != nil || len(d.B) != 0 || off != -1 {
		t.Fatalf("decode: %v, %d bytes left", d.Err, len(d.B))
	}
	gotWhen := got.Meta()["when"].(time.Time)
	if !gotWhen.Equal(when) {
		t.Fatalf("time = %v, want %v", gotWhen, when)
	}
	if _, off := gotWhen.Zone(); off != 2*3600 {
		t.Fatalf("zone offset = %d, want 7200", off)
	}
	// Times compare by instant; everything else must be identical.
	gm, dm := got.Meta(), maps.Clone(doc.Meta())
	delete(gm, "when")
	delete(dm, "when")
	gm["nested"].(map[string]any)["deep"].([]any)[0] = when
	if !reflect.DeepEqual(gm, dm) || got.Len() != doc.Len() || got.Body.Source() != doc.Body.Source() ||
		got.HasBody != doc.HasBody || got.Line != doc.Line || got.RefHint() != doc.RefHint() {
		t.Fatalf("round trip:\n got %#v %#v\nwant %#v %#v", gm, got, dm, doc)
	}

	if err := (&cacheEncoder{}).doc(content.NewDoc(map[string]any{"c": make(chan int)}), -1); !errors.Is(err, errCacheUnencodable) {
		t.Fatalf("unknown type: err = %v", err)
	}
	// Truncated data fails cleanly, at every length.
	for n := range len(e.B) {
		d := newCacheDecoder(e.B[:n])
		d.doc(".md", noBlob)
		if d.Err == nil {
			t.Fatalf("decoding %d of %d bytes succeeded", n, len(e.B))
		}
	}

	// A body kept in its blob is persisted as its offset, not its text.
	lazy := content.NewDoc(map[string]any{"title": "T"})
	lazy.HasBody, lazy.Line = true, 3
	lazy.Body = content.NewLazyMarkdown(func() (string, error) { return "# body in the blob\n", nil })
	e = &cacheEncoder{}
	if err := e.doc(lazy, 17); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(e.B), "body in the blob") {
		t.Fatal("the body's text was persisted")
	}
	var gotOff int
	d = newCacheDecoder(e.B)
	got, off = d.doc(".md", func(o int) content.BodySource {
		gotOff = o
		return content.BodyFunc(func() (string, error) { return "read again", nil })
	})
	if d.Err != nil || len(d.B) != 0 || off != 17 || gotOff != 17 || got.Body.Source() != "read again" || !got.HasBody || got.Line != 3 {
		t.Fatalf("in-blob body: err %v, off %d/%d, body %q, doc %+v", d.Err, off, gotOff, got.Body.Source(), got)
	}
}

// TestSource_CacheCodecLines: the lines of keys read from the cache stay
// encoded until a problem asks for one (a map per document cost 4 MB at
// 10k documents at every start), answer as the parsed ones did, and are
// written back to the cache as they were, not decoded to be encoded.
func TestSource_CacheCodecLines(t *testing.T) {
	src := "---\ntitle: Hi\ntags:\n  - a\n  - b\nnested:\n  deep: 1\n---\nbody\n"
	parsed, err := content.Parse("content/posts/a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.KeyLines()) < 5 {
		t.Fatalf("parsed lines %v: want the keys', the list entries' and the nested key's", parsed.KeyLines())
	}
	e := &cacheEncoder{}
	if err := e.doc(parsed, -1); err != nil {
		t.Fatal(err)
	}
	d := newCacheDecoder(e.B)
	got, _ := d.doc(".md", nil)
	if d.Err != nil || len(d.B) != 0 {
		t.Fatalf("decode: %v, %d bytes left", d.Err, len(d.B))
	}
	if got.Lines != nil {
		t.Fatalf("the decoded document's lines were made into a map at load: %v", got.Lines)
	}
	// Written back before any use: the same bytes.
	again := &cacheEncoder{}
	if err := again.doc(got, -1); err != nil {
		t.Fatal(err)
	}
	enc := string(got.LazyLines())
	if enc == "" || !strings.HasSuffix(string(e.B), enc) || !strings.HasSuffix(string(again.B), enc) || len(again.B) != len(e.B) {
		t.Fatalf("re-encoded:\n%q\nwant the lines as read\n%q", again.B, e.B)
	}
	if !reflect.DeepEqual(got.KeyLines(), parsed.KeyLines()) {
		t.Fatalf("KeyLines = %v, want %v", got.KeyLines(), parsed.KeyLines())
	}
	if l, want := got.LineOf("nested", "deep"), parsed.LineOf("nested", "deep"); l != want || l == 0 {
		t.Fatalf("LineOf(nested, deep) = %d, want %d", l, want)
	}
	// Truncated lines fail the decode, as before, at every length.
	for n := range len(e.B) {
		d := newCacheDecoder(e.B[:n])
		if d.doc(".md", nil); d.Err == nil {
			t.Fatalf("decoding %d of %d bytes succeeded", n, len(e.B))
		}
	}
}

func TestSource_Watch(t *testing.T) {
	watch := func(t *testing.T, src *Source) *atomic.Int64 {
		var n atomic.Int64
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- src.Watch(ctx, func() { n.Add(1) }) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Watch: %v", err)
			}
		})
		return &n
	}

	t.Run("BarePush", func(t *testing.T) {
		r := newSrcBareSite(t)
		r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "a"})
		r.Push(false)
		src := openSrc(t, r.Site(), "", &srcTestParser{})
		n := watch(t, src)
		// The watch looks once when it begins: from then on it watches.
		srcWaitFor(t, "the watch's first look", func() bool { return n.Load() > 0 })
		seen := n.Load()
		want := r.Commit(time.Now(), map[string]string{"content/posts/a.md": "b"})
		r.Push(false)
		srcWaitFor(t, "a notification after git push", func() bool { return n.Load() > seen })
		srcWaitFor(t, "the pushed commit", func() bool { got, _ := src.Resolve("main"); return got == want })
		// A new branch in a new ref folder is seen too.
		before := n.Load()
		srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/feature/x")
		srcWaitFor(t, "a notification for a nested branch", func() bool { return n.Load() > before })
	})

	// A ref moved after the source was opened and before the watch began
	// made no event: the watch looks once when it begins.
	t.Run("MovedBeforeTheWatch", func(t *testing.T) {
		r := newSrcWorkTreeSite(t)
		r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "a"})
		src := openSrc(t, r.Site(), "", &srcTestParser{})
		r.Commit(srcDay(1), map[string]string{"content/posts/a.md": "b"})
		n := watch(t, src)
		srcWaitFor(t, "a notification for the commit made before the watch", func() bool { return n.Load() > 0 })
	})

	t.Run("WorkTreeCommit", func(t *testing.T) {
		r := newSrcWorkTreeSite(t)
		r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "a"})
		src := openSrc(t, r.Site(), "", &srcTestParser{})
		n := watch(t, src)
		srcWaitFor(t, "the watch's first look", func() bool { return n.Load() > 0 })
		seen := n.Load()
		r.Commit(time.Now(), map[string]string{"content/posts/a.md": "b"})
		srcWaitFor(t, "a notification after git commit", func() bool { return n.Load() > seen })
	})
}

// TestSource_RealParser loads a commit with the real content parser (the
// default of SourceConfig.Parse), and again from the parse cache.
func TestSource_RealParser(t *testing.T) {
	if !content.Relevant("content/posts/hello.md") || content.Relevant("README.md") {
		t.Fatal("content.Relevant: a post is content, README.md is not")
	}
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/posts/hello.md": "---\ntitle: Hello\ndate: 2024-01-02T03:04:05Z\ntags: [a, b]\n---\n# Hi\n",
		"README.md":              "# not content\n",
	})
	r.Push(false)
	cacheDir := t.TempDir()
	src, err := OpenSource(context.Background(), SourceConfig{Site: r.Site(), CacheDir: cacheDir, CacheKey: "real"})
	if err != nil {
		t.Fatal(err)
	}
	tree := srcLoad(t, src, "main")
	f := srcFile(t, tree, "content/posts/hello.md")
	if f.Err != nil || f.Doc.Meta()["title"] != "Hello" || !strings.Contains(f.Doc.Body.HTML(), "Hi") {
		t.Fatalf("hello.md = %+v / %+v", f, f.Doc)
	}
	for _, f := range tree.Files.All() {
		if f.Path == "README.md" {
			t.Fatal("README.md is not content")
		}
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := OpenSource(context.Background(), SourceConfig{Site: r.Site(), CacheDir: cacheDir, CacheKey: "real"})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got := srcFile(t, srcLoad(t, again, "main"), "content/posts/hello.md")
	if again.Stats().Parsed != 0 {
		t.Fatal("restart parsed again")
	}
	if got.Doc.Body.Rendered() {
		t.Fatal("a cached body was rendered at load")
	}
	if got.Doc.Body.Source() != f.Doc.Body.Source() || got.Doc.Body.HTML() != f.Doc.Body.HTML() || len(got.Doc.Meta()) != len(f.Doc.Meta()) {
		t.Fatalf("cached doc differs: %+v vs %+v", got.Doc, f.Doc)
	}
}

// TestSource_GitOrder checks the merge in the history walk against the
// order Git itself writes, with names that sort differently as files and
// as folders.
func TestSource_GitOrder(t *testing.T) {
	r := newSrcBareSite(t)
	names := []string{"content/a-b.md", "content/a.md", "content/a/x.md", "content/a0.md", "content/a/b/y.md", "content/ab.md"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = n
	}
	r.Commit(srcDay(0), files)
	// Replace the folder content/a with a file, and a file with a folder.
	r.Commit(srcDay(1), nil, "content/a", "content/a0.md")
	r.Commit(srcDay(2), map[string]string{"content/a": "now a file", "content/a0.md/z.md": "now a folder", "content/ab.md": "changed"})
	r.Commit(srcDay(3), map[string]string{"content/a-b.md": "changed"})
	r.Push(false)

	tree := srcLoad(t, openSrc(t, r.Site(), "", &srcTestParser{}), "main")
	want := map[string]time.Time{
		"content/a": srcDay(2), "content/a-b.md": srcDay(3), "content/a.md": srcDay(0),
		"content/a0.md/z.md": srcDay(2), "content/ab.md": srcDay(2),
	}
	if tree.Files.Len() != len(want) {
		t.Fatalf("paths = %v", srcPaths(tree))
	}
	for _, f := range tree.Files.All() {
		if !f.Updated.Equal(want[f.Path]) {
			t.Errorf("%s updated %v, want %v", f.Path, f.Updated, want[f.Path])
		}
	}

	st := openSrc(t, r.Site(), "", &srcTestParser{}).openStorage(cache.NewObjectLRUDefault())
	defer st.Close()
	head, _ := object.GetCommit(st, plumbing.NewHash(tree.Commit))
	root, _ := head.Tree()
	sub, err := root.Tree("content")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(sub.Entries); i++ {
		if gitOrder(sub.Entries[i-1], sub.Entries[i]) >= 0 {
			t.Errorf("gitOrder(%s, %s) >= 0, git sorts them the other way", sub.Entries[i-1].Name, sub.Entries[i].Name)
		}
	}
}

// TestSource_OnePushAtATime loads every commit as it arrives (the fast path
// from the parent's attribution, and the folder records of the last Load)
// and checks files, blobs and Updated times against a fresh source at each
// step: edits, adds, deletes, a file that becomes a folder and back,
// renames, a commit touching no content, a merge.
func TestSource_OnePushAtATime(t *testing.T) {
	r := newSrcBareSite(t)
	src := openSrc(t, r.Site(), "", &srcTestParser{})
	steps := []struct {
		files map[string]string
		rm    []string
		mv    [2]string
	}{
		{files: map[string]string{"content/posts/a.md": "a1", "content/posts/b.md": "b1", "content/docs/x/c.md": "c1", "globals.yaml": "g1", "pages/p.md": "p1"}},
		{files: map[string]string{"content/posts/a.md": "a2"}},
		{files: map[string]string{"README.md": "r"}},
		{files: map[string]string{"content/docs/x/d.md": "d1", "content/docs/y/e.md": "e1"}},
		{rm: []string{"content/posts/b.md"}},
		{files: map[string]string{"content/posts/b.md/inner.md": "i1"}},
		{rm: []string{"content/posts/b.md"}, files: map[string]string{"content/posts/b.md": "b2"}},
		{mv: [2]string{"content/docs/x/c.md", "content/docs/z/c.md"}},
		{files: map[string]string{"content/posts/a.md": "a1"}}, // back to an older blob
		{rm: []string{"content/docs"}},
	}
	for i, st := range steps {
		if st.mv[0] != "" {
			full := filepath.Join(r.Dir, filepath.FromSlash(st.mv[1]))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			srcGit(t, r.Dir, "mv", st.mv[0], st.mv[1])
		}
		for _, p := range st.rm {
			srcGit(t, r.Dir, "rm", "-q", "-r", p)
		}
		r.Commit(srcDay(i), st.files)
		r.Push(false)
		got := srcLoad(t, src, "main")
		want := srcLoad(t, openSrc(t, r.Site(), "", &srcTestParser{}), "main")
		if !reflect.DeepEqual(srcPaths(got), srcPaths(want)) {
			t.Fatalf("step %d: paths %v, want %v", i, srcPaths(got), srcPaths(want))
		}
		for j, f := range got.Files.All() {
			w := want.Files.At(j)
			if !f.Updated.Equal(w.Updated) || f.Doc.Body.Source() != w.Doc.Body.Source() {
				t.Errorf("step %d: %s updated %v body %q, want %v %q", i, f.Path, f.Updated, f.Doc.Body.Source(), w.Updated, w.Doc.Body.Source())
			}
		}
	}
	if st := src.Stats(); st.CommitsWalked != len(steps)-1 {
		t.Errorf("walked %d commits for %d one-commit pushes, want one each", st.CommitsWalked, len(steps)-1)
	}
}

// TestSource_PackBlobs checks the cold-start reader of whole blobs from
// packs against go-git's object store: a packed repository with deltas,
// loose objects on top, an oversized blob, a broken file and a symlink give
// the same files, documents and problems either way.
func TestSource_PackBlobs(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{
		"content/posts/big.md":    strings.Repeat("x", content.MaxFileSize+1),
		"content/posts/broken.md": "BROKEN",
		"globals.yaml":            "siteName: x",
	}
	base := strings.Repeat("A line of text that repeats so that git stores deltas. ", 40)
	for i := range 300 {
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = fmt.Sprintf("---\ntitle: %d\n---\n%s %d\n", i, base, i)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	// Deltas against each other, and a second pack of loose objects.
	srcGit(t, r.Bare, "repack", "-a", "-d", "-f", "-q", "--depth=10", "--window=50")
	more := map[string]string{}
	for i := range 300 {
		more[fmt.Sprintf("content/posts/q%03d.md", i)] = fmt.Sprintf("loose %d %s", i, base)
	}
	r.Commit(srcDay(1), more)
	if err := os.Symlink("/etc/passwd", filepath.Join(r.Dir, "content/posts/link.md")); err != nil {
		t.Fatal(err)
	}
	r.Commit(srcDay(2), nil)
	r.Push(false)

	load := func(min int) *Tree {
		src := openSrc(t, r.Site(), "", &srcTestParser{})
		src.cfg.PackBlobsMin = min
		return srcLoad(t, src, "main")
	}
	comparePackTrees(t, load(1), load(1<<30))
	// One pack without deltas: every blob is read whole.
	srcGit(t, r.Bare, "repack", "-a", "-d", "-f", "-q", "--window=0")
	comparePackTrees(t, load(1), load(1<<30))
}

func comparePackTrees(t *testing.T, got, want *Tree) {
	t.Helper()
	if !reflect.DeepEqual(srcPaths(got), srcPaths(want)) || got.Files.Len() != 604 {
		t.Fatalf("paths differ: %d vs %d", got.Files.Len(), want.Files.Len())
	}
	for i, f := range got.Files.All() {
		w := want.Files.At(i)
		if srcProblem(f.Err) != srcProblem(w.Err) || (f.Doc == nil) != (w.Doc == nil) {
			t.Fatalf("%s: %v / %v, want %v / %v", f.Path, f.Doc, f.Err, w.Doc, w.Err)
		}
		if f.Doc != nil && (f.Doc.Body.Source() != w.Doc.Body.Source() || !reflect.DeepEqual(f.Doc.Meta(), w.Doc.Meta())) {
			t.Fatalf("%s: documents differ", f.Path)
		}
	}
	if f := srcFile(t, got, "content/posts/big.md"); !strings.Contains(srcProblem(f.Err), "limit") {
		t.Fatalf("big.md: %v", f.Err)
	}
}
