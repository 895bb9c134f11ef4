package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// parseCacheSite is a bare site of n posts and a page: n+2 files to
// parse with folio.yaml.
func parseCacheSite(t *testing.T, n int, day time.Time) *srcTestRepo {
	t.Helper()
	r := newSrcBareSite(t)
	files := map[string]string{
		"folio.yaml":     "language: en\ntypes:\n  posts: {public: true}\n",
		"pages/about.md": "---\ntitle: About the lake\n---\nWho we are.\n",
	}
	for i := range n {
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: 2026-01-01\ntags: [a, b%d]\n---\nBody %d by the lake.\n", i, i%7, i)
	}
	r.Commit(day, files)
	r.Push(false)
	return r
}

// openParseCacheBox opens r's published branch as a fresh box (an empty
// cache directory of its own) on the bucket's state.
func openParseCacheBox(t *testing.T, r *srcTestRepo, state media.StateStore, day time.Time) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(),
		Now: func() time.Time { return day }, ParseCacheState: state})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// waitParseCachePublished waits until e published n parse caches (in the
// background, with its first save).
func waitParseCachePublished(t *testing.T, e *Engine, n int64) {
	t.Helper()
	// The first save waits for the engine's first Run (the server
	// answering); mark it serving without Run's watch of the repository.
	e.servingOnce.Do(func() { close(e.serving) })
	deadline := time.Now().Add(30 * time.Second)
	for e.parseCache.published.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the parse cache was not published (%d of %d)", e.parseCache.published.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// parseCacheKeys lists the keys under parsecache/.
func parseCacheKeys(t *testing.T, state media.StateStore) []string {
	t.Helper()
	var keys []string
	err := state.List(context.Background(), "parsecache/", "", func(o media.StateObject) error {
		keys = append(keys, o.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// latestParseCache is the key of the object the pointer names.
func latestParseCache(t *testing.T, state media.StateStore) string {
	t.Helper()
	for _, k := range parseCacheKeys(t, state) {
		if strings.HasSuffix(k, "/latest") {
			b, _, err := state.Get(context.Background(), k)
			if err != nil {
				t.Fatal(err)
			}
			var p parseCachePointer
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			return p.Key
		}
	}
	t.Fatal("no parse cache pointer in the bucket")
	return ""
}

// TestEngine_ParseCacheFromBucket: box A parses the site and publishes
// its parse cache; box B, with an empty cache directory, adopts it and
// its first load parses nothing, serving what A serves, and publishes
// nothing; box C, on a later commit, adopts A's cache and parses only
// the files that commit changed; a restart of B reads its own cache
// file, not the bucket's.
func TestEngine_ParseCacheFromBucket(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 40
	r := parseCacheSite(t, n, day)

	a := openParseCacheBox(t, r, state, day)
	if st := a.src.Stats(); st.LastParsed != n+2 || st.Adopted != 0 {
		t.Fatalf("box A on an empty bucket: parsed %d, adopted %d; want %d, 0", st.LastParsed, st.Adopted, n+2)
	}
	want := viewDump(t, a, false)
	waitParseCachePublished(t, a, 1)
	a.Close()

	bDir := t.TempDir()
	b, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: bDir, Now: func() time.Time { return day }, ParseCacheState: state})
	if err != nil {
		t.Fatal(err)
	}
	st := b.src.Stats()
	if st.Adopted < n+2 || st.LastParsed != 0 || st.CacheHits != n+2 {
		t.Fatalf("box B: adopted %d, parsed %d, cache hits %d; want the bucket's %d documents, none parsed", st.Adopted, st.LastParsed, st.CacheHits, n+2)
	}
	if got := viewDump(t, b, false); got != want {
		t.Errorf("box B serves\n%s\nbox A served\n%s", got, want)
	}
	time.Sleep(firstSaveDelay + 500*time.Millisecond) // its first save
	b.Close()
	if p := b.parseCache.published.Load(); p != 0 {
		t.Errorf("box B, warm from the bucket, published %d caches", p)
	}
	// A restart of B: its own cache file.
	b2, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: bDir, Now: func() time.Time { return day }, ParseCacheState: state})
	if err != nil {
		t.Fatal(err)
	}
	if st := b2.src.Stats(); st.LoadedFromDisk < n+2 || st.Adopted != 0 || st.LastParsed != 0 {
		t.Errorf("B restarted: from disk %d, adopted %d, parsed %d; want its own cache", st.LoadedFromDisk, st.Adopted, st.LastParsed)
	}
	b2.Close()

	// A later commit: C adopts A's cache, parses the two files it changed.
	r.Commit(day, map[string]string{
		"content/posts/new.md":  "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA kayak.\n",
		"content/posts/p001.md": "---\ntitle: Post one, edited\ndate: 2026-01-01\n---\nEdited.\n",
	}, "content/posts/p002.md")
	r.Push(false)
	c := openParseCacheBox(t, r, state, day)
	if st := c.src.Stats(); st.Adopted < n+2 || st.LastParsed != 2 {
		t.Errorf("box C on a later commit: adopted %d, parsed %d; want A's cache, 2 parsed", st.Adopted, st.LastParsed)
	}
	got := viewDump(t, c, false)
	c.Close()
	d, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return day }})
	if err != nil {
		t.Fatal(err)
	}
	if fresh := viewDump(t, d, false); got != fresh {
		t.Errorf("box C serves\n%s\na box without a bucket\n%s", got, fresh)
	}
	d.Close()
}

