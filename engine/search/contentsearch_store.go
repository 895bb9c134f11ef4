package search

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/folio-cms/folio/engine/internal/atomicfile"
)

// The published branch's search index outlives a restart: Close copies
// it into the cache directory when it holds the served commit, and the
// next start on that same commit opens the copy instead of indexing every
// document again (a minute at 100k files). A start on another commit, or
// another language, mapping or format, builds afresh as before; a start
// on the same commit after a crash, or after a copy cut short, too. The
// copy is a bleve index on disk; its documents are the same as a build's,
// because every document of a commit indexes the same way at any time
// (see searchDocOf: the visibility it stores never depends on when it
// was indexed beyond what the instants in it decide at search time).
//
// Layout, in Config.CacheDir:
//
//	search-<hash of site and branch>/current.json  which copy, of what
//	search-<hash of site and branch>/idx-<n>/      bleve index directories
//	search-<hash of site and branch>/lock          held by the one process using them
//
// current.json is replaced by a rename after its copy is complete, so it
// never names a partial copy, and removed before the first change to an
// index opened from the copy, so it never names a copy that holds
// another commit; directories it does not name are removed when folio
// stops (a crash's leftovers, at the next stop).

// searchStoreFormat changes whenever what the index holds of a document
// (searchDocOf, docText) changes in a way the mapping does not show: a
// copy of another format is not used.
const searchStoreFormat = 2 // 2: reference values are not indexed

// searchStore keeps the copies of one branch's index under dir. One
// process at a time uses it (acquire): two folio processes on one cache
// directory (a deploy that starts the new one before it stops the old)
// must not open one copy in place, nor remove the directory the other
// one's index lives in; the second one builds in memory as without a
// store.
type searchStore struct {
	dir  string
	lock *os.File // held from acquire to release
}

// acquire takes the store's lock without waiting; an error when another
// process holds it or it cannot be had.
func (st *searchStore) acquire() error {
	if err := os.MkdirAll(st.dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(st.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errors.New("another folio process on this cache directory uses it")
		}
		return err
	}
	st.lock = f
	return nil
}

// release gives the lock back (closing the file releases it).
func (st *searchStore) release() {
	if st.lock != nil {
		st.lock.Close()
		st.lock = nil
	}
}

// storedIndex is current.json.
type storedIndex struct {
	Format  int    `json:"format"`
	Mapping string `json:"mapping"` // hash of the index mapping's JSON
	Commit  string `json:"commit"`
	Lang    string `json:"lang"`
	Dir     string `json:"dir"`
}

func (st *searchStore) currentFile() string { return filepath.Join(st.dir, "current.json") }

// mappingHash names the mapping of a language's index.
func mappingHash(lang string) (string, error) {
	im, err := newContentMapping(lang)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(im)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// current reads current.json; ok is false when there is none or it
// cannot be read.
func (st *searchStore) current() (storedIndex, bool) {
	var cur storedIndex
	b, err := os.ReadFile(st.currentFile())
	if err != nil || json.Unmarshal(b, &cur) != nil || cur.Dir == "" || strings.ContainsAny(cur.Dir, `/\`) {
		return storedIndex{}, false
	}
	return cur, true
}

// open opens the stored copy when it holds commit in lang; nil when there
// is no such copy (or it cannot be opened: the caller builds instead).
func (st *searchStore) open(commit, lang string) (bleve.Index, error) {
	cur, ok := st.current()
	if !ok || cur.Format != searchStoreFormat || cur.Commit != commit || cur.Lang != lang {
		return nil, nil
	}
	mh, err := mappingHash(lang)
	if err != nil || mh != cur.Mapping {
		return nil, err
	}
	// unsafe_batch: a push's batch does not wait for its fsync. A copy
	// that lost its last batches in a crash is not used anyway: the
	// first batch removes current.json (invalidate).
	// bolt_timeout: never wait long for the bolt file's lock (the
	// store's own lock should make that impossible).
	idx, err := bleve.OpenUsing(filepath.Join(st.dir, cur.Dir), map[string]any{"unsafe_batch": true, "bolt_timeout": "1s"})
	if err != nil {
		return nil, fmt.Errorf("open stored search index: %w", err)
	}
	return idx, nil
}

// invalidate forgets the current copy: an index opened from it is about
// to change.
func (st *searchStore) invalidate() error {
	if err := os.Remove(st.currentFile()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// save copies idx, which holds commit in lang, into a new directory and
// makes it the current copy. The directory idx was opened from, if any,
// is left to removeAllBut.
func (st *searchStore) save(idx bleve.Index, commit, lang string) error {
	copier, ok := idx.(bleve.IndexCopyable)
	if !ok {
		return errors.New("search index cannot be copied")
	}
	if _, err := mappingHash(lang); err != nil {
		return err
	}
	if err := os.MkdirAll(st.dir, 0o755); err != nil {
		return err
	}
	name := "idx-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := copier.CopyTo(bleve.FileSystemDirectory(filepath.Join(st.dir, name))); err != nil {
		os.RemoveAll(filepath.Join(st.dir, name))
		return fmt.Errorf("copy search index: %w", err)
	}
	return st.adopt(name, commit, lang)
}

// adopt makes the index directory name in the store, which holds commit
// in lang, the current copy.
func (st *searchStore) adopt(name, commit, lang string) error {
	mh, err := mappingHash(lang)
	if err != nil {
		return err
	}
	b, err := json.Marshal(storedIndex{Format: searchStoreFormat, Mapping: mh, Commit: commit, Lang: lang, Dir: name})
	if err != nil {
		return err
	}
	return atomicfile.Write(st.currentFile(), b)
}

// removeAllBut removes the index directories other than keep.
func (st *searchStore) removeAllBut(keep string) {
	ents, err := os.ReadDir(st.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "idx-") && e.Name() != keep {
			os.RemoveAll(filepath.Join(st.dir, e.Name()))
		}
	}
}
