// Package history indexes which commits changed which file of a Git
// branch, following renames, so that a document's history is a lookup,
// not a `git log` per request. The index grows as commits arrive: an
// update walks only the commits it has not seen.
package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Commit is one commit as the history lists it.
type Commit struct {
	Hash    string    `json:"commit"`
	Author  string    `json:"author"`
	Email   string    `json:"email,omitempty"`
	Date    time.Time `json:"date"` // author date, UTC
	Message string    `json:"message"`
}

// Kind says what a commit did to a file.
type Kind string

// The kinds of change.
const (
	Added    Kind = "added"
	Modified Kind = "modified"
	Renamed  Kind = "renamed"
	Deleted  Kind = "deleted"
)

// Entry is one commit in a file's history.
type Entry struct {
	Commit
	Kind Kind   `json:"change"`
	Path string `json:"path"`           // the file's path in that commit
	From string `json:"from,omitempty"` // Renamed: the path before
}

// change is one file change of a commit, by the commit's sequence number.
type change struct {
	seq  int32
	kind Kind
	from string
}

// Index is the file history of the commits reachable from one head. Safe
// for concurrent use: Update runs one at a time, lookups meanwhile see the
// index as it was.
type Index struct {
	relevant func(path string) bool
	trees    treeCache // decoded trees, shared by Updates

	updateMu sync.Mutex // one Update at a time

	mu      sync.RWMutex
	state   *state
	updated time.Time
}

// state is one version of the index, never changed once published: Update
// builds the next one beside it.
//
// Its maps are in two layers, so that an update costs what it adds, not
// the size of the index: seqOf and byPath, shared by the states of many
// updates and never written once a state that has them is published, and
// recentSeq and recentPaths, the entries of the updates since (a path's
// list there is its whole list, byPath's entries included). An update
// copies the recent maps (at most maxRecent entries) and writes into the
// copies; once they grow past maxRecent, both layers are merged into new
// maps.
type state struct {
	head plumbing.Hash
	// commits by sequence number: parents before children. An update
	// appends to its predecessor's slice: the elements past a
	// published state's length are never read through it, and updates
	// are made one at a time, each from the last published state.
	commits     []Commit
	seqOf       map[plumbing.Hash]int32
	byPath      map[string][]change // oldest first
	recentSeq   map[plumbing.Hash]int32
	recentPaths map[string][]change
}

// maxRecent bounds the entries of a state's recent maps (see state).
var maxRecent = 4096 // a variable for the tests

// seq is the sequence number of commit h; false when the index lacks it.
func (s *state) seq(h plumbing.Hash) (int32, bool) {
	if v, ok := s.recentSeq[h]; ok {
		return v, true
	}
	v, ok := s.seqOf[h]
	return v, ok
}

// changesOf is the list of changes of path p, oldest first.
func (s *state) changesOf(p string) []change {
	if l, ok := s.recentPaths[p]; ok {
		return l
	}
	return s.byPath[p]
}

// next is the state an update from s starts with (s nil: an empty
// one), and the maps it writes its entries into; adding is the number
// of commits the update adds.
func (s *state) next(head plumbing.Hash, adding int) (next *state, seqs map[plumbing.Hash]int32, paths map[string][]change) {
	if s == nil {
		next = &state{head: head, seqOf: make(map[plumbing.Hash]int32, adding), byPath: map[string][]change{}}
		return next, next.seqOf, next.byPath
	}
	next = &state{head: head, commits: s.commits}
	if len(s.recentSeq)+len(s.recentPaths)+adding > maxRecent {
		// merged: every list clipped, so that an append never
		// writes into an array s's lists share
		next.seqOf = make(map[plumbing.Hash]int32, len(s.seqOf)+len(s.recentSeq)+adding)
		for _, m := range []map[plumbing.Hash]int32{s.seqOf, s.recentSeq} {
			for k, v := range m {
				next.seqOf[k] = v
			}
		}
		next.byPath = make(map[string][]change, len(s.byPath)+len(s.recentPaths))
		for _, m := range []map[string][]change{s.byPath, s.recentPaths} {
			for k, v := range m {
				next.byPath[k] = slices.Clip(v)
			}
		}
		return next, next.seqOf, next.byPath
	}
	next.seqOf, next.byPath = s.seqOf, s.byPath
	next.recentSeq = make(map[plumbing.Hash]int32, len(s.recentSeq)+adding)
	for k, v := range s.recentSeq {
		next.recentSeq[k] = v
	}
	next.recentPaths = make(map[string][]change, len(s.recentPaths))
	for k, v := range s.recentPaths {
		next.recentPaths[k] = slices.Clip(v)
	}
	return next, next.recentSeq, next.recentPaths
}

