package media

import (
	"bufio"
	"encoding/gob"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// indexCache is where Open keeps what it parsed, so that the next start
// parses only the sidecars that changed. Parsing YAML costs ~50 µs a
// sidecar (seconds for 100k items); a stat costs a few µs. The cache is
// never trusted for more than "this file, unchanged, parsed to this item":
// a missing, stale or damaged cache only makes a start slower.
const indexCache = ".index.cache"

// cacheVersion changes whenever Item or the cache layout changes.
const cacheVersion = 2

type cacheFile struct {
	Version int
	Entries map[string]cacheEntry // by sidecar path relative to the root
}

// cacheEntry identifies one state of a sidecar. Sidecars are only ever
// replaced by rename, so a changed sidecar is a new inode with a new
// modification time; size is checked as well for hand edits in place.
type cacheEntry struct {
	Size  int64
	MTime int64
	Ino   uint64
	Item  Item
}

func fileStamp(fi fs.FileInfo) (size, mtime int64, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return fi.Size(), fi.ModTime().UnixNano(), ino
}

func (e *cacheEntry) matches(fi fs.FileInfo) bool {
	size, mtime, ino := fileStamp(fi)
	return e.Size == size && e.MTime == mtime && e.Ino == ino
}

func (l *Library) readCache() map[string]cacheEntry {
	f, err := l.root.Open(indexCache)
	if err != nil {
		return nil
	}
	defer f.Close()
	var c cacheFile
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&c); err != nil || c.Version != cacheVersion {
		l.log.Warn("media: index cache unusable; parsing every sidecar", "err", err)
		return nil
	}
	return c.Entries
}

// writeCache replaces the cache. It is written without fsync: a cache torn
// by a crash fails to decode and is ignored.
func (l *Library) writeCache(entries map[string]cacheEntry) {
	tmp := indexCache + ".tmp"
	f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		l.log.Warn("media: index cache not written", "err", err)
		return
	}
	w := bufio.NewWriter(f)
	err = gob.NewEncoder(w).Encode(&cacheFile{Version: cacheVersion, Entries: entries})
	err = errors.Join(err, w.Flush(), f.Close())
	if err == nil {
		err = l.root.Rename(tmp, indexCache)
	}
	if err != nil {
		l.root.Remove(tmp)
		l.log.Warn("media: index cache not written", "err", err)
	}
}

// lstat stats a file under the root by its absolute path: one syscall,
// where os.Root walks every component. It is used only to compare stamps;
// the data itself is read through the root.
func (l *Library) lstat(rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(l.cfg.Root, filepath.FromSlash(rel)))
}

// SaveIndexCache writes the index cache from the sidecars as they are
// now, so that the next Open is fast. Call it when no writes are running
// (at shutdown); Open writes it too after a start that had to parse.
func (l *Library) SaveIndexCache() {
	l.mu.RLock()
	items := make([]*Item, 0, len(l.items))
	for _, it := range l.items {
		items = append(items, it)
	}
	l.mu.RUnlock()
	entries := make(map[string]cacheEntry, len(items))
	for _, it := range items {
		rel := filepath.ToSlash(sidecarPath(it.Key))
		fi, err := l.lstat(rel)
		if err != nil {
			continue
		}
		size, mtime, ino := fileStamp(fi)
		entries[rel] = cacheEntry{Size: size, MTime: mtime, Ino: ino, Item: *it}
	}
	l.writeCache(entries)
}
