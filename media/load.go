package media

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

var (
	yearRe  = regexp.MustCompile(`^[0-9]{4}$`)
	monthRe = regexp.MustCompile(`^[0-9]{2}$`)
)

// monthDirs lists the "<yyyy>/<mm>" folders under the media root.
func (l *Library) monthDirs() ([]string, error) {
	years, err := fs.ReadDir(l.root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("media: read root: %w", err)
	}
	var out []string
	for _, y := range years {
		if !y.IsDir() || !yearRe.MatchString(y.Name()) {
			continue
		}
		months, err := fs.ReadDir(l.root.FS(), y.Name())
		if err != nil {
			return nil, fmt.Errorf("media: read %s: %w", y.Name(), err)
		}
		for _, m := range months {
			if m.IsDir() && monthRe.MatchString(m.Name()) {
				out = append(out, y.Name()+"/"+m.Name())
			}
		}
	}
	return out, nil
}

// load rebuilds the index from the sidecars, then settles what a crash
// may have left behind: interrupted writes (intents) and orphans. Its
// steps: list the sidecar files (sidecarFiles), read them, through the
// index cache (readSidecars, saveCache), index what parsed (indexSidecars),
// then, on a writer, settle the intents and sweep the orphans, keeping the
// files of the sidecars that did not parse (keptFiles).
func (l *Library) load(ctx context.Context) error {
	if err := l.loadFolders(); err != nil {
		return err
	}
	months, err := l.monthDirs()
	if err != nil {
		return err
	}
	files, err := l.sidecarFiles(months)
	if err != nil {
		return err
	}
	cache := l.readCache()
	reads, err := l.readSidecars(ctx, files, cache)
	if err != nil {
		return err
	}
	if !l.cfg.ReadOnly {
		l.saveCache(files, reads, len(cache))
	}
	l.indexSidecars(files, reads)
	if l.cfg.ReadOnly {
		return nil
	}
	if err := l.settleIntents(ctx); err != nil {
		return err
	}
	keep, stems := keptFiles(files, reads)
	return l.sweepLocal(ctx, months, keep, stems)
}

// sidecarFiles lists the sidecar files of the month folders, relative to
// the root, and removes the temporary files of sidecar writes a crash
// interrupted before their rename (on a writer).
func (l *Library) sidecarFiles(months []string) ([]string, error) {
	var files []string
	for _, m := range months {
		names, err := l.readNames(m + "/" + metaDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("media: read %s: %w", m, err)
		}
		for _, name := range names {
			switch {
			case strings.HasPrefix(name, ".tmp-"):
				if !l.cfg.ReadOnly {
					l.root.Remove(filepath.FromSlash(m + "/" + metaDir + "/" + name))
				}
			case strings.HasSuffix(name, ".yaml") && !strings.HasPrefix(name, "."):
				// Not-regular files are refused by lstat in readSidecar.
				files = append(files, m+"/"+metaDir+"/"+name)
			}
		}
	}
	return files, nil
}

// sidecarRead is what load learnt of one sidecar file.
type sidecarRead struct {
	item    *Item      // nil when unreadable or corrupt
	corrupt bool       // the file is there but does not parse
	stamp   cacheEntry // the file's stamp and item, for the cache
	fresh   bool       // parsed now rather than taken from the cache
}

// readSidecars reads and parses the sidecar files, skipping those the
// cache holds unchanged. Reading and parsing is the cost of a start, so
// it is spread over the cores; results land by position, with no lock.
func (l *Library) readSidecars(ctx context.Context, files []string, cache map[string]cacheEntry) ([]sidecarRead, error) {
	reads := make([]sidecarRead, len(files))
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				reads[i] = l.readSidecar(files[i], cache)
			}
		})
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return reads, ctx.Err()
}

// readSidecar reads one sidecar file, from the cache when its stamp there
// matches the file's. Failures are logged: the item is skipped.
func (l *Library) readSidecar(file string, cache map[string]cacheEntry) sidecarRead {
	fi, err := l.lstat(file)
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		l.log.Error("media: sidecar unreadable; item skipped", "file", file, "err", err)
		return sidecarRead{}
	}
	if e, ok := cache[file]; ok && e.matches(fi) {
		return sidecarRead{item: compacted(&e.Item), stamp: e}
	}
	data, err := l.root.ReadFile(filepath.FromSlash(file))
	if err != nil {
		l.log.Error("media: sidecar unreadable; item skipped", "file", file, "err", err)
		return sidecarRead{}
	}
	it, err := decodeSidecar(file, data)
	if err != nil {
		l.log.Error("media: corrupt sidecar; item skipped", "file", file, "err", err)
		return sidecarRead{corrupt: true}
	}
	// Stamp taken before the read: if the file changed in between, the
	// stamp is stale and the next start parses it.
	size, mtime, ino := fileStamp(fi)
	return sidecarRead{item: compacted(it), stamp: cacheEntry{Size: size, MTime: mtime, Ino: ino, Item: *it}, fresh: true}
}

