package grant_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// clock is a controllable Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is where the Stores of one test keep their grants: a state
// directory on local disk, or the state area of a bucket on a real S3
// server.
type env struct {
	dir   string // the local state's directory
	state media.StateStore
	srv   *s3test.Server
	clock *clock
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)} }

func newLocalEnv(t *testing.T) *env {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	st, err := local.OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &env{dir: dir, state: st, clock: newClock()}
}

// newStateEnv makes a bucket on srv; requests to a stopped server fail
// after one attempt.
func newStateEnv(t *testing.T, srv *s3test.Server) *env {
	t.Helper()
	cfg := srv.NewBucket(t)
	cfg.MaxRetries = 1
	_, state := s3test.Open(t, cfg)
	return &env{state: state, srv: srv, clock: newClock()}
}

// eachBackend runs fn for a local state store and for one in a bucket; a
// subtest of fn gets a fresh env from newEnv. The bucket stores of one
// test share one S3 server, a bucket each.
func eachBackend(t *testing.T, fn func(t *testing.T, newEnv func(*testing.T) *env)) {
	t.Run("local", func(t *testing.T) { fn(t, newLocalEnv) })
	t.Run("s3", func(t *testing.T) {
		srv := s3test.NewServer(t)
		fn(t, func(t *testing.T) *env { return newStateEnv(t, srv) })
	})
}

// config is the configuration of a Store on e.
func (e *env) config(mod ...func(*grant.Config)) grant.Config {
	cfg := grant.Config{State: e.state, Now: e.clock.Now}
	for _, m := range mod {
		m(&cfg)
	}
	return cfg
}

// open opens a Store on e: with a file, as after a restart; with a state
// store, as on another box.
func (e *env) open(t *testing.T, mod ...func(*grant.Config)) *grant.Store {
	t.Helper()
	s, err := grant.Open(t.Context(), e.config(mod...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) grant(name string, ttl time.Duration) grant.Grant {
	return grant.Grant{
		Key: "2026/03/" + name, FullKey: "site/2026/03/" + name, Filename: name,
		MimeType: "image/png", Size: 42, ExpiresAt: e.clock.Now().Add(ttl), KeyName: "editor",
	}
}

func mustAdd(t *testing.T, s *grant.Store, g grant.Grant) {
	t.Helper()
	if err := s.Add(t.Context(), g); err != nil {
		t.Fatal(err)
	}
}

func lookup(t *testing.T, s *grant.Store, fullKey string) bool {
	t.Helper()
	_, ok, err := s.Lookup(t.Context(), fullKey)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func pending(t *testing.T, s *grant.Store, fullKey string) bool {
	t.Helper()
	ok, err := s.Pending(t.Context(), fullKey)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func unconfirmed(t *testing.T, s *grant.Store) []grant.Grant {
	t.Helper()
	gs, err := s.Unconfirmed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func TestStore_Take(t *testing.T) {
	eachBackend(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		t.Run("OK", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			got, err := s.Claim(t.Context(), g.FullKey)
			if err != nil {
				t.Fatal(err)
			}
			if got != g {
				t.Errorf("Claim = %+v, want %+v", got, g)
			}
			if err := s.Take(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			if err := s.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
				t.Errorf("second Take: %v, want ErrConfirmed", err)
			}
			if _, err := s.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
				t.Errorf("Claim after Take: %v, want ErrConfirmed", err)
			}
		})

		t.Run("WithoutClaim", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if err := s.Take(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			if err := s.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
				t.Errorf("second Take: %v", err)
			}
		})

		t.Run("ErrNotGranted", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			mustAdd(t, s, e.grant("a.png", time.Minute))
			for _, k := range []string{"", "site/2026/03/b.png", "2026/03/a.png", "other/2026/03/a.png"} {
				if _, err := s.Claim(t.Context(), k); !errors.Is(err, grant.ErrNotGranted) {
					t.Errorf("Claim(%q): %v", k, err)
				}
				if err := s.Take(t.Context(), k); !errors.Is(err, grant.ErrNotGranted) {
					t.Errorf("Take(%q): %v", k, err)
				}
			}
		})

		t.Run("ErrExpired", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			e.clock.Add(time.Minute)
			if _, err := s.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrExpired) {
				t.Errorf("Claim: %v", err)
			}
			if err := s.Take(t.Context(), g.FullKey); !errors.Is(err, grant.ErrExpired) {
				t.Errorf("Take: %v", err)
			}
		})

		t.Run("ClaimedBeforeExpiry", func(t *testing.T) {
			// A confirm that started in time finishes even if adoption
			// took longer than what was left of the grant (and of the
			// lease: nobody took it over).
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			e.clock.Add(5 * time.Minute)
			if err := s.Take(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("ErrBusy", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrBusy) {
				t.Errorf("second Claim: %v", err)
			}
			if !pending(t, s, g.FullKey) {
				t.Error("claimed grant not pending")
			}
			if err := s.Release(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
				t.Errorf("Claim after Release: %v", err)
			}
		})

		t.Run("Concurrent", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if n := race(t, []*grant.Store{s}, g.FullKey); n != 1 {
				t.Errorf("%d confirms took one grant", n)
			}
		})
	})
}

