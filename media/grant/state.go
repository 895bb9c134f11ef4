package grant

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
)

// statePrefix is where the grants live in the state store.
const statePrefix = "grants/"

// casTries bounds the read-modify-write rounds of one change: a round is
// lost only to a concurrent write of the same grant, and after a lost
// round the grant is usually busy, confirmed or granted, which ends it.
const casTries = 5

// objectKey is the state-store key of the grant of fullKey: a hash, so
// that any storage key maps to one short, safe object key.
func objectKey(fullKey string) string {
	sum := sha256.Sum256([]byte(fullKey))
	return statePrefix + hex.EncodeToString(sum[:]) + ".yaml"
}

// record is a grant as the state store keeps it, with the lease of the
// Claim that is confirming it, if any: a claim must hold across boxes, so
// it lives in the object and is taken, given back and spent with
// compare-and-swap writes. A lease past ClaimedUntil may be taken over.
type record struct {
	Grant        `yaml:",inline"`
	ClaimedUntil time.Time `yaml:"claimedUntil,omitempty"`
	ClaimToken   string    `yaml:"claimToken,omitempty"`
}

// claimed reports whether a Claim holds r at now.
func (r *record) claimed(now time.Time) bool {
	return r.ClaimToken != "" && now.Before(r.ClaimedUntil)
}

// pending reports whether r still holds its key: not confirmed, and not
// expired or being confirmed.
func (r *record) pending(now time.Time) bool {
	return r.ConfirmedAt.IsZero() && (r.claimed(now) || now.Before(r.ExpiresAt))
}

// check says why r cannot be claimed or taken without a claim now, if so.
func (r *record) check(now time.Time) error {
	switch {
	case !r.ConfirmedAt.IsZero():
		return ErrConfirmed
	case r.claimed(now):
		return ErrBusy
	case !now.Before(r.ExpiresAt):
		return ErrExpired
	}
	return nil
}

// stateStore keeps one object per grant in a media.StateStore shared by
// all boxes. Every read goes to the store; memory holds only the tokens of
// this Store's claims and, for counting and listing, the grants as last
// seen.
type stateStore struct {
	cfg Config
	st  media.StateStore

	mu sync.Mutex
	// held is the token of each claim this Store holds, by FullKey: the
	// claims of a Store, not of one request.
	held map[string]string
	// seen is every grant object as this Store last read or wrote it, by
	// object key: it counts pending grants for MaxPending, and spares a
	// listing the reads of the objects whose etag did not change.
	seen map[string]version
}

type version struct {
	etag string
	rec  record
}

// openState reads the grants, counting them, and prunes.
func openState(ctx context.Context, cfg Config) (*stateStore, error) {
	s := &stateStore{cfg: cfg, st: cfg.State, held: map[string]string{}, seen: map[string]version{}}
	if err := s.prune(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// read reads the object key; a missing one is nil.
func (s *stateStore) read(ctx context.Context, key string) (*record, string, error) {
	data, etag, err := s.st.Get(ctx, key)
	// s3.State reads in two requests, the second conditional on the
	// first's etag: a write in between fails the read. Read again.
	for try := 1; try < casTries && errors.Is(err, media.ErrPrecondition); try++ {
		data, etag, err = s.st.Get(ctx, key)
	}
	if errors.Is(err, media.ErrNotExist) {
		s.forget(key)
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("grant: read %s: %w", key, err)
	}
	var r record
	if err := yaml.Unmarshal(data, &r); err != nil {
		return nil, "", fmt.Errorf("grant: %s: %w", key, err)
	}
	if r.Key == "" || r.FullKey == "" || objectKey(r.FullKey) != key {
		return nil, "", fmt.Errorf("grant: %s: not the grant of its key", key)
	}
	s.remember(key, etag, r)
	return &r, etag, nil
}

// encode is the object of r.
func encode(r *record) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("grant: %s: %w", r.FullKey, err)
	}
	return buf.Bytes(), nil
}

// get reads the grant of fullKey; a missing one is nil.
func (s *stateStore) get(ctx context.Context, fullKey string) (*record, string, error) {
	return s.read(ctx, objectKey(fullKey))
}

func (s *stateStore) remember(key, etag string, r record) {
	s.mu.Lock()
	s.seen[key] = version{etag, r}
	s.mu.Unlock()
}

func (s *stateStore) forget(key string) {
	s.mu.Lock()
	delete(s.seen, key)
	s.mu.Unlock()
}

// update changes the grant of fullKey with a compare-and-swap: change gets
// the grant as it is (nil when missing) and returns what to write, nil to
// write nothing, or an error to stop with. A write that loses to another
// re-reads and calls change again, up to casTries times.
func (s *stateStore) update(ctx context.Context, fullKey string, change func(old *record) (*record, error)) error {
	key := objectKey(fullKey)
	for range casTries {
		old, etag, err := s.read(ctx, key)
		if err != nil {
			return err
		}
		r, err := change(old)
		if err != nil || r == nil {
			return err
		}
		data, err := encode(r)
		if err != nil {
			return err
		}
		if old == nil {
			etag, err = s.st.Create(ctx, key, data)
		} else {
			etag, err = s.st.Replace(ctx, key, data, etag)
		}
		switch {
		case err == nil:
			s.remember(key, etag, *r)
			return nil
		case !errors.Is(err, media.ErrPrecondition) && !errors.Is(err, media.ErrNotExist):
			return fmt.Errorf("grant: write %s of %s: %w", key, fullKey, err)
		}
	}
	return fmt.Errorf("grant: %s changed concurrently %d times: %w", fullKey, casTries, ErrBusy)
}

