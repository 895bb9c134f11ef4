package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

// Every bit of a small parse cache flipped, one at a time: the file is
// never read as documents (a flip in the magic is another version, in
// the key another build's cache, anywhere else a corrupt one: CRC-32
// finds every one-bit error), nor does its read panic. (Held.)
func TestSource_CacheEveryBitFlipRejected(t *testing.T) {
	const key, site = "key", "/site.git"
	doc, err := content.Parse("content/posts/a.md", []byte("---\ntitle: A\ntags: [x, y]\nn: 1.5\n---\nBody"))
	if err != nil {
		t.Fatal(err)
	}
	var blob plumbing.Hash
	blob[0] = 1
	good, _ := encodeCache(key, site, map[docKey]parsedDoc{
		{blob: blob, ext: ".md"}:               {doc: doc, bodyOff: 20},
		{blob: plumbing.Hash{2}, ext: ".yaml"}: {doc: doc, bodyOff: -1},
	}, []pathTimes{{commit: blob, times: newTimeMap(map[string]time.Time{"content/posts/a.md": time.Unix(1e9, 0).UTC()})}})
	name := filepath.Join(t.TempDir(), "parsed.cache")
	load := func(data []byte) (int, error) {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
		err := s.loadCache()
		return s.docs.docs.len(), err
	}
	if n, err := load(good); err != nil || n != 2 {
		t.Fatalf("the intact cache: %d documents, %v", n, err)
	}
	for pos := range good {
		for bit := range 8 {
			bad := bytes.Clone(good)
			bad[pos] ^= 1 << bit
			n, err := load(bad)
			if n != 0 || err != nil && !errors.Is(err, errCacheCorrupt) && !errors.Is(err, errCacheVersion) {
				t.Fatalf("bit %d of byte %d of %d flipped: %d documents read, %v", bit, pos, len(good), n, err)
			}
		}
	}
	for n := range len(good) {
		if got, err := load(good[:n]); got != 0 {
			t.Fatalf("the cache cut at %d of %d: %d documents read, %v", n, len(good), got, err)
		}
	}
}

// A restart on a damaged cache file (one byte changed amid its
// documents), on one cut short, on one of another format and
// on an empty one: each Load gives the tree a cold start gives, never
// the damaged documents, and the log says the file was ignored. (Held.)
func TestSource_CorruptCacheRebuiltAtRestart(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{"globals.yaml": "siteName: A\n"}
	for i := range 40 {
		files["content/posts/p"+string(rune('a'+i%26))+string(rune('a'+i/26))+".md"] = "---\ntitle: Title " + string(rune('A'+i%26)) + "\n---\nBody\n"
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	cacheDir := t.TempDir()
	first := openSrc(t, r.Site(), cacheDir, &srcTestParser{})
	want := srcLoad(t, first, "main")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	name := first.cache
	good, err := os.ReadFile(name)
	if err != nil || len(good) < 1000 {
		t.Fatalf("cache file: %d bytes, %v", len(good), err)
	}
	changed := bytes.Clone(good)
	changed[len(good)/2] ^= 0x20
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"a byte changed", changed},
		{"cut short", good[:len(good)/2]},
		{"another format", append([]byte("folio-parsed-docs/5\n"), good[len(cacheMagic):]...)},
		{"empty", nil},
	} {
		if err := os.WriteFile(name, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var logged bytes.Buffer
		p := &srcTestParser{}
		src, err := OpenSource(context.Background(), SourceConfig{
			Site: r.Site(), CacheDir: cacheDir, Parse: p.parse, Relevant: srcRelevant, CacheKey: "test",
			Logger: slog.New(slog.NewTextHandler(&logged, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		got := srcLoad(t, src, "main")
		src.Close()
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("%s: %s", c.name, d)
		}
		if p.count("content/posts/pqa.md") != 1 {
			t.Fatalf("%s: content/posts/pqa.md parsed %d times; want once (the cache ignored)", c.name, p.count("content/posts/pqa.md"))
		}
		if c.name != "empty" && !strings.Contains(logged.String(), "ignoring parsed-document cache") {
			t.Errorf("%s: the log does not say the cache was ignored:\n%s", c.name, logged.String())
		}
	}
}

// Boxes of one site sharing one cache folder: two write the parse cache
// over and over (each its own documents: one is at another commit)
// while a third opens, reads it and loads, again and again; every Load
// is the cold one's tree, and no temporary file is left. (Held: the
// file is written to a temporary file of its own and renamed.)
func TestSource_CacheDirSharedByBoxes(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{"globals.yaml": "siteName: A\n"}
	for i := range 300 {
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = fmt.Sprintf("---\ntitle: P%d\n---\nBody %d\n", i, i)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	old := srcGit(t, r.Dir, "rev-parse", "HEAD")
	r.Commit(srcDay(1), map[string]string{"content/posts/p000.md": "---\ntitle: Edited\n---\nNew\n"})
	r.Push(false)
	want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), "main")
	shared := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := openSrc(t, r.Site(), shared, &srcTestParser{})
			commit := old
			if w == 1 {
				commit = want.Commit
			}
			if _, err := src.Load(context.Background(), commit); err != nil {
				t.Error(err)
				return
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				src.docs.mu.Lock()
				src.docs.dirty = true
				src.docs.mu.Unlock()
				if err := src.saveCache(true); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 15 {
		src := openSrc(t, r.Site(), shared, &srcTestParser{})
		got := srcLoad(t, src, "main")
		src.Close()
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("round %d: %s", i, d)
		}
	}
	close(stop)
	wg.Wait()
	if tmp, _ := filepath.Glob(filepath.Join(shared, "*.tmp*")); len(tmp) > 0 {
		t.Fatalf("temporary files left: %q", tmp)
	}
}

// The local parse cache's key holds the executable's Go build ID: two
// builds of one size with the same file time (an image builder that sets
// every time alike) are two keys. Found by this pass: the key was the
// file's name, size and time only.
func TestExecutableKey_HoldsBuildID(t *testing.T) {
	id := goBuildID()
	if id == "" {
		t.Skip("no Go build ID in this executable")
	}
	if key := executableKey(); !strings.HasSuffix(key, ":"+id) {
		t.Fatalf("executableKey() = %q, without the build ID %q", key, id)
	}
}
