package grant

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// fileStore keeps the grants in memory and in one YAML file. Two
// processes must not share a file.
type fileStore struct {
	cfg Config

	mu     sync.Mutex
	grants map[string]*Grant // by FullKey
	busy   map[string]bool   // FullKeys a confirm holds (Claim), in memory only
}

type file struct {
	Grants []*Grant `yaml:"grants"`
}

// readFile reads the grants of a grants file; a missing file has none.
func readFile(path string) ([]*Grant, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("grant: %w", err)
	}
	var f file
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("grant: %s: %w", path, err)
	}
	for _, g := range f.Grants {
		if g == nil || g.FullKey == "" || g.Key == "" {
			return nil, fmt.Errorf("grant: %s: a grant without a key", path)
		}
	}
	return f.Grants, nil
}

func openFile(cfg Config) (*fileStore, error) {
	s := &fileStore{cfg: cfg, grants: map[string]*Grant{}, busy: map[string]bool{}}
	grants, err := readFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		s.grants[g.FullKey] = g
	}
	if s.pruneLocked() {
		if err := s.saveLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// pruneLocked forgets grants past expiry plus retention; it reports whether
// any went.
func (s *fileStore) pruneLocked() bool {
	now := s.cfg.Now()
	pruned := false
	for k, g := range s.grants {
		if !s.busy[k] && !now.Before(g.ExpiresAt.Add(s.cfg.Retain)) {
			delete(s.grants, k)
			pruned = true
		}
	}
	return pruned
}

func (s *fileStore) prune(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pruneLocked() {
		return s.saveLocked()
	}
	return nil
}

func (s *fileStore) add(_ context.Context, g Grant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	if old, ok := s.grants[g.FullKey]; ok && (s.busy[g.FullKey] || old.ConfirmedAt.IsZero() && s.cfg.Now().Before(old.ExpiresAt)) {
		return ErrExists
	}
	now := s.cfg.Now()
	pending := 0
	for _, o := range s.grants {
		if o.ConfirmedAt.IsZero() && now.Before(o.ExpiresAt) {
			pending++
		}
	}
	if pending >= s.cfg.MaxPending {
		return ErrFull
	}
	old := s.grants[g.FullKey]
	s.grants[g.FullKey] = &g
	if err := s.saveLocked(); err != nil {
		if old != nil {
			s.grants[g.FullKey] = old
		} else {
			delete(s.grants, g.FullKey)
		}
		return err
	}
	return nil
}

func (s *fileStore) pending(_ context.Context, fullKey string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[fullKey]
	return ok && g.ConfirmedAt.IsZero() && (s.busy[fullKey] || s.cfg.Now().Before(g.ExpiresAt)), nil
}

func (s *fileStore) unconfirmed(context.Context) ([]Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	var out []Grant
	for _, g := range s.grants {
		if g.ConfirmedAt.IsZero() && now.Before(g.ExpiresAt) {
			out = append(out, *g)
		}
	}
	return out, nil
}

func (s *fileStore) lookup(_ context.Context, fullKey string) (Grant, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[fullKey]
	if !ok {
		return Grant{}, false, nil
	}
	return *g, true, nil
}

// checkLocked says why the grant of fullKey cannot be used now, if so.
func (s *fileStore) checkLocked(fullKey string) (*Grant, error) {
	g, ok := s.grants[fullKey]
	switch {
	case !ok:
		return nil, ErrNotGranted
	case !g.ConfirmedAt.IsZero():
		return nil, ErrConfirmed
	case s.busy[fullKey]:
		return nil, ErrBusy
	case !s.cfg.Now().Before(g.ExpiresAt):
		return nil, ErrExpired
	}
	return g, nil
}

func (s *fileStore) claim(_ context.Context, fullKey string) (Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.checkLocked(fullKey)
	if err != nil {
		return Grant{}, err
	}
	s.busy[fullKey] = true
	return *g, nil
}

func (s *fileStore) release(_ context.Context, fullKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, fullKey)
	return nil
}

func (s *fileStore) take(_ context.Context, fullKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[fullKey]
	if !s.busy[fullKey] || !ok {
		var err error
		if g, err = s.checkLocked(fullKey); err != nil {
			return err
		}
	}
	if !g.ConfirmedAt.IsZero() {
		return ErrConfirmed
	}
	g.ConfirmedAt = s.cfg.Now().UTC()
	if err := s.saveLocked(); err != nil {
		g.ConfirmedAt = time.Time{}
		return err
	}
	delete(s.busy, fullKey)
	return nil
}

// saveLocked replaces the grants file: temp file, fsync, rename, fsync of
// the directory, so a crash leaves the old file or the new one.
func (s *fileStore) saveLocked() (err error) {
	var f file
	for _, g := range s.grants {
		f.Grants = append(f.Grants, g)
	}
	// A stable order keeps the file diffable and the tests deterministic.
	sort.Slice(f.Grants, func(i, j int) bool { return f.Grants[i].FullKey < f.Grants[j].FullKey })
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	dir := filepath.Dir(s.cfg.Path)
	tmp, err := os.CreateTemp(dir, filepath.Base(s.cfg.Path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	if err = os.Rename(tmp.Name(), s.cfg.Path); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	return nil
}
