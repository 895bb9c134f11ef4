package media

import (
	"fmt"

	"github.com/folio-cms/folio/content/fault"
)

// Sentinel errors of the Library. Every error a Library method returns for a
// client mistake wraps one of them with a message that is safe to show to
// that client: it names no file-system path, storage key or internal detail.
// Each is a *fault.Error: its code is what the HTTP layer maps to a status
// (server/errors.go); errors.Is tells the sentinels apart.
var (
	ErrNotFound        error = &fault.Error{Code: fault.NotFound, Message: "media item not found"}
	ErrBadInput        error = &fault.Error{Code: fault.Invalid, Message: "bad input"}
	ErrUnsupportedType error = &fault.Error{Code: fault.Invalid, Message: "unsupported file type"}
	ErrTooLarge        error = &fault.Error{Code: fault.TooLarge, Message: "file too large"}
	ErrConflict        error = &fault.Error{Code: fault.Conflict, Message: "media item was changed by someone else"}
	ErrFolderNotFound  error = &fault.Error{Code: fault.NotFound, Message: "folder not found"}
	ErrFolderNotEmpty  error = &fault.Error{Code: fault.Conflict, Message: "folder not empty"}
	ErrFolderExists    error = &fault.Error{Code: fault.Conflict, Message: "folder already exists"}
	// ErrBusy refuses an image write while the queue of image work
	// (Library.SetDeriveGate) is full: nothing was stored, and the same
	// write may be retried shortly.
	ErrBusy error = &fault.Error{Code: fault.Busy, Message: "too many images are being processed"}
	// ErrNotUploaded: Adopt found nothing under the key, the client's
	// mistake (a presigned upload not sent yet). It is an ErrNotFound too.
	ErrNotUploaded error = fault.Wrap(fault.Invalid, ErrNotFound, "nothing uploaded")
	// ErrReadOnly refuses a write to a library opened with Config.ReadOnly.
	ErrReadOnly error = &fault.Error{Code: fault.ReadOnly, Message: "media library is read-only"}
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
