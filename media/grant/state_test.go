package grant_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// Two Stores on one bucket are two boxes behind a load balancer.

func TestState_TwoBoxes(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	a, b := e.open(t), e.open(t)
	g := e.grant("a.png", time.Minute)
	mustAdd(t, a, g)
	if !pending(t, b, g.FullKey) {
		t.Error("grant of box a not pending on box b")
	}
	if err := b.Add(t.Context(), g); !errors.Is(err, grant.ErrExists) {
		t.Errorf("box b granted box a's key again: %v", err)
	}
	got, err := b.Claim(t.Context(), g.FullKey)
	if err != nil {
		t.Fatal(err)
	}
	if got != g {
		t.Errorf("Claim on box b = %+v, want %+v", got, g)
	}
	if _, err := a.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("Claim on box a while b holds it: %v, want ErrBusy", err)
	}
	if err := a.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("Take on box a while b holds it: %v, want ErrBusy", err)
	}
	if err := b.Take(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	if err := a.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
		t.Errorf("Take on box a after b's: %v, want ErrConfirmed", err)
	}
	if pending(t, a, g.FullKey) {
		t.Error("confirmed grant pending on box a")
	}
}

func TestState_RaceAcrossBoxes(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	a, b := e.open(t), e.open(t)
	g := e.grant("a.png", time.Minute)
	mustAdd(t, a, g)
	if n := race(t, []*grant.Store{a, b}, g.FullKey); n != 1 {
		t.Errorf("%d confirms on two boxes took one grant", n)
	}

	// Two Claims only: one wins, the other is told ErrBusy.
	g2 := e.grant("b.png", time.Minute)
	mustAdd(t, b, g2)
	errs := make(chan error, 2)
	for _, s := range []*grant.Store{a, b} {
		go func() { _, err := s.Claim(t.Context(), g2.FullKey); errs <- err }()
	}
	var won, busy int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			won++
		case errors.Is(err, grant.ErrBusy):
			busy++
		default:
			t.Errorf("Claim: %v", err)
		}
	}
	if won != 1 || busy != 1 {
		t.Errorf("%d Claims won, %d busy; want 1 and 1", won, busy)
	}
}

// A box that died mid-confirm leaves a lease; once it ran out another box
// takes the grant over, and the dead box's claim is worth nothing.
func TestState_DeadBoxLease(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	lease := func(c *grant.Config) { c.Lease = time.Minute }
	dead, live := e.open(t, lease), e.open(t, lease)
	g := e.grant("a.png", 10*time.Minute)
	mustAdd(t, dead, g)
	if _, err := dead.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(59 * time.Second)
	if _, err := live.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Fatalf("Claim under a live lease: %v, want ErrBusy", err)
	}
	e.clock.Add(time.Second)
	if _, err := live.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatalf("Claim after the lease ran out: %v", err)
	}
	// The dead box comes back: its release leaves the new lease alone,
	// its Take is refused.
	if err := dead.Release(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	if _, err := e.open(t).Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("Claim after the dead box's Release: %v, want ErrBusy", err)
	}
	if err := dead.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("Take by the dead box: %v, want ErrBusy", err)
	}
	if err := live.Take(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
}

// A lease that ran out while the grant expired leaves an expired grant.
func TestState_LeaseOfExpiredGrant(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	a, b := e.open(t), e.open(t)
	g := e.grant("a.png", time.Minute)
	mustAdd(t, a, g)
	if _, err := a.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	if !pending(t, b, g.FullKey) {
		t.Error("expired grant under a lease not pending")
	}
	e.clock.Add(grant.DefaultLease)
	if pending(t, b, g.FullKey) {
		t.Error("expired grant pending after its lease")
	}
	if _, err := b.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrExpired) {
		t.Errorf("Claim: %v, want ErrExpired", err)
	}
	// The box that claimed it in time may still spend it.
	if err := a.Take(t.Context(), g.FullKey); err != nil {
		t.Errorf("Take by the claiming box: %v", err)
	}
}