// countPending counts the pending grants this Store knows of.
func (s *stateStore) countPending(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.seen {
		if v.rec.ConfirmedAt.IsZero() && now.Before(v.rec.ExpiresAt) {
			n++
		}
	}
	return n
}

func (s *stateStore) add(ctx context.Context, g Grant) error {
	return s.update(ctx, g.FullKey, func(old *record) (*record, error) {
		now := s.cfg.Now()
		if old != nil && old.pending(now) {
			return nil, ErrExists
		}
		if s.countPending(now) >= s.cfg.MaxPending {
			return nil, ErrFull
		}
		return &record{Grant: g}, nil
	})
}

func (s *stateStore) pending(ctx context.Context, fullKey string) (bool, error) {
	r, _, err := s.get(ctx, fullKey)
	return err == nil && r != nil && r.pending(s.cfg.Now()), err
}

func (s *stateStore) lookup(ctx context.Context, fullKey string) (Grant, bool, error) {
	r, _, err := s.get(ctx, fullKey)
	if err != nil || r == nil {
		return Grant{}, false, err
	}
	return r.Grant, true, nil
}

func (s *stateStore) claim(ctx context.Context, fullKey string) (Grant, error) {
	token := rand.Text()
	var g Grant
	err := s.update(ctx, fullKey, func(old *record) (*record, error) {
		if old == nil {
			return nil, ErrNotGranted
		}
		now := s.cfg.Now()
		if err := old.check(now); err != nil {
			return nil, err
		}
		r := *old
		r.ClaimedUntil, r.ClaimToken = now.Add(s.cfg.Lease).UTC(), token
		g = r.Grant
		return &r, nil
	})
	if err != nil {
		return Grant{}, err
	}
	s.mu.Lock()
	s.held[fullKey] = token
	s.mu.Unlock()
	return g, nil
}

// token is the token of this Store's claim of fullKey, "" if none.
func (s *stateStore) token(fullKey string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[fullKey]
}

func (s *stateStore) release(ctx context.Context, fullKey string) error {
	s.mu.Lock()
	token := s.held[fullKey]
	delete(s.held, fullKey)
	s.mu.Unlock()
	if token == "" {
		return nil
	}
	return s.update(ctx, fullKey, func(old *record) (*record, error) {
		if old == nil || old.ClaimToken != token {
			return nil, nil // gone, or taken over after our lease ran out
		}
		r := *old
		r.ClaimedUntil, r.ClaimToken = time.Time{}, ""
		return &r, nil
	})
}

func (s *stateStore) take(ctx context.Context, fullKey string) error {
	token := s.token(fullKey)
	err := s.update(ctx, fullKey, func(old *record) (*record, error) {
		if old == nil {
			return nil, ErrNotGranted
		}
		now := s.cfg.Now()
		if !old.ConfirmedAt.IsZero() {
			return nil, ErrConfirmed
		}
		// Our claim, even past its lease or the grant's expiry, may be
		// spent; anything else only as Claim would allow.
		if token == "" || old.ClaimToken != token {
			if err := old.check(now); err != nil {
				return nil, err
			}
		}
		r := *old
		r.ConfirmedAt = now.UTC()
		r.ClaimedUntil, r.ClaimToken = time.Time{}, ""
		return &r, nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.held, fullKey)
	s.mu.Unlock()
	return nil
}

// refresh lists the grant objects and reads those that changed since this
// Store saw them, so that seen is the state store's grants.
func (s *stateStore) refresh(ctx context.Context) error {
	listed := map[string]bool{}
	err := s.st.List(ctx, statePrefix, "", func(o media.StateObject) error {
		listed[o.Key] = true
		s.mu.Lock()
		v, ok := s.seen[o.Key]
		s.mu.Unlock()
		if ok && o.ETag != "" && v.etag == o.ETag {
			return nil
		}
		_, _, err := s.read(ctx, o.Key)
		return err
	})
	if err != nil {
		return fmt.Errorf("grant: list: %w", err)
	}
	s.mu.Lock()
	for k := range s.seen {
		if !listed[k] {
			delete(s.seen, k)
		}
	}
	s.mu.Unlock()
	return nil
}

func (s *stateStore) unconfirmed(ctx context.Context) ([]Grant, error) {
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Grant
	for _, v := range s.seen {
		if v.rec.ConfirmedAt.IsZero() && now.Before(v.rec.ExpiresAt) {
			out = append(out, v.rec.Grant)
		}
	}
	return out, nil
}

// prune deletes the grants past expiry plus retention that no claim holds.
// The state store has no conditional delete: a grant given again for the
// same key between the listing and the delete would be lost, which needs
// the key to be granted again exactly then, a day (Retain) after its last
// grant expired.
func (s *stateStore) prune(ctx context.Context) error {
	if err := s.refresh(ctx); err != nil {
		return err
	}
	now := s.cfg.Now()
	var gone, staged []string
	s.mu.Lock()
	for k, v := range s.seen {
		if !v.rec.claimed(now) && !now.Before(v.rec.ExpiresAt.Add(s.cfg.Retain)) {
			gone = append(gone, k)
			staged = append(staged, v.rec.Staged)
		}
	}
	s.mu.Unlock()
	stager, _ := s.st.(media.Stager)
	for i, k := range gone {
		// What its URL put in the staging area after the confirm, or
		// without one: the URL expired long ago, so nothing comes after.
		if staged[i] != "" && stager != nil {
			if err := stager.DeleteStaged(ctx, staged[i]); err != nil {
				return fmt.Errorf("grant: prune %s: staged upload: %w", k, err)
			}
		}
		if err := s.st.Delete(ctx, k); err != nil {
			return fmt.Errorf("grant: prune %s: %w", k, err)
		}
		s.forget(k)
	}
	return nil
}
