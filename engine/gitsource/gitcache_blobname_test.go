package gitsource

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestBlobName: a file's blob named as plumbing.Hash.String names it, in
// one allocation (the string) where String makes two (every file of a
// Load: the first was garbage among the documents kept).
func TestBlobName(t *testing.T) {
	for _, h := range []plumbing.Hash{{}, plumbing.NewHash("0123456789abcdef0123456789abcdef01234567"), {0xff, 0x10, 19: 0xaa}} {
		if got, want := blobName(h), h.String(); got != want {
			t.Fatalf("blobName = %s, want %s", got, want)
		}
	}
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	var sink string
	if n := testing.AllocsPerRun(100, func() { sink = blobName(h) }); n != 1 {
		t.Fatalf("blobName made %.0f allocations, want 1", n)
	}
	_ = sink
}
