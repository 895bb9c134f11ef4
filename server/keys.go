package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	// ScopeContentWrite commits documents through the write API.
	ScopeContentWrite = "content:write"
)

// AllScopes lists every scope, in a stable order.
var AllScopes = []string{ScopeContentRead, ScopeContentDraft, ScopeContentPreview, ScopeMediaRead, ScopeMediaWrite, ScopeMediaDelete, ScopeContentWrite}

// Key is one API key as stored: its secret only as a SHA-256 hash. Keys are
// 160 random bits, so an unsalted fast hash is enough: nothing to brute-force.
type Key struct {
	// Name is the key's id: a slug, unique in the file, that revoke,
	// rate limits and presigned links name.
	Name string `yaml:"name"`
	// DisplayName and Email are who the key's commits are written for
	// (git's author "Mira Hofer <mira@example.com>"); "" : the Name, and
	// the server's --write-author-email.
	DisplayName string    `yaml:"displayName,omitempty"`
	Email       string    `yaml:"email,omitempty"`
	Hash        string    `yaml:"hash"`
	Scopes      []string  `yaml:"scopes"`
	CreatedAt   time.Time `yaml:"createdAt"`
	// Owner is the person the key belongs to (an e-mail); ExpiresAt when
	// it stops working (keys_account.go).
	Owner     string     `yaml:"owner,omitempty"`
	ExpiresAt *time.Time `yaml:"expiresAt,omitempty"`
	hash      []byte
}

// AuthorName is the name the key's commits carry: its display name, else
// its id.
func (k *Key) AuthorName() string {
	if k.DisplayName != "" {
		return k.DisplayName
	}
	return k.Name
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
//
// A file that does not load (a YAML typo, a bad hash, unreadable) is
// logged at error level with its path and line, shown in /api/v1/status
// (keysFile) and counted by the metric folio_keys_file_invalid. While it
// is invalid, a key of the last valid file is accepted only if its hash
// still appears in the file's text, with the scopes it last had: an edit
// that removes a key (a revocation) takes effect at once even when it
// leaves a typo elsewhere, while the keys nobody touched keep working, so
// a typo is not an outage of every client. An unreadable file holds no
// hash: every key is refused. While invalid, the file is read again at
// every check (once a second), so the fixed file counts within a second.
type KeyStore struct {
	path string
	cur  atomic.Pointer[[]*Key] // the keys accepted now
	// checked is when the file was last looked at (Unix nanoseconds).
	checked atomic.Int64
	// bad is why the file on disk does not load; nil while it does.
	bad atomic.Pointer[KeysFileError]
	log atomic.Pointer[slog.Logger]
	// missing is true while the file does not exist.
	missing atomic.Bool

	mu      sync.Mutex // orders loads and writes of the file
	modTime time.Time
	size    int64
	good    []*Key // the keys of the last valid file

	usage keyUsage // when each key was last used (keys_account.go)
}

// KeysFileError is why the keys file does not load.
type KeysFileError struct {
	Path    string    `json:"path"`
	Line    int       `json:"line,omitempty"` // 0 when no line is to blame
	Message string    `json:"message"`
	Since   time.Time `json:"since"` // when it was first seen invalid
	// Kept is how many keys of the last valid file are still accepted.
	Kept int `json:"keptKeys"`
}

func (e *KeysFileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("keys file %s:%d: %s", e.Path, e.Line, e.Message)
	}
	return fmt.Sprintf("keys file %s: %s", e.Path, e.Message)
}

var keyNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// OpenKeys reads the keys file at path; a missing file is an empty store.
// A file that does not load is an error.
func OpenKeys(path string) (*KeyStore, error) {
	ks := &KeyStore{path: path}
	if err := ks.load(); err != nil {
		return nil, err
	}
	return ks, nil
}

// Missing tells whether the keys file did not exist when last looked at
// (at most a second ago while keys are being checked).
func (ks *KeyStore) Missing() bool { return ks != nil && ks.missing.Load() }

// Path is the keys file's path.
func (ks *KeyStore) Path() string { return ks.path }

// SetLogger makes ks log to l (the server's logger): a keys file that
// stops loading is an error to see.
func (ks *KeyStore) SetLogger(l *slog.Logger) { ks.log.Store(l) }

