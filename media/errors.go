package media

import (
	"errors"
	"fmt"
)

// Sentinel errors of the Library. Every error a Library method returns for a
// client mistake wraps one of them with a message that is safe to show to
// that client: it names no file-system path, storage key or internal detail.
// The HTTP layer maps each sentinel to a status with errors.Is.
var (
	ErrNotFound        = errors.New("media item not found")
	ErrBadInput        = errors.New("bad input")
	ErrUnsupportedType = errors.New("unsupported file type")
	ErrTooLarge        = errors.New("file too large")
	ErrConflict        = errors.New("media item was changed by someone else")
	ErrFolderNotFound  = errors.New("folder not found")
	ErrFolderNotEmpty  = errors.New("folder not empty")
	ErrFolderExists    = errors.New("folder already exists")
	// ErrBusy refuses an image write while the queue of image work
	// (Library.SetDeriveGate) is full: nothing was stored, and the same
	// write may be retried shortly.
	ErrBusy = errors.New("too many images are being processed")
	// ErrReadOnly refuses a write to a library opened with Config.ReadOnly.
	ErrReadOnly = errors.New("media library is read-only")
)

// errReadOnly is what every write of a read-only library returns.
var errReadOnly = errorf(ErrReadOnly, "this folio serves media read-only: send writes to a box started without --read-only")

// clientError wraps a sentinel with a message meant for the client. Error()
// is the message alone, so the HTTP layer can show err.Error() as it is.
type clientError struct {
	sentinel error
	msg      string
}

func (e *clientError) Error() string { return e.msg }
func (e *clientError) Unwrap() error { return e.sentinel }

func errorf(sentinel error, format string, args ...any) error {
	return &clientError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}
