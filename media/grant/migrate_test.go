package grant_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/s3/s3test"
	"go.yaml.in/yaml/v3"
)

// writeGrantsFile writes grants as the file store of earlier releases
// did: one YAML document, a list under "grants".
func writeGrantsFile(t *testing.T, path string, grants ...grant.Grant) {
	t.Helper()
	data, err := yaml.Marshal(map[string][]grant.Grant{"grants": grants})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMigrate moves a grants file of an earlier release into a state
// store: every grant is there afterwards, as it was, the file is kept
// under another name, and migrating again changes nothing.
func TestMigrate(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	path := filepath.Join(t.TempDir(), ".grants.yaml")
	pending, taken, other := e.grant("a.png", time.Minute), e.grant("b.png", time.Minute), e.grant("c.png", time.Minute)
	taken.ConfirmedAt = e.clock.Now()
	writeGrantsFile(t, path, pending, taken, other)
	// A box on the state store already gave c.png, differently: it stays.
	theirs := other
	theirs.Size = 7
	mustAdd(t, e.open(t), theirs)

	n, err := grant.Migrate(t.Context(), path, e.state)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("Migrate = %d, want 2", n)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("grants file still there: %v", err)
	}
	if _, err := os.Stat(path + grant.MigratedSuffix); err != nil {
		t.Errorf("migrated file: %v", err)
	}

	s := e.open(t)
	got, err := s.Claim(t.Context(), pending.FullKey)
	if err != nil {
		t.Fatal(err)
	}
	if got != pending {
		t.Errorf("migrated grant %+v, want %+v", got, pending)
	}
	if err := s.Take(t.Context(), taken.FullKey); !errors.Is(err, grant.ErrConfirmed) {
		t.Errorf("Take of a grant confirmed before the migration: %v, want ErrConfirmed", err)
	}
	if g, ok, err := s.Lookup(t.Context(), other.FullKey); err != nil || !ok || g.Size != 7 {
		t.Errorf("Lookup of the state store's own grant = %+v, %v, %v; want size 7", g, ok, err)
	}

	// The next start finds no file; a migration cut short before the
	// rename runs again without changing anything.
	if n, err := grant.Migrate(t.Context(), path, e.state); n != 0 || err != nil {
		t.Errorf("Migrate without a file = %d, %v", n, err)
	}
	if err := os.Rename(path+grant.MigratedSuffix, path); err != nil {
		t.Fatal(err)
	}
	if n, err := grant.Migrate(t.Context(), path, e.state); n != 0 || err != nil {
		t.Errorf("Migrate again = %d, %v", n, err)
	}
	if _, err := s.Claim(t.Context(), pending.FullKey); !errors.Is(err, grant.ErrBusy) {
		t.Errorf("a second Migrate overwrote the claimed grant: %v", err)
	}
}

func TestMigrate_Corrupt(t *testing.T) {
	e := newStateEnv(t, s3test.NewServer(t))
	for name, body := range map[string]string{
		"yaml":     "grants: [\n",
		"type":     "grants: 7\n",
		"emptyKey": "grants:\n  - filename: a.png\n",
	} {
		path := filepath.Join(t.TempDir(), ".grants.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := grant.Migrate(t.Context(), path, e.state); err == nil {
			t.Errorf("corrupt grants file (%s) migrated", name)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("corrupt grants file (%s) moved: %v", name, err)
		}
	}
}