// saveCache rewrites the index cache when the sidecars read differ from
// what it held (cached is how many entries it had).
func (l *Library) saveCache(files []string, reads []sidecarRead, cached int) {
	rewrite := cached != len(files)
	entries := make(map[string]cacheEntry, len(files))
	for i := range files {
		if reads[i].item != nil {
			entries[files[i]] = reads[i].stamp
			rewrite = rewrite || reads[i].fresh
		}
	}
	if rewrite {
		l.writeCache(entries)
	}
}

// indexSidecars makes the index the items read, skipping an item whose id
// or files another item has already.
func (l *Library) indexSidecars(files []string, reads []sidecarRead) {
	l.items = make(map[string]*Item, len(files))
	l.claimed = make(map[string]string, len(files)*(1+len(DerivativeWidths)))
	for i, r := range reads {
		it := r.item
		if it == nil {
			continue
		}
		if prev, dup := l.items[it.ID]; dup {
			l.log.Error("media: duplicate id; sidecar skipped", "file", files[i], "id", it.ID, "key", prev.Key)
			continue
		}
		conflict := false
		for _, k := range itemKeys(it) {
			if _, taken := l.claimed[claimKey(k)]; taken {
				conflict = true
			}
		}
		if conflict {
			l.log.Error("media: sidecar claims a file another item owns; skipped", "file", files[i], "id", it.ID)
			continue
		}
		l.addLocked(it)
	}
}

// keptFiles names the files of the items whose sidecar did not parse, for
// the sweep to keep: a typo in a hand-edited sidecar must not cost the
// original and its derivatives. keep holds the originals' keys (lower
// case); stems the "<stem>-" of their derivatives, "<stem>-<w>.webp" or
// numbered "<stem>-<n>-<w>.webp" (adopted, or regenerated).
func keptFiles(files []string, reads []sidecarRead) (keep map[string]bool, stems []string) {
	keep = map[string]bool{}
	for i, r := range reads {
		if !r.corrupt {
			continue
		}
		rel := files[i]
		key := path.Dir(path.Dir(rel)) + "/" + strings.TrimSuffix(path.Base(rel), ".yaml")
		keep[claimKey(key)] = true
		stems = append(stems, claimKey(strings.TrimSuffix(key, path.Ext(key))+"-"))
	}
	return keep, stems
}

// localRoot is implemented by storages that keep objects as files under a
// directory (media/local).
type localRoot interface{ Root() string }

// sweepLocal deletes the objects no item claims, when the storage keeps its
// files under the media root: an original whose sidecar a crash never let
// be written, or a derivative left by an interrupted delete. Dotfiles in
// the month folders are temporary files of interrupted writes and go too.
// On other storages the intents do this work for the writes of this
// library (storages cannot be listed through the Storage interface).
func (l *Library) sweepLocal(ctx context.Context, months []string, keep map[string]bool, stems []string) error {
	if !l.sweeps {
		return nil
	}
	for _, m := range months {
		names, err := l.readNames(m)
		if err != nil {
			return fmt.Errorf("media: read %s: %w", m, err)
		}
		for _, name := range names {
			key := m + "/" + name
			switch {
			case strings.HasPrefix(name, ".tmp-"):
				l.root.Remove(filepath.FromSlash(key))
			case strings.HasPrefix(name, "."):
			case l.claimed[claimKey(key)] != "" || keep[claimKey(key)] || keptDerivative(key, stems):
			case !l.isRegular(key):
			default:
				l.log.Warn("media: orphan file removed", "key", key)
				if err := l.cfg.Storage.Delete(ctx, key); err != nil {
					l.log.Error("media: orphan file not removed", "key", key, "err", err)
				}
			}
		}
	}
	return nil
}

// readNames lists the names in a directory under the root without a stat
// per entry: at 100k items the stats of fs.ReadDir are most of a start.
func (l *Library) readNames(dir string) ([]string, error) {
	f, err := l.root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (l *Library) isRegular(key string) bool {
	fi, err := l.lstat(key)
	return err == nil && fi.Mode().IsRegular()
}

// keptDerivative reports whether key is a WebP file named after one of
// stems (the "<stem>-" of an original whose sidecar did not load).
func keptDerivative(key string, stems []string) bool {
	k := claimKey(key)
	if !strings.HasSuffix(k, ".webp") {
		return false
	}
	for _, s := range stems {
		if strings.HasPrefix(k, s) {
			return true
		}
	}
	return false
}
