package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
)

// TestLibrary_Concurrent runs uploads, patches and deletes at once and then
// checks, in memory and after a restart, that every acknowledged write is
// there: all patches of an item were serialised (its version counts them)
// and every deleted item is gone.
func TestLibrary_Concurrent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	if err := l.CreateFolder("/f"); err != nil {
		t.Fatal(err)
	}
	const n = 16
	seed := make([]*media.Item, n)
	for i := range seed {
		// seed[0] starts in /f, so /f is never empty.
		folder := ""
		if i == 0 {
			folder = "/f"
		}
		seed[i] = mustCreate(t, l, "seed.pdf", pdfBytes, folder)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created []string
		patches = map[string]int{}
		deleted = map[string]bool{}
	)
	// Patchers: 4 goroutines patch every seed item 5 times each.
	for w := range 4 {
		wg.Go(func() {
			for round := range 5 {
				for _, it := range seed[:n/2] {
					alt := fmt.Sprintf("w%d-r%d", w, round)
					got, err := l.Patch(ctx, it.ID, media.Patch{Alt: &alt, Folder: ptr("/f")})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					patches[it.ID]++
					if got.Version > 1+patches[it.ID]+5*4 {
						t.Errorf("version %d", got.Version)
					}
					mu.Unlock()
				}
			}
		})
	}
	// Deleters race patchers on the other half.
	for _, it := range seed[n/2:] {
		wg.Go(func() {
			if err := l.Delete(ctx, it.ID); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			deleted[it.ID] = true
			mu.Unlock()
		})
		wg.Go(func() {
			_, err := l.Patch(ctx, it.ID, media.Patch{Title: ptr("late")})
			if err != nil && !errors.Is(err, media.ErrNotFound) {
				t.Error(err)
			}
		})
	}
	// Uploaders.
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				it, err := l.Create(ctx, media.UploadInput{Filename: "up.pdf", Body: bytes.NewReader(append(bytes.Clone(pdfBytes), byte(w), byte(i))), Folder: "/f"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				created = append(created, it.ID)
				mu.Unlock()
			}
		})
	}
	// A folder deleter that must always be refused (the folder has items).
	wg.Go(func() {
		for range 20 {
			if err := l.DeleteFolder("/f"); !errors.Is(err, media.ErrFolderNotEmpty) {
				t.Errorf("DeleteFolder: %v", err)
			}
		}
	})
	wg.Wait()

	check := func(l *media.Library, when string) {
		for _, it := range seed[:n/2] {
			g, ok := l.Get(it.ID)
			if !ok {
				t.Errorf("%s: patched item lost", when)
				continue
			}
			if g.Version != 1+patches[it.ID] {
				t.Errorf("%s: version %d after %d patches", when, g.Version, patches[it.ID])
			}
		}
		for id := range deleted {
			if _, ok := l.Get(id); ok {
				t.Errorf("%s: deleted item back", when)
			}
		}
		for _, id := range created {
			if _, ok := l.Get(id); !ok {
				t.Errorf("%s: upload lost", when)
			}
		}
		if _, total := l.List(media.Query{}); total != n/2+len(created) {
			t.Errorf("%s: %d items, want %d", when, total, n/2+len(created))
		}
		names := map[string]bool{}
		all, _ := l.List(media.Query{})
		for _, it := range all {
			if names[it.Key] {
				t.Errorf("%s: two items share %s", when, it.Key)
			}
			names[it.Key] = true
		}
	}
	check(l, "live")
	check(e.open(t), "reopened")
}
