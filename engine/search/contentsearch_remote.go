package search

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/folio-cms/folio/media"
)

// A box that builds the published branch's index publishes a snapshot
// of it to the bucket's state area, and a fresh box (an empty cache
// directory, or a copy of another commit) fetches the newest one instead
// of indexing every document itself (a minute at 100k files), then
// catches up to its own commit with the incremental update path.
//
// Objects, under the state area (media.StateStore):
//
//	search/<format>-<mapping hash>/<commit>  one snapshot (archive, below)
//	search/<format>-<mapping hash>/latest    pointer: the newest snapshot
//
// A snapshot is written once, with If-None-Match (two boxes publishing
// the same commit write the same documents: the second one's write is
// refused and that is fine); the pointer is replaced with If-Match, so
// that two publishers at once never lose a write: the one refused reads
// the pointer again and replaces it only if its own snapshot is newer.
//
// An archive is one line of JSON (archiveHeader) and then a tar of the
// bleve index directory and manifest.json, the hash of every document
// the index holds (docHash): a box on another commit re-indexes the
// documents whose hash differs and deletes those it lacks. Its length
// and SHA-256 are in the header: a truncated or damaged archive is never
// opened (the box builds, and logs why).

// remoteArchiveVersion changes with the archive's layout.
const remoteArchiveVersion = 1

// remoteFetchTimeout bounds reading the pointer and the snapshot.
const remoteFetchTimeout = 2 * time.Minute

// archiveHeader is the first line of an archive.
type archiveHeader struct {
	Archive   int       `json:"folioSearchArchive"`
	Format    int       `json:"format"`
	Mapping   string    `json:"mapping"`
	Lang      string    `json:"lang"`
	Commit    string    `json:"commit"`
	Size      int64     `json:"size"`   // bytes after the header line
	SHA256    string    `json:"sha256"` // of those bytes
	Published time.Time `json:"published"`
}

// remotePointer is the latest object.
type remotePointer struct {
	Commit    string    `json:"commit"`
	Key       string    `json:"key"`
	Published time.Time `json:"published"`
}

// remoteIndex publishes and fetches snapshots in a state store.
type remoteIndex struct {
	st  media.StateStore
	now func() time.Time
	// fetchOnly: the box reads snapshots and publishes none (a
	// read-only box writes nothing to the bucket).
	fetchOnly bool
}

// FetchOnly wraps the state store of a box that may fetch published
// search indexes but must publish none (folio serve --read-only).
type FetchOnly struct{ media.StateStore }

// remoteDir is the folder of the snapshots of a language's index.
func remoteDir(lang string) (string, error) {
	mh, err := mappingHash(lang)
	if err != nil {
		return "", err
	}
	return "search/" + strconv.Itoa(searchStoreFormat) + "-" + mh, nil
}

// docHash identifies what the index holds of a document: two documents
// with the same hash index the same way.
func docHash(d any, refs *refSkipper) string {
	title, text, kind, typ, m, pub := docText(d, 0, refs)
	h := fnv.New128a()
	for _, s := range []string{title, text, kind, typ} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	var n [25]byte
	if m.Draft {
		n[0] = 1
	}
	binary.LittleEndian.PutUint64(n[1:], uint64(pub.UnixMilli()))
	binary.LittleEndian.PutUint64(n[9:], uint64(m.ExpiresAt.UnixMilli()))
	h.Write(n[:])
	return hex.EncodeToString(h.Sum(nil))
}