// One object per grant, at grants/<hex sha256 of the full key>.yaml, in
// YAML.
func TestState_Object(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	s := e.open(t)
	g := e.grant("a.png", time.Minute)
	mustAdd(t, s, g)
	sum := sha256.Sum256([]byte("site/2026/03/a.png"))
	key := "grants/" + hex.EncodeToString(sum[:]) + ".yaml"
	var keys []string
	if err := e.state.List(t.Context(), "", "", func(o media.StateObject) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != key {
		t.Fatalf("state objects %v, want [%s]", keys, key)
	}
	if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	data, _, err := e.state.Get(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"key: 2026/03/a.png\n", "fullKey: site/2026/03/a.png\n", "mimeType: image/png\n", "size: 42\n",
		"expiresAt: 2026-03-14T12:01:00Z\n", "claimedUntil: 2026-03-14T12:02:00Z\n", "claimToken: "} {
		if !strings.Contains(string(data), want) {
			t.Errorf("object lacks %q:\n%s", want, data)
		}
	}
	if err := s.Take(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
	data, _, err = e.state.Get(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "confirmedAt: 2026-03-14T12:00:00Z\n") || strings.Contains(string(data), "claim") {
		t.Errorf("taken grant:\n%s", data)
	}
}

// A Prune on one box forgets the grant on all; a grant under a lease
// stays until the lease runs out.
func TestState_Prune(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	noRetain := func(c *grant.Config) { c.Retain = -1 }
	a, b := e.open(t, noRetain), e.open(t, noRetain)
	old, claimed := e.grant("old.png", time.Minute), e.grant("claimed.png", time.Minute)
	mustAdd(t, a, old)
	mustAdd(t, a, claimed)
	if _, err := a.Claim(t.Context(), claimed.FullKey); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	if err := b.Prune(t.Context()); err != nil {
		t.Fatal(err)
	}
	if lookup(t, a, old.FullKey) {
		t.Error("expired grant not pruned")
	}
	if !lookup(t, a, claimed.FullKey) {
		t.Error("claimed grant pruned")
	}
	e.clock.Add(grant.DefaultLease)
	if err := b.Prune(t.Context()); err != nil {
		t.Fatal(err)
	}
	if lookup(t, a, claimed.FullKey) {
		t.Error("grant pruned not after its lease ran out")
	}
	if err := a.Take(t.Context(), claimed.FullKey); !errors.Is(err, grant.ErrNotGranted) {
		t.Errorf("Take of a pruned grant: %v, want ErrNotGranted", err)
	}
}

// MaxPending counts the grants of other boxes as of the last Open,
// Prune or Unconfirmed.
func TestState_MaxPendingAcrossBoxes(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	max2 := func(c *grant.Config) { c.MaxPending = 2 }
	a, b := e.open(t, max2), e.open(t, max2)
	mustAdd(t, a, e.grant("a.png", time.Minute))
	mustAdd(t, a, e.grant("b.png", time.Minute))
	// b has not looked since: approximate.
	mustAdd(t, b, e.grant("c.png", time.Minute))
	if err := b.Prune(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(t.Context(), e.grant("d.png", time.Minute)); !errors.Is(err, grant.ErrFull) {
		t.Errorf("Add over MaxPending after a Prune: %v, want ErrFull", err)
	}
	if err := e.open(t, max2).Add(t.Context(), e.grant("d.png", time.Minute)); !errors.Is(err, grant.ErrFull) {
		t.Errorf("Add over MaxPending on a new box: %v, want ErrFull", err)
	}
}

// With the S3 server down every call fails with an error that wraps
// media.ErrUnavailable and changes nothing; once it is back the grant
// works.
func TestState_Unavailable(t *testing.T) {
	srv := s3test.NewServer(t)
	e := newStateEnv(t, srv)
	s := e.open(t)
	g := e.grant("a.png", time.Hour)
	mustAdd(t, s, g)

	srv.Stop()
	unavailable := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, media.ErrUnavailable) {
			t.Errorf("%s with the server down = %v, want ErrUnavailable", op, err)
		}
	}
	unavailable("Add", s.Add(t.Context(), e.grant("b.png", time.Minute)))
	_, err := s.Pending(t.Context(), g.FullKey)
	unavailable("Pending", err)
	_, _, err = s.Lookup(t.Context(), g.FullKey)
	unavailable("Lookup", err)
	_, err = s.Claim(t.Context(), g.FullKey)
	unavailable("Claim", err)
	unavailable("Take", s.Take(t.Context(), g.FullKey))
	_, err = s.Unconfirmed(t.Context())
	unavailable("Unconfirmed", err)
	unavailable("Prune", s.Prune(t.Context()))
	_, err = grant.Open(t.Context(), e.config())
	unavailable("Open", err)

	srv.Start()
	if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatalf("Claim after restart: %v", err)
	}
	// Storage goes down mid-confirm: the Release fails, and the grant
	// is busy until the lease runs out.
	srv.Stop()
	unavailable("Release", s.Release(t.Context(), g.FullKey))
	srv.Start()
	if _, err := s.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("Claim under the unreleased lease: %v, want ErrBusy", err)
	}
	e.clock.Add(grant.DefaultLease)
	if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
		t.Fatalf("Claim after the lease: %v", err)
	}
	if err := s.Take(t.Context(), g.FullKey); err != nil {
		t.Fatal(err)
	}
}

