package local

import (
	"fmt"
	"math"
	"testing"
)

// TestMakeTag: a tag is what fmt.Sprintf("%x-%x-%x") made (the tags of a
// checkpoint written before compare equal), in one allocation.
func TestMakeTag(t *testing.T) {
	for _, c := range [][3]int64{{0, 0, 0}, {1, -1, 2}, {12345678, 1764432000123456789, 4096}, {-1, math.MinInt64, math.MaxInt64}} {
		ino := uint64(c[0])
		if got, want := makeTag(ino, c[1], c[2]), fmt.Sprintf("%x-%x-%x", ino, c[1], c[2]); got != want {
			t.Errorf("makeTag(%d, %d, %d) = %q, want %q", ino, c[1], c[2], got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { makeTag(math.MaxUint64, math.MinInt64, math.MaxInt64) }); n > 1 {
		t.Errorf("%v allocations a tag, want 1", n)
	}
}
