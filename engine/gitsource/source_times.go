package gitsource

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content/chunks"
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
func (n *timeNode) settle(t int64, times map[string]int64) {
	k := n.pending
	if k == 0 {
		return
	}
	n.settleBelow(t, times)
	for p := n.parent; p != nil; p = p.parent {
		p.pending -= k
	}
}

func (n *timeNode) settleBelow(t int64, times map[string]int64) {
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
func (n *timeNode) settleKnown(known *timeCursor, times map[string]int64) {
	if n.pending == 0 {
		return
	}
	if n.kids == nil {
		if t, ok := known.getSecs(n.path); ok {
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
	// root is the site root: the folder whose trees the times are of
	// ("" : the repository's).
	root    string
	st      *objectStore
	loose   *looseTrees // nil: every tree from st
	m       map[plumbing.Hash][]object.TreeEntry
	entries int
	// read are the trees decoded (not put), up to maxReadTrees: a
	// push's new trees, which the history index reads next
	// (Source.LooseTree).
	read map[plumbing.Hash][]object.TreeEntry
	// recs are the records of the last walk met on the way (put), whose
	// entries are made one slice only when asked for (get); walked are
	// the folders walkLoose read, up to maxReadTrees (read's, in parts:
	// Source.LooseTree).
	recs, walked map[plumbing.Hash]*dirRec
	// spans are, for the folders walkDir merged with their last record
	// by bytes, what it took from there as it was (diffRecs looks
	// between).
	spans map[*dirRec]treeSpan
}

// maxReadTrees bounds treeEntries.read: a Load that decodes more is not
// a push's.
const maxReadTrees = 64

const maxCachedTreeEntries = 1 << 18

// put records trees known already (from an earlier Load).
func (tc *treeEntries) put(h plumbing.Hash, entries []object.TreeEntry) {
	if _, ok := tc.m[h]; ok || tc.entries+len(entries) > maxCachedTreeEntries {
		return
	}
	tc.m[h] = entries
	tc.entries += len(entries)
}

// putRec records a folder of the last walk, its entries made one slice
// if get asks for them.
func (tc *treeEntries) putRec(d *dirRec) {
	if _, ok := tc.m[d.hash]; ok {
		return
	}
	if tc.recs == nil {
		tc.recs = map[plumbing.Hash]*dirRec{}
	}
	tc.recs[d.hash] = d
}

func (tc *treeEntries) get(h plumbing.Hash) ([]object.TreeEntry, error) {
	if es, ok := tc.m[h]; ok {
		return es, nil
	}
	if d := tc.recs[h]; d != nil {
		es := d.flatEntries()
		tc.put(h, es)
		return es, nil
	}
	rt, ok := tc.loose.readRaw(h)
	entries := rt.entries
	if !ok {
		var err error
		if entries, err = tc.st.tree(h); err != nil {
			return nil, err
		}
	}
	if tc.read != nil && len(tc.read) < maxReadTrees {
		tc.read[h] = entries
	}
	if tc.entries+len(entries) > maxCachedTreeEntries {
		clear(tc.m)
		tc.entries = 0
	}
	tc.m[h] = entries
	tc.entries += len(entries)
	return entries, nil
}

// gitOrder compares tree entry names the way Git sorts them: a folder as if
// its name ended in "/".
func gitOrder(a object.TreeEntry, b object.TreeEntry) int {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ac, bc := gitNameEnd(an, n, a.Mode), gitNameEnd(bn, n, b.Mode)
	switch {
	case ac < bc:
		return -1
	case ac > bc:
		return 1
	}
	return 0
}

// gitNameEnd is the byte of name at i, "/" past the end of a folder's name
// and 0 past the end of a file's.
func gitNameEnd(name string, i int, mode filemode.FileMode) int {
	if i < len(name) {
		return int(name[i])
	}
	if mode == filemode.Dir {
		return '/'
	}
	return 0
}

// diff gives time t to the waiting files below n that differ between tree a
// (of a commit) and tree b (of its parent). Equal subtree hashes mean
// nothing below changed, so unchanged parts of the tree are never opened.
func (tc *treeEntries) diff(n *timeNode, a, b plumbing.Hash, t int64, times map[string]int64) error {
	if a == b || n.pending == 0 {
		return nil
	}
	return tc.changed(a, b, func(ea object.TreeEntry, before *object.TreeEntry) error {
		kid := n.kids[ea.Name]
		if kid == nil || kid.pending == 0 {
			return nil
		}
		if before != nil && ea.Mode == filemode.Dir && kid.kids != nil {
			return tc.diff(kid, ea.Hash, before.Hash, t, times)
		}
		// Added here, changed, or changed kind (file, folder, link).
		kid.settle(t, times)
		return nil
	})
}

// changed calls fn for each entry of tree a that tree b (zero: an empty
// tree) does not hold the same, with b's entry of the same name and kind,
// or nil when b has none. Both entry lists are sorted, so they are merged
// without lookups.
func (tc *treeEntries) changed(a, b plumbing.Hash, fn func(ea object.TreeEntry, before *object.TreeEntry) error) error {
	if a.IsZero() {
		return nil // no site root in this commit: nothing is there
	}
	ta, err := tc.get(a)
	if err != nil {
		return err
	}
	var tb []object.TreeEntry
	if !b.IsZero() {
		if tb, err = tc.get(b); err != nil {
			return err
		}
	}
	j := 0
	for _, ea := range ta {
		for j < len(tb) && gitOrder(tb[j], ea) < 0 {
			j++
		}
		var before *object.TreeEntry
		if j < len(tb) && tb[j].Name == ea.Name && tb[j].Mode == ea.Mode {
			if tb[j].Hash == ea.Hash {
				continue
			}
			before = &tb[j]
		}
		if err := fn(ea, before); err != nil {
			return err
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
//
// fromParent, when set, are the relevant paths c changed from its first
// parent (the last Load's commit, diffed by the Load): the parent's
// trees are not compared again.
func (s *Source) attribute(ctx context.Context, tc *treeEntries, c *object.Commit, list chunks.List[gitFile], fromParent []string) (*timeMap, int, timesIDs, error) {
	st := tc.st
	if known, id := s.docs.pathTimesFor(c.Hash); known != nil {
		complete := true
		at := known.cursor()
		for _, f := range list.All() {
			if _, ok := at.getSecs(f.path); !ok {
				complete = false
				break
			}
		}
		if complete && known.len() == list.Len() {
			return known, 0, timesIDs{self: id}, nil // the same paths: never changed
		}
		if complete {
			times := make(map[string]int64, list.Len())
			at := known.cursor()
			for _, f := range list.All() {
				times[f.path], _ = at.getSecs(f.path)
			}
			return newTimeMapSecs(times), 0, timesIDs{self: id}, nil
		}
	}

	if times, ids, ok, err := s.attributeFromParent(tc, c, list, fromParent); err != nil || ok {
		return times, 1, ids, err
	}
	// a map of every path only for the walk (not for a push's patch)
	files := list.Slice()
	times := make(map[string]int64, len(files))

	root := newTimeTree(files)
	knownCommits := s.docs.knownCommits()
	cur, walked := c, 0
	for root.pending > 0 {
		if err := ctx.Err(); err != nil {
			return nil, walked, timesIDs{}, err
		}
		when := secs(cur.Committer.When) // served in UTC, so cached and walked times are identical
		if cur != c && knownCommits[cur.Hash] {
			if known, _ := s.docs.pathTimesFor(cur.Hash); known != nil {
				root.settleKnown(known.cursor(), times)
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
			return nil, walked, timesIDs{}, err
		}
		walked++
		curTree, err := tc.siteTree(cur.TreeHash)
		if err != nil {
			return nil, walked, timesIDs{}, err
		}
		parentTree, err := tc.siteTree(parent.TreeHash)
		if err != nil {
			return nil, walked, timesIDs{}, err
		}
		if err := tc.diff(root, curTree, parentTree, when, times); err != nil {
			return nil, walked, timesIDs{}, err
		}
		cur = parent
	}
	tm := newTimeMapSecs(times)
	id := s.docs.putPathTimes(c.Hash, tm)
	return tm, walked, timesIDs{self: id}, nil
}

// timesIDs name the stored attributions a Load's times are: self, that of
// the loaded commit, and parent, when not 0, that of its first parent, which
// self copies but for the paths changed by the commit (attributeFromParent).
type timesIDs struct {
	self, parent uint64
	// fromParent, when parent is set, are the paths whose time is not
	// the parent's (changed from it); may hold paths that are not files.
	fromParent map[string]bool
}

// attributeFromParent is attribute's fast path, when the first parent's
// attribution is known (the usual push of one commit): a file changed by c
// (or added) gets c's time, every other one its time in the parent. That is
// what the history walk gives, without building its tree of 10k paths.
// ok is false when the parent's attribution is not known.
func (s *Source) attributeFromParent(tc *treeEntries, c *object.Commit, files chunks.List[gitFile], fromParent []string) (*timeMap, timesIDs, bool, error) {
	if len(c.ParentHashes) == 0 || s.cfg.HistoryLimit < 1 {
		return nil, timesIDs{}, false, nil
	}
	known, knownID := s.docs.pathTimesFor(c.ParentHashes[0])
	if known == nil {
		return nil, timesIDs{}, false, nil
	}
	parent, err := object.GetCommit(tc.st, c.ParentHashes[0])
	if err != nil {
		return nil, timesIDs{}, false, nil // e.g. shallow: the walk knows what to do
	}
	changed := map[string]bool{}
	if fromParent != nil {
		for _, p := range fromParent {
			changed[p] = true
		}
	} else {
		cTree, err := tc.siteTree(c.TreeHash)
		if err != nil {
			return nil, timesIDs{}, false, err
		}
		parentTree, err := tc.siteTree(parent.TreeHash)
		if err != nil {
			return nil, timesIDs{}, false, err
		}
		if err := tc.changedFiles(cTree, parentTree, "", changed); err != nil {
			return nil, timesIDs{}, false, err
		}
	}
	when := c.Committer.When.UTC()
	if times, ok := patchTimes(known, changed, files, when); ok {
		id := s.docs.putPathTimes(c.Hash, times)
		return times, timesIDs{self: id, parent: knownID, fromParent: changed}, true, nil
	}
	m := make(map[string]int64, files.Len())
	at := known.cursor()
	for _, f := range files.All() {
		t, ok := at.getSecs(f.path)
		if !ok || changed[f.path] {
			t = secs(when)
		}
		m[f.path] = t
	}
	times := newTimeMapSecs(m)
	id := s.docs.putPathTimes(c.Hash, times)
	return times, timesIDs{self: id, parent: knownID}, true, nil
}

// changedFiles adds to out the paths of the files (and symlinks, and
// anything that is no folder) below tree a that tree b does not have the
// same: changed, added, or changed kind. Equal subtrees are not opened.
func (tc *treeEntries) changedFiles(a, b plumbing.Hash, prefix string, out map[string]bool) error {
	if a == b {
		return nil
	}
	return tc.changed(a, b, func(ea object.TreeEntry, before *object.TreeEntry) error {
		if err := checkPathLen(prefix, ea.Name); err != nil {
			return err
		}
		p := prefix + ea.Name
		if ea.Mode == filemode.Dir {
			var bh plumbing.Hash // zero: everything below is new
			if before != nil {
				bh = before.Hash
			}
			return tc.changedFiles(ea.Hash, bh, p+"/", out)
		}
		out[p] = true
		return nil
	})
}

// patchTimes is attributeFromParent's usual case: the parent's
// attribution with c's time for the changed files (a map of those over the
// parent's, not a copy of it), without a lookup per file. files is sorted
// by path. ok is false when the parent's attribution does not hold every
// unchanged file: then every path is looked up.
func patchTimes(known *timeMap, changed map[string]bool, files chunks.List[gitFile], when time.Time) (*timeMap, bool) {
	var set, deleted []string
	for p := range changed {
		if _, ok := findFile(files, p); ok {
			set = append(set, p)
		} else {
			deleted = append(deleted, p) // not relevant, or not a file any more
		}
	}
	times := known.with(set, deleted, when)
	// Every file is now in times: an unchanged one was in the parent,
	// with a key in known, and a changed one was just set. So the same
	// count means the same paths.
	if times.len() != files.Len() {
		return nil, false
	}
	return times, true
}
