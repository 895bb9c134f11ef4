package server

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes of the contract (§7) and the ones DESIGN.md adds.
const (
	CodeBadRequest         = "BAD_REQUEST"
	CodeUnauthorized       = "UNAUTHORIZED"
	CodeForbidden          = "FORBIDDEN"
	CodeNotFound           = "NOT_FOUND"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeConflict           = "CONFLICT"
	CodePreconditionFailed = "PRECONDITION_FAILED"
	CodeTooLarge           = "PAYLOAD_TOO_LARGE"
	CodeRateLimited        = "RATE_LIMITED"
	CodeInternal           = "INTERNAL_ERROR"
	CodeUnavailable        = "STORAGE_UNAVAILABLE"
	// CodeGrantExpired answers a confirm after the grant's expiresAt (410):
	// the client must ask for a new grant and upload again.
	CodeGrantExpired = "GRANT_EXPIRED"
	// CodeReadOnly answers a write route on a box started with --read-only
	// (405): writes go to a box without it.
	CodeReadOnly = "READ_ONLY"
	// CodeSearchUnavailable answers a search while the index is first
	// being built (503, with Retry-After).
	CodeSearchUnavailable = "SEARCH_UNAVAILABLE"
	// CodeBusy answers an image variant that waited longer than
	// --transform-queue-timeout for a transform slot (503, with
	// Retry-After).
	CodeBusy = "BUSY"
	// CodeInsufficientStorage answers a write that found the box's disk
	// (the media root, its temporary files) full (507): nothing was
	// stored; it may succeed once space is freed.
	CodeInsufficientStorage = "INSUFFICIENT_STORAGE"
	// CodeRefNotFound answers ?ref= naming no branch, tag or commit that
	// may be served (404).
	CodeRefNotFound = "REF_NOT_FOUND"
	// CodeHistoryUnavailable answers a history request while the history
	// index is first being built (503, with Retry-After).
	CodeHistoryUnavailable = "HISTORY_UNAVAILABLE"
	// CodeRequestTimeout answers a request whose body arrived slower than
	// --body-timeout and --body-min-rate allow (408); the connection is
	// closed.
	CodeRequestTimeout = "REQUEST_TIMEOUT"
)

// Error is an error a client may see: a status, a code and a message safe
// to show. Any other error reaching the HTTP layer is internal: it is logged
// and the client gets a generic 500.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *Error {
	return errorf(http.StatusBadRequest, CodeBadRequest, format, args...)
}

func notFound(format string, args ...any) *Error {
	return errorf(http.StatusNotFound, CodeNotFound, format, args...)
}

var errInternal = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal server error"}

// asError maps any error to the client-facing one.
func asError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return errInternal, false
}

type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}
