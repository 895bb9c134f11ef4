package gitsource

import (
	"iter"
	"maps"
	"math"
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
		for p, t := range tm.base {
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
	out := &timeMap{base: tm.base, n: tm.n}
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
