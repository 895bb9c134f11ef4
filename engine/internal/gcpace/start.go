package gcpace

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The first start of a large site (an empty parse cache) parses every
// file: its live heap grows with the documents (1.9 to 2.6 GB in the
// second half of a 1M-file parse, 3.2 GB while the items are read) and
// it makes garbage at 17 to 25 KB a file, so with GOGC=100 the heap
// reaches twice the live heap before each collection (5.1 GB at 1M).
// A lower percent for the whole start would bound that at the price of
// a collection every few hundred MB from the beginning (GOGC=50: 14 %
// more CPU at 100k). Instead the start's last part is paced by a memory
// limit: from half-way through the parse, the limit holds the heap at
// the target the collector had then (twice the live heap of half the
// parse), raised only as far as the live heap plus a budget when the
// live heap grows past it, until the engine is ready. The collector
// then runs as often as before while the heap is under that target, and
// the runtime returns freed pages to the system to stay under the
// limit, so the process's memory stays near it. A limit set already
// (GOMEMLIMIT) is never raised; with collections off (GOGC=off)
// nothing changes.

// Start paces the collector by a memory limit until End.
type Start struct {
	stop chan struct{}
	done chan struct{}
}

// startTick: how often the limit is set again for the live heap (which
// changes at the end of each collection).
const startTick = 50 * time.Millisecond

// HoldStart begins the pacing: the limit is the collector's heap target
// now, or the live heap plus a budget if more, set again every
// startTick until End.
func HoldStart() *Start {
	buildGC.mu.Lock()
	buildGC.starts++
	if buildGC.starts == 1 {
		buildGC.savedLimit = debug.SetMemoryLimit(-1)
		m := readMem()
		buildGC.startCap = m.goal
		buildGC.limit = buildGC.savedLimit
		buildGC.setLimitLocked(m)
	}
	buildGC.mu.Unlock()
	s := &Start{stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *Start) run() {
	defer close(s.done)
	t := time.NewTicker(startTick)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			buildGC.mu.Lock()
			buildGC.setLimitLocked(readMem())
			buildGC.mu.Unlock()
		}
	}
}

// End stops the pacing and, once the last Start is over, puts the
// limit back (unless something else set one meanwhile). Only the first
// call does anything.
func (s *Start) End() {
	if s == nil {
		return
	}
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	<-s.done
	buildGC.mu.Lock()
	defer buildGC.mu.Unlock()
	buildGC.starts--
	if buildGC.starts > 0 {
		return
	}
	if prev := debug.SetMemoryLimit(buildGC.savedLimit); prev != buildGC.limit {
		debug.SetMemoryLimit(prev) // another setting meanwhile: leave it
	}
}

// setLimitLocked sets the limit for the memory m: startLimit, unless
// something else set another limit since the last one set here.
func (r *gcRecord) setLimitLocked(m mem) {
	l := startLimit(m, r.startCap, r.savedLimit, m.percent)
	if l == r.limit {
		return
	}
	if prev := debug.SetMemoryLimit(l); prev != r.limit {
		debug.SetMemoryLimit(prev) // another setting meanwhile: leave it
		return
	}
	r.limit = l
}

// startLimit is the memory limit for the start's heap target: capHeap
// (the collector's heap target when the pacing began), or the live heap
// plus its budget (buildGarbage, or an eighth of the live heap if more)
// when that is more, plus the runtime's memory outside the heap; never
// above saved, the limit set before. With collections off (percent < 0)
// it is saved.
func startLimit(m mem, capHeap uint64, saved int64, percent int) int64 {
	if percent < 0 || m.live == 0 || capHeap == 0 {
		return saved
	}
	target := max(capHeap, m.live+max(buildGarbage, m.live/8))
	l := target + m.outside
	if l > math.MaxInt64 || int64(l) > saved {
		return saved
	}
	return int64(l)
}

// mem is what the pacing reads of the runtime's memory.
type mem struct {
	live    uint64 // the heap the last collection found live
	goal    uint64 // the collector's heap target now
	outside uint64 // the runtime's memory outside the heap's objects and free pages (stacks, metadata)
	percent int    // GOGC
}

func readMem() mem {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/gogc:percent"},
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	m := mem{live: v(0), goal: v(1), percent: int(int64(v(7)))}
	if heap := v(3) + v(4) + v(5) + v(6); v(2) > heap {
		m.outside = v(2) - heap
	}
	return m
}
