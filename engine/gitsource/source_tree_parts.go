package gitsource

import (
	"bytes"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content/chunks"
)

// A folder's record is kept in parts of about partSize entries, each with
// the bytes its entries are in the folder's tree object, the relevant
// files among them and the records of the subfolders among them. A push
// of one file into a folder of 500k entries writes the folder's tree
// again whole; the walk compares the new tree's bytes with the parts'
// (a memory compare, part by part from either end), takes the parts whose
// bytes are the same as they are (the same pointers: nothing copied),
// and parses and merges by name only the bytes between. Its Adler-32 is
// checked by parts: the parts taken have the bytes of the last tree,
// whose sums are known.

// partSize is the number of entries a part is made with; a part made of
// the changed middle of a folder holds up to twice that.
const partSize = chunks.Size

// dirPart is a run of a folder's entries, never changed once made: a
// folder's record made from another shares its unchanged parts.
type dirPart struct {
	// raw is the entries' bytes in the tree object, their names cut
	// from it, and sum its Adler-32; "" when the tree was read from a
	// pack (its bytes are not known).
	raw     string
	sum     uint32
	entries []object.TreeEntry
	// slot[i] is, for entries[i], its index in files (a relevant file),
	// in dirs (a folder), or -1.
	slot  []int32
	files []gitFile // the relevant regular files and symlinks among the entries
	dirs  []*dirRec // in tree order
	// before[k] is the number of files that come before dirs[k].
	before []int32
	total  int // relevant files here and below
}

// dirParts steps through the entries of a folder's parts in order.
type dirParts struct {
	parts []*dirPart
	k, i  int
}

// at is the current entry and its part, or nil at the end.
func (c *dirParts) at() (*dirPart, int) {
	for c.k < len(c.parts) && c.i >= len(c.parts[c.k].entries) {
		c.k, c.i = c.k+1, 0
	}
	if c.k == len(c.parts) {
		return nil, 0
	}
	return c.parts[c.k], c.i
}

// find moves to the first entry not before e (the entries are in tree
// order, and so are the e it is given), and returns it when it has e's
// name and mode.
func (c *dirParts) find(e object.TreeEntry) (*dirPart, int, bool) {
	for {
		p, i := c.at()
		if p == nil {
			return nil, 0, false
		}
		o := &p.entries[i]
		if gitOrder(*o, e) < 0 {
			c.i++
			continue
		}
		return p, i, o.Name == e.Name && o.Mode == e.Mode
	}
}

// fileIter steps through the relevant files of parts in order.
type fileIter struct {
	parts []*dirPart
	k, i  int
}

func (it *fileIter) peek() *gitFile {
	for it.k < len(it.parts) && it.i >= len(it.parts[it.k].files) {
		it.k, it.i = it.k+1, 0
	}
	if it.k == len(it.parts) {
		return nil
	}
	return &it.parts[it.k].files[it.i]
}

func (it *fileIter) next() { it.i++ }

// cutParts cuts entries (parsed from raw, each ending at ends[i]; raw ""
// when not known) into new parts, their records not filled yet (fill).
func cutParts(entries []object.TreeEntry, raw string, ends []int32) []*dirPart {
	var out []*dirPart
	for lo := 0; lo < len(entries); {
		hi := len(entries)
		if hi-lo > 2*partSize {
			hi = lo + partSize
		}
		p := &dirPart{entries: entries[lo:hi:hi]}
		if raw != "" {
			start := 0
			if lo > 0 {
				start = int(ends[lo-1])
			}
			p.raw = raw[start:ends[hi-1]]
			p.sum = adler32.Checksum(unsafe.Slice(unsafe.StringData(p.raw), len(p.raw)))
		}
		out = append(out, p)
		lo = hi
	}
	return out
}

// fill makes the records of p's entries: old steps through the last
// record's entries of the same span (the files' paths and relevance are
// taken from it; the subfolders are walked from theirs).
func (p *dirPart) fill(tc *treeEntries, prefix string, old *dirParts, relevant func(string) bool) error {
	p.slot = make([]int32, len(p.entries))
	for i, e := range p.entries {
		p.slot[i] = -1
		// old's entry of the same name and mode, if any, and its slot
		var op *dirPart
		same, was := false, int32(-1)
		if old != nil {
			var j int
			if op, j, same = old.find(e); same {
				was = op.slot[j]
			}
		}
		if err := checkPathLen(prefix, e.Name); err != nil {
			return err
		}
		switch e.Mode {
		case filemode.Dir:
			var oldKid *dirRec
			if was >= 0 {
				oldKid = op.dirs[was]
			}
			kid, err := walkDir(tc, e.Hash, prefix+e.Name+"/", oldKid, relevant)
			if err != nil {
				return err
			}
			p.slot[i] = int32(len(p.dirs))
			p.dirs = append(p.dirs, kid)
			p.before = append(p.before, int32(len(p.files)))
			p.total += kid.total
		case filemode.Submodule:
		case filemode.Regular, filemode.Executable, filemode.Deprecated, filemode.Symlink:
			var path string
			switch {
			case was >= 0:
				path = op.files[was].path // relevant then, so now
			case same:
				continue // the same path was not relevant then
			default:
				path = prefix + e.Name
				if !relevant(path) {
					continue
				}
			}
			p.slot[i] = int32(len(p.files))
			p.files = append(p.files, gitFile{path: path, blob: e.Hash, mode: e.Mode})
			p.total++
		}
	}
	return nil
}

