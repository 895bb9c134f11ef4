package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
)

// Every code has its row in the one table.
func TestErrorTable_Complete(t *testing.T) {
	t.Parallel()
	for c := range fault.Codes {
		row := errorTable[c]
		if row.status < 400 || row.code == "" {
			t.Errorf("%v: no status or contract code: %+v", fault.Code(c), row)
		}
	}
}

// The domain's sentinels reach the client with their status and code,
// through the table alone; an error without a code is internal and shows
// nothing of itself; storage failures show a generic message.
func TestAsError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err       error
		status    int
		code, msg string
		known     bool
	}{
		{fmt.Errorf("patch: %w", media.ErrNotFound), http.StatusNotFound, CodeNotFound, "patch: media item not found", true},
		{media.ErrFolderNotEmpty, http.StatusConflict, CodeConflict, "folder not empty", true},
		{fmt.Errorf("%w: s3 said 503 at 10.0.0.7", media.ErrUnavailable), http.StatusServiceUnavailable, CodeUnavailable, "media storage is unavailable; try again shortly", true},
		{grant.ErrExpired, http.StatusGone, CodeGrantExpired, grant.ErrExpired.Error(), true},
		{grant.ErrFull, http.StatusTooManyRequests, CodeRateLimited, grant.ErrFull.Error(), true},
		{fmt.Errorf("posts: %w", engine.ErrBadSort), http.StatusBadRequest, CodeBadRequest, "posts: bad sort", true},
		{search.ErrSearchBusy, http.StatusServiceUnavailable, CodeSearchUnavailable, search.ErrSearchBusy.Error(), true},
		{engine.ErrSearchOff, http.StatusNotFound, CodeNotFound, engine.ErrSearchOff.Error(), true},
		{errors.New("open /var/secret: permission denied"), http.StatusInternalServerError, CodeInternal, "internal server error", false},
	} {
		e, known := asError(tc.err)
		if e.Status != tc.status || e.Code != tc.code || e.Message != tc.msg || known != tc.known {
			t.Errorf("asError(%v) = %+v, %v; want %d %s %q, %v", tc.err, e, known, tc.status, tc.code, tc.msg, tc.known)
		}
	}
}
