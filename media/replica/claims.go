package replica

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// KeyTakenError is returned by Claim when another owner holds one of the
// keys.
type KeyTakenError struct{ Key string }

func (e *KeyTakenError) Error() string { return "replica: key " + e.Key + " is taken" }

// ClaimBody is what a claim holds: its owner (an item id, or "presign
// <expiry>") and the storage key in its case (the claim's name is lower
// case).
func ClaimBody(owner, key string) []byte { return []byte(owner + "\n" + key) }

// ParseClaim splits a claim's content.
func ParseClaim(b []byte) (owner, key string, ok bool) {
	owner, key, ok = strings.Cut(string(b), "\n")
	return owner, key, ok && key != ""
}

// Claim claims every key for owner, all or none: it fails with a
// *KeyTakenError when another owner holds one, and then releases those it
// made. A claim that exists with this very owner is ours (a retried
// request made it).
func (r *Replica) Claim(ctx context.Context, owner string, keys []string) error {
	return r.claim(ctx, owner, keys, r.claimCreate())
}

// ClaimDeferred is Claim whose claims' names are not made durable before
// it returns, when the store can and claims are name-synced
// (SetNameSyncedClaims, a store that is an UnsyncedCreator and a
// NameSyncer): the claims are created without a sync, and syncNames
// makes their names durable. The caller must call it, and see it return
// nil, before it makes any object of the keys: a claim's name must be
// durable before the object it stands for is. It is meant to run beside
// the other syncs of a write whose files and names are all made first
// (an upload of one file to local storage). Otherwise it is Claim, and
// syncNames does nothing.
func (r *Replica) ClaimDeferred(ctx context.Context, owner string, keys []string) (syncNames func(context.Context) error, err error) {
	ns, ok := r.st.(NameSyncer)
	uc, ok2 := r.st.(UnsyncedCreator)
	if !ok || !ok2 || r.nameSyncedClaims.Load() == nil {
		return func(context.Context) error { return nil }, r.Claim(ctx, owner, keys)
	}
	if err := r.claim(ctx, owner, keys, uc.CreateUnsynced); err != nil {
		return nil, err
	}
	claims := make([]string, len(keys))
	for i, k := range keys {
		claims[i] = ClaimKey(k)
	}
	return func(ctx context.Context) error { return ns.SyncNames(ctx, claims) }, nil
}

// claimCreate is how Claim creates a claim.
func (r *Replica) claimCreate() func(ctx context.Context, key string, data []byte) (string, error) {
	if c := r.nameSyncedClaims.Load(); c != nil {
		return (*c).CreateNameSynced
	}
	return r.st.Create
}

// claim is Claim, each claim made with create.
func (r *Replica) claim(ctx context.Context, owner string, keys []string, create func(ctx context.Context, key string, data []byte) (string, error)) error {
	errs := make([]error, len(keys))
	one := func(i int) {
		taken, err := r.claimOne(ctx, owner, keys[i], create)
		if err == nil && taken != "" {
			err = &KeyTakenError{Key: keys[i]}
		}
		errs[i] = err
	}
	if len(keys) == 1 {
		one(0) // no goroutine for the one key of a document's upload
	} else {
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() { one(i) })
		}
		wg.Wait()
	}
	var taken *KeyTakenError
	var failed error
	var made []string
	for i, err := range errs {
		switch {
		case err == nil:
			made = append(made, keys[i])
		case errors.As(err, &taken):
		default:
			failed = err
		}
	}
	if taken == nil && failed == nil {
		return nil
	}
	r.Release(ctx, made)
	if failed != nil {
		return failed
	}
	return taken
}

// ClaimIfFree claims key for owner unless it is claimed already; it
// returns the content of another owner's claim, "" when the claim is (or
// was already) owner's.
func (r *Replica) ClaimIfFree(ctx context.Context, owner, key string) (other string, err error) {
	return r.claimOne(ctx, owner, key, r.claimCreate())
}

func (r *Replica) claimOne(ctx context.Context, owner, key string, create func(ctx context.Context, key string, data []byte) (string, error)) (other string, err error) {
	body := ClaimBody(owner, key)
	_, err = create(ctx, ClaimKey(key), body)
	if !r.isPrecondition(err) {
		return "", err
	}
	got, _, gerr := r.st.Get(ctx, ClaimKey(key))
	switch {
	case gerr == nil && bytes.Equal(got, body):
		return "", nil
	case gerr == nil:
		return string(got), nil
	case r.isNotExist(gerr):
		// Released between the two requests: it was someone else's.
		return "?", nil
	default:
		return "", gerr
	}
}

