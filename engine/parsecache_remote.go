package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/engine/gitsource"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
)

// A box whose first load parsed the site publishes its parse cache to
// the bucket's state area (Config.ParseCacheState), and a fresh box (no
// parse cache of its own in the cache directory) fetches the newest one
// and adopts it before its first load, which is then a warm start: only
// what the cache lacks is parsed (gitsource.AdoptCache).
//
// Objects, under the state area:
//
//	parsecache/<version>-<shared key>/<commit>  one cache (below)
//	parsecache/<version>-<shared key>/latest    pointer: the newest
//
// <shared key> is a hash of the source's SharedKey: the cache format,
// the build, the site root and the history limit. A box only ever reads
// the caches of its own.
//
// A cache object is written once, with If-None-Match (two boxes
// publishing one commit write it once; a damaged one found there is
// replaced, with If-Match); the pointer is replaced with If-Match, and a
// publisher whose replace is refused reads it again and replaces it only
// if its own cache is newer. An object is a line of JSON
// (parseCacheHeader: the shared key, the commit, the length and SHA-256
// of what follows) and the cache file's bytes, which also end in their
// CRC-32: a truncated, damaged or foreign object is never adopted (the
// box parses, as without a bucket).
//
// Which cache: the newest published, whatever its commit. The cache is
// keyed by blob, so one of another commit (older or newer) serves the
// files this box's commit shares with it and the rest are parsed: it is
// never wrong, only less complete. Finding the newest at or before the
// box's commit would take a walk of the history against the list of
// published commits, before the box knows its commit, for a few parses
// more or less.

// parseCacheObjectVersion changes with the object's layout.
const parseCacheObjectVersion = 1

const (
	// parseCacheWait bounds a fresh box's wait for the bucket's cache
	// before its first load: the pointer within it, and the object
	// within it plus a second per parseCacheRate bytes (a slow or
	// failing bucket costs a start at most that, then it parses).
	parseCacheWait = 5 * time.Second
	parseCacheRate = 25 << 20
	// parseCacheMaxSize bounds the object a box reads (a cache of a
	// million files is about 370 MB).
	parseCacheMaxSize = 8 << 30
	// parseCachePublishEvery: after its start, a box publishes its
	// cache again every this many reloads of the published branch
	// (or one per 1000 documents), as the search index is rebuilt and
	// published (search's compactAfter, compactPer).
	parseCachePublishEvery = 64
)

// parseCacheHeader is the first line of a cache object.
type parseCacheHeader struct {
	Object    int       `json:"folioParseCache"`
	Shared    string    `json:"shared"` // gitsource.Source.SharedKey
	Commit    string    `json:"commit"`
	Size      int64     `json:"size"`   // bytes after the header line
	SHA256    string    `json:"sha256"` // of those bytes
	Published time.Time `json:"published"`
}

// parseCachePointer is the latest object.
type parseCachePointer struct {
	Commit    string    `json:"commit"`
	Key       string    `json:"key"`
	Size      int64     `json:"size"` // of the object, header included
	Published time.Time `json:"published"`
}

// parseCacheRemote publishes and fetches a source's parse cache.
type parseCacheRemote struct {
	st        media.StateStore
	fetchOnly bool // a read-only box: it fetches, never publishes
	now       func() time.Time
	wait      time.Duration

	published atomic.Int64 // caches this process published
	fetched   atomic.Int64 // documents adopted from the bucket
	// due: the next save publishes (the first load parsed the site, or
	// reloads counts parseCachePublishEvery reloads since the last one).
	due     atomic.Bool
	reloads atomic.Int64
}

// newParseCacheRemote is the remote of st (search.FetchOnly: fetch only);
// nil when st is nil.
func newParseCacheRemote(st media.StateStore, now func() time.Time, wait time.Duration) *parseCacheRemote {
	if st == nil {
		return nil
	}
	if wait <= 0 {
		wait = parseCacheWait
	}
	r := &parseCacheRemote{st: st, now: now, wait: wait}
	if fo, ok := st.(search.FetchOnly); ok {
		r.st, r.fetchOnly = fo.StateStore, true
	}
	return r
}

// parseCacheFolder is the folder of the caches of a shared key.
func parseCacheFolder(shared string) string {
	return "parsecache/" + strconv.Itoa(parseCacheObjectVersion) + "-" + shortHash(shared)
}

// publish writes src's cache, which holds commit's documents, and points
// latest at it unless a newer one is there.
func (r *parseCacheRemote) publish(ctx context.Context, src *gitsource.Source, commit string) error {
	// The header is written before the cache file's bytes, in the room
	// left for it: the object is not a second copy of the file.
	room := maxParseCacheHeader
	buf, err := src.SavedCache(room)
	if err != nil || buf == nil {
		return err
	}
	data := buf[room:]
	folder := parseCacheFolder(src.SharedKey())
	sum := sha256.Sum256(data)
	hdr := parseCacheHeader{Object: parseCacheObjectVersion, Shared: src.SharedKey(), Commit: commit,
		Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Published: r.now().UTC()}
	line, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if len(line) > room {
		return errors.New("header too long")
	}
	obj := buf[room-len(line):]
	copy(obj, line)
	key := folder + "/" + commit
	if err := r.putObject(ctx, key, obj, hdr.Shared); err != nil {
		return err
	}
	ptr, _ := json.Marshal(parseCachePointer{Commit: commit, Key: key, Size: int64(len(obj)), Published: hdr.Published})
	for range 8 {
		cur, etag, err := r.st.Get(ctx, folder+"/latest")
		switch {
		case errors.Is(err, media.ErrNotExist):
			_, err = r.st.Create(ctx, folder+"/latest", ptr)
		case err != nil:
			return err
		default:
			var p parseCachePointer
			if json.Unmarshal(cur, &p) == nil && p.Published.After(hdr.Published) {
				return nil // a newer one is there
			}
			_, err = r.st.Replace(ctx, folder+"/latest", ptr, etag)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, media.ErrPrecondition) {
			return err
		}
	}
	return errors.New("the pointer kept changing")
}

