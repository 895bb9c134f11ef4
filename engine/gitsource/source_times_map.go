package gitsource

import (
	"iter"
	"maps"
	"math"
	"slices"
	"time"
)

// timeMap is the Updated time of every relevant path of one commit. A
// push's is its parent's with the paths the push changed given its time:
// a map of those over the parent's map, shared, not a copy of the
// parent's (a million paths at 1M files). Past maxTimesOver changes the
// two are made one map again. A timeMap is never changed once made.
//
// The times are Git's: whole seconds, served in UTC. A map keeps them as
// seconds since 1970 (secs), 8 bytes a path where a time.Time is 24 with
// a pointer the collector follows (the map of a 10k site's paths, 0.25
// MB less at every start).
type timeMap struct {
	base map[string]int64
	// sorted is the base instead of a map when the times were read from
	// a parse cache in path order (a restart): 24 bytes a path in two
	// slices, where a map of a million paths cost 0.3 s of CPU to fill
	// and a look-up in it a cache miss or two; a sortedCursor finds the
	// files of a Load, in path order, one after the other.
	sorted *sortedTimes
	// over are the times of the paths changed over base; noTime is a
	// path base has that this commit does not.
	over map[string]int64
	n    int // the paths
}

// noTime, in a timeMap's over, is a path base has that the commit does not
// (no time.Time of a commit is as early: Git's are seconds since 1970, at
// most a few hundred years before it).
const noTime = math.MinInt64

// secs is commit time t in seconds since 1970, what a timeMap holds.
func secs(t time.Time) int64 { return t.Unix() }

// timeAt is the time a timeMap's seconds stand for: t in UTC.
func timeAt(t int64) time.Time { return time.Unix(t, 0).UTC() }

// maxTimesOver is the number of changed paths a timeMap keeps over its
// base before it is made one map.
const maxTimesOver = 4096

// newTimeMapSecs is the timeMap of m, each path's time in seconds (secs).
func newTimeMapSecs(m map[string]int64) *timeMap { return &timeMap{base: m, n: len(m)} }

// newTimeMap is the timeMap of the times m (whole seconds: a commit's).
func newTimeMap(m map[string]time.Time) *timeMap {
	out := make(map[string]int64, len(m))
	for p, t := range m {
		out[p] = secs(t)
	}
	return newTimeMapSecs(out)
}

// get is the time of path p, ok false when p has none.
func (tm *timeMap) get(p string) (time.Time, bool) {
	t, ok := tm.getSecs(p)
	if !ok {
		return time.Time{}, false
	}
	return timeAt(t), true
}

// getSecs is get in seconds.
func (tm *timeMap) getSecs(p string) (int64, bool) {
	if t, ok := tm.over[p]; ok {
		return t, t != noTime
	}
	if tm.sorted != nil {
		return tm.sorted.find(p)
	}
	t, ok := tm.base[p]
	return t, ok
}

func (tm *timeMap) len() int { return tm.n }

// all are the paths and their times, in no order.
func (tm *timeMap) all() iter.Seq2[string, time.Time] {
	return func(yield func(string, time.Time) bool) {
		for p, t := range tm.allSecs() {
			if !yield(p, timeAt(t)) {
				return
			}
		}
	}
}

// allSecs is all in seconds.
func (tm *timeMap) allSecs() iter.Seq2[string, int64] {
	return func(yield func(string, int64) bool) {
		for p, t := range tm.baseSecs() {
			if _, ok := tm.over[p]; ok {
				continue
			}
			if !yield(p, t) {
				return
			}
		}
		for p, t := range tm.over {
			if t != noTime && !yield(p, t) {
				return
			}
		}
	}
}

// with is tm with the paths set (at time when) and those deleted: a
// new timeMap, tm unchanged.
func (tm *timeMap) with(set, deleted []string, when time.Time) *timeMap {
	out := &timeMap{base: tm.base, sorted: tm.sorted, n: tm.n}
	out.over = make(map[string]int64, len(tm.over)+len(set)+len(deleted))
	maps.Copy(out.over, tm.over)
	w := secs(when)
	for _, p := range set {
		if _, had := tm.getSecs(p); !had {
			out.n++
		}
		out.over[p] = w
	}
	for _, p := range deleted {
		if _, had := tm.getSecs(p); had {
			out.n--
			out.over[p] = noTime
		}
	}
	if len(out.over) > maxTimesOver {
		m := make(map[string]int64, out.n)
		for p, t := range out.allSecs() {
			m[p] = t
		}
		return newTimeMapSecs(m)
	}
	return out
}