// TestEngine_ParseCacheBucketDamaged: a truncated, damaged or foreign
// object (another shared key in its header, another layout, a payload
// that is not a cache of this format or whose CRC fails) is not adopted:
// the box parses and serves exactly what a box without a bucket serves.
func TestEngine_ParseCacheBucketDamaged(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 12
	r := parseCacheSite(t, n, day)
	a := openParseCacheBox(t, r, state, day)
	want := viewDump(t, a, false)
	waitParseCachePublished(t, a, 1)
	a.Close()
	key := latestParseCache(t, state)
	good, _, err := state.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	nl := bytes.IndexByte(good, '\n')
	var hdr parseCacheHeader
	if err := json.Unmarshal(good[:nl], &hdr); err != nil {
		t.Fatal(err)
	}
	withHeader := func(edit func(*parseCacheHeader), payload []byte) []byte {
		h := hdr
		edit(&h)
		line, _ := json.Marshal(h)
		return append(append(line, '\n'), payload...)
	}
	payload := good[nl+1:]
	flipped := slices.Clone(good)
	flipped[nl+1+len(payload)/2] ^= 0xff
	// A payload whose SHA-256 the header names, but not a whole cache
	// file: its CRC-32, or its magic, fails.
	// (a title changed, which decodes: only the CRC-32 tells)
	badCRC := bytes.Replace(payload, []byte("Post 1"), []byte("Pxst 1"), 1)
	if bytes.Equal(badCRC, payload) {
		t.Fatal("no title in the cache file")
	}
	badMagic := slices.Clone(payload)
	badMagic[len("folio-parsed-docs/")] = '9'
	resum := func(p []byte) func(*parseCacheHeader) {
		return func(h *parseCacheHeader) {
			sum := sha256Hex(p)
			h.SHA256 = sum
			h.Size = int64(len(p))
		}
	}
	for _, tc := range []struct {
		name string
		obj  []byte
	}{
		{"truncated", good[:nl+1+len(payload)/2]},
		{"damaged", flipped},
		{"longer", append(slices.Clone(good), "more"...)},
		{"another site root", withHeader(func(h *parseCacheHeader) { h.Shared = strings.Replace(h.Shared, "|root=", "|root=other", 1) }, payload)},
		{"another layout", withHeader(func(h *parseCacheHeader) { h.Object = parseCacheObjectVersion + 1 }, payload)},
		{"cache file damaged", withHeader(resum(badCRC), badCRC)},
		{"another cache format", withHeader(resum(badMagic), badMagic)},
		{"no header", payload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, etag, err := state.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := state.Replace(ctx, key, tc.obj, etag); err != nil {
				t.Fatal(err)
			}
			e := openParseCacheBox(t, r, state, day)
			st := e.src.Stats()
			got := viewDump(t, e, false)
			e.Close()
			if st.Adopted != 0 || st.LastParsed != n+2 {
				t.Errorf("adopted %d, parsed %d: want none adopted, %d parsed", st.Adopted, st.LastParsed, n+2)
			}
			if got != want {
				t.Errorf("serves\n%s\nwant\n%s", got, want)
			}
		})
	}
	// The sound object again: adopted (the cases above failed for their
	// damage, not for the test's set-up).
	_, etag, _ := state.Get(ctx, key)
	if _, err := state.Replace(ctx, key, good, etag); err != nil {
		t.Fatal(err)
	}
	e := openParseCacheBox(t, r, state, day)
	st := e.src.Stats()
	e.Close()
	if st.Adopted != n+2 || st.LastParsed != 0 {
		t.Errorf("the sound object: adopted %d, parsed %d", st.Adopted, st.LastParsed)
	}
	// A damaged object of its commit is replaced by the next publisher.
	_, etag, _ = state.Get(ctx, key)
	if _, err := state.Replace(ctx, key, flipped, etag); err != nil {
		t.Fatal(err)
	}
	f := openParseCacheBox(t, r, state, day)
	waitParseCachePublished(t, f, 1)
	f.Close()
	obj, _, err := state.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := checkParseCache(obj, hdr.Shared); err != nil {
		t.Errorf("the damaged object was not replaced: %v", err)
	}
}