// Release deletes claims, best effort: a claim left behind only keeps a
// name from being used until the sweep removes it.
func (r *Replica) Release(ctx context.Context, keys []string) {
	ctx = context.WithoutCancel(ctx)
	for _, k := range keys {
		if err := r.st.Delete(ctx, ClaimKey(k)); err != nil {
			r.log.Warn("media: claim not released", "key", k, "err", err)
		}
	}
}

// Sweep says what a claim sweep may remove.
type Sweep struct {
	// Stale is how old a claim must be before it may be a leftover: a
	// write holds its claims from before its first object until its
	// commit.
	Stale time.Duration
	// AnyAge makes every unheld claim a leftover whatever its age: for
	// the only writer of a store, at its start, when no write of its own
	// is in flight and no other writer exists.
	AnyAge bool
	// PresignRetain keeps the claim of a presigned upload ("presign
	// <RFC 3339 expiry>") this long past its expiry.
	PresignRetain time.Duration
	// Held reports whether a key (lower case) is owned by a live item or
	// reserved by a write in flight: its claim stays.
	Held func(lowerKey string) bool
	// Unloaded, when set, reports whether owner is an item that exists
	// in the store though the index does not hold it (its sidecar does
	// not parse): its claims stay, so that a typo in a sidecar never
	// costs the files.
	Unloaded func(ctx context.Context, owner string) (bool, error)
	// Valid checks the storage key a claim names; a claim naming an
	// invalid key is left alone.
	Valid func(key string) error
	// DeleteObject deletes the object of a leftover claim.
	DeleteObject func(ctx context.Context, key string) error
	// Unreadable, when set with AnyAge, settles a claim whose content
	// does not parse (its bytes were lost by a crash of the machine, see
	// SetNameSyncedClaims) and whose name no item holds: it removes the
	// objects the claim's name (the key in lower case) may stand for, and
	// the claim goes. Without it such a claim is left alone.
	Unreadable func(ctx context.Context, lowerKey string) error
}

// SweepClaims removes what interrupted writes left: a claim older than
// s.Stale whose key no item holds (and no presigned upload still may),
// with the object under that key. It is the shared library's intent
// mechanism: a claim is written before any object, and the item's commit
// makes it the item's.
func (r *Replica) SweepClaims(ctx context.Context, s Sweep) error {
	var old []string
	cutoff := r.now().Add(-s.Stale)
	if err := r.st.List(ctx, ClaimsPrefix, "", func(o Object) error {
		// A claim is named by its key in lower case: the claims of
		// known items need no read.
		if (s.AnyAge || o.LastModified.Before(cutoff)) && !s.Held(strings.TrimPrefix(o.Key, ClaimsPrefix)) {
			old = append(old, o.Key)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, ck := range old {
		data, _, err := r.st.Get(ctx, ck)
		if r.isNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		owner, key, ok := ParseClaim(data)
		if !ok || ClaimKey(key) != ck || s.Valid(key) != nil {
			lower := strings.TrimPrefix(ck, ClaimsPrefix)
			if !s.AnyAge || s.Unreadable == nil || s.Valid(lower) != nil {
				r.log.Warn("media: malformed claim left alone", "claim", ck)
				continue
			}
			if s.Held(lower) {
				continue
			}
			if err := s.Unreadable(ctx, lower); err != nil {
				return err
			}
			if err := r.st.Delete(ctx, ck); err != nil {
				return err
			}
			r.log.Warn("media: unreadable claim of an interrupted write removed, with its objects", "claim", ck)
			continue
		}
		if s.Held(strings.ToLower(key)) {
			continue
		}
		if exp, ok := strings.CutPrefix(owner, "presign "); ok {
			t, err := time.Parse(time.RFC3339, exp)
			if err == nil && r.now().Before(t.Add(s.PresignRetain)) {
				continue
			}
		} else if s.Unloaded != nil {
			keep, err := s.Unloaded(ctx, owner)
			if err != nil {
				return err
			}
			if keep {
				continue
			}
		}
		if err := s.DeleteObject(ctx, key); err != nil {
			return err
		}
		if err := r.st.Delete(ctx, ck); err != nil {
			return err
		}
		r.log.Warn("media: leftover of an interrupted write removed", "key", key)
	}
	return nil
}
