package gitsource

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/klauspost/compress/zlib"
)

// gitObjects reads a repository's objects itself, loose or packed
// (gitformat-pack(5)): a pack's index (packIndex) finds an object's
// offset, its entry's header gives its type and size, and an OFS_DELTA
// or REF_DELTA is applied to its base, itself read the same way, with
// the bases read last kept (baseCache). go-git's object store reads the
// same objects, but its first read from a pack builds the pack's
// offset-to-name map (every object's, 110 MB and a second of CPU at a
// million files); a Load reads its commits and trees here instead.
// Anything malformed or truncated is an error, never a panic or wrong
// bytes. Not safe for concurrent use: one per goroutine.
type gitObjects struct {
	dirs    []string // the objects folder, then its alternates
	dirInfo []os.FileInfo

	opened  bool
	packs   []*packIndex
	packErr error // an index that could not be read: a miss is not sure
	files   map[*packIndex]*packData

	br *bufio.Reader
	zr io.ReadCloser
	// bases keeps the objects read last from packs, by pack and offset
	// (baseKey), shared by the readers of a Load (its parse workers):
	// the bases the next deltas are likely of. In a repository packed
	// with deltas the blobs of a cold start are chains of them, resolved
	// again for each blob without a cache that holds most of the site
	// (10k files: 2.3 s with go-git's 128 MB, 10 s with 16 MB a worker).
	bases cache.Object
	// depth counts the REF_DELTA bases being read from another pack.
	depth int
	// maxDeltaBytes bounds the deltas of one chain held at once
	// (deltaBytesLimit; lowered by tests).
	maxDeltaBytes int64
}

type packData struct {
	f    *os.File
	size int64
	err  error
}

const (
	// maxObjectSize bounds what a header may claim for an object read
	// whole (commits, trees, a delta's result): nothing is allocated
	// for more.
	maxObjectSize = 1 << 30
	// maxDeltaChain bounds a chain of deltas (git packs at most 4095
	// deep).
	maxDeltaChain = 10000
	// maxRefDepth bounds REF_DELTA bases read from another pack.
	maxRefDepth = 64
	// deltaBytesLimit bounds the inflated deltas of one chain, which
	// are all held until its base is read: with maxObjectSize for the
	// base and for each result, a read holds at most 3 GB, however its
	// pack is made (a chain of 10000 deltas of 1 GB each otherwise).
	deltaBytesLimit = 1 << 30
)

// newGitObjects reads the objects of the repository at gitDir (a bare
// repository or a .git folder), and those of its alternates, keeping
// delta bases in bases (nil: none).
func newGitObjects(gitDir string, bases cache.Object) *gitObjects {
	g := &gitObjects{bases: bases, maxDeltaBytes: deltaBytesLimit}
	g.addDir(filepath.Join(gitDir, "objects"), 0)
	return g
}

// addDir adds an objects folder and, as git does, the ones its
// info/alternates names (relative to it), up to five levels. An
// alternate that is no folder is skipped (git warns and skips it), and
// one that is a folder already added by another name (a symlink, a
// path with "..") too: else each alternates file's lines multiplied the
// folders at each level (6 lines that lead back: 9331 folders, each
// looked in for every loose object).
func (g *gitObjects) addDir(dir string, level int) {
	fi, err := os.Stat(dir)
	if level > 0 && (err != nil || !fi.IsDir()) {
		return
	}
	for i, d := range g.dirs {
		if d == dir || fi != nil && g.dirInfo[i] != nil && os.SameFile(fi, g.dirInfo[i]) {
			return
		}
	}
	g.dirs = append(g.dirs, dir)
	g.dirInfo = append(g.dirInfo, fi)
	if level >= 5 {
		return
	}
	alt, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(alt), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		g.addDir(filepath.Clean(line), level+1)
	}
}

// Close closes the pack files read.
func (g *gitObjects) Close() error {
	for _, d := range g.files {
		if d.f != nil {
			d.f.Close()
		}
	}
	g.files = nil
	if g.zr != nil {
		g.zr.Close()
		g.zr = nil
	}
	return nil
}

// reindex makes the next read list the packs and read their indexes
// again.
func (g *gitObjects) reindex() {
	g.Close()
	g.opened, g.packs, g.packErr = false, nil, nil
}