// walkLoose is walkDir's read of a tree from its loose object, against
// old (nil: none): the parts at either end whose bytes the new tree has
// in the same place are old's, the entries between are parsed and merged
// with old's between. ok is false when the tree is not loose, or reads
// oddly (its checksum, its format): the caller reads it from the object
// store then, which reports what is wrong.
func walkLoose(tc *treeEntries, h plumbing.Hash, prefix string, old *dirRec, relevant func(string) bool) (d *dirRec, ok bool, err error) {
	var prev *zStream
	var prevTree func([]byte, int)
	if old != nil {
		prev, prevTree = old.zs, old.copyRaw
	}
	head, b, want, checked, zs, ok := tc.loose.readInto(h, prev, prevTree)
	if !ok {
		return nil, false, nil
	}
	var oldParts []*dirPart
	if old != nil {
		oldParts = old.parts
	}
	// the parts at the start whose bytes are the same, then at the end
	pre, at := 0, 0
	for pre < len(oldParts) {
		raw := oldParts[pre].raw
		if raw == "" || at+len(raw) > len(b) || string(b[at:at+len(raw)]) != raw {
			break
		}
		at += len(raw)
		pre++
	}
	suf, end := len(oldParts), len(b)
	for suf > pre {
		raw := oldParts[suf-1].raw
		if raw == "" || end-len(raw) < at || string(b[end-len(raw):end]) != raw {
			break
		}
		end -= len(raw)
		suf--
	}
	// The middle ends where an entry ends: a part of the end that an
	// entry of the middle runs into is the middle's too.
	for pos := at; pos < end && suf < len(oldParts); {
		n := entryLen(b[pos:])
		if n <= 0 {
			return nil, false, nil
		}
		pos += n
		for pos > end && suf < len(oldParts) {
			end += len(oldParts[suf].raw)
			suf++
		}
	}
	mid := string(b[at:end])
	entries, ends, ok := parseTree(mid)
	if !ok {
		return nil, false, nil
	}
	made := cutParts(entries, mid, ends)
	d = &dirRec{hash: h, parts: make([]*dirPart, 0, pre+len(made)+len(oldParts)-suf)}
	d.parts = append(append(append(d.parts, oldParts[:pre]...), made...), oldParts[suf:]...)
	if !checked {
		// The parts taken have the last tree's bytes, whose sums are
		// known: the stream's sum is theirs and the new parts' put
		// together.
		sum := adler32.Checksum(head)
		for _, p := range d.parts {
			sum = adler32Combine(sum, p.sum, len(p.raw))
		}
		if sum != want {
			return nil, false, nil
		}
	}
	d.zs = zs
	cur := &dirParts{parts: oldParts[pre:suf]}
	if old == nil {
		cur = nil
	}
	for _, p := range made {
		if err := p.fill(tc, prefix, cur, relevant); err != nil {
			return nil, true, err
		}
	}
	d.count()
	if tc.walked != nil && len(tc.walked) < maxReadTrees {
		tc.walked[h] = d
	}
	if old != nil && (pre > 0 || suf < len(oldParts)) {
		tc.setSpan(d, treeSpan{old: old, pre: pre, sufNew: len(d.parts) - (len(oldParts) - suf), sufOld: suf})
	}
	return d, true, nil
}

// entryLen is the length of the tree entry b starts with ("<mode>
// <name>\x00<hash>"), 0 when b does not start with one.
func entryLen(b []byte) int {
	sp := -1
	for i := 0; i < len(b) && i < 12; i++ {
		if b[i] == ' ' {
			sp = i
			break
		}
	}
	if sp <= 0 {
		return 0
	}
	nul := bytes.IndexByte(b[sp+1:], 0) + sp + 1
	if nul <= sp+1 || len(b) < nul+1+len(plumbing.Hash{}) {
		return 0
	}
	return nul + 1 + len(plumbing.Hash{})
}

// copyRaw copies d's tree bytes from offset from into dst (its parts'
// bytes, all known when d was read from a loose stream kept in d.zs).
func (d *dirRec) copyRaw(dst []byte, from int) {
	at := 0
	for _, p := range d.parts {
		if len(dst) == 0 {
			return
		}
		if end := at + len(p.raw); end > from {
			n := copy(dst, p.raw[from-at:])
			dst, from = dst[n:], from+n
		}
		at += len(p.raw)
	}
}

// count sets d's total from its parts'.
func (d *dirRec) count() {
	d.total = 0
	for _, p := range d.parts {
		d.total += p.total
	}
}

