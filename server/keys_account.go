package server

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"
)

// A key can belong to a person (Owner), end (ExpiresAt), and says when it
// was last used: what a person's account needs of a key, beside the
// sessions of people signed in with a provider (docs/editors.md).

// usedEvery is how stale a key's last use may be: a key is stamped (and
// the usage file written) at most once in this time.
const usedEvery = time.Minute

// keyUsage is when each key was last used, kept beside the keys file in
// <keys>.used (so that the keys file stays the operator's).
type keyUsage struct {
	last    sync.Map // name → *atomic.Int64 (Unix seconds)
	writing atomic.Bool
	mu      sync.Mutex // orders writes of the file
}

func (ks *KeyStore) usagePath() string { return ks.path + ".used" }

// Expired tells whether k has expired at now.
func (k *Key) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// touch records a use of the key named name at now: in memory at once,
// in the usage file at most once a minute per key (in the background, off
// the request path).
func (ks *KeyStore) touch(name string, now time.Time) {
	v, ok := ks.usage.last.Load(name)
	if !ok {
		v, _ = ks.usage.last.LoadOrStore(name, new(atomic.Int64))
	}
	last := v.(*atomic.Int64)
	old := last.Load()
	sec := now.Unix()
	if sec-old < int64(usedEvery/time.Second) || !last.CompareAndSwap(old, sec) {
		return
	}
	if ks.usage.writing.CompareAndSwap(false, true) {
		go func() {
			defer ks.usage.writing.Store(false)
			if err := ks.saveUsage(); err != nil {
				ks.logger().Warn("keys: writing the last uses", "path", ks.usagePath(), "err", err)
			}
		}()
	}
}

// LastUsed is when the key named name was last used, as recorded in the
// usage file and by this process; zero for never.
func (ks *KeyStore) LastUsed(name string) time.Time {
	var t int64
	if v, ok := ks.usage.last.Load(name); ok {
		t = v.(*atomic.Int64).Load()
	}
	if f := ks.readUsage()[name]; f.Unix() > t {
		return f
	}
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(t, 0).UTC()
}

func (ks *KeyStore) readUsage() map[string]time.Time {
	m := map[string]time.Time{}
	b, err := os.ReadFile(ks.usagePath())
	if err == nil {
		_ = yaml.Unmarshal(b, &m)
	}
	return m
}

// saveUsage merges this process's last uses into the usage file.
func (ks *KeyStore) saveUsage() error {
	ks.usage.mu.Lock()
	defer ks.usage.mu.Unlock()
	m := ks.readUsage()
	ks.usage.last.Range(func(k, v any) bool {
		t := time.Unix(v.(*atomic.Int64).Load(), 0).UTC()
		if t.After(m[k.(string)]) {
			m[k.(string)] = t
		}
		return true
	})
	b, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	tmp := ks.usagePath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, ks.usagePath())
}

// SetAccount sets the owner (a person's e-mail, "" for none) and the
// expiry (zero for none) of the key named name.
func (ks *KeyStore) SetAccount(name, owner string, expires time.Time) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if err := ks.load(); err != nil {
		return err
	}
	keys := slices.Clone(ks.keys())
	i := slices.IndexFunc(keys, func(k *Key) bool { return k.Name == name })
	if i < 0 {
		return fmt.Errorf("no key named %q", name)
	}
	k := *keys[i]
	k.Owner = owner
	k.ExpiresAt = nil
	if !expires.IsZero() {
		e := expires.UTC().Truncate(time.Second)
		k.ExpiresAt = &e
	}
	keys[i] = &k
	return ks.save(keys)
}
