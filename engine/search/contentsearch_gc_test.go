package search

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestBuildPercent: the collector's target during a build is the live
// heap plus buildGarbage (or a quarter of it), never above the process's
// percent, and collections that are off stay off.
func TestBuildPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live        uint64
		saved, want int
	}{
		{450 * mb, 100, 56},    // 100k files: 256 MB more
		{4500 * mb, 100, 25},   // 1M files: a quarter more
		{100 * mb, 100, 100},   // a small site: as the process
		{450 * mb, 30, 30},     // the process collects sooner
		{450 * mb, -1, -1},     // off
		{0, 100, 100},          // no collection yet
		{100000 * mb, 100, 25}, // at least a quarter
	} {
		if got := buildPercent(c.live, c.saved); got != c.want {
			t.Errorf("live %d MB, percent %d: %d, want %d", c.live/mb, c.saved, got, c.want)
		}
	}
}

// TestBuildCollector: a build sets the collector's percent and puts the
// process's back when it is over: after the last of two builds at once,
// and not over a percent something else set meanwhile.
func TestBuildCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC() // a live heap to go by
	read := func() int {
		p := debug.SetGCPercent(0)
		debug.SetGCPercent(p)
		return p
	}
	// A percent so high that the build's (the small live heap of a test
	// plus buildGarbage) is lower.
	const own = 1 << 20
	debug.SetGCPercent(own)
	a := startBuildCollector()
	if got := read(); got == own || got != buildPercent(liveHeap(), own) {
		t.Fatalf("during a build: percent %d, want %d", got, buildPercent(liveHeap(), own))
	}
	b := startBuildCollector()
	a.pace()
	a.end()
	if got := read(); got == own {
		t.Fatal("put back while a second build runs")
	}
	b.pace()
	b.end()
	if got := read(); got != own {
		t.Fatalf("after the builds: percent %d, want %d", got, own)
	}

	c := startBuildCollector()
	debug.SetGCPercent(55) // set by something else during the build
	c.pace()
	if got := read(); got != 55 {
		t.Fatalf("pace overwrote another setting: %d, want 55", got)
	}
	c.end()
	if got := read(); got != 55 {
		t.Fatalf("end overwrote another setting: %d, want 55", got)
	}
}