// TestEngine_ParseCacheTwoPublishers: boxes publishing at once, of one
// commit and of two, all succeed; the pointer names a sound object (the
// newest), every object is sound, and a fresh box adopts it.
func TestEngine_ParseCacheTwoPublishers(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := parseCacheSite(t, 20, day)
	var boxes []*Engine
	for range 3 {
		e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return day }})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		boxes = append(boxes, e)
	}
	first := boxes[0].Published().Commit
	r.Commit(day, map[string]string{"content/posts/new.md": "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA kayak.\n"})
	r.Push(false)
	if err := boxes[2].Reload(ctx); err != nil {
		t.Fatal(err)
	}
	second := boxes[2].Published().Commit
	if second == first {
		t.Fatal("box 3 did not move to the second commit")
	}
	shared := boxes[0].src.SharedKey()
	for round := range 4 {
		var wg sync.WaitGroup
		errs := make([]error, len(boxes))
		for i, e := range boxes {
			rem := newParseCacheRemote(state, func() time.Time { return time.Now().Add(time.Duration(round) * time.Minute) }, 0)
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = rem.publish(ctx, e.src, e.Published().Commit)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: box %d's publish failed: %v", round, i+1, err)
			}
		}
		objects := 0
		for _, k := range parseCacheKeys(t, state) {
			if strings.HasSuffix(k, "/latest") {
				continue
			}
			objects++
			obj, _, err := state.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := checkParseCache(obj, shared); err != nil {
				t.Errorf("round %d: object %s: %v", round, k, err)
			}
		}
		if objects != 2 {
			t.Errorf("round %d: %d objects, want one per commit", round, objects)
		}
		if k := latestParseCache(t, state); !strings.HasSuffix(k, "/"+first) && !strings.HasSuffix(k, "/"+second) {
			t.Errorf("round %d: the pointer names %s", round, k)
		}
	}
	e := openParseCacheBox(t, r, state, day)
	st := e.src.Stats()
	e.Close()
	if st.Adopted == 0 || st.LastParsed > 1 {
		t.Errorf("a fresh box after the publishes: adopted %d, parsed %d", st.Adopted, st.LastParsed)
	}
}

