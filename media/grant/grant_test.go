package grant_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media/grant"
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

type env struct {
	path  string
	clock *clock
}

func newEnv(t *testing.T) *env {
	return &env{
		path:  filepath.Join(t.TempDir(), ".grants.yaml"),
		clock: &clock{t: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)},
	}
}

func (e *env) open(t *testing.T, mod ...func(*grant.Config)) *grant.Store {
	t.Helper()
	cfg := grant.Config{Path: e.path, Now: e.clock.Now}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := grant.Open(cfg)
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
	if err := s.Add(g); err != nil {
		t.Fatal(err)
	}
}

func TestStore_Take(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		got, err := s.Claim(g.FullKey)
		if err != nil {
			t.Fatal(err)
		}
		if got != g {
			t.Errorf("Claim = %+v, want %+v", got, g)
		}
		if err := s.Take(g.FullKey); err != nil {
			t.Fatal(err)
		}
		if err := s.Take(g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
			t.Errorf("second Take: %v, want ErrConfirmed", err)
		}
		if _, err := s.Claim(g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
			t.Errorf("Claim after Take: %v, want ErrConfirmed", err)
		}
	})

	t.Run("WithoutClaim", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if err := s.Take(g.FullKey); err != nil {
			t.Fatal(err)
		}
		if err := s.Take(g.FullKey); !errors.Is(err, grant.ErrConfirmed) {
			t.Errorf("second Take: %v", err)
		}
	})

	t.Run("ErrNotGranted", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		mustAdd(t, s, e.grant("a.png", time.Minute))
		for _, k := range []string{"", "site/2026/03/b.png", "2026/03/a.png", "other/2026/03/a.png"} {
			if _, err := s.Claim(k); !errors.Is(err, grant.ErrNotGranted) {
				t.Errorf("Claim(%q): %v", k, err)
			}
			if err := s.Take(k); !errors.Is(err, grant.ErrNotGranted) {
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
		if _, err := s.Claim(g.FullKey); !errors.Is(err, grant.ErrExpired) {
			t.Errorf("Claim: %v", err)
		}
		if err := s.Take(g.FullKey); !errors.Is(err, grant.ErrExpired) {
			t.Errorf("Take: %v", err)
		}
	})

	t.Run("ClaimedBeforeExpiry", func(t *testing.T) {
		// A confirm that started in time finishes even if adoption took
		// longer than what was left of the grant.
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if _, err := s.Claim(g.FullKey); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(2 * time.Minute)
		if err := s.Take(g.FullKey); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ErrBusy", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if _, err := s.Claim(g.FullKey); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(g.FullKey); !errors.Is(err, grant.ErrBusy) {
			t.Errorf("second Claim: %v", err)
		}
		s.Release(g.FullKey)
		if _, err := s.Claim(g.FullKey); err != nil {
			t.Errorf("Claim after Release: %v", err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Go(func() {
				if _, err := s.Claim(g.FullKey); err != nil {
					return
				}
				if s.Take(g.FullKey) == nil {
					mu.Lock()
					won++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d confirms took one grant", won)
		}
	})
}

func TestStore_Add(t *testing.T) {
	t.Run("ErrExists", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if err := s.Add(g); !errors.Is(err, grant.ErrExists) {
			t.Errorf("Add twice: %v", err)
		}
		// Once expired, the key may be granted again.
		e.clock.Add(time.Minute)
		g2 := e.grant("a.png", time.Minute)
		mustAdd(t, s, g2)
		if _, err := s.Claim(g.FullKey); err != nil {
			t.Errorf("Claim of the new grant: %v", err)
		}
	})

	t.Run("ErrFull", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t, func(c *grant.Config) { c.MaxPending = 2 })
		mustAdd(t, s, e.grant("a.png", time.Minute))
		mustAdd(t, s, e.grant("b.png", time.Minute))
		if err := s.Add(e.grant("c.png", time.Minute)); !errors.Is(err, grant.ErrFull) {
			t.Fatalf("third grant: %v", err)
		}
		// A confirmed grant no longer counts.
		if err := s.Take("site/2026/03/a.png"); err != nil {
			t.Fatal(err)
		}
		mustAdd(t, s, e.grant("c.png", time.Minute))
	})

	t.Run("EmptyKey", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		if err := s.Add(grant.Grant{Key: "2026/03/a.png"}); err == nil {
			t.Error("grant without a full key accepted")
		}
	})

	t.Run("UnwritableFile", func(t *testing.T) {
		e := newEnv(t)
		e.path = filepath.Join(t.TempDir(), "gone", ".grants.yaml")
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		if err := s.Add(g); err == nil {
			t.Fatal("Add succeeded without persisting")
		}
		// Not persisted means not granted.
		if _, err := s.Claim(g.FullKey); !errors.Is(err, grant.ErrNotGranted) {
			t.Errorf("Claim of an unsaved grant: %v", err)
		}
	})
}

