package history

import (
	"bytes"
	"container/list"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeCacheSize is the number of decoded trees kept: a commit's trees are
// its parent's but for the folders it changed, so the walk decodes each
// new tree about once.
const treeCacheSize = 4096

// treeCache keeps decoded tree entries by hash (LRU).
type treeCache struct {
	// read, when set, reads a tree before the object store is asked
	// (Index.ReadTreesWith); false: the object store reads it.
	read func(plumbing.Hash) ([]object.TreeEntry, bool)

	mu  sync.Mutex
	m   map[plumbing.Hash]*list.Element
	lru list.List
}

type cachedTree struct {
	h       plumbing.Hash
	entries []object.TreeEntry
}

func (c *treeCache) get(st storer.EncodedObjectStorer, h plumbing.Hash) ([]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[plumbing.Hash]*list.Element{}
	}
	if el, ok := c.m[h]; ok {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cachedTree).entries, nil
	}
	c.mu.Unlock()
	entries, ok := []object.TreeEntry(nil), false
	if c.read != nil {
		entries, ok = c.read(h)
	}
	if !ok {
		t, err := object.GetTree(st, h)
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", h, err)
		}
		entries = t.Entries
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[h]; !ok {
		c.m[h] = c.lru.PushFront(&cachedTree{h: h, entries: entries})
		for c.lru.Len() > treeCacheSize {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.m, old.Value.(*cachedTree).h)
		}
	}
	return entries, nil
}

// blobFile is a file added or deleted by a diff.
type blobFile struct {
	path string
	blob plumbing.Hash
}

// differ compares two trees, descending only into folders whose hashes
// differ.
type differ struct {
	st       storer.EncodedObjectStorer
	trees    *treeCache
	relevant func(string) bool

	added, deleted []blobFile
	modified       []string
}

func isDir(m filemode.FileMode) bool { return m == filemode.Dir }

// walk compares trees a and b (zero: empty) under prefix.
func (d *differ) walk(a, b plumbing.Hash, prefix string) error {
	if a == b {
		return nil
	}
	ea, err := d.trees.get(d.st, a)
	if err != nil {
		return err
	}
	eb, err := d.trees.get(d.st, b)
	if err != nil {
		return err
	}
	// Entries are in git's order, where a folder sorts as name + "/":
	// compare by that key.
	key := func(e object.TreeEntry) string {
		if isDir(e.Mode) {
			return e.Name + "/"
		}
		return e.Name
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = strings.Compare(key(ea[i]), key(eb[j]))
		}
		switch {
		case c < 0:
			if err := d.side(ea[i], prefix, false); err != nil {
				return err
			}
			i++
		case c > 0:
			if err := d.side(eb[j], prefix, true); err != nil {
				return err
			}
			j++
		default:
			x, y := ea[i], eb[j]
			if x.Hash != y.Hash || x.Mode != y.Mode {
				if isDir(x.Mode) {
					if err := d.walk(x.Hash, y.Hash, prefix+x.Name+"/"); err != nil {
						return err
					}
				} else if p := prefix + x.Name; d.relevant(p) {
					d.modified = append(d.modified, p)
				}
			}
			i++
			j++
		}
	}
	return nil
}

// side records an entry only one side has (a whole folder: every file in
// it).
func (d *differ) side(e object.TreeEntry, prefix string, added bool) error {
	p := prefix + e.Name
	if isDir(e.Mode) {
		if added {
			return d.walk(plumbing.ZeroHash, e.Hash, p+"/")
		}
		return d.walk(e.Hash, plumbing.ZeroHash, p+"/")
	}
	if e.Mode == filemode.Submodule || !d.relevant(p) {
		return nil
	}
	if added {
		d.added = append(d.added, blobFile{p, e.Hash})
	} else {
		d.deleted = append(d.deleted, blobFile{p, e.Hash})
	}
	return nil
}

// renamePair is a deleted file and the added file it became.
type renamePair struct {
	from, to       blobFile
	fromIdx, toIdx int
}

// Limits of rename detection by similarity: beyond them only exact renames
// (same content) are found, as git caps its own (diff.renameLimit).
const (
	maxRenameCandidates = 100
	maxRenameBlob       = 1 << 20
	renameScore         = 50 // percent of lines in common, git's default
)

// detectRenames pairs deleted and added files: first those with the same
// content, then, among the rest, those whose lines are at least
// renameScore percent alike (best match first).
func detectRenames(st storer.EncodedObjectStorer, deleted, added []blobFile) ([]renamePair, error) {
	var pairs []renamePair
	usedFrom := make([]bool, len(deleted))
	usedTo := make([]bool, len(added))
	byBlob := map[plumbing.Hash][]int{}
	for i, f := range deleted {
		byBlob[f.blob] = append(byBlob[f.blob], i)
	}
	for j, f := range added {
		if is := byBlob[f.blob]; len(is) > 0 {
			i := is[0]
			byBlob[f.blob] = is[1:]
			usedFrom[i], usedTo[j] = true, true
			pairs = append(pairs, renamePair{deleted[i], f, i, j})
		}
	}
	var from, to []int
	for i := range deleted {
		if !usedFrom[i] {
			from = append(from, i)
		}
	}
	for j := range added {
		if !usedTo[j] {
			to = append(to, j)
		}
	}
	if len(from) == 0 || len(to) == 0 || len(from)*len(to) > maxRenameCandidates*maxRenameCandidates {
		return pairs, nil
	}
	seed := maphash.MakeSeed()
	lines := func(h plumbing.Hash) (map[uint64]int, int, error) {
		o, err := st.EncodedObject(plumbing.BlobObject, h)
		if err != nil {
			return nil, 0, err
		}
		if o.Size() > maxRenameBlob {
			return nil, 0, nil
		}
		r, err := o.Reader()
		if err != nil {
			return nil, 0, err
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, 0, err
		}
		m := map[uint64]int{}
		n := 0
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) > 0 {
				m[maphash.Bytes(seed, l)]++
				n++
			}
		}
		return m, n, nil
	}
	type side struct {
		m map[uint64]int
		n int
	}
	load := func(fs []blobFile, idx []int) ([]side, error) {
		out := make([]side, len(idx))
		for k, i := range idx {
			m, n, err := lines(fs[i].blob)
			if err != nil {
				return nil, err
			}
			out[k] = side{m, n}
		}
		return out, nil
	}
	fs, err := load(deleted, from)
	if err != nil {
		return nil, err
	}
	ts, err := load(added, to)
	if err != nil {
		return nil, err
	}
	type cand struct{ score, a, b int }
	var cands []cand
	for a, x := range fs {
		for b, y := range ts {
			if x.n == 0 || y.n == 0 {
				continue
			}
			common := 0
			for k, c := range x.m {
				common += min(c, y.m[k])
			}
			if score := 200 * common / (x.n + y.n); score >= renameScore {
				cands = append(cands, cand{score, a, b})
			}
		}
	}
	// Best score first; ties by path order for a stable answer.
	for i := 1; i < len(cands); i++ {
		for k := i; k > 0 && cands[k].score > cands[k-1].score; k-- {
			cands[k], cands[k-1] = cands[k-1], cands[k]
		}
	}
	for _, c := range cands {
		i, j := from[c.a], to[c.b]
		if usedFrom[i] || usedTo[j] {
			continue
		}
		usedFrom[i], usedTo[j] = true, true
		pairs = append(pairs, renamePair{deleted[i], added[j], i, j})
	}
	return pairs, nil
}
