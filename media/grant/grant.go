// Package grant keeps the presigned-upload grants a service handed out, so
// that the confirm step registers only objects this service allowed, once,
// before they expire, and as they were declared.
//
// A Store keeps its grants in a media.StateStore (Config.State: the
// bucket's state area, or a directory on local disk), one object per
// grant, so that every box sharing the store shares the grants: a grant
// given on one box can be confirmed on any other, and a claim is a lease
// written into the grant's object with a compare-and-swap (see state.go).
// A grants file of earlier releases is copied in by Migrate.
package grant

import (
	"context"
	"errors"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/media"
)

// Errors of Add, Claim and Take. The HTTP layer maps each to a status.
// Other errors are storage errors; those of a state store that cannot be
// reached wrap media.ErrUnavailable.
var (
	ErrNotGranted error = &fault.Error{Code: fault.NotFound, Message: "storageKey was not granted by this service; ask POST /api/v1/media/presign for a grant"}
	ErrExpired    error = &fault.Error{Code: fault.Expired, Message: "the upload grant expired; ask for a new grant and upload again"}
	ErrConfirmed  error = &fault.Error{Code: fault.Conflict, Message: "this upload was already confirmed"}
	ErrBusy       error = &fault.Error{Code: fault.Conflict, Message: "this upload is being confirmed by another request"}
	ErrFull       error = &fault.Error{Code: fault.TooMany, Message: "too many pending upload grants; confirm or let some expire first"}
	ErrExists     error = &fault.Error{Code: fault.Conflict, Message: "this storage key is already granted"}
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
	// KeyName names the API key that asked for the grant: only that key
	// may confirm it.
	KeyName string `yaml:"keyName,omitempty"`
	// Staged is the staging key the client uploads to (media.Stager),
	// relative to the state area; empty for a grant whose upload goes to
	// Key itself (given before staging existed).
	Staged string `yaml:"staged,omitempty"`
	// ConfirmedAt is set once the grant was used; the record stays until
	// it is pruned so that a second confirm is told so rather than "never
	// granted".
	ConfirmedAt time.Time `yaml:"confirmedAt,omitempty"`
}

// Defaults of Config.
const (
	DefaultRetain     = 24 * time.Hour
	DefaultMaxPending = 10000
	DefaultLease      = 2 * time.Minute
)

// Config configures a Store.
type Config struct {
	// State is where the grants live (required); the grants are objects
	// "grants/<hex SHA-256 of FullKey>.yaml" in it.
	State media.StateStore
	// Retain is how long a grant is remembered past its expiry (or a
	// confirmed one past its expiry), so that a late or repeated confirm
	// gets "expired" or "already confirmed" instead of "not granted".
	// 0 means DefaultRetain; a negative value forgets at expiry.
	Retain time.Duration
	// MaxPending bounds the unexpired, unconfirmed grants: every grant is
	// a write and a record, and a client with the media:write scope must
	// not grow them without bound. 0 means DefaultMaxPending. With State
	// the bound is approximate: each Store counts the grants it saw at its
	// last Open, Prune or Unconfirmed plus those it added since, so boxes
	// together may exceed it by what the others added in between.
	MaxPending int
	// Lease is how long a Claim holds a grant in the state store before
	// another box may take it over (the claiming box may have died
	// mid-confirm). It must outlast a confirm (reading back and sniffing
	// the object, making derivatives); boxes' clocks must agree to well
	// within it. 0 means DefaultLease.
	Lease time.Duration
	Now   func() time.Time
}

// Store is the set of grants. It is safe for concurrent use. Several
// Stores (on several boxes) may share one Config.State.
type Store struct {
	b *stateStore
}

// Open opens the grants of cfg and drops those past retention. A grant
// object that does not parse is an error: objects are only ever replaced
// whole, so a bad one was edited by hand and should be looked at rather
// than silently forgotten.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.State == nil {
		return nil, errors.New("grant: no state store")
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
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b, err := openState(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Store{b: b}, nil
}

// Add records a new grant and persists it before returning, so a grant the
// client receives is one a restarted service (or another box) honours. It
// fails with ErrExists while another grant of the same FullKey is pending
// or claimed, and with ErrFull when MaxPending grants are pending.
func (s *Store) Add(ctx context.Context, g Grant) error {
	if g.Key == "" || g.FullKey == "" {
		return errors.New("grant: empty key")
	}
	g.ConfirmedAt = time.Time{}
	return s.b.add(ctx, g)
}

// Pending reports whether fullKey is held by an unexpired grant that was
// not yet confirmed, or by one being confirmed: a new grant must not reuse
// its key.
func (s *Store) Pending(ctx context.Context, fullKey string) (bool, error) {
	return s.b.pending(ctx, fullKey)
}

// Unconfirmed returns the grants not yet confirmed and not yet expired, so
// that a library opened after a restart can reserve their keys again.
func (s *Store) Unconfirmed(ctx context.Context) ([]Grant, error) {
	return s.b.unconfirmed(ctx)
}

// Lookup returns the grant of fullKey as it is, whatever its state.
func (s *Store) Lookup(ctx context.Context, fullKey string) (Grant, bool, error) {
	return s.b.lookup(ctx, fullKey)
}

// Claim checks out the grant of fullKey for one confirm: until Take or
// Release, other Claims get ErrBusy. It fails with ErrNotGranted,
// ErrConfirmed, ErrBusy or ErrExpired. A claim is a lease of
// Config.Lease: after a crash mid-confirm the grant is pending again once
// the lease ran out.
func (s *Store) Claim(ctx context.Context, fullKey string) (Grant, error) {
	return s.b.claim(ctx, fullKey)
}

// Release gives a grant this Store claimed back unused, e.g. when storage
// was down: the client may confirm again while the grant lasts. When it
// fails (state store unreachable) the claim runs out with its lease.
func (s *Store) Release(ctx context.Context, fullKey string) error {
	return s.b.release(ctx, fullKey)
}

// Take consumes the grant of fullKey, claimed or not, and persists that:
// a later Claim or Take gets ErrConfirmed. A grant this Store claimed may
// be taken after its expiry (the confirm started in time); an unclaimed
// one fails as Claim would.
func (s *Store) Take(ctx context.Context, fullKey string) error {
	return s.b.take(ctx, fullKey)
}

// Prune forgets the grants past expiry plus retention. Open prunes. A
// store shared by long-running boxes needs a periodic Prune (every few minutes, on one or all writer
// boxes: concurrent Prunes are harmless).
func (s *Store) Prune(ctx context.Context) error {
	return s.b.prune(ctx)
}