// load reads the file and makes its keys the accepted ones; on error it
// changes nothing.
func (ks *KeyStore) load() error {
	fi, err := os.Stat(ks.path)
	ks.missing.Store(errors.Is(err, os.ErrNotExist))
	if errors.Is(err, os.ErrNotExist) {
		ks.cur.Store(nil)
		ks.modTime, ks.size, ks.good = time.Time{}, 0, nil
		ks.bad.Store(nil)
		return nil
	}
	if err != nil {
		return &KeysFileError{Path: ks.path, Message: err.Error()}
	}
	data, err := os.ReadFile(ks.path)
	if err != nil {
		return &KeysFileError{Path: ks.path, Message: err.Error()}
	}
	keys, kerr := parseKeys(ks.path, data)
	if kerr != nil {
		return kerr
	}
	ks.cur.Store(&keys)
	ks.modTime, ks.size, ks.good = fi.ModTime(), fi.Size(), keys
	ks.bad.Store(nil)
	return nil
}

// yamlLineRE finds the line yaml.v3 names in its errors.
var yamlLineRE = regexp.MustCompile(`line (\d+): `)

// parseKeys reads the keys of a keys file's bytes.
func parseKeys(path string, data []byte) ([]*Key, *KeysFileError) {
	var doc yaml.Node
	err := yaml.Unmarshal(data, &doc)
	var f keysFile
	if err == nil && doc.Kind != 0 {
		err = doc.Decode(&f)
	}
	if err != nil {
		e := &KeysFileError{Path: path, Message: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLineRE.FindStringSubmatchIndex(e.Message); m != nil {
			e.Line, _ = strconv.Atoi(e.Message[m[2]:m[3]])
			if m[0] == 0 {
				e.Message = e.Message[m[1]:]
			}
		}
		return nil, e
	}
	for i, k := range f.Keys {
		if k == nil {
			return nil, &KeysFileError{Path: path, Line: keyLine(&doc, i, ""), Message: "an empty entry in keys"}
		}
		h, err := hex.DecodeString(k.Hash)
		if err != nil || len(h) != sha256.Size {
			return nil, &KeysFileError{Path: path, Line: keyLine(&doc, i, "hash"), Message: fmt.Sprintf("key %q has a bad hash (want 64 hex digits)", k.Name)}
		}
		k.hash = h
		if err := checkDisplayName(k.DisplayName); k.DisplayName != "" && err != nil {
			return nil, &KeysFileError{Path: path, Line: keyLine(&doc, i, "displayName"), Message: fmt.Sprintf("key %q: %v", k.Name, err)}
		}
		if err := checkEmail(k.Email); k.Email != "" && err != nil {
			return nil, &KeysFileError{Path: path, Line: keyLine(&doc, i, "email"), Message: fmt.Sprintf("key %q: %v", k.Name, err)}
		}
	}
	return f.Keys, nil
}

// keyLine is the line of field (or of the entry, when "" or absent) of
// the i-th key of a keys file's YAML; 0 when the document is not shaped
// so.
func keyLine(doc *yaml.Node, i int, field string) int {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return 0
	}
	top := doc.Content[0]
	for j := 0; j+1 < len(top.Content); j += 2 {
		if top.Content[j].Value != "keys" || i >= len(top.Content[j+1].Content) {
			continue
		}
		entry := top.Content[j+1].Content[i]
		for k := 0; k+1 < len(entry.Content); k += 2 {
			if field != "" && entry.Content[k].Value == field {
				return entry.Content[k+1].Line
			}
		}
		return entry.Line
	}
	return 0
}

// keys are the keys accepted now.
func (ks *KeyStore) keys() []*Key {
	if p := ks.cur.Load(); p != nil {
		return *p
	}
	return nil
}

// FileError is why the keys file does not load now (checked at most once
// a second, as Verify does); nil while it loads.
func (ks *KeyStore) FileError() *KeysFileError {
	ks.refresh(time.Now())
	return ks.bad.Load()
}

// refresh re-reads the file when it changed, at most once a second: the
// caller that claims the check does it, under mu. A removed file leaves
// no keys; one that does not load is handled as the KeyStore doc says.
func (ks *KeyStore) refresh(now time.Time) {
	last := ks.checked.Load()
	if now.UnixNano()-last < int64(time.Second) || !ks.checked.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	wasBad := ks.bad.Load() != nil
	if !wasBad {
		fi, err := os.Stat(ks.path)
		if err == nil && fi.ModTime().Equal(ks.modTime) && fi.Size() == ks.size {
			return
		}
	}
	err := ks.load()
	if err == nil {
		if wasBad {
			ks.logger().Info("keys file loads again", "path", ks.path, "keys", len(ks.good))
		}
		return
	}
	ks.invalid(err, now)
}

