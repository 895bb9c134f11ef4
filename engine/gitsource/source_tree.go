package gitsource

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/klauspost/compress/zlib"
)

// looseTrees reads trees from their loose object files, where a push
// writes the trees it changes (git unpacks a small push): inflated with
// klauspost's zlib into one string that the entries' names are cut from,
// parsed here. go-git's object store copies the object, hashes it, and
// makes a string per name, which for the 50k-entry folder of a 100k-file
// site costs more than the rest of a one-file reload. A tree that is not
// loose, or that this reader finds anything odd in, is left to the object
// store, which reports what is wrong.
type looseTrees struct {
	objects string // the repository's objects folder
	zr      io.ReadCloser
	br      bytes.Reader
	// file and out are readInto's buffers, kept from one read to the
	// next: the file as read, the tree inflated.
	file, out []byte
}

// read returns the entries of tree h, or ok false.
func (lt *looseTrees) read(h plumbing.Hash) (entries []object.TreeEntry, ok bool) {
	t, ok := lt.readRaw(h)
	return t.entries, ok
}

// rawTree is a tree's content as read from its loose object, its entries
// (their names cut from raw) and where each entry ends in raw.
type rawTree struct {
	raw     string
	entries []object.TreeEntry
	ends    []int32
}

// readRaw returns tree h read from its loose object, or ok false.
func (lt *looseTrees) readRaw(h plumbing.Hash) (t rawTree, ok bool) {
	if lt == nil {
		return rawTree{}, false
	}
	hex := h.String()
	raw, err := os.ReadFile(filepath.Join(lt.objects, hex[:2], hex[2:]))
	if err != nil {
		return rawTree{}, false
	}
	if obj, ok := inflateStored(raw); ok {
		return storedTree(obj)
	}
	if !lt.inflate(raw) {
		return rawTree{}, false
	}
	_, size, ok := lt.treeHead()
	if !ok {
		return rawTree{}, false
	}
	// Deflate cannot expand more than about 1032 times: a header that
	// claims more is not to be believed (nor allocated for).
	if size > 1100*len(raw) {
		return rawTree{}, false
	}
	var b strings.Builder
	b.Grow(size)
	if m, err := io.CopyN(&b, lt.zr, int64(size)); err != nil || m != int64(size) {
		return rawTree{}, false
	}
	// The stream must end here; reaching its end checks its Adler-32.
	var one [1]byte
	if m, err := lt.zr.Read(one[:]); m != 0 || err != io.EOF {
		return rawTree{}, false
	}
	tree := b.String()
	entries, ends, ok := parseTree(tree)
	if !ok || len(tree) > 1<<31-1 {
		return rawTree{}, false
	}
	return rawTree{raw: tree, entries: entries, ends: ends}, true
}

// inflate sets lt's inflater to read the zlib stream z.
func (lt *looseTrees) inflate(z []byte) bool {
	lt.br.Reset(z)
	if lt.zr == nil {
		zr, err := zlib.NewReader(&lt.br)
		if err != nil {
			return false
		}
		lt.zr = zr
		return true
	}
	return lt.zr.(zlib.Resetter).Reset(&lt.br, nil) == nil
}

// treeHead reads a loose tree's header ("tree <size>\x00") from the
// inflater: the header's n bytes before its NUL (in head) and the size
// it gives; ok false when it is not a tree's.
func (lt *looseTrees) treeHead() (head [32]byte, size int, ok bool) {
	n := 0
	for n < len(head) {
		if _, err := io.ReadFull(lt.zr, head[n:n+1]); err != nil {
			return head, 0, false
		}
		if head[n] == 0 {
			break
		}
		n++
	}
	if n == len(head) {
		return head, 0, false
	}
	size, ok = treeHeader(string(head[:n]))
	return head, size, ok
}

// treeHeader is the size a loose object's header ("tree <size>", before
// its NUL) gives, or ok false when it is not a tree's.
func treeHeader(head string) (size int, ok bool) {
	kind, sz, found := strings.Cut(head, " ")
	if !found || kind != "tree" {
		return 0, false
	}
	for _, c := range []byte(sz) {
		if c < '0' || c > '9' || size > 1<<40 {
			return 0, false
		}
		size = size*10 + int(c-'0')
	}
	return size, true
}

// storedTree is the tree whose loose object's content (header and tree)
// is obj, read by inflateStored: the tree's bytes are obj's, not copied.
func storedTree(obj []byte) (rawTree, bool) {
	nul := bytes.IndexByte(obj[:min(len(obj), 32)], 0)
	if nul < 0 {
		return rawTree{}, false
	}
	size, ok := treeHeader(string(obj[:nul]))
	if !ok || size != len(obj)-nul-1 || size > 1<<31-1 {
		return rawTree{}, false
	}
	tree := ""
	if size > 0 {
		tree = unsafe.String(&obj[nul+1], size)
	}
	entries, ends, ok := parseTree(tree)
	if !ok {
		return rawTree{}, false
	}
	return rawTree{raw: tree, entries: entries, ends: ends}, true
}

// parseTree parses a tree object's content (entries "<octal mode>
// <name>\x00<20-byte hash>") as go-git does, modes made canonical, and
// the offset in s where each entry ends; ok false on anything malformed.
func parseTree(s string) ([]object.TreeEntry, []int32, bool) {
	// Entries take at least 1+1+1+1+20 bytes; most take 30 to 80.
	entries := make([]object.TreeEntry, 0, len(s)/48+1)
	ends := make([]int32, 0, len(s)/48+1)
	n := len(s)
	for len(s) > 0 {
		sp := strings.IndexByte(s, ' ')
		if sp <= 0 || sp > 11 {
			return nil, nil, false
		}
		var mode uint64
		for i := range sp {
			c := s[i]
			if c < '0' || c > '7' {
				return nil, nil, false
			}
			mode = mode<<3 | uint64(c-'0')
		}
		if mode > 1<<32-1 {
			return nil, nil, false
		}
		s = s[sp+1:]
		nul := strings.IndexByte(s, 0)
		if nul <= 0 || len(s) < nul+1+len(plumbing.Hash{}) {
			return nil, nil, false
		}
		e := object.TreeEntry{Name: s[:nul], Mode: canonicalMode(filemode.FileMode(mode))}
		copy(e.Hash[:], s[nul+1:])
		s = s[nul+1+len(e.Hash):]
		entries = append(entries, e)
		ends = append(ends, int32(n-len(s)))
	}
	return entries, ends, true
}

// canonicalMode is what go-git makes of a tree entry's mode.
func canonicalMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}
