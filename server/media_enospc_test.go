package server

import (
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

// TestErrorDiskFull: a write that finds the disk full is a 507
// INSUFFICIENT_STORAGE, however it was wrapped, not an internal error
// (make chaos found uploads answered 400 with a 500 per file on a full
// tmpfs).
func TestErrorDiskFull(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		cause := &os.PathError{Op: "write", Path: "/m/.tmp/x", Err: errno}
		for _, err := range []error{
			fmt.Errorf("media: store x.jpg: %w", cause),
			fault.Wrap(fault.Internal, cause, "media: store x.jpg"),
		} {
			e, known := asError(err)
			if !known || e.Status != http.StatusInsufficientStorage || e.Code != CodeInsufficientStorage || e.Message == "" {
				t.Errorf("%v: %+v, %v", err, e, known)
			}
		}
	}
}
