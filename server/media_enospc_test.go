package server

import (
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
)

// TestMediaErrorDiskFull: a write that finds the disk full is a 507
// INSUFFICIENT_STORAGE, not an internal error (make chaos found uploads
// answered 400 with a 500 per file on a full tmpfs).
func TestMediaErrorDiskFull(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		err := fmt.Errorf("media: store x.jpg: %w", &os.PathError{Op: "write", Path: "/m/.tmp/x", Err: errno})
		e, ok := asError(mediaError(err))
		if !ok || e.Status != http.StatusInsufficientStorage || e.Code != CodeInsufficientStorage {
			t.Errorf("%v: %+v, %v", errno, e, ok)
		}
	}
}
