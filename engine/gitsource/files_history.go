package gitsource

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The history a writer reads: whether a commit is in another's history,
// the best common ancestor of two commits, a commit's time, the branches
// under a prefix. The walks are git's (commit.c's paint_down_to_common):
// newest commit first by committer date, both sides painted until every
// commit left to visit is below a common ancestor, so that a walk costs
// the commits since the two parted, not the whole history.

// ErrMergeBaseTie is a MergeBase of two commits that have several best
// common ancestors of which more than one has the newest committer date:
// git merge-base then prints the one its walk met first, an order this
// walk does not copy.
var ErrMergeBaseTie = errors.New("gitsource: several merge bases of the same date")

// The paint of a commit in a walk (commit.c's flags).
const (
	paintOne    = 1 << iota // reachable from the first commit
	paintTwo                // reachable from the other
	paintStale              // below a common ancestor
	paintResult             // found as a common ancestor
)

// walkCommit is a commit as a walk sees it.
type walkCommit struct {
	hash    plumbing.Hash
	when    int64 // committer time, seconds
	parents []plumbing.Hash
	flags   uint8
}

// walk is one history walk: the commits it has read and how they are
// painted. Under f.mu.
type walk struct {
	f       *Files
	shallow map[plumbing.Hash]bool // commits whose parents a shallow clone lacks
	commits map[plumbing.Hash]*walkCommit
}

func (f *Files) newWalk() (*walk, error) {
	f.storage()
	w := &walk{f: f, commits: map[plumbing.Hash]*walkCommit{}}
	sh, err := f.st.Shallow()
	if err != nil {
		return nil, err
	}
	for _, h := range sh {
		if w.shallow == nil {
			w.shallow = map[plumbing.Hash]bool{}
		}
		w.shallow[h] = true
	}
	return w, nil
}

// get reads a commit (its parents none when a shallow clone ends at it,
// as git grafts it).
func (w *walk) get(h plumbing.Hash) (*walkCommit, error) {
	if c := w.commits[h]; c != nil {
		return c, nil
	}
	o, err := w.f.object(h)
	if err != nil {
		return nil, fmt.Errorf("gitsource: commit %s: %w", h, err)
	}
	if o.Type() != plumbing.CommitObject {
		return nil, fmt.Errorf("gitsource: %s is a %s, not a commit", h, o.Type())
	}
	c, err := object.DecodeCommit(w.f.st, o)
	if err != nil {
		return nil, fmt.Errorf("gitsource: commit %s: %w", h, err)
	}
	wc := &walkCommit{hash: h, when: c.Committer.When.Unix(), parents: c.ParentHashes}
	if w.shallow[h] {
		wc.parents = nil
	}
	w.commits[h] = wc
	return wc, nil
}

// resolveCommit is the commit rev names, for a walk.
func (w *walk) resolveCommit(rev string) (*walkCommit, error) {
	c, err := w.f.commitOf(rev)
	if err != nil {
		return nil, err
	}
	return w.get(c.Hash)
}

// commitQueue is the walk's queue: newest committer time first, then in
// the order queued (git's prio_queue by commit date).
type commitQueue struct {
	items []queued
	seq   int
}

