package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scopes a key can hold.
const (
	ScopeContentRead  = "content:read"
	ScopeContentDraft = "content:draft"
	// ScopeContentPreview reads any branch, tag or commit (?ref=) and
	// makes preview links; content:draft implies it.
	ScopeContentPreview = "content:preview"
	ScopeMediaRead      = "media:read"
	ScopeMediaWrite     = "media:write"
	ScopeMediaDelete    = "media:delete"
)

// AllScopes lists every scope, in a stable order.
var AllScopes = []string{ScopeContentRead, ScopeContentDraft, ScopeContentPreview, ScopeMediaRead, ScopeMediaWrite, ScopeMediaDelete}

// Key is one API key as stored: its secret only as a SHA-256 hash. Keys are
// 160 random bits, so an unsalted fast hash is enough: nothing to brute-force.
type Key struct {
	Name      string    `yaml:"name"`
	Hash      string    `yaml:"hash"`
	Scopes    []string  `yaml:"scopes"`
	CreatedAt time.Time `yaml:"createdAt"`
	hash      []byte
}

// Has tells whether the key holds scope.
// content:draft implies content:preview.
func (k *Key) Has(scope string) bool {
	return slices.Contains(k.Scopes, scope) || scope == ScopeContentPreview && slices.Contains(k.Scopes, ScopeContentDraft)
}

type keysFile struct {
	Keys []*Key `yaml:"keys"`
}

// KeyStore is the keys file: YAML, outside the content repository. The
// server re-reads it when it changes, so keys created or revoked with the
// CLI take effect without a restart.
//
// Verify, on every request, takes no lock: it reads the keys last loaded
// from an atomic pointer. Once a second one request claims the check of
// the file (a compare-and-swap on checked) and stats it; the others go on
// with the keys they have. (A mutex here serialised the requests of every
// core, with a stat of the file under it once a second.)
type KeyStore struct {
	path string
	cur  atomic.Pointer[[]*Key] // the keys as last loaded
	// checked is when the file was last looked at (Unix nanoseconds).
	checked atomic.Int64

	mu      sync.Mutex // orders loads and writes of the file
	modTime time.Time
	size    int64
}

var keyNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// OpenKeys reads the keys file at path; a missing file is an empty store.
func OpenKeys(path string) (*KeyStore, error) {
	ks := &KeyStore{path: path}
	if err := ks.load(); err != nil {
		return nil, err
	}
	return ks, nil
}

func (ks *KeyStore) load() error {
	fi, err := os.Stat(ks.path)
	if errors.Is(err, os.ErrNotExist) {
		ks.cur.Store(nil)
		ks.modTime, ks.size = time.Time{}, 0
		return nil
	}
	if err != nil {
		return err
	}
	data, err := os.ReadFile(ks.path)
	if err != nil {
		return err
	}
	var f keysFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("keys file %s: %w", ks.path, err)
	}
	for _, k := range f.Keys {
		h, err := hex.DecodeString(k.Hash)
		if err != nil || len(h) != sha256.Size {
			return fmt.Errorf("keys file %s: key %q has a bad hash", ks.path, k.Name)
		}
		k.hash = h
	}
	ks.cur.Store(&f.Keys)
	ks.modTime, ks.size = fi.ModTime(), fi.Size()
	return nil
}

// keys are the keys as last loaded.
func (ks *KeyStore) keys() []*Key {
	if p := ks.cur.Load(); p != nil {
		return *p
	}
	return nil
}

// refresh re-reads the file when it changed, at most once a second: the
// caller that claims the check does it, under mu. A file that became
// unreadable keeps the keys last read; a removed one leaves none.
func (ks *KeyStore) refresh(now time.Time) {
	last := ks.checked.Load()
	if now.UnixNano()-last < int64(time.Second) || !ks.checked.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	fi, err := os.Stat(ks.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		_ = ks.load()
	case err != nil:
	case !fi.ModTime().Equal(ks.modTime) || fi.Size() != ks.size:
		_ = ks.load()
	}
}

// Verify returns the key whose secret is token. Every stored hash is
// compared in constant time, so timing tells nothing about which matched.
func (ks *KeyStore) Verify(token string) (*Key, bool) {
	// Hashed from a stack copy: converting a token longer than 32 bytes
	// with []byte(token) would allocate on every request. bearer bounds
	// tokens to 256 bytes; a longer one is hashed from the heap.
	var buf [256]byte
	b := buf[:0]
	if len(token) > len(buf) {
		b = nil
	}
	sum := sha256.Sum256(append(b, token...))
	ks.refresh(time.Now())
	var found *Key
	for _, k := range ks.keys() {
		if subtle.ConstantTimeCompare(sum[:], k.hash) == 1 {
			found = k
		}
	}
	return found, found != nil
}

// Create adds a key named name with scopes and returns its secret, which is
// shown once and stored only as a hash.
func (ks *KeyStore) Create(name string, scopes []string) (string, error) {
	if !keyNameRE.MatchString(name) {
		return "", fmt.Errorf("bad key name %q: use letters, digits, '.', '_' or '-', at most 64", name)
	}
	if len(scopes) == 0 {
		return "", errors.New("a key needs at least one scope")
	}
	for _, s := range scopes {
		if !slices.Contains(AllScopes, s) {
			return "", fmt.Errorf("unknown scope %q (scopes: %s)", s, strings.Join(AllScopes, ", "))
		}
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err := ks.load(); err != nil {
		return "", err
	}
	for _, k := range ks.keys() {
		if k.Name == name {
			return "", fmt.Errorf("a key named %q exists already", name)
		}
	}
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	secret := "folio_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	sum := sha256.Sum256([]byte(secret))
	k := &Key{Name: name, Hash: hex.EncodeToString(sum[:]), Scopes: slices.Clone(scopes), CreatedAt: time.Now().UTC().Truncate(time.Second), hash: sum[:]}
	if err := ks.save(append(slices.Clone(ks.keys()), k)); err != nil {
		return "", err
	}
	return secret, nil
}

// Revoke removes the key named name.
func (ks *KeyStore) Revoke(name string) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err := ks.load(); err != nil {
		return err
	}
	i := slices.IndexFunc(ks.keys(), func(k *Key) bool { return k.Name == name })
	if i < 0 {
		return fmt.Errorf("no key named %q", name)
	}
	return ks.save(slices.Delete(slices.Clone(ks.keys()), i, i+1))
}

// List returns the keys (hashes only).
func (ks *KeyStore) List() ([]Key, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err := ks.load(); err != nil {
		return nil, err
	}
	keys := ks.keys()
	out := make([]Key, len(keys))
	for i, k := range keys {
		out[i] = *k
	}
	return out, nil
}

// save writes the file atomically with owner-only permissions.
func (ks *KeyStore) save(keys []*Key) error {
	data, err := yaml.Marshal(keysFile{Keys: keys})
	if err != nil {
		return err
	}
	dir := filepath.Dir(ks.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".keys-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), ks.path); err != nil {
		return err
	}
	return ks.load()
}