// race has 8 confirms Claim and Take fullKey at once, spread over
// stores, and returns how many took it. A Claim may fail only with
// ErrBusy or ErrConfirmed.
func race(t *testing.T, stores []*grant.Store, fullKey string) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		s := stores[i%len(stores)]
		wg.Go(func() {
			if _, err := s.Claim(t.Context(), fullKey); err != nil {
				if !errors.Is(err, grant.ErrBusy) && !errors.Is(err, grant.ErrConfirmed) {
					t.Errorf("Claim: %v", err)
				}
				return
			}
			if s.Take(t.Context(), fullKey) == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return won
}

func TestStore_Add(t *testing.T) {
	eachBackend(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		t.Run("ErrExists", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if err := s.Add(t.Context(), g); !errors.Is(err, grant.ErrExists) {
				t.Errorf("Add twice: %v", err)
			}
			// Once expired, the key may be granted again.
			e.clock.Add(time.Minute)
			g2 := e.grant("a.png", time.Minute)
			mustAdd(t, s, g2)
			if _, err := s.Claim(t.Context(), g.FullKey); err != nil {
				t.Errorf("Claim of the new grant: %v", err)
			}
			// Not while it is claimed, even past its expiry.
			e.clock.Add(time.Minute)
			if err := s.Add(t.Context(), e.grant("a.png", time.Minute)); !errors.Is(err, grant.ErrExists) {
				t.Errorf("Add over a claimed grant: %v", err)
			}
			// Once confirmed, it may.
			if err := s.Take(t.Context(), g.FullKey); err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, e.grant("a.png", time.Minute))
		})

		t.Run("ErrFull", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t, func(c *grant.Config) { c.MaxPending = 2 })
			mustAdd(t, s, e.grant("a.png", time.Minute))
			mustAdd(t, s, e.grant("b.png", time.Minute))
			if err := s.Add(t.Context(), e.grant("c.png", time.Minute)); !errors.Is(err, grant.ErrFull) {
				t.Fatalf("third grant: %v", err)
			}
			// A confirmed grant no longer counts.
			if err := s.Take(t.Context(), "site/2026/03/a.png"); err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, e.grant("c.png", time.Minute))
			// Nor does an expired one.
			e.clock.Add(time.Minute)
			mustAdd(t, s, e.grant("d.png", time.Minute))
			mustAdd(t, s, e.grant("e.png", time.Minute))
		})

		t.Run("EmptyKey", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			if err := s.Add(t.Context(), grant.Grant{Key: "2026/03/a.png"}); err == nil {
				t.Error("grant without a full key accepted")
			}
			if err := s.Add(t.Context(), grant.Grant{FullKey: "site/2026/03/a.png"}); err == nil {
				t.Error("grant without a key accepted")
			}
		})
	})

	t.Run("Unwritable", func(t *testing.T) {
		e := newLocalEnv(t)
		s := e.open(t)
		if err := os.RemoveAll(e.dir); err != nil {
			t.Fatal(err)
		}
		g := e.grant("a.png", time.Minute)
		if err := s.Add(t.Context(), g); err == nil {
			t.Fatal("Add succeeded without persisting")
		}
		// Not persisted means not granted.
		if _, err := s.Claim(t.Context(), g.FullKey); !errors.Is(err, grant.ErrNotGranted) {
			t.Errorf("Claim of an unsaved grant: %v", err)
		}
	})
}

func TestStore_Pending(t *testing.T) {
	eachBackend(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if !pending(t, s, g.FullKey) {
			t.Error("granted key not pending")
		}
		if pending(t, s, "site/2026/03/b.png") {
			t.Error("other key pending")
		}
		if err := s.Take(t.Context(), g.FullKey); err != nil {
			t.Fatal(err)
		}
		if pending(t, s, g.FullKey) {
			t.Error("confirmed key still pending")
		}
	})
}

