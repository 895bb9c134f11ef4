package search

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// TestRemoteIndex_ConcurrentPublishers: boxes publishing at once, of one
// commit and of others, leave a pointer that names the newest snapshot,
// and every snapshot in the bucket is sound and opens.
func TestRemoteIndex_ConcurrentPublishers(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	ctx := context.Background()
	idx, err := newContentIndexFor("en")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Index("p\x00a", map[string]any{csTitle: "Otters", csText: "Otters swim.", csKind: KindPage, csVis: visLive}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const boxes = 8
	for round := range 3 {
		var wg sync.WaitGroup
		errs := make([]error, boxes)
		for i := range boxes {
			dir, err := copyIndex(idx)
			if err != nil {
				t.Fatal(err)
			}
			at := base.Add(time.Duration(round*boxes+boxes-i) * time.Second) // the first started is the newest
			r := &remoteIndex{st: state, now: func() time.Time { return at }}
			commit := fmt.Sprintf("c%d", i%3) // some publish the same commit
			wg.Go(func() { _, errs[i] = r.publish(ctx, dir, commit, "en", map[string]any{}, nil) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, box %d: %v", round, i, err)
			}
		}
		folder, _ := remoteDir("en")
		b, _, err := state.Get(ctx, folder+"/latest")
		if err != nil {
			t.Fatal(err)
		}
		var p remotePointer
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if want := base.Add(time.Duration(round*boxes+boxes) * time.Second); !p.Published.Equal(want) || p.Key != folder+"/c0" {
			t.Errorf("round %d: pointer %+v, want the newest (c0 at %v)", round, p, want)
		}
		r := &remoteIndex{st: state, now: time.Now}
		_, commit, _, ok, err := r.fetch(ctx, t.TempDir(), "en")
		if err != nil || !ok || commit != "c0" {
			t.Fatalf("round %d: fetch: %q %v %v", round, commit, ok, err)
		}
		for c := range 3 {
			obj, _, err := state.Get(ctx, fmt.Sprintf("%s/c%d", folder, c))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := checkArchive(obj, "en"); err != nil {
				t.Errorf("round %d: snapshot c%d: %v", round, c, err)
			}
		}
	}
}

// streamOnly is a state store whose snapshots can only be read as
// streams: a Get of one fails the test.
type streamOnly struct {
	t testing.TB
	media.StateStore
}

func (s streamOnly) Get(ctx context.Context, key string) ([]byte, string, error) {
	if !strings.HasSuffix(key, "/latest") {
		s.t.Errorf("Get(%q): the snapshot was read whole", key)
	}
	return s.StateStore.Get(ctx, key)
}

func (s streamOnly) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	return s.StateStore.(media.StateOpener).Open(ctx, key)
}

// TestRemoteIndex_FetchStreams: a fresh box reads the snapshot as a
// stream into a file of its store (not into memory), checks it and
// opens it; a truncated or altered one is refused as before, and no
// temporary file is left either way.
func TestRemoteIndex_FetchStreams(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	ctx := context.Background()
	idx, err := newContentIndexFor("en")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Index("p\x00a", map[string]any{csTitle: "Otters", csText: "Otters swim.", csKind: KindPage, csVis: visLive}); err != nil {
		t.Fatal(err)
	}
	dir, err := copyIndex(idx)
	if err != nil {
		t.Fatal(err)
	}
	pub := &remoteIndex{st: state, now: time.Now}
	if _, err := pub.publish(ctx, dir, "c1", "en", map[string]any{"p\x00a": "h"}, nil); err != nil {
		t.Fatal(err)
	}
	r := &remoteIndex{st: streamOnly{t, state}, now: time.Now}
	store := t.TempDir()
	got, commit, manifest, ok, err := r.fetch(ctx, store, "en")
	if err != nil || !ok || commit != "c1" || manifest["p\x00a"] == "" {
		t.Fatalf("fetch: %q %v %v %v", commit, ok, manifest, err)
	}
	fetched, err := bleve.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetched.DocCount(); n != 1 {
		t.Errorf("%d documents", n)
	}
	fetched.Close()
	noTemp := func() {
		t.Helper()
		if left, _ := filepath.Glob(filepath.Join(store, "fetch-*")); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	}
	noTemp()

	folder, _ := remoteDir("en")
	obj, etag, err := state.Get(ctx, folder+"/c1")
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated": obj[:len(obj)-10],
		"altered":   append(append([]byte{}, obj[:len(obj)-1]...), obj[len(obj)-1]^1),
		"longer":    append(append([]byte{}, obj...), 'x'),
	} {
		if etag, err = state.Replace(ctx, folder+"/c1", bad, etag); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok, err := r.fetch(ctx, store, "en"); ok || err == nil {
			t.Errorf("%s: fetched (%v)", name, err)
		}
		noTemp()
	}
}