// putObject writes a cache object unless a sound one is at key already
// (another box published that commit): one that is not (truncated,
// damaged) is replaced.
func (r *parseCacheRemote) putObject(ctx context.Context, key string, obj []byte, shared string) error {
	return media.CreateOnce(ctx, r.st, key, obj, func(old []byte) bool {
		_, _, err := checkParseCache(old, shared)
		return err == nil
	})
}

// fetch downloads the newest cache of src's shared key and has src adopt
// it; it returns the header of the one adopted (ok false when there is
// none), err why one could not be. It gives up after r.wait for the
// pointer, and r.wait and a second per parseCacheRate bytes for all.
func (r *parseCacheRemote) fetch(ctx context.Context, src *gitsource.Source) (hdr parseCacheHeader, docs int, ok bool, err error) {
	start := time.Now()
	shared := src.SharedKey()
	folder := parseCacheFolder(shared)
	pctx, cancel := context.WithTimeout(ctx, r.wait)
	b, _, err := r.st.Get(pctx, folder+"/latest")
	cancel()
	if errors.Is(err, media.ErrNotExist) {
		return hdr, 0, false, nil
	}
	if err != nil {
		return hdr, 0, false, err
	}
	var p parseCachePointer
	if json.Unmarshal(b, &p) != nil || !strings.HasPrefix(p.Key, folder+"/") || p.Size < 0 || p.Size > parseCacheMaxSize {
		return hdr, 0, false, fmt.Errorf("bad parse cache pointer %s/latest", folder)
	}
	limit := r.wait + time.Duration(p.Size)*time.Second/parseCacheRate
	octx, cancel := context.WithDeadline(ctx, start.Add(limit))
	defer cancel()
	hdr, data, err := r.download(octx, p.Key, shared)
	if err != nil {
		if octx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w (gave up after %v)", err, limit.Round(time.Millisecond))
		}
		return hdr, 0, false, fmt.Errorf("parse cache %s: %w", p.Key, err)
	}
	docs, err = src.AdoptCache(data)
	if err != nil {
		return hdr, 0, false, fmt.Errorf("parse cache %s: %w", p.Key, err)
	}
	r.fetched.Add(int64(docs))
	return hdr, docs, true, nil
}

// download reads the object at key and checks its header, length and
// checksum; it returns the cache file's bytes.
func (r *parseCacheRemote) download(ctx context.Context, key, shared string) (parseCacheHeader, []byte, error) {
	op, ok := r.st.(media.StateOpener)
	if !ok {
		obj, _, err := r.st.Get(ctx, key)
		if err != nil {
			return parseCacheHeader{}, nil, err
		}
		return checkParseCache(obj, shared)
	}
	rc, err := op.Open(ctx, key)
	if err != nil {
		return parseCacheHeader{}, nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, maxParseCacheHeader)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return parseCacheHeader{}, nil, errors.New("no header")
	}
	hdr, err := checkParseCacheHeader(line[:len(line)-1], shared)
	if err != nil {
		return hdr, nil, err
	}
	// The length the header says, read into one buffer: a cache of 100k
	// files is some tens of MB, held as a cache file read from disk is.
	data := make([]byte, hdr.Size)
	if _, err := io.ReadFull(br, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return hdr, nil, fmt.Errorf("truncated: header says %d bytes", hdr.Size)
		}
		return hdr, nil, err
	}
	if n, _ := br.Read(make([]byte, 1)); n > 0 {
		return hdr, nil, fmt.Errorf("longer than the %d bytes the header says", hdr.Size)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hdr.SHA256 {
		return hdr, nil, errors.New("checksum mismatch")
	}
	return hdr, data, nil
}

// maxParseCacheHeader bounds an object's first line.
const maxParseCacheHeader = 64 << 10

// checkParseCacheHeader reads an object's first line and checks that it
// is a cache object of this layout and of shared.
func checkParseCacheHeader(line []byte, shared string) (parseCacheHeader, error) {
	var hdr parseCacheHeader
	if json.Unmarshal(line, &hdr) != nil {
		return hdr, errors.New("no header")
	}
	if hdr.Object != parseCacheObjectVersion || hdr.Shared != shared || hdr.Commit == "" || hdr.Size < 0 || hdr.Size > parseCacheMaxSize {
		return hdr, fmt.Errorf("a cache of another format, build or site root (%q, want %q)", hdr.Shared, shared)
	}
	return hdr, nil
}

// checkParseCache checks a whole object: header, length, checksum.
func checkParseCache(obj []byte, shared string) (parseCacheHeader, []byte, error) {
	nl := bytes.IndexByte(obj, '\n')
	if nl < 0 || nl > maxParseCacheHeader {
		return parseCacheHeader{}, nil, errors.New("no header")
	}
	hdr, err := checkParseCacheHeader(obj[:nl], shared)
	if err != nil {
		return hdr, nil, err
	}
	data := obj[nl+1:]
	if int64(len(data)) != hdr.Size {
		return hdr, nil, fmt.Errorf("truncated: %d bytes, header says %d", len(data), hdr.Size)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hdr.SHA256 {
		return hdr, nil, errors.New("checksum mismatch")
	}
	return hdr, data, nil
}