func TestStore_Pending(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	g := e.grant("a.png", time.Minute)
	mustAdd(t, s, g)
	if !s.Pending(g.Key) {
		t.Error("granted key not pending")
	}
	if s.Pending("2026/03/b.png") {
		t.Error("other key pending")
	}
	if err := s.Take(g.FullKey); err != nil {
		t.Fatal(err)
	}
	if s.Pending(g.Key) {
		t.Error("confirmed key still pending")
	}
}

func TestOpen(t *testing.T) {
	t.Run("SurvivesRestart", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		pending, taken := e.grant("a.png", time.Minute), e.grant("b.png", time.Minute)
		mustAdd(t, s, pending)
		mustAdd(t, s, taken)
		if err := s.Take(taken.FullKey); err != nil {
			t.Fatal(err)
		}
		s = e.open(t)
		got, err := s.Claim(pending.FullKey)
		if err != nil {
			t.Fatal(err)
		}
		if !got.ExpiresAt.Equal(pending.ExpiresAt) || got.Size != 42 || got.MimeType != "image/png" || got.KeyName != "editor" || got.Key != pending.Key {
			t.Errorf("reloaded grant %+v, want %+v", got, pending)
		}
		if _, err := s.Claim(taken.FullKey); !errors.Is(err, grant.ErrConfirmed) {
			t.Errorf("confirmed grant after restart: %v", err)
		}
	})

	t.Run("ClaimIsNotPersisted", func(t *testing.T) {
		// A crash mid-confirm leaves the grant usable.
		e := newEnv(t)
		s := e.open(t)
		g := e.grant("a.png", time.Minute)
		mustAdd(t, s, g)
		if _, err := s.Claim(g.FullKey); err != nil {
			t.Fatal(err)
		}
		if _, err := e.open(t).Claim(g.FullKey); err != nil {
			t.Errorf("after restart: %v", err)
		}
	})

	t.Run("PrunesExpired", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t, func(c *grant.Config) { c.Retain = time.Hour })
		old, fresh := e.grant("old.png", time.Minute), e.grant("fresh.png", 3*time.Hour)
		mustAdd(t, s, old)
		mustAdd(t, s, fresh)
		e.clock.Add(30 * time.Minute)
		// Expired but retained: a late confirm is told it expired.
		if _, err := e.open(t, func(c *grant.Config) { c.Retain = time.Hour }).Claim(old.FullKey); !errors.Is(err, grant.ErrExpired) {
			t.Errorf("retained grant: %v", err)
		}
		e.clock.Add(time.Hour)
		s = e.open(t, func(c *grant.Config) { c.Retain = time.Hour })
		if _, ok := s.Lookup(old.FullKey); ok {
			t.Error("grant past retention not pruned")
		}
		if _, ok := s.Lookup(fresh.FullKey); !ok {
			t.Error("pending grant pruned")
		}
		b, err := os.ReadFile(e.path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "old.png") {
			t.Errorf("pruned grant still in the file:\n%s", b)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		if _, ok := s.Lookup("site/2026/03/a.png"); ok {
			t.Error("grant in an empty store")
		}
		if _, err := os.Stat(e.path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Open of a missing file wrote one: %v", err)
		}
	})

	t.Run("Corrupt", func(t *testing.T) {
		for name, body := range map[string]string{
			"yaml":     "grants: [\n",
			"type":     "grants: 7\n",
			"emptyKey": "grants:\n  - filename: a.png\n",
		} {
			t.Run(name, func(t *testing.T) {
				e := newEnv(t)
				if err := os.WriteFile(e.path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := grant.Open(grant.Config{Path: e.path, Now: e.clock.Now}); err == nil {
					t.Error("corrupt grants file accepted")
				}
			})
		}
	})

	t.Run("EmptyPath", func(t *testing.T) {
		if _, err := grant.Open(grant.Config{}); err == nil {
			t.Error("empty path accepted")
		}
	})

	t.Run("NoTempFilesLeft", func(t *testing.T) {
		e := newEnv(t)
		s := e.open(t)
		mustAdd(t, s, e.grant("a.png", time.Minute))
		if err := s.Take("site/2026/03/a.png"); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Dir(e.path))
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != ".grants.yaml" {
			var names []string
			for _, d := range ents {
				names = append(names, d.Name())
			}
			t.Errorf("directory holds %v", names)
		}
	})
}

func TestStore_Unconfirmed(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	pending, taken, short := e.grant("a.png", time.Minute), e.grant("b.png", time.Minute), e.grant("c.png", time.Second)
	for _, g := range []grant.Grant{pending, taken, short} {
		mustAdd(t, s, g)
	}
	if err := s.Take(taken.FullKey); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(2 * time.Second)
	got := e.open(t).Unconfirmed()
	if len(got) != 1 || got[0].Key != pending.Key {
		t.Fatalf("Unconfirmed after restart = %+v, want only %s", got, pending.Key)
	}
}