// invalid keeps, of the last valid file's keys, those whose hash the
// file's text still holds, and reports err when it is news.
func (ks *KeyStore) invalid(err error, now time.Time) {
	var e *KeysFileError
	if !errors.As(err, &e) {
		e = &KeysFileError{Path: ks.path, Message: err.Error()}
	}
	data, _ := os.ReadFile(ks.path) // unreadable: no hash, no key
	text := strings.ToLower(string(data))
	var kept []*Key
	for _, k := range ks.good {
		if strings.Contains(text, strings.ToLower(k.Hash)) {
			kept = append(kept, k)
		}
	}
	ks.cur.Store(&kept)
	e.Since, e.Kept = now.UTC(), len(kept)
	prev := ks.bad.Load()
	if prev != nil {
		e.Since = prev.Since
		if prev.Error() == e.Error() && prev.Kept == e.Kept {
			return
		}
	}
	ks.bad.Store(e)
	ks.logger().Error("keys file does not load: only the keys whose hash it still holds are accepted, with their last valid scopes",
		"err", e.Error(), "path", e.Path, "line", e.Line, "kept", len(kept), "refused", len(ks.good)-len(kept))
}

func (ks *KeyStore) logger() *slog.Logger {
	if l := ks.log.Load(); l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
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

// ByName is the key accepted now whose id is name; nil when none is.
func (ks *KeyStore) ByName(name string) *Key {
	if ks == nil {
		return nil
	}
	ks.refresh(time.Now())
	for _, k := range ks.keys() {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Create adds a key named name with scopes and returns its secret, which is
// shown once and stored only as a hash.
func (ks *KeyStore) Create(name string, scopes []string) (string, error) {
	return ks.CreateKey(KeySpec{ID: name, Scopes: scopes})
}

// KeySpec is a key to create.
type KeySpec struct {
	// ID is the key's id (Key.Name); "" : made from DisplayName
	// (KeyID).
	ID          string
	DisplayName string // "" : none, the commits carry the id
	Email       string // "" : none, the commits carry --write-author-email
	Scopes      []string
}

// CreateKey adds the key spec describes and returns its secret, which is
// shown once and stored only as a hash.
func (ks *KeyStore) CreateKey(spec KeySpec) (string, error) {
	name := spec.ID
	if name == "" {
		if name = KeyID(spec.DisplayName); name == "" {
			return "", ErrNoKeyID
		}
	}
	if !keyNameRE.MatchString(name) {
		return "", fmt.Errorf("bad key id %q: use letters, digits, '.', '_' or '-', at most 64", name)
	}
	if spec.DisplayName != "" {
		if err := checkDisplayName(spec.DisplayName); err != nil {
			return "", err
		}
	}
	if spec.Email != "" {
		if err := checkEmail(spec.Email); err != nil {
			return "", err
		}
	}
	scopes := spec.Scopes
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
			return "", fmt.Errorf("a key with the id %q exists already (give another with --id)", name)
		}
	}
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	secret := "folio_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	sum := sha256.Sum256([]byte(secret))
	k := &Key{Name: name, DisplayName: spec.DisplayName, Email: spec.Email, Hash: hex.EncodeToString(sum[:]),
		Scopes: slices.Clone(scopes), CreatedAt: time.Now().UTC().Truncate(time.Second), hash: sum[:]}
	if err := ks.save(append(slices.Clone(ks.keys()), k)); err != nil {
		return "", err
	}
	return secret, nil
}

// Revoke removes the key whose id is name, or else the one key whose
// display name it is.
func (ks *KeyStore) Revoke(name string) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err := ks.load(); err != nil {
		return err
	}
	keys := ks.keys()
	i := slices.IndexFunc(keys, func(k *Key) bool { return k.Name == name })
	if i < 0 {
		var ids []string
		for j, k := range keys {
			if k.DisplayName == name {
				i = j
				ids = append(ids, k.Name)
			}
		}
		if len(ids) > 1 {
			return fmt.Errorf("%d keys are named %q (ids %s): revoke one by its id", len(ids), name, strings.Join(ids, ", "))
		}
	}
	if i < 0 {
		return fmt.Errorf("no key named %q", name)
	}
	return ks.save(slices.Delete(slices.Clone(keys), i, i+1))
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