// timeOf is the time of path p in tm, the zero time when it has none.
func timeOf(tm *timeMap, p string) time.Time {
	t, _ := tm.get(p)
	return t
}

// baseSecs are the paths and times of tm's base, the map or the sorted
// slices, without those over it.
func (tm *timeMap) baseSecs() iter.Seq2[string, int64] {
	if tm.sorted != nil {
		return tm.sorted.all()
	}
	return maps.All(tm.base)
}

// inPathOrder are the paths and their times sorted by path, as a cache
// file keeps them (so that a restart reads them as a sortedTimes).
func (tm *timeMap) inPathOrder() iter.Seq2[string, int64] {
	if tm.sorted != nil {
		return tm.sorted.merged(tm.over)
	}
	paths := make([]string, 0, tm.n)
	at := make(map[string]int64, tm.n)
	for p, t := range tm.allSecs() {
		paths = append(paths, p)
		at[p] = t
	}
	slices.Sort(paths)
	return func(yield func(string, int64) bool) {
		for _, p := range paths {
			if !yield(p, at[p]) {
				return
			}
		}
	}
}

// sortedTimes are paths in increasing order and the time of each.
type sortedTimes struct {
	paths []string
	secs  []int64
}

// newTimeMapSorted is the timeMap of paths, strictly increasing, and
// their times (secs[i] is paths[i]'s).
func newTimeMapSorted(paths []string, secs []int64) *timeMap {
	return &timeMap{sorted: &sortedTimes{paths: paths, secs: secs}, n: len(paths)}
}

func (st *sortedTimes) find(p string) (int64, bool) {
	i, ok := slices.BinarySearch(st.paths, p)
	if !ok {
		return 0, false
	}
	return st.secs[i], true
}

func (st *sortedTimes) all() iter.Seq2[string, int64] {
	return func(yield func(string, int64) bool) {
		for i, p := range st.paths {
			if !yield(p, st.secs[i]) {
				return
			}
		}
	}
}

// merged are st's paths and times with over's merged in, in path order:
// a path over sets is its time there, one over deletes (noTime) is left
// out. A save after a push writes them so without sorting a million
// paths again.
func (st *sortedTimes) merged(over map[string]int64) iter.Seq2[string, int64] {
	keys := slices.Sorted(maps.Keys(over))
	return func(yield func(string, int64) bool) {
		i := 0
		for _, k := range keys {
			for ; i < len(st.paths) && st.paths[i] < k; i++ {
				if !yield(st.paths[i], st.secs[i]) {
					return
				}
			}
			if i < len(st.paths) && st.paths[i] == k {
				i++ // over has it
			}
			if t := over[k]; t != noTime && !yield(k, t) {
				return
			}
		}
		for ; i < len(st.paths); i++ {
			if !yield(st.paths[i], st.secs[i]) {
				return
			}
		}
	}
}

// timeCursor looks up paths that mostly come in increasing order (the
// files of a tree, or a run of them): with a sorted base, the path after
// the last one found is tried first, before a binary search.
type timeCursor struct {
	tm   *timeMap
	next int // in tm.sorted: the index after the last path found
}

func (tm *timeMap) cursor() *timeCursor { return &timeCursor{tm: tm} }

// getSecs is tm.getSecs(p).
func (c *timeCursor) getSecs(p string) (int64, bool) {
	st := c.tm.sorted
	if st == nil {
		return c.tm.getSecs(p)
	}
	if t, ok := c.tm.over[p]; ok {
		return t, t != noTime
	}
	if c.next < len(st.paths) && st.paths[c.next] == p {
		c.next++
		return st.secs[c.next-1], true
	}
	i, ok := slices.BinarySearch(st.paths, p)
	if !ok {
		return 0, false
	}
	c.next = i + 1
	return st.secs[i], true
}

// timeOf is the time of p, the zero time when it has none.
func (c *timeCursor) timeOf(p string) time.Time {
	t, ok := c.getSecs(p)
	if !ok {
		return time.Time{}
	}
	return timeAt(t)
}