// read returns object h: its type, its size and its bytes, or no bytes
// when it is larger than limit. An object that is nowhere is
// plumbing.ErrObjectNotFound. The bytes may be shared (with the base
// cache): they must not be modified.
func (g *gitObjects) read(h plumbing.Hash, limit int64) (plumbing.ObjectType, int64, []byte, error) {
	// Loose first, as go-git: a push's objects are loose, and a
	// missing file costs an open.
	for _, dir := range g.dirs {
		t, size, data, found, err := readLoose(dir, h, limit, &g.zr)
		if found || err != nil {
			return t, size, data, err
		}
	}
	g.openPacks()
	for _, ix := range g.packs {
		off, ok, err := ix.find(h)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("object %s: %s: %w", h, ix.pack, err)
		}
		if ok {
			t, size, data, err := g.readPacked(ix, off, limit)
			if err == nil && size <= limit && !sameHash(h, t, data) {
				err = errors.New("its bytes do not hash to its name")
			}
			if err != nil {
				return 0, 0, nil, fmt.Errorf("corrupt object %s (%s at %d): %w", h, filepath.Base(ix.pack), off, err)
			}
			return t, size, data, nil
		}
	}
	if g.packErr != nil {
		return 0, 0, nil, fmt.Errorf("object %s not found, and %w", h, g.packErr)
	}
	return 0, 0, nil, plumbing.ErrObjectNotFound
}

// sameHash tells whether h names the object of type t and bytes data.
// A pack's entries and its index have no checksum a read checks (the
// CRCs of the index are the entries' as packed): a damaged offset or
// delta could give another object's bytes without this.
func sameHash(h plumbing.Hash, t plumbing.ObjectType, data []byte) bool {
	d := sha1.New()
	d.Write(t.Bytes())
	d.Write([]byte{' '})
	d.Write(strconv.AppendInt(nil, int64(len(data)), 10))
	d.Write([]byte{0})
	d.Write(data)
	var sum plumbing.Hash
	d.Sum(sum[:0])
	return sum == h
}

// has tells whether object h is there (loose or in a pack).
func (g *gitObjects) has(h plumbing.Hash) (bool, error) {
	for _, dir := range g.dirs {
		hex := h.String()
		if _, err := os.Stat(filepath.Join(dir, hex[:2], hex[2:])); err == nil {
			return true, nil
		}
	}
	g.openPacks()
	for _, ix := range g.packs {
		if _, ok, err := ix.find(h); ok || err != nil {
			return ok, err
		}
	}
	return false, g.packErr
}

// openPacks reads the indexes of the packs, once.
func (g *gitObjects) openPacks() {
	if g.opened {
		return
	}
	g.opened = true
	g.files = map[*packIndex]*packData{}
	for _, dir := range g.dirs {
		idxs, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		for _, p := range idxs {
			ix, err := readPackIndex(p)
			if err != nil {
				if g.packErr == nil {
					g.packErr = err
				}
				continue
			}
			g.packs = append(g.packs, ix)
		}
	}
}

// pack opens ix's pack file, and checks that it is the one ix indexes
// (its signature, and its checksum as the index says).
func (g *gitObjects) pack(ix *packIndex) (*packData, error) {
	if d := g.files[ix]; d != nil {
		return d, d.err
	}
	d := &packData{}
	g.files[ix] = d
	f, err := os.Open(ix.pack)
	if err != nil {
		d.err = err
		return d, err
	}
	d.f = f
	fi, err := f.Stat()
	if err != nil {
		d.err = err
		return d, err
	}
	d.size = fi.Size()
	var head [12]byte
	var tail [20]byte
	switch {
	case d.size < 12+20:
		d.err = errors.New("pack truncated")
	default:
		if _, err := f.ReadAt(head[:], 0); err != nil {
			d.err = err
		} else if _, err := f.ReadAt(tail[:], d.size-20); err != nil {
			d.err = err
		} else if string(head[:4]) != "PACK" || head[4] != 0 || head[5] != 0 || head[6] != 0 || head[7] != 2 && head[7] != 3 {
			d.err = errors.New("not a pack")
		} else if !bytes.Equal(tail[:], ix.sum) {
			d.err = errors.New("pack checksum is not its index's")
		}
	}
	return d, d.err
}

// entryHeader is a pack entry's header: its type and size (of the
// object, or of its delta), and a delta's base.
type entryHeader struct {
	typ     byte
	size    int64
	baseOff int64         // OFS_DELTA
	baseRef plumbing.Hash // REF_DELTA
}