// publish writes a snapshot of the index copied into dir (a bleve
// directory, removed when done), which holds docs of commit in lang, and
// points latest at it unless a newer one is there.
func (r *remoteIndex) publish(ctx context.Context, dir, commit, lang string, docs map[string]any, refs *refSkipper) (string, error) {
	defer os.RemoveAll(filepath.Dir(dir))
	folder, err := remoteDir(lang)
	if err != nil {
		return "", err
	}
	mh, _ := mappingHash(lang)
	manifest := make(map[string]string, len(docs))
	for id, d := range docs {
		manifest[id] = docHash(d, refs)
	}
	payload, err := tarIndex(dir, manifest)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(payload)
	hdr := archiveHeader{Archive: remoteArchiveVersion, Format: searchStoreFormat, Mapping: mh, Lang: lang, Commit: commit,
		Size: int64(len(payload)), SHA256: hex.EncodeToString(sum[:]), Published: r.now().UTC()}
	line, err := json.Marshal(hdr)
	if err != nil {
		return "", err
	}
	obj := make([]byte, 0, len(line)+1+len(payload))
	obj = append(append(append(obj, line...), '\n'), payload...)
	key := folder + "/" + commit
	if err := r.putSnapshot(ctx, key, obj, lang); err != nil {
		return "", fmt.Errorf("publish search index: %w", err)
	}
	ptr, _ := json.Marshal(remotePointer{Commit: commit, Key: key, Published: hdr.Published})
	for range 8 {
		cur, etag, err := r.st.Get(ctx, folder+"/latest")
		switch {
		case errors.Is(err, media.ErrNotExist):
			_, err = r.st.Create(ctx, folder+"/latest", ptr)
		case err != nil:
			return "", fmt.Errorf("publish search index: %w", err)
		default:
			var p remotePointer
			if json.Unmarshal(cur, &p) == nil && p.Published.After(hdr.Published) {
				return key, nil // a newer one is there
			}
			_, err = r.st.Replace(ctx, folder+"/latest", ptr, etag)
		}
		if err == nil {
			return key, nil
		}
		if !errors.Is(err, media.ErrPrecondition) {
			return "", fmt.Errorf("publish search index: %w", err)
		}
	}
	return "", errors.New("publish search index: the pointer kept changing")
}

// putSnapshot writes a snapshot unless a sound one of that commit is
// there already (another box published it): one that is not (truncated,
// damaged) is replaced.
func (r *remoteIndex) putSnapshot(ctx context.Context, key string, obj []byte, lang string) error {
	return media.CreateOnce(ctx, r.st, key, obj, func(old []byte) bool {
		_, _, err := checkArchive(old, lang)
		return err == nil
	})
}

// fetch downloads the newest snapshot of lang's index and unpacks it
// into a new directory under storeDir; it returns the directory, the
// commit it holds and the hashes of its documents. ok is false when
// there is none; err says why one could not be used.
func (r *remoteIndex) fetch(ctx context.Context, storeDir, lang string) (dir, commit string, manifest map[string]string, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, remoteFetchTimeout)
	defer cancel()
	folder, err := remoteDir(lang)
	if err != nil {
		return "", "", nil, false, err
	}
	b, _, err := r.st.Get(ctx, folder+"/latest")
	if errors.Is(err, media.ErrNotExist) {
		return "", "", nil, false, nil
	}
	if err != nil {
		return "", "", nil, false, err
	}
	var p remotePointer
	if err := json.Unmarshal(b, &p); err != nil || !strings.HasPrefix(p.Key, folder+"/") {
		return "", "", nil, false, fmt.Errorf("bad search index pointer %s/latest", folder)
	}
	f, err := r.fetchKey(ctx, p.Key, storeDir, lang)
	if err != nil {
		return "", "", nil, false, err
	}
	return f.dir, f.hdr.Commit, f.manifest, true, nil
}

// fetchedIndex is a snapshot downloaded, checked and unpacked into dir.
type fetchedIndex struct {
	dir      string
	hdr      archiveHeader
	manifest map[string]string
}

