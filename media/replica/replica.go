// Package replica is the protocol by which the boxes that share one state
// store (a bucket's private area, or a directory on local disk) keep the
// same media library: a totally ordered change log, checkpoints of the
// whole library, claims on storage keys, tombstones of deleted items, and
// the sweep of what interrupted writes left.
//
// It knows nothing of media items: log entries and checkpoints are bytes
// the library encodes, claims are storage keys with an owner. The library
// (media.Library) keeps the index and decides what an entry means; this
// package decides where entries go, in which order they are read, when a
// reader fell behind a compaction, and which claims are leftovers.
//
// Layout of the state store (keys relative to it) used here:
//
//	claims/<lower-cased key>  one per storage key an item (or a pending
//	                          presigned upload) owns: created if absent, so
//	                          two boxes never store two files under one key
//	log/<20-digit seq>        the change log: each write's outcome, created
//	                          if absent at the next free number, so the
//	                          entries are totally ordered (Delta Lake style)
//	checkpoints/<20-digit seq>.gob.gz
//	                          the whole library as of a log entry, so a box
//	                          with an empty disk starts from one object
package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Store is the state store: media.StateStore has this method set. Its
// errors are told apart by the sentinels of Errors.
type Store interface {
	Get(ctx context.Context, key string) (data []byte, etag string, err error)
	Create(ctx context.Context, key string, data []byte) (etag string, err error)
	Replace(ctx context.Context, key string, data []byte, etag string) (newEtag string, err error)
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix, startAfter string, fn func(Object) error) error
}

// UnsyncedCreator is a Store that can create an object without making it
// durable: visible at once, but a crash of the machine may lose it or
// leave it cut short (media/local.State.CreateUnsynced).
type UnsyncedCreator interface {
	CreateUnsynced(ctx context.Context, key string, data []byte) (etag string, err error)
}

// NameSyncedCreator is a Store that can create an object whose name is
// durable and whose bytes are not: after a crash of the machine it may be
// there empty or cut short (media/local.State.CreateNameSynced).
type NameSyncedCreator interface {
	CreateNameSynced(ctx context.Context, key string, data []byte) (etag string, err error)
}

// NameSyncer is a Store that can make the names of objects created
// without a sync (CreateUnsynced) durable afterwards
// (media/local.State.SyncNames): ClaimDeferred.
type NameSyncer interface {
	SyncNames(ctx context.Context, keys []string) error
}

// Object is one entry of a Store listing.
type Object struct {
	Key          string
	ETag         string
	LastModified time.Time
}

// Errors are the sentinels a Store's errors wrap: NotExist for a missing
// object, Precondition for a conditional write that lost.
type Errors struct {
	NotExist, Precondition error
}

// Key prefixes of the store.
const (
	ClaimsPrefix      = "claims/"
	LogPrefix         = "log/"
	CheckpointsPrefix = "checkpoints/"
)

// Replica runs the protocol on one store. It holds no state of its own
// beyond its configuration: the position in the log and the tombstones
// belong to the library that follows it. It is safe for concurrent use.
type Replica struct {
	st   Store
	errs Errors
	now  func() time.Time
	log  *slog.Logger
	// unsyncedLog, when set, creates log entries with it (SetUnsyncedLog).
	unsyncedLog atomic.Pointer[UnsyncedCreator]
	// nameSyncedClaims, when set, creates claims with it
	// (SetNameSyncedClaims).
	nameSyncedClaims atomic.Pointer[NameSyncedCreator]
}

// SetNameSyncedClaims makes Claim create claims whose bytes are not made
// durable, when the store can (NameSyncedCreator): only their names
// survive a crash of the machine for sure. Only for the sole writer of a
// store whose start sweeps with Sweep.Unreadable set: a claim whose bytes
// were lost is settled by its name. Never for a store that boxes share.
func (r *Replica) SetNameSyncedClaims() {
	if c, ok := r.st.(NameSyncedCreator); ok {
		r.nameSyncedClaims.Store(&c)
	}
}

// SetUnsyncedLog makes Append create entries without making them durable,
// when the store can (UnsyncedCreator). Only for the sole writer of a
// store whose start recovers what a lost entry said (media: the sidecars
// are reconciled at every start of the sole writer); never for a store
// that boxes share, whose readers have nothing but the log.
func (r *Replica) SetUnsyncedLog() {
	if u, ok := r.st.(UnsyncedCreator); ok {
		r.unsyncedLog.Store(&u)
	}
}

// New runs the protocol on st. now and logger may be nil.
func New(st Store, errs Errors, now func() time.Time, logger *slog.Logger) *Replica {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Replica{st: st, errs: errs, now: now, log: logger}
}

// Store is the store the replica works on.
func (r *Replica) Store() Store { return r.st }

func (r *Replica) isNotExist(err error) bool     { return errors.Is(err, r.errs.NotExist) }
func (r *Replica) isPrecondition(err error) bool { return errors.Is(err, r.errs.Precondition) }

// LogKey is the key of log entry seq.
func LogKey(seq int64) string { return fmt.Sprintf("%s%020d", LogPrefix, seq) }

// CheckpointKey is the key of the checkpoint as of log entry seq.
func CheckpointKey(seq int64) string { return fmt.Sprintf("%s%020d.gob.gz", CheckpointsPrefix, seq) }

// ClaimKey is the key of the claim on a storage key. Claims are named by
// the key in lower case, so that two names that differ only in case (one
// file on a case-insensitive disk) cannot both be claimed.
func ClaimKey(key string) string { return ClaimsPrefix + strings.ToLower(key) }

// SeqOf parses the sequence number at the end of a log or checkpoint key.
func SeqOf(key, prefix string) (int64, bool) {
	s := strings.TrimSuffix(strings.TrimPrefix(key, prefix), ".gob.gz")
	if len(s) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

var errStopList = errors.New("stop listing")