// TestEngine_ParseCacheNoBucket: without the parse cache's bucket (no
// ParseCacheState: local storage, or --share-parse-cache=false) a fresh
// box parses as before and writes nothing to the bucket, even where one
// holds a cache and the search index travels through it.
func TestEngine_ParseCacheNoBucket(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 10
	r := parseCacheSite(t, n, day)
	a := openParseCacheBox(t, r, state, day)
	waitParseCachePublished(t, a, 1)
	a.Close()
	before := parseCacheKeys(t, state)
	for _, cfg := range []Config{
		{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return day }, SearchState: state},
		{Site: r.Site(), Now: func() time.Time { return day }, ParseCacheState: state}, // no cache dir
	} {
		e, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(firstSaveDelay + 500*time.Millisecond)
		st := e.src.Stats()
		e.Close()
		if st.Adopted != 0 || st.LastParsed != n+2 {
			t.Errorf("no bucket for the parse cache: adopted %d, parsed %d", st.Adopted, st.LastParsed)
		}
		if e.parseCache != nil {
			t.Error("a parse cache remote without ParseCacheState and a cache dir")
		}
	}
	if after := parseCacheKeys(t, state); !slices.Equal(after, before) {
		t.Errorf("the bucket's parse caches changed: %v, were %v", after, before)
	}
	// A read-only box fetches, never publishes.
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return day },
		ParseCacheState: search.FetchOnly{StateStore: state}})
	if err != nil {
		t.Fatal(err)
	}
	r.Commit(day, map[string]string{"content/posts/new.md": "---\ntitle: Fresh\n---\nA kayak.\n"})
	r.Push(false)
	e.parseCache.reloads.Store(parseCachePublishEvery - 1)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(firstSaveDelay + 500*time.Millisecond)
	st := e.src.Stats()
	e.Close()
	if st.Adopted != n+2 || e.parseCache.published.Load() != 0 {
		t.Errorf("a read-only box: adopted %d, published %d; want the bucket's, none", st.Adopted, e.parseCache.published.Load())
	}
}

// TestEngine_ParseCacheSlowBucket: a bucket that does not answer (a
// listener that accepts and says nothing) or refuses connections delays
// the start by the wait at most; the box parses.
func TestEngine_ParseCacheSlowBucket(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 10
	r := parseCacheSite(t, n, day)
	srv := s3test.NewServer(t)
	for _, tc := range []struct{ name, endpoint string }{
		{"silent", "http://" + silent.Addr().String()},
		{"refused", "http://" + closedAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := srv.Config("folio-nowhere")
			cfg.Endpoint = tc.endpoint
			_, state := s3test.Open(t, cfg)
			const wait = 700 * time.Millisecond
			start := time.Now()
			e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return day },
				ParseCacheState: state, ParseCacheWait: wait})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			st := e.src.Stats()
			e.Close()
			if st.LastParsed != n+2 {
				t.Errorf("parsed %d, want %d", st.LastParsed, n+2)
			}
			if took > wait+3*time.Second {
				t.Errorf("the start took %v with a bucket that does not answer; the wait is %v", took, wait)
			}
			t.Logf("start %v", took)
		})
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestEngine_ParseCacheDraftBranch: a box that serves a draft branch
// loads it after the published one, and that load parses nothing (the
// same files): the box parsed the site all the same and publishes, and
// a fresh box with a draft branch starts warm on both.
func TestEngine_ParseCacheDraftBranch(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 10
	r := parseCacheSite(t, n, day)
	srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/draft")
	open := func() *Engine {
		e, err := Open(context.Background(), Config{Site: r.Site(), DraftBranch: "draft", CacheDir: t.TempDir(),
			Now: func() time.Time { return day }, ParseCacheState: state})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := open()
	if st := a.src.Stats(); st.Parsed != n+2 || st.LastParsed != 0 {
		t.Fatalf("box A: parsed %d, the draft's load %d; want %d, 0", st.Parsed, st.LastParsed, n+2)
	}
	waitParseCachePublished(t, a, 1)
	a.Close()
	b := open()
	st := b.src.Stats()
	b.Close()
	if st.Adopted != n+2 || st.Parsed != 0 {
		t.Errorf("box B: adopted %d, parsed %d; want the bucket's %d, none", st.Adopted, st.Parsed, n+2)
	}
}
