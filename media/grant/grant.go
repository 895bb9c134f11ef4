// Package grant keeps the presigned-upload grants a service handed out, so
// that the confirm step registers only objects this service allowed, once,
// before they expire, and as they were declared. Grants are persisted in one
// YAML file that is replaced atomically on every change, so pending grants
// survive a restart.
package grant

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Errors of Claim and Take. The HTTP layer maps each to a status.
var (
	ErrNotGranted = errors.New("grant: this storage key was not granted by this service")
	ErrExpired    = errors.New("grant: the upload grant has expired")
	ErrConfirmed  = errors.New("grant: this upload was already confirmed")
	ErrBusy       = errors.New("grant: this upload is being confirmed by another request")
	ErrFull       = errors.New("grant: too many pending upload grants")
	ErrExists     = errors.New("grant: this storage key is already granted")
)

// Grant is one presigned upload that the service allowed.
type Grant struct {
	// Key is the library key "<yyyy>/<mm>/<name>" (media.Library.PresignKey).
	Key string `yaml:"key"`
	// FullKey is the object key in the bucket, with the site prefix: the
	// storageKey the client sees and sends back.
	FullKey   string    `yaml:"fullKey"`
	Filename  string    `yaml:"filename"`
	MimeType  string    `yaml:"mimeType"`
	Size      int64     `yaml:"size"`
	ExpiresAt time.Time `yaml:"expiresAt"`
	// KeyName names the API key that asked for the grant, for the log.
	KeyName string `yaml:"keyName,omitempty"`
	// ConfirmedAt is set once the grant was used; the record stays until
	// it is pruned so that a second confirm is told so rather than "never
	// granted".
	ConfirmedAt time.Time `yaml:"confirmedAt,omitempty"`
}

// Defaults of Config.
const (
	DefaultRetain     = 24 * time.Hour
	DefaultMaxPending = 10000
)

// Config configures a Store.
type Config struct {
	// Path is the grants file, e.g. "<media root>/.grants.yaml". Its
	// directory must exist.
	Path string
	// Retain is how long a grant is remembered past its expiry (or a
	// confirmed one past its expiry), so that a late or repeated confirm
	// gets "expired" or "already confirmed" instead of "not granted".
	// 0 means DefaultRetain; a negative value forgets at expiry.
	Retain time.Duration
	// MaxPending bounds the unexpired, unconfirmed grants: every grant is
	// a write of the whole file and a line in it, and a client with the
	// media:write scope must not grow it without bound. 0 means
	// DefaultMaxPending.
	MaxPending int
	Now        func() time.Time
}

// Store is the set of grants, in memory and in the grants file. It is safe
// for concurrent use by one process; two processes must not share a file.
type Store struct {
	cfg Config

	mu     sync.Mutex
	grants map[string]*Grant // by FullKey
	busy   map[string]bool   // FullKeys a confirm holds (Claim), in memory only
}

type file struct {
	Grants []*Grant `yaml:"grants"`
}

// Open loads the grants file (a missing file is an empty store) and drops
// the grants past retention. A file that does not parse is an error: it is
// only ever replaced whole, so a bad one was edited by hand and should be
// looked at rather than silently forgotten.
func Open(cfg Config) (*Store, error) {
	if cfg.Path == "" {
		return nil, errors.New("grant: empty path")
	}
	if cfg.Retain == 0 {
		cfg.Retain = DefaultRetain
	}
	if cfg.Retain < 0 {
		cfg.Retain = 0
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Store{cfg: cfg, grants: map[string]*Grant{}, busy: map[string]bool{}}
	b, err := os.ReadFile(cfg.Path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("grant: %w", err)
	}
	var f file
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("grant: %s: %w", cfg.Path, err)
	}
	for _, g := range f.Grants {
		if g == nil || g.FullKey == "" || g.Key == "" {
			return nil, fmt.Errorf("grant: %s: a grant without a key", cfg.Path)
		}
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
func (s *Store) pruneLocked() bool {
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

// Add records a new grant and persists it before returning, so a grant the
// client receives is one a restarted service still honours.
func (s *Store) Add(g Grant) error {
	if g.Key == "" || g.FullKey == "" {
		return errors.New("grant: empty key")
	}
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
	g.ConfirmedAt = time.Time{}
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

// Pending reports whether key (the library key, without prefix) is held
// by an unexpired grant that was not yet confirmed: a new grant must not
// reuse it.
func (s *Store) Pending(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	for fk, g := range s.grants {
		if g.Key == key && g.ConfirmedAt.IsZero() && (s.busy[fk] || now.Before(g.ExpiresAt)) {
			return true
		}
	}
	return false
}

// Unconfirmed returns the grants not yet confirmed and not yet expired, so
// that a library opened after a restart can reserve their keys again.
func (s *Store) Unconfirmed() []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	var out []Grant
	for _, g := range s.grants {
		if g.ConfirmedAt.IsZero() && now.Before(g.ExpiresAt) {
			out = append(out, *g)
		}
	}
	return out
}

// Lookup returns the grant of fullKey as it is, whatever its state.
func (s *Store) Lookup(fullKey string) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[fullKey]
	if !ok {
		return Grant{}, false
	}
	return *g, true
}

// checkLocked says why the grant of fullKey cannot be used now, if so.
func (s *Store) checkLocked(fullKey string) (*Grant, error) {
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

// Claim checks out the grant of fullKey for one confirm: until Take or
// Release, other Claims get ErrBusy. It fails with ErrNotGranted,
// ErrConfirmed, ErrBusy or ErrExpired. The claim is in memory only: after
// a crash mid-confirm the grant is pending again.
func (s *Store) Claim(fullKey string) (Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.checkLocked(fullKey)
	if err != nil {
		return Grant{}, err
	}
	s.busy[fullKey] = true
	return *g, nil
}

// Release gives a claimed grant back unused, e.g. when storage was down:
// the client may confirm again while the grant lasts.
func (s *Store) Release(fullKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, fullKey)
}

// Take consumes the grant of fullKey, claimed or not, and persists that:
// a later Claim or Take gets ErrConfirmed. A claimed grant may be taken
// after its expiry (the confirm started in time).
func (s *Store) Take(fullKey string) error {
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
func (s *Store) saveLocked() (err error) {
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
