package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// Error codes (docs/api.md, "Errors").
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
	// CodeNoKeysFile answers a keyed route on a box whose --keys file does
	// not exist (503), unless it was started with --allow-missing-keys.
	CodeNoKeysFile = "NO_KEYS_FILE"
	// CodeValidation answers a write that the content rules or the
	// content model reject (422), with one entry per field in fields;
	// nothing is committed.
	CodeValidation = "VALIDATION"
	// CodeGitUnavailable answers a write whose push the Git remote
	// refused or did not take (503): nothing was written.
	CodeGitUnavailable = "GIT_UNAVAILABLE"
)

// The domain's errors are *fault.Error (media, media/grant, engine and
// engine/search declare their sentinels as such, and the handlers make
// theirs with errorf, badRequest, notFound): a code and a message safe to
// show. errorTable is the one place that maps a code to the HTTP status
// and the contract's error code. An error without a code is internal: it
// is logged and the client gets a generic 500.
var errorTable = [fault.Codes]struct {
	status int
	code   string
	// message replaces the error's own when the error may carry detail
	// a client must not see (a storage failure wraps its cause).
	message string
}{
	fault.Internal:           {http.StatusInternalServerError, CodeInternal, "internal server error"},
	fault.Invalid:            {http.StatusBadRequest, CodeBadRequest, ""},
	fault.Unauthorized:       {http.StatusUnauthorized, CodeUnauthorized, ""},
	fault.Forbidden:          {http.StatusForbidden, CodeForbidden, ""},
	fault.NotFound:           {http.StatusNotFound, CodeNotFound, ""},
	fault.RefNotFound:        {http.StatusNotFound, CodeRefNotFound, ""},
	fault.NotAllowed:         {http.StatusMethodNotAllowed, CodeMethodNotAllowed, ""},
	fault.ReadOnly:           {http.StatusMethodNotAllowed, CodeReadOnly, ""},
	fault.Conflict:           {http.StatusConflict, CodeConflict, ""},
	fault.PreconditionFailed: {http.StatusPreconditionFailed, CodePreconditionFailed, ""},
	fault.TooLarge:           {http.StatusRequestEntityTooLarge, CodeTooLarge, ""},
	fault.TooMany:            {http.StatusTooManyRequests, CodeRateLimited, ""},
	fault.Expired:            {http.StatusGone, CodeGrantExpired, ""},
	fault.Timeout:            {http.StatusRequestTimeout, CodeRequestTimeout, ""},
	fault.Unavailable:        {http.StatusServiceUnavailable, CodeUnavailable, "media storage is unavailable; try again shortly"},
	fault.SearchBuilding:     {http.StatusServiceUnavailable, CodeSearchUnavailable, ""},
	fault.HistoryBuilding:    {http.StatusServiceUnavailable, CodeHistoryUnavailable, ""},
	fault.Busy:               {http.StatusServiceUnavailable, CodeBusy, ""},
	fault.NoKeys:             {http.StatusServiceUnavailable, CodeNoKeysFile, ""},
	fault.NoSpace:            {http.StatusInsufficientStorage, CodeInsufficientStorage, "no space left on the server's disk; nothing was stored"},
	fault.Unprocessable:      {http.StatusUnprocessableEntity, CodeValidation, ""},
	fault.GitUnavailable:     {http.StatusServiceUnavailable, CodeGitUnavailable, ""},
}

// httpError is what the client sees of an error.
type httpError struct {
	Status  int
	Code    string
	Message string
	// Fields and RetryAfter are the fault.Error's (the first in the
	// chain, whose code the status is).
	Fields     []fault.Field
	RetryAfter time.Duration
}

// asError maps any error to what the client sees; known is false for an
// internal error (the caller logs it).
func asError(err error) (e httpError, known bool) {
	c := fault.CodeOf(err)
	t := errorTable[c]
	e = httpError{Status: t.status, Code: t.code, Message: t.message}
	if e.Message == "" {
		e.Message = err.Error()
	}
	var fe *fault.Error
	if c != fault.Internal && errors.As(err, &fe) {
		e.Fields, e.RetryAfter = fe.Fields, fe.RetryAfter
	}
	return e, c != fault.Internal
}

// statusOf is the HTTP status of err.
func statusOf(err error) int { return errorTable[fault.CodeOf(err)].status }

// errorf is a client error of code c.
func errorf(c fault.Code, format string, args ...any) *fault.Error {
	return fault.New(c, format, args...)
}

func badRequest(format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, format, args...)
}

func notFound(format string, args ...any) *fault.Error {
	return fault.New(fault.NotFound, format, args...)
}

var errInternal = fault.New(fault.Internal, "internal server error")

type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	// Fields are the fields a VALIDATION error is about.
	Fields []fault.Field `json:"fields,omitempty"`
}