// adler32Combine is the Adler-32 of a stream whose first part's is a and
// second part's (n bytes long) is b, as zlib's adler32_combine.
func adler32Combine(a, b uint32, n int) uint32 {
	const base = 65521
	rem := uint32(n % base)
	sum1 := a & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (b & 0xffff) + base - 1
	sum2 += (a >> 16) + (b >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum1 | sum2<<16
}

// readInto reads tree h's loose object into lt's buffers (kept from one
// read to the next: nothing may keep b): its header ("tree <size>\x00")
// and content; sum is the stream's Adler-32, checked already when checked
// (the inflater's read), to be checked by the caller otherwise (the
// stored blocks of core.looseCompression 0, read in place).
func (lt *looseTrees) readInto(h plumbing.Hash, prev *zStream, prevTree func([]byte, int)) (head, b []byte, sum uint32, checked bool, zs *zStream, ok bool) {
	if lt == nil {
		return nil, nil, 0, false, nil, false
	}
	hex := h.String()
	f, err := os.Open(filepath.Join(lt.objects, hex[:2], hex[2:]))
	if err != nil {
		return nil, nil, 0, false, nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > maxObjectSize {
		return nil, nil, 0, false, nil, false
	}
	n := int(fi.Size())
	if cap(lt.file) < n+1 {
		lt.file = make([]byte, n+n/8+1)
	}
	z := lt.file[:n+1]
	m, err := io.ReadFull(f, z)
	if err != io.ErrUnexpectedEOF || m != n {
		return nil, nil, 0, false, nil, false // changed while read
	}
	z = z[:n]
	if obj, sum, ok := storedStream(z); ok {
		head, b, ok := splitTreeHeader(obj)
		return head, b, sum, false, nil, ok
	}
	if n >= resumeMin {
		head, b, sum, zs, ok := lt.readDeflated(z, prev, prevTree)
		return head, b, sum, false, zs, ok
	}
	if !lt.inflate(z) {
		return nil, nil, 0, false, nil, false
	}
	hb, size, ok := lt.treeHead()
	if !ok || size > 1100*n || size > maxObjectSize {
		return nil, nil, 0, false, nil, false
	}
	k := bytes.IndexByte(hb[:], 0)
	if cap(lt.out) < size+k+1 {
		lt.out = make([]byte, size+k+1+size/8)
	}
	out := lt.out[:k+1+size]
	copy(out, hb[:k+1])
	if _, err := io.ReadFull(lt.zr, out[k+1:]); err != nil {
		return nil, nil, 0, false, nil, false
	}
	// The stream must end here; reaching its end checks its Adler-32.
	var one [1]byte
	if m, err := lt.zr.Read(one[:]); m != 0 || err != io.EOF {
		return nil, nil, 0, false, nil, false
	}
	return out[:k+1], out[k+1:], 0, true, nil, true
}

// splitTreeHeader cuts a loose object's content into its header (with
// its NUL) and the tree; ok false when it is not a tree's of that size.
func splitTreeHeader(obj []byte) (head, b []byte, ok bool) {
	nul := -1
	for i := 0; i < len(obj) && i < 32; i++ {
		if obj[i] == 0 {
			nul = i
			break
		}
	}
	if nul < 0 {
		return nil, nil, false
	}
	size, ok := treeHeader(string(obj[:nul]))
	if !ok || size != len(obj)-nul-1 || size > 1<<31-1 {
		return nil, nil, false
	}
	return obj[:nul+1], obj[nul+1:], true
}

// flatEntries is d's entries in one slice.
func (d *dirRec) flatEntries() []object.TreeEntry {
	if len(d.parts) == 1 {
		return d.parts[0].entries
	}
	n := 0
	for _, p := range d.parts {
		n += len(p.entries)
	}
	out := make([]object.TreeEntry, 0, n)
	for _, p := range d.parts {
		out = append(out, p.entries...)
	}
	return out
}

// eachFile calls fn with each relevant file directly in d, in order.
func (d *dirRec) eachFile(fn func(*gitFile)) {
	for _, p := range d.parts {
		for i := range p.files {
			fn(&p.files[i])
		}
	}
}

// firstFile is d's first relevant file directly in it, nil when none.
func (d *dirRec) firstFile() *gitFile {
	for _, p := range d.parts {
		if len(p.files) > 0 {
			return &p.files[0]
		}
	}
	return nil
}

// entry is d's entry name of that mode and its part, or nil: the entries
// with name as a prefix follow each other in tree order, from the first
// whose name is not before name (by name alone: a folder's is its name
// followed by "/" in tree order, which keeps that run together).
func (d *dirRec) entry(name string, mode filemode.FileMode) (*dirPart, int) {
	k := sort.Search(len(d.parts), func(k int) bool {
		es := d.parts[k].entries
		return es[len(es)-1].Name >= name
	})
	for ; k < len(d.parts); k++ {
		es := d.parts[k].entries
		i := sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
		for ; i < len(es) && strings.HasPrefix(es[i].Name, name); i++ {
			if es[i].Name == name && es[i].Mode == mode {
				return d.parts[k], i
			}
		}
		if i < len(es) {
			break
		}
	}
	return nil, -1
}