type queued struct {
	c   *walkCommit
	seq int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.c.when != b.c.when {
		return a.c.when > b.c.when
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

func (q *commitQueue) put(c *walkCommit) {
	q.seq++
	heap.Push(q, queued{c, q.seq})
}

func (q *commitQueue) nonStale() bool {
	for _, it := range q.items {
		if it.c.flags&paintStale == 0 {
			return true
		}
	}
	return false
}

// paint paints the history of one (paintOne) and of two (paintTwo) down
// to their common ancestors, and returns those found, in the order found.
func (w *walk) paint(one, two *walkCommit) ([]*walkCommit, error) {
	var q commitQueue
	one.flags |= paintOne
	q.put(one)
	two.flags |= paintTwo
	q.put(two)
	var found []*walkCommit
	for q.nonStale() {
		c := heap.Pop(&q).(queued).c
		flags := c.flags & (paintOne | paintTwo | paintStale)
		if flags == paintOne|paintTwo {
			if c.flags&paintResult == 0 {
				c.flags |= paintResult
				found = append(found, c)
			}
			flags |= paintStale
		}
		for _, ph := range c.parents {
			p, err := w.get(ph)
			if err != nil {
				return nil, err
			}
			if p.flags&flags == flags {
				continue
			}
			p.flags |= flags
			q.put(p)
		}
	}
	return found, nil
}

// IsAncestor tells whether the commit a is in the history of the commit
// b (or is b), as git merge-base --is-ancestor a b. a and b are
// revisions (see Resolve).
func (f *Files) IsAncestor(a, b string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, err := f.newWalk()
	if err != nil {
		return false, err
	}
	ca, err := w.resolveCommit(a)
	if err != nil {
		return false, err
	}
	cb, err := w.resolveCommit(b)
	if err != nil {
		return false, err
	}
	return w.reaches(ca, cb)
}

// reaches tells whether b's history holds a, in a fresh paint.
func (w *walk) reaches(a, b *walkCommit) (bool, error) {
	for _, c := range w.commits {
		c.flags = 0
	}
	if _, err := w.paint(a, b); err != nil {
		return false, err
	}
	return a.flags&paintTwo != 0, nil
}

// MergeBase is the best common ancestor of the commits a and b, as git
// merge-base a b prints it; "" when they have none. Of several (a
// criss-cross history), it is the one of the newest committer date;
// ErrMergeBaseTie when two share that date.
func (f *Files) MergeBase(a, b string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, err := f.newWalk()
	if err != nil {
		return "", err
	}
	ca, err := w.resolveCommit(a)
	if err != nil {
		return "", err
	}
	cb, err := w.resolveCommit(b)
	if err != nil {
		return "", err
	}
	found, err := w.paint(ca, cb)
	if err != nil {
		return "", err
	}
	var bases []*walkCommit
	for _, c := range found {
		if c.flags&paintStale == 0 {
			bases = append(bases, c)
		}
	}
	if len(bases) > 1 {
		// Leave out those in the history of another (remove_redundant).
		keep := make([]*walkCommit, 0, len(bases))
		for i, c := range bases {
			redundant := false
			for j, d := range bases {
				if i == j {
					continue
				}
				if redundant, err = w.reaches(c, d); err != nil {
					return "", err
				} else if redundant {
					break
				}
			}
			if !redundant {
				keep = append(keep, c)
			}
		}
		bases = keep
	}
	switch len(bases) {
	case 0:
		return "", nil
	case 1:
		return bases[0].hash.String(), nil
	}
	sort.SliceStable(bases, func(i, j int) bool { return bases[i].when > bases[j].when })
	if bases[0].when == bases[1].when {
		return "", ErrMergeBaseTie
	}
	return bases[0].hash.String(), nil
}

// CommitTime is when the commit rev names was made: its committer time,
// in the committer's time zone (git log -1 --format=%cI).
func (f *Files) CommitTime(rev string) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.commitOf(rev)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When, nil
}

// Branches lists the branches that git for-each-ref refs/heads/<prefix>
// lists, by name (without refs/heads/), in name order: the branch named
// prefix and those below it as a folder (cms/ lists cms/posts/a; cms
// lists cms and cms/posts/a, not cmsx), those whose ref leads to no
// hash left out. prefix is taken as it is written (git would read
// *, ? and [ as a pattern).
func (f *Files) Branches(prefix string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storage()
	pattern := "refs/heads/" + prefix
	it, err := f.st.IterReferences()
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var names []string
	err = it.ForEach(func(r *plumbing.Reference) error {
		n := r.Name().String()
		if !strings.HasPrefix(n, pattern) || !(len(n) == len(pattern) || n[len(pattern)] == '/' || strings.HasSuffix(pattern, "/")) {
			return nil
		}
		// A symbolic ref to no ref, or a ref file that holds no hash,
		// is left out as git leaves it out; a ref to an object the
		// repository lacks is listed, as git lists it.
		if h, ok, err := f.ref(r.Name()); err != nil || !ok || h.IsZero() {
			return err
		}
		names = append(names, strings.TrimPrefix(n, "refs/heads/"))
		return nil
	})
	sort.Strings(names)
	return names, err
}