func TestOpen(t *testing.T) {
	eachBackend(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		t.Run("SurvivesRestart", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			pending, taken := e.grant("a.png", time.Minute), e.grant("b.png", time.Minute)
			mustAdd(t, s, pending)
			mustAdd(t, s, taken)
			if err := s.Take(t.Context(), taken.FullKey); err != nil {
				t.Fatal(err)
			}
			s = e.open(t)
			got, err := s.Claim(t.Context(), pending.FullKey)
			if err != nil {
				t.Fatal(err)
			}
			if !got.ExpiresAt.Equal(pending.ExpiresAt) || got.Size != 42 || got.MimeType != "image/png" || got.KeyName != "editor" || got.Key != pending.Key {
				t.Errorf("reloaded grant %+v, want %+v", got, pending)
			}
			if _, err := s.Claim(t.Context(), taken.FullKey); !errors.Is(err, grant.ErrConfirmed) {
				t.Errorf("confirmed grant after restart: %v", err)
			}
		})

		t.Run("PrunesExpired", func(t *testing.T) {
			e := newEnv(t)
			retain := func(c *grant.Config) { c.Retain = time.Hour }
			s := e.open(t, retain)
			old, fresh := e.grant("old.png", time.Minute), e.grant("fresh.png", 3*time.Hour)
			mustAdd(t, s, old)
			mustAdd(t, s, fresh)
			e.clock.Add(30 * time.Minute)
			// Expired but retained: a late confirm is told it expired.
			if _, err := e.open(t, retain).Claim(t.Context(), old.FullKey); !errors.Is(err, grant.ErrExpired) {
				t.Errorf("retained grant: %v", err)
			}
			e.clock.Add(time.Hour)
			s = e.open(t, retain)
			if lookup(t, s, old.FullKey) {
				t.Error("grant past retention not pruned")
			}
			if !lookup(t, s, fresh.FullKey) {
				t.Error("pending grant pruned")
			}
			if _, _, err := e.state.Get(t.Context(), grant.ObjectKey(old.FullKey)); !errors.Is(err, media.ErrNotExist) {
				t.Errorf("pruned grant's object: %v", err)
			}
		})

		t.Run("Prune", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t, func(c *grant.Config) { c.Retain = -1 })
			g := e.grant("a.png", time.Minute)
			mustAdd(t, s, g)
			if err := s.Prune(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !lookup(t, s, g.FullKey) {
				t.Fatal("pending grant pruned")
			}
			e.clock.Add(time.Minute)
			if err := s.Prune(t.Context()); err != nil {
				t.Fatal(err)
			}
			if lookup(t, s, g.FullKey) {
				t.Error("expired grant not pruned")
			}
		})

		t.Run("Missing", func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t)
			if lookup(t, s, "site/2026/03/a.png") {
				t.Error("grant in an empty store")
			}
		})
	})

	t.Run("CorruptObject", func(t *testing.T) {
		srv := s3test.NewServer(t)
		for name, body := range map[string]string{
			"yaml":     "key: [\n",
			"emptyKey": "filename: a.png\n",
			"otherKey": "key: 2026/03/b.png\nfullKey: site/2026/03/b.png\n",
		} {
			t.Run(name, func(t *testing.T) {
				e := newStateEnv(t, srv)
				if _, err := e.state.Create(t.Context(), grant.ObjectKey("site/2026/03/a.png"), []byte(body)); err != nil {
					t.Fatal(err)
				}
				if _, err := grant.Open(t.Context(), e.config()); err == nil {
					t.Error("corrupt grant object accepted")
				}
			})
		}
	})

	t.Run("StateRequired", func(t *testing.T) {
		if _, err := grant.Open(t.Context(), grant.Config{}); err == nil {
			t.Error("no state store accepted")
		}
	})
}

func TestStore_Unconfirmed(t *testing.T) {
	eachBackend(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		e := newEnv(t)
		s := e.open(t)
		pending, taken, short := e.grant("a.png", time.Minute), e.grant("b.png", time.Minute), e.grant("c.png", time.Second)
		for _, g := range []grant.Grant{pending, taken, short} {
			mustAdd(t, s, g)
		}
		if err := s.Take(t.Context(), taken.FullKey); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(2 * time.Second)
		got := unconfirmed(t, e.open(t))
		if len(got) != 1 || got[0].Key != pending.Key {
			t.Fatalf("Unconfirmed after restart = %+v, want only %s", got, pending.Key)
		}
		// A grant added after Open is listed too.
		later := e.grant("d.png", time.Minute)
		mustAdd(t, s, later)
		if got := unconfirmed(t, s); len(got) != 2 {
			t.Fatalf("Unconfirmed = %+v, want %s and %s", got, pending.Key, later.Key)
		}
	})
}
