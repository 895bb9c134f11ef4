package gitsource

import (
	"iter"
	"maps"
	"time"
)

// timeMap is the Updated time of every relevant path of one commit. A
// push's is its parent's with the paths the push changed given its time:
// a map of those over the parent's map, shared, not a copy of the
// parent's (a million paths at 1M files). Past maxTimesOver changes the
// two are made one map again. A timeMap is never changed once made.
type timeMap struct {
	base map[string]time.Time
	// over are the times of the paths changed over base; the zero time
	// is a path base has that this commit does not (a commit's time is
	// never the zero time: Git's are seconds since 1970).
	over map[string]time.Time
	n    int // the paths
}

// maxTimesOver is the number of changed paths a timeMap keeps over its
// base before it is made one map.
const maxTimesOver = 4096

func newTimeMap(m map[string]time.Time) *timeMap { return &timeMap{base: m, n: len(m)} }

// get is the time of path p, ok false when p has none.
func (tm *timeMap) get(p string) (time.Time, bool) {
	if t, ok := tm.over[p]; ok {
		return t, !t.IsZero()
	}
	t, ok := tm.base[p]
	return t, ok
}

func (tm *timeMap) len() int { return tm.n }

// all are the paths and their times, in no order.
func (tm *timeMap) all() iter.Seq2[string, time.Time] {
	return func(yield func(string, time.Time) bool) {
		for p, t := range tm.base {
			if _, ok := tm.over[p]; ok {
				continue
			}
			if !yield(p, t) {
				return
			}
		}
		for p, t := range tm.over {
			if !t.IsZero() && !yield(p, t) {
				return
			}
		}
	}
}

// with is tm with the paths set (at time when) and those deleted: a
// new timeMap, tm unchanged.
func (tm *timeMap) with(set, deleted []string, when time.Time) *timeMap {
	out := &timeMap{base: tm.base, n: tm.n}
	out.over = make(map[string]time.Time, len(tm.over)+len(set)+len(deleted))
	maps.Copy(out.over, tm.over)
	for _, p := range set {
		if _, had := tm.get(p); !had {
			out.n++
		}
		out.over[p] = when
	}
	for _, p := range deleted {
		if _, had := tm.get(p); had {
			out.n--
			out.over[p] = time.Time{}
		}
	}
	if len(out.over) > maxTimesOver {
		m := make(map[string]time.Time, out.n)
		for p, t := range out.all() {
			m[p] = t
		}
		return newTimeMap(m)
	}
	return out
}

// timeOf is the time of path p in tm, the zero time when it has none.
func timeOf(tm *timeMap, p string) time.Time {
	t, _ := tm.get(p)
	return t
}
