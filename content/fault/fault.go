// Package fault is folio's one error type: an Error has a Code that says
// what kind of failure it is (not found, conflict, invalid input, …) and
// a Message that is safe to show to the client who caused it. The
// domain packages (media, media/grant, engine, engine/search) return
// them, or their own sentinels declared as Errors; the HTTP layer maps
// each Code to a status and a contract error code in one table
// (server/errors.go) and logs what has none (Internal).
//
// It is every package's error type, not one package's: it lives under
// content/ only because the top-level folders are fixed and content is
// the bottom layer. It imports nothing but the standard library, so
// content, media, engine and server all use it, and using it ties none of
// them to another (content/fault does not import content).
package fault

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Code is the kind of a failure.
type Code uint8

// The codes. Internal is the zero value: a failure of folio itself, never
// shown to a client beyond a generic message.
const (
	Internal           Code = iota
	Invalid                 // the request or its input is malformed or not allowed
	Unauthorized            // no credentials, or unknown ones
	Forbidden               // credentials without the right to do this
	NotFound                // what the request names does not exist
	RefNotFound             // the Git ref (branch, tag, commit) named is not served
	NotAllowed              // the method is not one the resource answers
	ReadOnly                // a write to a service that only reads
	Conflict                // the state does not allow it (changed, exists, not empty)
	PreconditionFailed      // a condition the client set (If-Match) does not hold
	TooLarge                // the input is over a limit
	TooMany                 // over a rate or count limit, for now
	Expired                 // it existed, its time is over
	Timeout                 // the client sent too slowly
	Unavailable             // storage does not answer; try again
	SearchBuilding          // the search index is still being built; try again
	HistoryBuilding         // the history index is still being built; try again
	Busy                    // every worker is busy; try again
	NoKeys                  // the service has no keys file: no key can be checked
	NoSpace                 // the disk is full (ENOSPC, EDQUOT): nothing was stored
	Unprocessable           // well-formed input that the content model rejects
	GitUnavailable          // the Git remote refused or did not take a write: nothing was written
	codes                   // how many
)

// Codes is the number of codes, for tables indexed by Code.
const Codes = int(codes)

var names = [codes]string{"internal", "invalid", "unauthorized", "forbidden", "not found", "ref not found",
	"not allowed", "read-only", "conflict", "precondition failed", "too large", "too many", "expired",
	"timeout", "unavailable", "search building", "history building", "busy", "no keys", "no space",
	"unprocessable", "git unavailable"}

func (c Code) String() string {
	if c < codes {
		return names[c]
	}
	return fmt.Sprintf("code(%d)", uint8(c))
}

// Error is a failure of a known kind. Message is for the client; Err,
// when set, is the cause, for logs and errors.Is, never shown.
type Error struct {
	Code    Code
	Message string
	Err     error
	// Fields are the fields of the input the error is about, each with
	// its own message (an Unprocessable write); none for most errors.
	Fields []Field
	// RetryAfter, when positive, is how long the client should wait
	// before trying again (a Busy or Unavailable error).
	RetryAfter time.Duration
}

// Field is one reason an input is refused, for one field of it.
type Field struct {
	Path    string `json:"path"` // dotted field path; "" for the whole input
	Message string `json:"message"`
}

// Error is the message alone, so that a client-facing message can be
// shown as it is.
func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// New returns an Error of code with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error of code with a formatted message and cause err.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf is the code of the first Error in err's chain; Internal when
// there is none (and for nil).
func CodeOf(err error) Code {
	// A full disk is what went wrong however the error was wrapped on its
	// way up (make chaos found uploads on a full disk answered 500).
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return NoSpace
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}