// New returns an empty index of the paths relevant accepts (nil: all).
func New(relevant func(path string) bool) *Index {
	if relevant == nil {
		relevant = func(string) bool { return true }
	}
	return &Index{relevant: relevant}
}

// ReadTreesWith makes the index read a tree with read first, and from
// the object store only when read returns false (engine passes
// gitsource's LooseTree: a push's trees are loose objects, which go-git
// reads four times slower). Call it before the first Update; it returns
// ix.
func (ix *Index) ReadTreesWith(read func(plumbing.Hash) ([]object.TreeEntry, bool)) *Index {
	ix.trees.read = read
	return ix
}

// Head is the commit the index has reached; zero before the first Update.
func (ix *Index) Head() string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.state == nil {
		return ""
	}
	return ix.state.head.String()
}

// Commits is the number of commits indexed.
func (ix *Index) Commits() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.state == nil {
		return 0
	}
	return len(ix.state.commits)
}

// Contains tells whether commit (a full hash) is one the index holds:
// its head or one of the head's ancestors (within maxCommits).
func (ix *Index) Contains(commit string) bool {
	if !plumbing.IsHash(commit) {
		return false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.state == nil {
		return false
	}
	_, ok := ix.state.seq(plumbing.NewHash(commit))
	return ok
}

// maxCommits bounds the commits one index holds; older history is cut
// (the oldest commit kept lists its files as added).
const maxCommits = 500_000

// Update brings the index to head: it walks the commits reachable from
// head that it has not seen, parents first. When the old head is not among
// head's ancestors (a force push), the index is rebuilt.
func (ix *Index) Update(ctx context.Context, st storer.EncodedObjectStorer, head string) error {
	if !plumbing.IsHash(head) {
		return fmt.Errorf("history: %q is not a commit hash", head)
	}
	h := plumbing.NewHash(head)
	ix.updateMu.Lock()
	defer ix.updateMu.Unlock()
	ix.mu.RLock()
	old := ix.state
	ix.mu.RUnlock()
	if old != nil && old.head == h {
		return nil
	}
	fresh, err := collect(ctx, st, h, old)
	if err != nil {
		return err
	}
	base := old
	if fresh.rebuild {
		base = nil
	}
	// Copy on write: lookups meanwhile keep reading base's maps (see
	// state).
	next, seqOf, byPath := base.next(h, len(fresh.order))
	for _, c := range fresh.order {
		if err := ctx.Err(); err != nil {
			return err
		}
		seq := int32(len(next.commits))
		next.commits = append(next.commits, Commit{
			Hash: c.Hash.String(), Author: c.Author.Name, Email: c.Author.Email,
			Date: c.Author.When.UTC(), Message: strings.TrimRight(c.Message, "\n"),
		})
		seqOf[c.Hash] = seq
		changes, err := ix.changes(ctx, st, c, next)
		if err != nil {
			return fmt.Errorf("history: commit %s: %w", c.Hash, err)
		}
		for _, ch := range changes {
			l, mine := byPath[ch.path]
			if !mine {
				// a list of the shared layer: appended to a copy
				l = slices.Clip(next.changesOf(ch.path))
			}
			byPath[ch.path] = append(l, change{seq: seq, kind: ch.kind, from: ch.from})
		}
	}
	ix.mu.Lock()
	ix.state = next
	ix.updated = time.Now()
	ix.mu.Unlock()
	return nil
}

// walk is the result of collect: the new commits, parents first.
type walk struct {
	order   []*object.Commit
	rebuild bool
}

// collect finds the commits reachable from head that old lacks, in an
// order where every parent comes before its children. rebuild is set when
// old's head is not reachable from head: then every commit is new.
func collect(ctx context.Context, st storer.EncodedObjectStorer, head plumbing.Hash, old *state) (walk, error) {
	known := func(h plumbing.Hash) bool {
		if old == nil {
			return false
		}
		_, ok := old.seq(h)
		return ok
	}
	w, reached, err := topo(ctx, st, head, known, old)
	if err != nil {
		return walk{}, err
	}
	if old != nil && !reached {
		w, _, err = topo(ctx, st, head, func(plumbing.Hash) bool { return false }, nil)
		if err != nil {
			return walk{}, err
		}
		w.rebuild = true
	}
	return w, nil
}

// topo orders the commits reachable from head and not known, parents
// first (an iterative depth-first post-order). reached tells whether old's
// head was met, or is known to be an ancestor (a known commit met on the
// way whose sequence is old's last: old's head).
func topo(ctx context.Context, st storer.EncodedObjectStorer, head plumbing.Hash, known func(plumbing.Hash) bool, old *state) (walk, bool, error) {
	var w walk
	reached := old == nil
	type frame struct {
		c    *object.Commit
		next int // the next parent to visit
	}
	done := map[plumbing.Hash]bool{}
	var stack []frame
	push := func(h plumbing.Hash) error {
		if done[h] {
			return nil
		}
		if known(h) {
			if old != nil && h == old.head {
				reached = true
			}
			done[h] = true
			return nil
		}
		c, err := object.GetCommit(st, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && len(stack) > 0 {
			done[h] = true // a shallow clone's boundary: history stops here
			return nil
		}
		if err != nil {
			return err
		}
		done[h] = true
		stack = append(stack, frame{c: c})
		return nil
	}
	if err := push(head); err != nil {
		return walk{}, false, err
	}
	for len(stack) > 0 {
		if len(w.order) > maxCommits {
			break
		}
		if err := ctx.Err(); err != nil {
			return walk{}, false, err
		}
		top := &stack[len(stack)-1]
		if top.next < len(top.c.ParentHashes) {
			p := top.c.ParentHashes[top.next]
			top.next++
			if err := push(p); err != nil {
				return walk{}, false, err
			}
			continue
		}
		w.order = append(w.order, top.c)
		stack = stack[:len(stack)-1]
	}
	return w, reached, nil
}

// fileChange is one relevant path a commit changed.
type fileChange struct {
	path, from string
	kind       Kind
}

// changes lists what commit c changed: against its only parent, every
// file; for a merge, the files that differ from every parent (as git log
// shows a merge for a path only when it is not the same as one of its
// parents); for a root commit, every file as added. Renames are detected
// against the first parent as git does (exact and similar content).
func (ix *Index) changes(ctx context.Context, st storer.EncodedObjectStorer, c *object.Commit, in *state) ([]fileChange, error) {
	var parents []plumbing.Hash
	for _, ph := range c.ParentHashes {
		if _, ok := in.seq(ph); !ok {
			continue // beyond a shallow boundary or the cap
		}
		pc, err := object.GetCommit(st, ph)
		if err != nil {
			return nil, err
		}
		parents = append(parents, pc.TreeHash)
	}
	if len(parents) == 0 {
		parents = append(parents, plumbing.ZeroHash) // the empty tree
	}
	first, err := ix.diff(ctx, st, parents[0], c.TreeHash, true)
	if err != nil {
		return nil, err
	}
	// A merge: keep the paths every parent's diff has.
	for _, pt := range parents[1:] {
		other, err := ix.diff(ctx, st, pt, c.TreeHash, false)
		if err != nil {
			return nil, err
		}
		in := map[string]bool{}
		for _, ch := range other {
			in[ch.path] = true
		}
		first = slices.DeleteFunc(first, func(ch fileChange) bool { return !in[ch.path] })
	}
	return first, nil
}

// diff lists the relevant files that differ between two trees (the zero
// hash is the empty tree), with renames when asked.
func (ix *Index) diff(ctx context.Context, st storer.EncodedObjectStorer, from, to plumbing.Hash, renames bool) ([]fileChange, error) {
	d := differ{st: st, trees: &ix.trees, relevant: ix.relevant}
	if err := d.walk(from, to, ""); err != nil {
		return nil, err
	}
	var out []fileChange
	if renames && len(d.added) > 0 && len(d.deleted) > 0 {
		pairs, err := detectRenames(st, d.deleted, d.added)
		if err != nil {
			return nil, err
		}
		for _, p := range pairs {
			out = append(out, fileChange{path: p.to.path, from: p.from.path, kind: Renamed})
			d.deleted[p.fromIdx].path = ""
			d.added[p.toIdx].path = ""
		}
	}
	for _, f := range d.added {
		if f.path != "" {
			out = append(out, fileChange{path: f.path, kind: Added})
		}
	}
	for _, f := range d.deleted {
		if f.path != "" {
			out = append(out, fileChange{path: f.path, kind: Deleted})
		}
	}
	for _, p := range d.modified {
		out = append(out, fileChange{path: p, kind: Modified})
	}
	return out, ctx.Err()
}

// Log returns the history of path, newest first, following renames
// (the file's history under its earlier names continues after the commit
// that renamed it), from offset, at most limit entries, and the total.
// ok is false before the first Update.
func (ix *Index) Log(path string, limit, offset int) (entries []Entry, total int, ok bool) {
	ix.mu.RLock()
	st := ix.state
	ix.mu.RUnlock()
	if st == nil {
		return nil, 0, false
	}
	type hit struct {
		change
		path string
	}
	var all []hit
	cur, before := path, int32(len(st.commits))
	for range 100 { // renames followed; bounded against cycles
		list := st.changesOf(cur)
		i, _ := slices.BinarySearchFunc(list, before, func(c change, seq int32) int { return int(c.seq - seq) })
		next := ""
		for j := i - 1; j >= 0; j-- {
			all = append(all, hit{list[j], cur})
			if list[j].kind == Renamed {
				next, before = list[j].from, list[j].seq
				break
			}
		}
		if next == "" {
			break
		}
		cur = next
	}
	total = len(all)
	if offset >= total {
		return []Entry{}, total, true
	}
	end := min(total, offset+limit)
	entries = make([]Entry, 0, end-offset)
	for _, h := range all[offset:end] {
		entries = append(entries, Entry{Commit: st.commits[h.seq], Kind: h.kind, Path: h.path, From: h.from})
	}
	return entries, total, true
}

// FileChange is one file that differs between two commits.
type FileChange struct {
	Kind Kind   `json:"change"`
	Path string `json:"path"`
	From string `json:"from,omitempty"` // Renamed: the path before
}

// Between lists the relevant files that differ from commit from to commit
// to (any two commits: from need not be an ancestor), renames detected,
// sorted by path.
func (ix *Index) Between(ctx context.Context, st storer.EncodedObjectStorer, from, to string) ([]FileChange, error) {
	trees := make([]plumbing.Hash, 2)
	for i, h := range []string{from, to} {
		if !plumbing.IsHash(h) {
			return nil, fmt.Errorf("history: %q is not a commit hash", h)
		}
		c, err := object.GetCommit(st, plumbing.NewHash(h))
		if err != nil {
			return nil, fmt.Errorf("history: commit %s: %w", h, err)
		}
		trees[i] = c.TreeHash
	}
	chs, err := ix.diff(ctx, st, trees[0], trees[1], true)
	if err != nil {
		return nil, err
	}
	out := make([]FileChange, len(chs))
	for i, ch := range chs {
		out[i] = FileChange{Kind: ch.kind, Path: ch.path, From: ch.from}
	}
	slices.SortFunc(out, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
