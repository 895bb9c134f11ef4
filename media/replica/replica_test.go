package replica_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/replica"
)

var errs = replica.Errors{NotExist: media.ErrNotExist, Precondition: media.ErrPrecondition}

// newStore is a state store on local disk, the one a library on one box
// uses.
func newStore(t *testing.T) *local.State {
	t.Helper()
	st, err := local.OpenState(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// clock is a controllable now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// tail reads the whole log after seq.
func tail(t *testing.T, r *replica.Replica, seq int64) (seqs []int64, datas []string, err error) {
	t.Helper()
	err = r.Tail(t.Context(), seq, func(n int64, data []byte) (bool, error) {
		seqs = append(seqs, n)
		datas = append(datas, string(data))
		return false, nil
	})
	return seqs, datas, err
}

// Writers on several replicas of one store, appending at once, get one
// entry each, at distinct places with no gap: the log is totally ordered.
func TestAppend_TotalOrder(t *testing.T) {
	st := newStore(t)
	a, b := replica.New(st, errs, nil, nil), replica.New(st, errs, nil, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		r := a
		if i%2 == 1 {
			r = b
		}
		wg.Go(func() {
			// Every writer starts at place 1, as a box that knows no entry.
			if _, err := r.Append(t.Context(), 1, fmt.Appendf(nil, "entry %02d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	seqs, datas, err := tail(t, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 20 || seqs[0] != 1 || seqs[19] != 20 {
		t.Fatalf("log holds %v", seqs)
	}
	slices.Sort(datas)
	for i, d := range datas {
		if d != fmt.Sprintf("entry %02d", i) {
			t.Fatalf("entries %v", datas)
		}
	}
	if last, err := b.Last(t.Context()); err != nil || last != 20 {
		t.Fatalf("Last = %d, %v", last, err)
	}
}

// An append retried with the same bytes (its first request's answer was
// lost) finds its own entry instead of writing a second one.
func TestAppend_RetriedIsOnce(t *testing.T) {
	r := replica.New(newStore(t), errs, nil, nil)
	first, err := r.Append(t.Context(), 1, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Append(t.Context(), 1, []byte("x"))
	if err != nil || again != first {
		t.Fatalf("retried append = %d, %v; first %d", again, err, first)
	}
	other, err := r.Append(t.Context(), 1, []byte("y"))
	if err != nil || other != first+1 {
		t.Fatalf("next append = %d, %v", other, err)
	}
}

// Tail reads in order from a position, stops when asked, and tells a
// reader whose next entries were compacted away.
func TestTail(t *testing.T) {
	st := newStore(t)
	r := replica.New(st, errs, nil, nil)
	for i := 1; i <= 5; i++ {
		if _, err := r.Append(t.Context(), int64(i), fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if seqs, datas, err := tail(t, r, 2); err != nil || fmt.Sprint(seqs, datas) != "[3 4 5] [3 4 5]" {
		t.Fatalf("tail after 2 = %v %v %v", seqs, datas, err)
	}
	var got []int64
	err := r.Tail(t.Context(), 0, func(n int64, _ []byte) (bool, error) {
		got = append(got, n)
		return n == 2, nil
	})
	if err != nil || fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("tail stopped at 2 = %v, %v", got, err)
	}
	failed := errors.New("apply failed")
	if err := r.Tail(t.Context(), 0, func(int64, []byte) (bool, error) { return false, failed }); !errors.Is(err, failed) {
		t.Fatalf("tail with a failing apply: %v", err)
	}
	for i := int64(1); i <= 3; i++ {
		if err := st.Delete(t.Context(), replica.LogKey(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = tail(t, r, 1)
	var behind *replica.BehindError
	if !errors.As(err, &behind) || behind.At != 1 || behind.Next != 4 {
		t.Fatalf("tail behind a compaction: %v, want behind at 1, next 4", err)
	}
	if seqs, _, err := tail(t, r, 3); err != nil || fmt.Sprint(seqs) != "[4 5]" {
		t.Fatalf("tail after the compacted part = %v, %v", seqs, err)
	}
}

// missingOnce is a store whose log listings miss one entry, as a
// directory read during creates can, the first time.
type missingOnce struct {
	*local.State
	mu     sync.Mutex
	missed bool
	key    string
}

func (m *missingOnce) List(ctx context.Context, prefix, startAfter string, fn func(replica.Object) error) error {
	return m.State.List(ctx, prefix, startAfter, func(o replica.Object) error {
		m.mu.Lock()
		skip := o.Key == m.key && !m.missed
		if skip {
			m.missed = true
		}
		m.mu.Unlock()
		if skip {
			return nil
		}
		return fn(o)
	})
}

// A listing that misses an entry is not taken for a compaction: Tail
// reads on, in order, with no BehindError (which would make a box reload
// an older checkpoint and serve it for a moment).
func TestTail_ListingMissesAnEntry(t *testing.T) {
	st := &missingOnce{State: newStore(t), key: replica.LogKey(3)}
	r := replica.New(st, errs, nil, nil)
	for i := 1; i <= 5; i++ {
		if _, err := r.Append(t.Context(), int64(i), fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if seqs, _, err := tail(t, r, 0); err != nil || fmt.Sprint(seqs) != "[1 2 3 4 5]" {
		t.Fatalf("tail with a listing that missed entry 3 = %v, %v", seqs, err)
	}
}

// Checkpoints round-trip compressed; Compact keeps the two newest and
// the log entries after the older of them, and the rest only once they
// are older than the retention.
func TestCheckpoint(t *testing.T) {
	st := newStore(t)
	c := &clock{t: time.Now()}
	r := replica.New(st, errs, c.now, nil)
	for i := 1; i <= 9; i++ {
		if _, err := r.Append(t.Context(), int64(i), []byte("e")); err != nil {
			t.Fatal(err)
		}
	}
	for _, seq := range []int64{3, 6, 8} {
		err := r.WriteCheckpoint(t.Context(), seq, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "library as of %d %s", seq, strings.Repeat("x", 1000))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A second writer of the same checkpoint keeps the first.
	if err := r.WriteCheckpoint(t.Context(), 8, func(w io.Writer) error { _, err := io.WriteString(w, "other"); return err }); err != nil {
		t.Fatal(err)
	}
	rd, err := r.OpenCheckpoint(t.Context(), 8)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rd)
	if err != nil || !strings.HasPrefix(string(b), "library as of 8 ") {
		t.Fatalf("checkpoint 8 = %.30q, %v", b, err)
	}
	if err := r.Compact(t.Context(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if cps, err := r.Checkpoints(t.Context()); err != nil || fmt.Sprint(cps) != "[6 8]" {
		t.Fatalf("checkpoints after compaction = %v, %v", cps, err)
	}
	if last, _ := r.Last(t.Context()); last != 9 {
		t.Fatalf("log entries within the retention deleted: last %d", last)
	}
	c.add(2 * time.Hour)
	if err := r.Compact(t.Context(), time.Hour); err != nil {
		t.Fatal(err)
	}
	seqs, _, err := tail(t, r, 6)
	if err != nil || fmt.Sprint(seqs) != "[7 8 9]" {
		t.Fatalf("entries after checkpoint 6 = %v, %v", seqs, err)
	}
	if _, _, err := st.Get(t.Context(), replica.LogKey(6)); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("entry 6, covered by checkpoint 6, kept: %v", err)
	}
}

// Claims are all or none, case-blind, and an owner's own claim made again
// is granted.
func TestClaim(t *testing.T) {
	st := newStore(t)
	r := replica.New(st, errs, nil, nil)
	ctx := t.Context()
	if err := r.Claim(ctx, "x", []string{"2026/11/a.jpg", "2026/11/b.jpg"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Claim(ctx, "x", []string{"2026/11/a.jpg"}); err != nil {
		t.Fatalf("owner's claim again: %v", err)
	}
	err := r.Claim(ctx, "y", []string{"2026/11/c.jpg", "2026/11/B.JPG"})
	var taken *replica.KeyTakenError
	if !errors.As(err, &taken) || taken.Key != "2026/11/B.JPG" {
		t.Fatalf("claim of a taken key (other case): %v", err)
	}
	if _, _, err := st.Get(ctx, replica.ClaimKey("2026/11/c.jpg")); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("claim of a failed all-or-none kept: %v", err)
	}
	if other, err := r.ClaimIfFree(ctx, "z", "2026/11/a.jpg"); err != nil || other != string(replica.ClaimBody("x", "2026/11/a.jpg")) {
		t.Fatalf("ClaimIfFree of x's key = %q, %v", other, err)
	}
	r.Release(ctx, []string{"2026/11/a.jpg"})
	if err := r.Claim(ctx, "y", []string{"2026/11/A.jpg"}); err != nil {
		t.Fatalf("claim of a released key: %v", err)
	}
}

// The sweep removes a stale claim no one holds with its object, and
// leaves held, young, presigned, and malformed claims alone.
func TestSweepClaims(t *testing.T) {
	st := newStore(t)
	c := &clock{t: time.Now()}
	r := replica.New(st, errs, c.now, nil)
	ctx := t.Context()
	for owner, key := range map[string]string{
		"x": "2026/11/left.jpg",
		"y": "2026/11/held.jpg",
		"presign " + c.now().Add(2*time.Hour).UTC().Format(time.RFC3339): "2026/11/granted.jpg",
	} {
		if err := r.Claim(ctx, owner, []string{key}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Create(ctx, replica.ClaimKey("2026/11/bad.jpg"), []byte("no newline")); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	sweep := replica.Sweep{
		Stale:         time.Hour,
		PresignRetain: time.Hour,
		Held:          func(k string) bool { return k == "2026/11/held.jpg" },
		Valid:         func(string) error { return nil },
		DeleteObject: func(_ context.Context, key string) error {
			deleted = append(deleted, key)
			return nil
		},
	}
	if err := r.SweepClaims(ctx, sweep); err != nil || len(deleted) != 0 {
		t.Fatalf("young claims swept: %v, %v", deleted, err)
	}
	c.add(2 * time.Hour)
	if err := r.SweepClaims(ctx, sweep); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(deleted) != "[2026/11/left.jpg]" {
		t.Fatalf("swept objects %v, want the leftover only", deleted)
	}
	var left []string
	if err := st.List(ctx, replica.ClaimsPrefix, "", func(o replica.Object) error { left = append(left, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(left) != "[claims/2026/11/bad.jpg claims/2026/11/granted.jpg claims/2026/11/held.jpg]" {
		t.Fatalf("claims after the sweep: %v", left)
	}
	c.add(2 * time.Hour) // the grant's claim is past its retention now
	if err := r.SweepClaims(ctx, sweep); err != nil || fmt.Sprint(deleted) != "[2026/11/left.jpg 2026/11/granted.jpg]" {
		t.Fatalf("expired grant's claim: swept %v, %v", deleted, err)
	}
}

// A sweep with AnyAge (the only writer, at its start) takes an unheld
// claim made a moment ago, and still keeps held ones, a grant's, and
// those of an item that exists but is not loaded (Unloaded).
func TestSweepClaims_AnyAge(t *testing.T) {
	st := newStore(t)
	c := &clock{t: time.Now()}
	r := replica.New(st, errs, c.now, nil)
	ctx := t.Context()
	for owner, key := range map[string]string{
		"x": "2026/11/left.jpg",
		"y": "2026/11/held.jpg",
		"z": "2026/11/corrupt.jpg",
		"presign " + c.now().Add(2*time.Hour).UTC().Format(time.RFC3339): "2026/11/granted.jpg",
	} {
		if err := r.Claim(ctx, owner, []string{key}); err != nil {
			t.Fatal(err)
		}
	}
	var deleted []string
	sweep := replica.Sweep{
		Stale:         time.Hour,
		AnyAge:        true,
		Unloaded:      func(_ context.Context, owner string) (bool, error) { return owner == "z", nil },
		PresignRetain: time.Hour,
		Held:          func(k string) bool { return k == "2026/11/held.jpg" },
		Valid:         func(string) error { return nil },
		DeleteObject: func(_ context.Context, key string) error {
			deleted = append(deleted, key)
			return nil
		},
	}
	if err := r.SweepClaims(ctx, sweep); err != nil || fmt.Sprint(deleted) != "[2026/11/left.jpg]" {
		t.Fatalf("swept %v, %v; want the young leftover only", deleted, err)
	}
}

func TestTombs(t *testing.T) {
	now := time.Now()
	tombs := replica.Tombs{}
	tombs.Bury("old", now.Add(-replica.TombRetain-time.Minute))
	tombs.Bury("new", now.Add(-time.Minute))
	if !tombs.Buried("old") || !tombs.Buried("new") || tombs.Buried("alive") {
		t.Fatal("Buried is wrong")
	}
	if r := tombs.Recent(now); len(r) != 1 || !r["new"].Equal(now.Add(-time.Minute)) {
		t.Fatalf("Recent = %v", r)
	}
}