const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

// header reads the header of the entry at off; the entry's zlib stream
// is next in g.br.
func (g *gitObjects) header(d *packData, off int64) (entryHeader, error) {
	if off < 12 || off >= d.size-20 {
		return entryHeader{}, fmt.Errorf("entry offset %d outside the pack", off)
	}
	sec := io.NewSectionReader(d.f, off, d.size-20-off)
	if g.br == nil {
		g.br = bufio.NewReaderSize(sec, 8<<10)
	} else {
		g.br.Reset(sec)
	}
	var h entryHeader
	b, err := g.br.ReadByte()
	if err != nil {
		return h, truncated(err)
	}
	h.typ = (b >> 4) & 7
	h.size = int64(b & 15)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if shift > 56 {
			return h, errors.New("entry size overflows")
		}
		if b, err = g.br.ReadByte(); err != nil {
			return h, truncated(err)
		}
		h.size |= int64(b&0x7f) << shift
	}
	switch h.typ {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		b, err := g.br.ReadByte()
		if err != nil {
			return h, truncated(err)
		}
		rel := int64(b & 0x7f)
		for b&0x80 != 0 {
			if rel >= 1<<55 {
				return h, errors.New("delta base offset overflows")
			}
			if b, err = g.br.ReadByte(); err != nil {
				return h, truncated(err)
			}
			rel = (rel+1)<<7 | int64(b&0x7f)
		}
		if rel <= 0 || rel > off-12 {
			return h, fmt.Errorf("delta base offset %d outside the pack", off-rel)
		}
		h.baseOff = off - rel
	case objRefDelta:
		if _, err := io.ReadFull(g.br, h.baseRef[:]); err != nil {
			return h, truncated(err)
		}
	default:
		return h, fmt.Errorf("entry of unknown type %d", h.typ)
	}
	return h, nil
}

func truncated(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// inflate reads the zlib stream next in g.br, which must hold exactly
// size bytes; left is how many bytes of the pack it may take.
func (g *gitObjects) inflate(size, left int64) ([]byte, error) {
	// Deflate cannot expand more than about 1032 times: a header that
	// claims more is not to be believed (nor allocated for).
	if size > maxObjectSize || size > 1100*left+64 {
		return nil, fmt.Errorf("entry claims %d bytes", size)
	}
	var err error
	if g.zr == nil {
		g.zr, err = zlib.NewReader(g.br)
	} else {
		err = g.zr.(zlib.Resetter).Reset(g.br, nil)
	}
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(g.zr, data); err != nil {
		return nil, truncated(err)
	}
	// The stream must end here; reaching its end checks its Adler-32.
	var one [1]byte
	if n, err := g.zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("zlib stream longer than the entry's size")
		}
		return nil, err
	}
	return data, nil
}

// delta is one step of a chain: the entry's offset, its delta, and the
// size of the base it is of.
type delta struct {
	off  int64
	data []byte
	base int64
}

