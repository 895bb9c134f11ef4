package search

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A build makes garbage by the gigabyte (the inflated bodies, their
// text, the words, zapx's work buffers), and every collection marks the
// whole live heap, the site's documents first (450 MB at 100k files), so
// what a build's collections cost is the number of them times that heap.
// Forcing one (runtime.GC) once a budget of garbage is made bounds the
// peak, but it also stops the build's pipeline while the whole heap is
// marked. Instead, while a build runs, the collector's target is set to
// the live heap plus the budget (debug.SetGCPercent, recomputed after each
// batch as the live heap grows): the pacer then starts each collection
// itself, early enough, and the build goes on while it marks. The memory
// limit (GOMEMLIMIT), when one is set, still bounds the heap as before:
// the runtime collects at whichever of the two comes first.
//
// The percent is the process's: builds at once (a branch's and the
// draft's) share one setting, the first saves what was there and the
// last puts it back, unless something else set another percent
// meanwhile, which is then left. With collections off (GOGC=off) a build
// changes nothing.

// buildGarbage is the garbage a build lets the heap hold beyond the live
// heap, or a quarter of the live heap if more. 256 MB: at 100k files
// (a live heap of about 450 MB) a build made about 70 collections with
// forced ones every 128 MB, 13 to 20 paced to 256 MB (with the garbage
// of the text cut too); the peak RSS grew 270 MB rather than 200.
const buildGarbage = 256 << 20

// buildGC is the process's collector setting while builds run.
var buildGC struct {
	mu     sync.Mutex
	builds int // builds running
	saved  int // the percent before the first of them
	set    int // the percent they set last
}

// buildCollector tunes the collector for a build: pace after each batch,
// end when the build is over.
type buildCollector struct{}

// startBuildCollector tunes the collector for a build.
func startBuildCollector() buildCollector {
	buildGC.mu.Lock()
	defer buildGC.mu.Unlock()
	buildGC.builds++
	if buildGC.builds == 1 {
		buildGC.saved = debug.SetGCPercent(100)
		buildGC.set = buildPercent(liveHeap(), buildGC.saved)
		debug.SetGCPercent(buildGC.set)
	}
	return buildCollector{}
}

// pace sets the target again for the live heap now.
func (buildCollector) pace() {
	buildGC.mu.Lock()
	defer buildGC.mu.Unlock()
	p := buildPercent(liveHeap(), buildGC.saved)
	if p == buildGC.set {
		return
	}
	if prev := debug.SetGCPercent(p); prev != buildGC.set {
		debug.SetGCPercent(prev) // another setting meanwhile: leave it
		return
	}
	buildGC.set = p
}

// end puts the percent back once the last build is over.
func (buildCollector) end() {
	buildGC.mu.Lock()
	defer buildGC.mu.Unlock()
	buildGC.builds--
	if buildGC.builds > 0 {
		return
	}
	if prev := debug.SetGCPercent(buildGC.saved); prev != buildGC.set {
		debug.SetGCPercent(prev) // another setting meanwhile: leave it
	}
}

// buildPercent is the percent that puts the collector's target at the
// live heap plus buildGarbage (or a quarter of it, if more), but never
// above saved, the process's own percent: on a small site (a live heap
// under buildGarbage) the build collects as the process does; with
// collections off (a negative saved) it leaves them off.
func buildPercent(live uint64, saved int) int {
	if saved < 0 || live == 0 {
		return saved // or no collection yet: nothing to go by
	}
	return max(10, min(saved, int(max(buildGarbage, live/4)*100/live)))
}

// liveHeap is the heap the last collection found live; 0 when the
// runtime does not tell.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