// fetchKey downloads the snapshot at key, of lang's index (anyLanguage:
// of any language this build indexes the way the snapshot says), and
// unpacks it into a new directory under storeDir.
func (r *remoteIndex) fetchKey(ctx context.Context, key, storeDir, lang string) (fetchedIndex, error) {
	hdr, payload, err := r.download(ctx, key, storeDir, lang)
	if err != nil {
		return fetchedIndex{}, err
	}
	defer payload.Close()
	dir := filepath.Join(storeDir, "idx-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	manifest, err := untarIndex(payload, dir)
	if err != nil {
		os.RemoveAll(dir)
		return fetchedIndex{}, fmt.Errorf("search index %s: %w", key, err)
	}
	return fetchedIndex{dir: dir, hdr: hdr, manifest: manifest}, nil
}

// anyLanguage, as the language of a fetch, accepts a snapshot of any
// language whose mapping is the one this build makes for it.
const anyLanguage = "*"

// newestPointer reads the pointers of every language's index of this
// format and returns the newest and its folder; folder is "" when there
// is none. A pointer that cannot be read is skipped.
func (r *remoteIndex) newestPointer(ctx context.Context) (p remotePointer, folder string, err error) {
	prefix := "search/" + strconv.Itoa(searchStoreFormat) + "-"
	err = r.st.List(ctx, prefix, "", func(o media.StateObject) error {
		f, ok := strings.CutSuffix(o.Key, "/latest")
		if !ok || strings.Contains(strings.TrimPrefix(f, "search/"), "/") {
			return nil
		}
		b, _, err := r.st.Get(ctx, o.Key)
		if errors.Is(err, media.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		var q remotePointer
		if json.Unmarshal(b, &q) != nil || !strings.HasPrefix(q.Key, f+"/") {
			return nil
		}
		if folder == "" || q.Published.After(p.Published) {
			p, folder = q, f
		}
		return nil
	})
	return p, folder, err
}

// download reads the snapshot at key and checks it: its header, and its
// tar's length and checksum. A store that reads objects as streams
// (media.StateOpener: S3, local) has the tar written to a temporary file
// in storeDir as it arrives, hashed on the way, so that a snapshot of
// hundreds of MB is never held in memory; the file is removed when the
// returned reader is closed. Others are read whole.
func (r *remoteIndex) download(ctx context.Context, key, storeDir, lang string) (archiveHeader, io.ReadCloser, error) {
	op, ok := r.st.(media.StateOpener)
	if !ok {
		obj, _, err := r.st.Get(ctx, key)
		if err != nil {
			return archiveHeader{}, nil, err
		}
		hdr, payload, err := checkArchive(obj, lang)
		if err != nil {
			return hdr, nil, fmt.Errorf("search index %s: %w", key, err)
		}
		return hdr, io.NopCloser(bytes.NewReader(payload)), nil
	}
	rc, err := op.Open(ctx, key)
	if err != nil {
		return archiveHeader{}, nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, maxArchiveHeader)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return archiveHeader{}, nil, fmt.Errorf("search index %s: no archive header", key)
	}
	hdr, err := checkHeader(line[:len(line)-1], lang)
	if err != nil {
		return hdr, nil, fmt.Errorf("search index %s: %w", key, err)
	}
	if err := os.MkdirAll(storeDir, 0o755); err != nil {
		return hdr, nil, err
	}
	// a download a stopped box left
	if old, _ := filepath.Glob(filepath.Join(storeDir, "fetch-*.tar")); len(old) > 0 {
		for _, o := range old {
			os.Remove(o)
		}
	}
	f, err := os.CreateTemp(storeDir, "fetch-*.tar")
	if err != nil {
		return hdr, nil, err
	}
	fail := func(err error) (archiveHeader, io.ReadCloser, error) {
		f.Close()
		os.Remove(f.Name())
		return hdr, nil, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(br, hdr.Size+1))
	if err != nil {
		return fail(fmt.Errorf("search index %s: %w", key, err))
	}
	if n != hdr.Size {
		return fail(fmt.Errorf("search index %s: truncated: %d bytes, header says %d", key, n, hdr.Size))
	}
	if hex.EncodeToString(h.Sum(nil)) != hdr.SHA256 {
		return fail(fmt.Errorf("search index %s: checksum mismatch", key))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	return hdr, removeOnClose{f}, nil
}

// maxArchiveHeader bounds an archive's first line.
const maxArchiveHeader = 64 << 10

// removeOnClose is a temporary file removed when it is closed.
type removeOnClose struct{ *os.File }

func (f removeOnClose) Close() error {
	err := f.File.Close()
	os.Remove(f.Name())
	return err
}

// checkHeader reads an archive's first line and checks that it is an
// archive of lang's index (anyLanguage: of the language it names) as
// this build writes them.
func checkHeader(line []byte, lang string) (archiveHeader, error) {
	var hdr archiveHeader
	if json.Unmarshal(line, &hdr) != nil {
		return hdr, errors.New("no archive header")
	}
	if lang == anyLanguage {
		lang = hdr.Lang
	}
	mh, err := mappingHash(lang)
	if err != nil {
		return hdr, err
	}
	if hdr.Archive != remoteArchiveVersion || hdr.Format != searchStoreFormat || hdr.Mapping != mh || hdr.Lang != lang || hdr.Commit == "" || hdr.Size < 0 {
		return hdr, fmt.Errorf("archive of another format, mapping or language (%+v)", hdr)
	}
	return hdr, nil
}

// checkArchive verifies an archive's header, length and checksum.
func checkArchive(obj []byte, lang string) (archiveHeader, []byte, error) {
	nl := bytes.IndexByte(obj, '\n')
	if nl < 0 {
		return archiveHeader{}, nil, errors.New("no archive header")
	}
	hdr, err := checkHeader(obj[:nl], lang)
	if err != nil {
		return hdr, nil, err
	}
	payload := obj[nl+1:]
	if int64(len(payload)) != hdr.Size {
		return hdr, nil, fmt.Errorf("truncated: %d bytes, header says %d", len(payload), hdr.Size)
	}
	if sum := sha256.Sum256(payload); hex.EncodeToString(sum[:]) != hdr.SHA256 {
		return hdr, nil, errors.New("checksum mismatch")
	}
	return hdr, payload, nil
}

const manifestName = "manifest.json"

// tarIndex archives the bleve directory dir (its files under "index/")
// and the manifest.
func tarIndex(dir string, manifest map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: "index/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	m, err := json.Marshal(manifest)
	if err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o644, Size: int64(len(m)), Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(m); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// untarIndex unpacks an archive's index into dir and returns its
// manifest.
func untarIndex(payload io.Reader, dir string) (map[string]string, error) {
	tr := tar.NewReader(bufio.NewReader(payload))
	var manifest map[string]string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("unexpected entry %q", h.Name)
		}
		if h.Name == manifestName {
			if err := json.NewDecoder(tr).Decode(&manifest); err != nil {
				return nil, fmt.Errorf("manifest: %w", err)
			}
			continue
		}
		rel, ok := strings.CutPrefix(h.Name, "index/")
		if !ok || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return nil, fmt.Errorf("unexpected entry %q", h.Name)
		}
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	if manifest == nil {
		return nil, errors.New("no manifest")
	}
	return manifest, nil
}

// copyIndex copies idx into a new temporary directory (publish removes
// it and its parent).
func copyIndex(idx bleve.Index) (string, error) {
	copier, ok := idx.(bleve.IndexCopyable)
	if !ok {
		return "", errors.New("search index cannot be copied")
	}
	tmp, err := os.MkdirTemp("", "folio-search-publish-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "idx")
	if err := copier.CopyTo(bleve.FileSystemDirectory(dir)); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return dir, nil
}

// mergeCopy merges the segments of the index copied into dir (by
// copyIndex) into one, in a new copy it returns; dir is removed. A fresh
// box then opens one segment: scorch merges the segments of an index it
// opens from disk in the background, and a build leaves one per batch (a
// hundred at 100k files: seconds of CPU on a box that just started, with
// the first searches, rather than once on the box that publishes).
func mergeCopy(ctx context.Context, dir string) (string, error) {
	idx, err := bleve.OpenUsing(dir, map[string]any{"unsafe_batch": true, "bolt_timeout": "1s"})
	if err != nil {
		return "", err
	}
	merged, err := func() (string, error) {
		adv, err := idx.Advanced()
		if err != nil {
			return "", err
		}
		sc, ok := adv.(*scorch.Scorch)
		if !ok {
			return "", errors.New("search index is not a scorch index")
		}
		if err := sc.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
			return "", err
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		// The merged segment only: the merged ones are still in dir.
		return copyIndex(idx)
	}()
	if cerr := idx.Close(); err == nil && cerr != nil {
		os.RemoveAll(filepath.Dir(merged))
		err = cerr
	}
	if err != nil {
		return "", err
	}
	os.RemoveAll(filepath.Dir(dir))
	return merged, nil
}

// staleDoc stands, in the documents of an index fetched from the
// bucket, for one that differs from the snapshot's (or that the snapshot
// lacks): apply re-indexes (or deletes) it.
type staleDoc struct{ id string }

// prefetched is what a fresh box's prefetch found: the store's lock
// (lockErr when another process holds it), a kept copy (then nothing is
// fetched: restore opens it if it holds the commit), or the newest
// snapshot of any language in the bucket, unpacked.
type prefetched struct {
	lockErr error
	kept    bool
	// listed: the bucket's pointers were read; folder is the one of
	// the newest snapshot ("" when there is none), fetched (ok) or not
	// (err).
	listed bool
	folder string
	ok     bool
	f      fetchedIndex
	err    error
}

// prefetch runs from NewContentIndex, while the engine parses the site:
// it takes the store's lock and, when the store keeps no copy (a fresh
// box), downloads and unpacks the newest snapshot in the bucket, of
// whatever language (the site's is not known before its folio.yaml is
// read), so that the index is there when the first snapshot is.
func (ci *ContentIndex) prefetch() {
	defer ci.bg.Done()
	var pf prefetched
	defer func() { ci.pre <- pf }()
	if pf.lockErr = ci.store.acquire(); pf.lockErr != nil {
		return
	}
	if _, ok := ci.store.current(); ok {
		pf.kept = true
		return
	}
	ctx, cancel := ci.untilClosed(context.WithTimeout(context.Background(), remoteFetchTimeout))
	defer cancel()
	p, folder, err := ci.remote.newestPointer(ctx)
	if err != nil {
		pf.err = err
		return
	}
	pf.listed, pf.folder = true, folder
	if folder == "" {
		return
	}
	pf.f, pf.err = ci.remote.fetchKey(ctx, p.Key, ci.store.dir, anyLanguage)
	pf.ok = pf.err == nil
}

// startFromStore takes the store and opens the index of s it keeps, or
// the bucket's (prefetched, or fetched now for s's language); false when
// the caller builds.
func (ci *ContentIndex) startFromStore(s *Snapshot) bool {
	pf := prefetched{lockErr: errors.New("no prefetch")}
	if ci.pre != nil {
		select {
		case pf = <-ci.pre:
		case <-ci.done:
			return true // stopping: nothing to build
		}
	} else {
		pf.lockErr = ci.store.acquire()
	}
	if pf.lockErr != nil {
		ci.log.Warn("kept search index not used: this process builds its own", "dir", ci.store.dir, "err", pf.lockErr)
		ci.store = nil
		return false
	}
	lang := s.Site.Config.Language
	if ci.restore(s) {
		if pf.ok {
			os.RemoveAll(pf.f.dir)
		}
		return true
	}
	if ci.remote == nil {
		return false
	}
	folder, err := remoteDir(lang)
	if err != nil {
		return false
	}
	switch {
	case pf.ok && pf.f.hdr.Lang == lang:
		return ci.useFetched(s, pf.f)
	case pf.ok:
		os.RemoveAll(pf.f.dir) // another language's: fetch this one's
	case pf.listed && (pf.folder == "" || pf.folder == folder):
		// No snapshot at all, or this language's newest failed.
		if pf.err != nil {
			ci.log.Warn("search index from the bucket not used: this box builds its own", "err", pf.err)
		}
		return false
	}
	return ci.fetchRemote(s)
}

// fetchRemote opens the newest snapshot of s's language in the bucket
// and brings it up to s; false when there is none or it cannot be used
// (the caller builds, as without a bucket).
func (ci *ContentIndex) fetchRemote(s *Snapshot) bool {
	lang := s.Site.Config.Language
	ctx, cancel := ci.untilClosed(context.WithCancel(context.Background()))
	defer cancel()
	dir, commit, manifest, ok, err := ci.remote.fetch(ctx, ci.store.dir, lang)
	if err != nil {
		ci.log.Warn("search index from the bucket not used: this box builds its own", "err", err)
	}
	if !ok {
		return false
	}
	return ci.useFetched(s, fetchedIndex{dir: dir, hdr: archiveHeader{Commit: commit, Lang: lang}, manifest: manifest})
}

// useFetched opens an index fetched from the bucket, of s's language,
// and brings it up to s; false when it cannot be used (it is removed).
func (ci *ContentIndex) useFetched(s *Snapshot, f fetchedIndex) bool {
	lang, dir, commit, manifest := s.Site.Config.Language, f.dir, f.hdr.Commit, f.manifest
	idx, err := bleve.OpenUsing(dir, map[string]any{"unsafe_batch": true, "bolt_timeout": "1s"})
	if err != nil {
		os.RemoveAll(dir)
		ci.log.Warn("search index from the bucket not used: this box builds its own", "commit", commit, "err", err)
		return false
	}
	docs := map[string]any{}
	if commit == s.Commit {
		eachDoc(s, func(id string, d any) { docs[id] = d })
	} else {
		refs := newRefSkipper(s)
		eachDoc(s, func(id string, d any) {
			if h, ok := manifest[id]; ok && h == docHash(d, refs) {
				docs[id] = d
			}
		})
		for id := range manifest {
			if _, ok := docs[id]; !ok {
				docs[id] = &staleDoc{id: id}
			}
		}
		if err := ci.apply(idx, docs, s); err != nil {
			idx.Close()
			os.RemoveAll(dir)
			if !errors.Is(err, errIndexStopped) {
				ci.log.Warn("search index from the bucket not used: this box builds its own", "commit", commit, "err", err)
			}
			return false
		}
	}
	if commit == s.Commit {
		// Unchanged and of the box's commit: the store's copy, as if
		// restored (the first change forgets it), rather than copied
		// again when the box stops.
		if err := ci.store.adopt(filepath.Base(dir), commit, lang); err != nil {
			ci.log.Warn("keep search index", "err", err)
		} else {
			ci.restored = true
		}
	}
	ci.idxMu.Lock()
	ci.idx, ci.lang, ci.docs = idx, lang, docs
	ci.idxMu.Unlock()
	ci.fetched, ci.batches = true, 1
	ci.setApplied(s)
	return true
}

// publishRemote copies the index, which holds s, and publishes the copy
// in the background.
func (ci *ContentIndex) publishRemote(s *Snapshot) {
	if ci.remote.fetchOnly {
		return
	}
	ci.idxMu.RLock()
	dir, err := copyIndex(ci.idx)
	docs := make(map[string]any, len(ci.docs))
	for id, d := range ci.docs {
		docs[id] = d
	}
	lang := ci.lang
	ci.idxMu.RUnlock()
	if err != nil {
		ci.log.Warn("publish search index", "err", err)
		return
	}
	ci.bg.Add(1)
	go func() {
		defer ci.bg.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-ci.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		if merged, err := mergeCopy(ctx, dir); err != nil {
			ci.log.Warn("publish search index: not merged", "err", err)
		} else {
			dir = merged
		}
		if _, err := ci.remote.publish(ctx, dir, s.Commit, lang, docs, newRefSkipper(s)); err != nil {
			ci.log.Warn("publish search index", "commit", s.Commit, "err", err)
			return
		}
		ci.published.Add(1)
	}()
}

// untilClosed is ctx, also cancelled when the index closes.
func (ci *ContentIndex) untilClosed(ctx context.Context, cancel context.CancelFunc) (context.Context, context.CancelFunc) {
	go func() {
		select {
		case <-ci.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