// countingState counts the reads of a state store.
type countingState struct {
	media.StateStore
	mu   sync.Mutex
	gets int
}

func (c *countingState) Get(ctx context.Context, key string) ([]byte, string, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.StateStore.Get(ctx, key)
}

func (c *countingState) reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.gets
	c.gets = 0
	return n
}

// A listing reads only the grants that changed since this Store saw them.
func TestState_ListReadsChangesOnly(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	for _, name := range []string{"a.png", "b.png", "c.png"} {
		mustAdd(t, e.open(t), e.grant(name, time.Minute))
	}
	counting := &countingState{StateStore: e.state}
	e.state = counting
	s := e.open(t)
	if n := counting.reads(); n != 3 {
		t.Errorf("Open read %d grants, want 3", n)
	}
	if got := unconfirmed(t, s); len(got) != 3 {
		t.Errorf("Unconfirmed = %d grants, want 3", len(got))
	}
	if n := counting.reads(); n != 0 {
		t.Errorf("Unconfirmed read %d unchanged grants", n)
	}
	if err := e.open(t).Take(t.Context(), "site/2026/03/b.png"); err != nil {
		t.Fatal(err)
	}
	counting.reads()
	if got := unconfirmed(t, s); len(got) != 2 {
		t.Errorf("Unconfirmed = %d grants, want 2", len(got))
	}
	if n := counting.reads(); n != 1 {
		t.Errorf("Unconfirmed read %d grants, want the 1 changed", n)
	}
}

// A pruned grant takes its staged upload with it: what its URL put in the
// staging area and no confirm took (issue 23, finding 3).
func TestState_PruneDeletesStaged(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	s := e.open(t, func(c *grant.Config) { c.Retain = -1 })
	g := e.grant("staged.png", time.Minute)
	g.Staged = "staging/tok/staged.png"
	mustAdd(t, s, g)
	if _, err := e.state.Create(t.Context(), g.Staged, []byte("left behind")); err != nil {
		t.Fatal(err)
	}
	if err := s.Prune(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.state.(media.Stager).StatStaged(t.Context(), g.Staged); err != nil {
		t.Fatalf("a grant still valid lost its staged upload: %v", err)
	}
	e.clock.Add(time.Minute)
	if err := s.Prune(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.state.(media.Stager).StatStaged(t.Context(), g.Staged); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("staged upload of a pruned grant: %v, want ErrNotExist", err)
	}
}
