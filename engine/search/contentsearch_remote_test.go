package search

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

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
