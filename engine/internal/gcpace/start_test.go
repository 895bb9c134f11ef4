package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestStartLimit: the start's limit is the heap target of half-way
// through the parse, or the live heap plus its budget when more, plus
// the runtime's memory outside the heap; never above a limit set
// before, and nothing with collections off.
func TestStartLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name    string
		m       mem
		capHeap uint64
		saved   int64
		want    int64
	}{
		{"1M, the parse's second half: the cap", mem{live: 2400 * mb, outside: 100 * mb, percent: 100}, 3600 * mb, math.MaxInt64, 3700 * mb},
		{"1M, the items read: an eighth more", mem{live: 3200 * mb, outside: 100 * mb, percent: 100}, 3600 * mb, math.MaxInt64, 3700 * mb},
		{"past the cap", mem{live: 4000 * mb, outside: 100 * mb, percent: 100}, 3600 * mb, math.MaxInt64, 4600 * mb},
		{"100k: 256 MB more", mem{live: 250 * mb, outside: 20 * mb, percent: 100}, 300 * mb, math.MaxInt64, 526 * mb},
		{"GOMEMLIMIT lower", mem{live: 2400 * mb, outside: 100 * mb, percent: 100}, 3600 * mb, 3000 * mb, 3000 * mb},
		{"GOGC=off", mem{live: 2400 * mb, outside: 100 * mb, percent: -1}, 3600 * mb, math.MaxInt64, math.MaxInt64},
		{"no collection yet", mem{percent: 100}, 3600 * mb, math.MaxInt64, math.MaxInt64},
	} {
		if got := startLimit(c.m, c.capHeap, c.saved, c.m.percent); got != c.want {
			t.Errorf("%s: %d MB, want %d MB", c.name, got/mb, c.want/mb)
		}
	}
}

// TestHoldStart: a start sets a memory limit and puts the process's
// back when it ends (after the last of two, once each), and leaves one
// something else set meanwhile.
func TestHoldStart(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	runtime.GC() // a live heap to go by
	read := func() int64 { return debug.SetMemoryLimit(-1) }
	const own = 1 << 50
	debug.SetMemoryLimit(own)
	a := HoldStart()
	if got, want := read(), startLimit(readMem(), buildGC.startCap, own, 100); got == own || got != want {
		t.Fatalf("during a start: limit %d, want %d", got, want)
	}
	b := HoldStart()
	a.End()
	a.End() // once only
	if got := read(); got == own {
		t.Fatal("put back while a second start runs")
	}
	b.End()
	if got := read(); got != own {
		t.Fatalf("after the starts: limit %d, want %d", got, own)
	}
	var none *Start
	none.End()

	c := HoldStart()
	debug.SetMemoryLimit(own / 2) // set by something else
	buildGC.mu.Lock()
	buildGC.setLimitLocked(readMem())
	buildGC.mu.Unlock()
	if got := read(); got != own/2 {
		t.Fatalf("pacing overwrote another limit: %d, want %d", got, own/2)
	}
	c.End()
	if got := read(); got != own/2 {
		t.Fatalf("end overwrote another limit: %d, want %d", got, own/2)
	}
}
