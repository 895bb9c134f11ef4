package media

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// ErrNotExist is returned by a Storage for a key it does not hold.
var ErrNotExist = errors.New("media: object does not exist")

// ErrUnavailable wraps failures to reach the storage backend (network,
// server down); the HTTP layer maps it to 503.
var ErrUnavailable error = &fault.Error{Code: fault.Unavailable, Message: "media: storage unavailable"}

// Storage holds the bytes of originals and derivatives under slash-separated
// keys like "2026/11/photo.jpg". Keys never start with "/" and never contain
// "." or ".." segments; adapters must refuse such keys. Every adapter runs
// the conformance suite of media/storagetest.
type Storage interface {
	// Put stores r under key; the object appears whole or not at all.
	// size is -1 when unknown.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open reads an object; ErrNotExist when missing.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat returns the object's size; ErrNotExist when missing.
	Stat(ctx context.Context, key string) (int64, error)
	// Delete removes an object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// URL is the address the object is served at: "/uploads/<key>" on local
	// storage, an absolute URL on cloud storage.
	URL(key string) string
}

// Stager is a private staging area for presigned uploads, implemented by
// the state store of a bucket (media/s3.State): a presigned PUT lands at a
// staging key that no public URL serves, and the confirm copies the
// version it checked, server side, to the item's final key, which no
// presigned URL can write. Staging keys are "staging/<token>/<name>"
// (StagedKey), relative to the state area.
type Stager interface {
	// PresignStaged returns a URL that accepts one PUT of exactly size
	// bytes of contentType at staged until expires, and the headers the
	// client must send.
	PresignStaged(ctx context.Context, staged, contentType string, size int64, expires time.Duration) (url string, headers map[string]string, err error)
	// StatStaged returns the size and the tag of the staged object;
	// ErrNotExist when missing.
	StatStaged(ctx context.Context, staged string) (size int64, etag string, err error)
	// OpenStaged reads the version etag of the staged object;
	// ErrPrecondition when it was replaced meanwhile.
	OpenStaged(ctx context.Context, staged, etag string) (io.ReadCloser, error)
	// Promote copies the version etag of the staged object to key of the
	// storage, server side, as contentType; ErrPrecondition when it was
	// replaced meanwhile.
	Promote(ctx context.Context, staged, etag, key, contentType string) error
	// DeleteStaged removes a staged object; a missing one is not an error.
	DeleteStaged(ctx context.Context, staged string) error
}

// FileMover is implemented by a storage that can take a whole file
// spooled on its own disk by renaming it into place (media/local.Storage):
// an upload's original then costs no second file and no copy of its
// bytes. MoveIn makes the object durable as Put does; it reports false,
// having stored nothing, when it cannot take f (the caller then Puts it),
// and once it reports true f's name is gone.
type FileMover interface {
	MoveIn(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error)
}

// FolderSyncer is implemented by a storage that can leave the sync of a
// key's folder to one call for several keys (media/local.Storage): the
// original and the derivatives of an upload, one folder, are then made
// durable with one sync of it instead of one each. PutNoSync and
// MoveInNoSync are Put and MoveIn whose object is whole under its key
// at once, as theirs, but whose name may be lost in a crash until
// SyncFolders of its key has returned.
type FolderSyncer interface {
	PutNoSync(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	MoveInNoSync(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error)
	SyncFolders(ctx context.Context, keys []string) error
}

// PreparedMover is a FolderSyncer that can make a spooled file ready to be
// moved in (its mode, its bytes synced) apart from the move
// (media/local.Storage): an upload syncs its original beside the claims
// of its keys, whose own sync it waited for first.
type PreparedMover interface {
	PrepareMoveIn(f *os.File) error
	// MoveInPrepared is MoveInNoSync of a file PrepareMoveIn returned
	// nil for.
	MoveInPrepared(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error)
}

// SpoolLinker is a FolderSyncer that can keep an upload spooled in the
// library's temporary folder where it is, durable, and give it its key
// as a second name (media/local.Storage). An upload of one file (no
// derivative) then waits for two rounds of syncs instead of three: the
// spooled file's bytes and name, the claim of its key and the sidecar's
// bytes at once; then, after its key is linked and its sidecar created,
// the key's folder and the sidecar's at once. The spooled name, synced
// before the sidecar is, stands for the key until the key's folder is
// synced: a start after a crash links it to the key of its item
// (Library.cleanTmp) when the key's name was lost.
type SpoolLinker interface {
	FolderSyncer
	// Spooled reports whether f is a file SyncSpooled and LinkSpooled
	// can take.
	Spooled(f *os.File) bool
	// PrepareSpooled makes f readable as Put's files are (0644) and
	// begins to write its bytes to the disk, without waiting: everything
	// but the syncs, so that those of an upload's first round begin
	// after every file and name of it is made.
	PrepareSpooled(f *os.File) error
	// SyncSpooled syncs the bytes and the name of f, which
	// PrepareSpooled readied, where it is.
	SyncSpooled(f *os.File) error
	// LinkSpooled gives f the name key too, without a sync of key's
	// folder (SyncFolders); f keeps its name.
	LinkSpooled(ctx context.Context, key string, f *os.File) error
}

// Presigner is implemented by cloud storages that can grant a direct upload.
type Presigner interface {
	// PresignPut returns a URL that accepts one PUT of exactly size bytes of
	// contentType under key until expires, and the headers the client must send.
	PresignPut(ctx context.Context, key, contentType string, size int64, expires time.Duration) (url string, headers map[string]string, err error)
	// FullKey is the object key in the bucket, with the site prefix.
	FullKey(key string) string
}
