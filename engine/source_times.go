package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// timeNode is a directory or file of the paths still waiting for their last
// change; pending counts the waiting files at and below it, so the history
// walk never opens a subtree with nothing left to attribute.
type timeNode struct {
	parent  *timeNode
	kids    map[string]*timeNode
	path    string // files only
	pending int
}

func newTimeTree(files []gitFile) *timeNode {
	root := &timeNode{kids: map[string]*timeNode{}}
	for _, f := range files {
		n := root
		rest := f.path
		for {
			n.pending++
			name, tail, dir := strings.Cut(rest, "/")
			kid := n.kids[name]
			if kid == nil {
				kid = &timeNode{parent: n}
				if dir {
					kid.kids = map[string]*timeNode{}
				}
				n.kids[name] = kid
			}
			n = kid
			if !dir {
				n.path = f.path
				n.pending = 1
				break
			}
			rest = tail
		}
	}
	return root
}

// settle gives every waiting file below n the time t.
func (n *timeNode) settle(t time.Time, times map[string]time.Time) {
	k := n.pending
	if k == 0 {
		return
	}
	n.settleBelow(t, times)
	for p := n.parent; p != nil; p = p.parent {
		p.pending -= k
	}
}

func (n *timeNode) settleBelow(t time.Time, times map[string]time.Time) {
	if n.pending == 0 {
		return
	}
	n.pending = 0
	if n.kids == nil {
		times[n.path] = t
		return
	}
	for _, kid := range n.kids {
		kid.settleBelow(t, times)
	}
}

// settleKnown takes the waiting files' times from an attribution of an
// ancestor they have not changed since.
func (n *timeNode) settleKnown(known map[string]time.Time, times map[string]time.Time) {
	if n.pending == 0 {
		return
	}
	if n.kids == nil {
		if t, ok := known[n.path]; ok {
			times[n.path] = t
			n.pending = 0
			for p := n.parent; p != nil; p = p.parent {
				p.pending--
			}
		}
		return
	}
	for _, kid := range n.kids {
		kid.settleKnown(known, times)
	}
}

// treeEntries caches decoded trees by hash during one history walk: a
// commit's tree is compared with its parent's and then, one step on, the
// parent's with the grandparent's.
type treeEntries struct {
	st      storer.EncodedObjectStorer
	m       map[plumbing.Hash]map[string]object.TreeEntry
	entries int
}

const maxCachedTreeEntries = 1 << 18

func (tc *treeEntries) get(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	if m, ok := tc.m[h]; ok {
		return m, nil
	}
	t, err := object.GetTree(tc.st, h)
	if err != nil {
		return nil, err
	}
	m := make(map[string]object.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	if tc.entries+len(m) > maxCachedTreeEntries {
		clear(tc.m)
		tc.entries = 0
	}
	tc.m[h] = m
	tc.entries += len(m)
	return m, nil
}

// diff gives time t to the waiting files below n that differ between tree a
// (of a commit) and tree b (of its parent). Equal subtree hashes mean
// nothing below changed, so unchanged parts of the tree are never opened.
func (tc *treeEntries) diff(n *timeNode, a, b plumbing.Hash, t time.Time, times map[string]time.Time) error {
	if a == b || n.pending == 0 {
		return nil
	}
	ta, err := tc.get(a)
	if err != nil {
		return err
	}
	var tb map[string]object.TreeEntry
	if !b.IsZero() {
		if tb, err = tc.get(b); err != nil {
			return err
		}
	}
	for name, kid := range n.kids {
		if kid.pending == 0 {
			continue
		}
		ea, ok := ta[name]
		if !ok {
			continue // cannot happen: a waiting path is unchanged since the start
		}
		eb, ok := tb[name]
		switch {
		case ok && ea.Hash == eb.Hash && ea.Mode == eb.Mode:
		case ok && ea.Mode == filemode.Dir && eb.Mode == filemode.Dir && kid.kids != nil:
			if err := tc.diff(kid, ea.Hash, eb.Hash, t, times); err != nil {
				return err
			}
		default:
			kid.settle(t, times)
		}
	}
	return nil
}

// attribute finds, for every file, the time of the last commit that changed
// it: walking first parents back from c, comparing each commit's tree with
// its parent's, until every path is attributed, a commit whose attribution
// is known (an earlier Load) is reached, history ends, or HistoryLimit
// commits were compared (the rest then get the oldest compared commit's
// time). It returns the number of commits compared.
func (s *Source) attribute(ctx context.Context, st storer.EncodedObjectStorer, c *object.Commit, files []gitFile) (map[string]time.Time, int, error) {
	times := make(map[string]time.Time, len(files))
	if known := s.docs.pathTimesFor(c.Hash); known != nil {
		complete := true
		for _, f := range files {
			t, ok := known[f.path]
			if !ok {
				complete = false
				break
			}
			times[f.path] = t
		}
		if complete {
			return times, 0, nil
		}
		clear(times)
	}

	root := newTimeTree(files)
	knownCommits := s.docs.knownCommits()
	tc := &treeEntries{st: st, m: map[plumbing.Hash]map[string]object.TreeEntry{}}
	cur, walked := c, 0
	for root.pending > 0 {
		if err := ctx.Err(); err != nil {
			return nil, walked, err
		}
		when := cur.Committer.When.UTC() // one zone, so cached and walked times are identical
		if cur != c && knownCommits[cur.Hash] {
			if known := s.docs.pathTimesFor(cur.Hash); known != nil {
				root.settleKnown(known, times)
				if root.pending == 0 {
					break
				}
			}
		}
		if walked >= s.cfg.HistoryLimit || len(cur.ParentHashes) == 0 {
			root.settle(when, times)
			break
		}
		parent, err := object.GetCommit(st, cur.ParentHashes[0])
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			// A shallow history ends here as if at a root commit.
			root.settle(when, times)
			break
		}
		if err != nil {
			return nil, walked, err
		}
		walked++
		if err := tc.diff(root, cur.TreeHash, parent.TreeHash, when, times); err != nil {
			return nil, walked, err
		}
		cur = parent
	}
	s.docs.putPathTimes(c.Hash, times)
	return times, walked, nil
}
