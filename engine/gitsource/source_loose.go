package gitsource

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// looseReadWhole is the size up to which a loose object's file is read
// whole.
const looseReadWhole = 256 << 10

// readLoose reads object h from its loose file in the objects folder
// dir: "<type> <size>\x00" and the object, zlib-compressed. found is
// false when there is no such file; anything else wrong is an error.
// zr is a zlib reader to reuse (nil: made here and kept).
func readLoose(dir string, h plumbing.Hash, limit int64, zr *io.ReadCloser) (t plumbing.ObjectType, size int64, data []byte, found bool, err error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(dir, hex[:2], hex[2:]))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil, false, nil
	}
	if err != nil {
		return 0, 0, nil, true, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, nil, true, err
	}
	fail := func(err error) (plumbing.ObjectType, int64, []byte, bool, error) {
		return 0, 0, nil, true, fmt.Errorf("corrupt object %s (loose): %w", h, err)
	}
	// A small file is read whole; a large one (a big file a push
	// wrote loose: git streams blobs over core.bigFileThreshold to
	// their own file) only as far as it is needed: its header, when
	// its object is over limit.
	var br io.Reader
	if fi.Size() <= looseReadWhole {
		raw := make([]byte, fi.Size())
		if _, err := io.ReadFull(f, raw); err != nil {
			return fail(truncated(err))
		}
		br = bytes.NewReader(raw)
	} else {
		br = bufio.NewReaderSize(f, 64<<10)
	}
	if *zr == nil {
		if *zr, err = zlib.NewReader(br); err != nil {
			*zr = nil
			return fail(err)
		}
	} else if err := (*zr).(zlib.Resetter).Reset(br, nil); err != nil {
		return fail(err)
	}
	var head [32]byte
	n := 0
	for ; ; n++ {
		if n == len(head) {
			return fail(errors.New("header too long"))
		}
		if _, err := io.ReadFull(*zr, head[n:n+1]); err != nil {
			return fail(truncated(err))
		}
		if head[n] == 0 {
			break
		}
	}
	kind, sz, ok := strings.Cut(string(head[:n]), " ")
	t, terr := plumbing.ParseObjectType(kind)
	size, serr := strconv.ParseInt(sz, 10, 64)
	if !ok || terr != nil || serr != nil || size < 0 || sz != strconv.FormatInt(size, 10) ||
		t != plumbing.CommitObject && t != plumbing.TreeObject && t != plumbing.BlobObject && t != plumbing.TagObject {
		return fail(fmt.Errorf("malformed header %q", head[:n]))
	}
	if size > limit {
		return t, size, nil, true, nil
	}
	// Deflate cannot expand more than about 1032 times.
	if size > maxObjectSize || size > 1100*fi.Size()+64 {
		return fail(fmt.Errorf("header claims %d bytes", size))
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(*zr, data); err != nil {
		return fail(truncated(err))
	}
	var one [1]byte
	if m, err := (*zr).Read(one[:]); m != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its header says")
		}
		return fail(err)
	}
	if !sameHash(h, t, data) {
		return fail(errors.New("its bytes do not hash to its name"))
	}
	return t, size, data, true, nil
}