// readPacked reads the object at off in ix's pack, resolving its
// deltas.
func (g *gitObjects) readPacked(ix *packIndex, off int64, limit int64) (plumbing.ObjectType, int64, []byte, error) {
	d, err := g.pack(ix)
	if err != nil {
		return 0, 0, nil, err
	}
	var chain []delta
	var typ plumbing.ObjectType
	var base []byte
	var held int64 // the bytes of chain's deltas
	for cur := off; ; {
		if len(chain) > maxDeltaChain {
			return 0, 0, nil, errors.New("delta chain too long")
		}
		if b, ok := g.base(ix, cur); ok {
			if len(chain) == 0 && int64(len(b.data)) > limit {
				return b.t, int64(len(b.data)), nil, nil
			}
			typ, base = b.t, b.data
			break
		}
		h, err := g.header(d, cur)
		if err != nil {
			return 0, 0, nil, err
		}
		if h.typ != objOfsDelta && h.typ != objRefDelta {
			typ = plumbing.ObjectType(h.typ)
			if len(chain) == 0 && h.size > limit {
				return typ, h.size, nil, nil
			}
			if base, err = g.inflate(h.size, d.size-20-cur); err != nil {
				return 0, 0, nil, err
			}
			if len(chain) > 0 {
				g.putBase(ix, cur, typ, base)
			}
			break
		}
		if held += h.size; held > g.maxDeltaBytes {
			return 0, 0, nil, fmt.Errorf("deltas of a chain over %d bytes", g.maxDeltaBytes)
		}
		dd, err := g.inflate(h.size, d.size-20-cur)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("delta: %w", err)
		}
		baseSize, target, _, err := deltaSizes(dd)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("delta at %d: %w", cur, err)
		}
		if len(chain) == 0 && limit < maxObjectSize && target > limit {
			t, err := g.typeAt(ix, d, h)
			return t, target, nil, err
		}
		// each delta makes the base of the one read before it
		if n := len(chain); n > 0 && target != chain[n-1].base {
			return 0, 0, nil, fmt.Errorf("delta at %d makes %d bytes, the base of the delta at %d has %d", cur, target, chain[n-1].off, chain[n-1].base)
		}
		chain = append(chain, delta{off: cur, data: dd, base: baseSize})
		if h.typ == objOfsDelta {
			cur = h.baseOff
			continue
		}
		if bo, ok, err := ix.find(h.baseRef); err != nil {
			return 0, 0, nil, err
		} else if ok {
			// OFS_DELTAs' bases are earlier in the pack, REF_DELTAs'
			// anywhere: one already in the chain is a loop.
			for _, c := range chain {
				if c.off == bo {
					return 0, 0, nil, fmt.Errorf("delta chain loops: the entry at %d is a base of its own base", bo)
				}
			}
			cur = bo
			continue
		}
		// a base in another pack, or loose
		if typ, base, err = g.readRef(h.baseRef); err != nil {
			return 0, 0, nil, err
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		out, err := applyDelta(base, chain[i].data)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("delta at %d: %w", chain[i].off, err)
		}
		g.putBase(ix, chain[i].off, typ, out)
		base = out
	}
	return typ, int64(len(base)), base, nil
}

// readRef reads the base of a REF_DELTA that is not in its pack.
func (g *gitObjects) readRef(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if g.depth >= maxRefDepth {
		return 0, nil, errors.New("delta bases too deep")
	}
	g.depth++
	defer func() { g.depth-- }()
	typ, size, data, err := g.read(h, maxObjectSize)
	if err == nil && int64(len(data)) != size {
		err = fmt.Errorf("%d bytes", size)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("delta base %s: %w", h, err)
	}
	return typ, data, nil
}

// typeAt is the type of the object whose entry's header is h: the type
// of the end of its chain of deltas, read without inflating them.
func (g *gitObjects) typeAt(ix *packIndex, d *packData, h entryHeader) (plumbing.ObjectType, error) {
	for range maxDeltaChain {
		switch h.typ {
		case objCommit, objTree, objBlob, objTag:
			return plumbing.ObjectType(h.typ), nil
		case objOfsDelta:
			var err error
			if h, err = g.header(d, h.baseOff); err != nil {
				return 0, err
			}
		default:
			bo, ok, err := ix.find(h.baseRef)
			if err != nil {
				return 0, err
			}
			if !ok {
				t, _, err := g.readRef(h.baseRef)
				return t, err
			}
			if h, err = g.header(d, bo); err != nil {
				return 0, err
			}
		}
	}
	return 0, errors.New("delta chain too long")
}

// baseKey names the entry at off of pack ix in the cache of bases, as if
// it were an object's name: the first 12 bytes of the pack's checksum
// and the offset. No object is named so but by chance (a 2^-96 one).
func baseKey(ix *packIndex, off int64) plumbing.Hash {
	var k plumbing.Hash
	copy(k[:12], ix.sum)
	binary.BigEndian.PutUint64(k[12:], uint64(off))
	return k
}

// base is the object at off of pack ix when the cache holds it.
func (g *gitObjects) base(ix *packIndex, off int64) (*readObject, bool) {
	if g.bases == nil {
		return nil, false
	}
	o, ok := g.bases.Get(baseKey(ix, off))
	if !ok {
		return nil, false
	}
	b, ok := o.(*readObject)
	return b, ok && b.data != nil
}

// putBase keeps the object at off of pack ix in the cache.
func (g *gitObjects) putBase(ix *packIndex, off int64, typ plumbing.ObjectType, data []byte) {
	if g.bases != nil {
		g.bases.Put(&readObject{h: baseKey(ix, off), t: typ, size: int64(len(data)), data: data})
	}
}
