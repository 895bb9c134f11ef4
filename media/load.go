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
// may have left behind: interrupted writes (intents) and orphans.
func (l *Library) load(ctx context.Context) error {
	if err := l.loadFolders(); err != nil {
		return err
	}
	months, err := l.monthDirs()
	if err != nil {
		return err
	}
	var files []string
	for _, m := range months {
		names, err := l.readNames(m + "/" + metaDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("media: read %s: %w", m, err)
		}
		for _, name := range names {
			switch {
			case strings.HasPrefix(name, ".tmp-"):
				// A sidecar write a crash interrupted before its rename.
				if l.cfg.ReadOnly {
					continue
				}
				l.root.Remove(filepath.FromSlash(m + "/" + metaDir + "/" + name))
			case strings.HasSuffix(name, ".yaml") && !strings.HasPrefix(name, "."):
				// Not-regular files are refused by lstat in the workers.
				files = append(files, m+"/"+metaDir+"/"+name)
			}
		}
	}
	l.items = make(map[string]*Item, len(files))
	l.claimed = make(map[string]string, len(files)*(1+len(DerivativeWidths)))

	// Reading and parsing is the cost of a start; spread it over the cores,
	// and skip the sidecars the cache holds unchanged. Results land in
	// slices by position, so no lock is needed.
	cache := l.readCache()
	parsed := make([]*Item, len(files))
	corrupt := make([]bool, len(files))
	stamps := make([]cacheEntry, len(files))
	fresh := make([]bool, len(files))
	workers := 2 * runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for range workers {
		wg.Go(func() {
			for i := range next {
				fi, err := l.lstat(files[i])
				if err == nil && !fi.Mode().IsRegular() {
					err = errors.New("not a regular file")
				}
				if err != nil {
					l.log.Error("media: sidecar unreadable; item skipped", "file", files[i], "err", err)
					continue
				}
				if e, ok := cache[files[i]]; ok && e.matches(fi) {
					parsed[i] = compacted(&e.Item)
					stamps[i] = e
					continue
				}
				data, err := l.root.ReadFile(filepath.FromSlash(files[i]))
				if err != nil {
					l.log.Error("media: sidecar unreadable; item skipped", "file", files[i], "err", err)
					continue
				}
				it, err := decodeSidecar(files[i], data)
				if err != nil {
					l.log.Error("media: corrupt sidecar; item skipped", "file", files[i], "err", err)
					corrupt[i] = true
					continue
				}
				parsed[i] = compacted(it)
				// Stamp taken before the read: if the file changed in
				// between, the stamp is stale and the next start parses it.
				size, mtime, ino := fileStamp(fi)
				stamps[i] = cacheEntry{Size: size, MTime: mtime, Ino: ino, Item: *it}
				fresh[i] = true
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
	if err := ctx.Err(); err != nil {
		return err
	}
	rewrite := len(cache) != len(files)
	entries := make(map[string]cacheEntry, len(files))
	for i := range files {
		if parsed[i] != nil {
			entries[files[i]] = stamps[i]
			rewrite = rewrite || fresh[i]
		}
	}
	if rewrite && !l.cfg.ReadOnly {
		l.writeCache(entries)
	}
	for i, it := range parsed {
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

	// The files of an item whose sidecar is skipped are kept: a typo in a
	// hand-edited sidecar must not cost the original and its derivatives.
	keep := map[string]bool{}
	var stems []string
	for i, c := range corrupt {
		if !c {
			continue
		}
		rel := files[i]
		key := path.Dir(path.Dir(rel)) + "/" + strings.TrimSuffix(path.Base(rel), ".yaml")
		keep[claimKey(key)] = true
		// Its derivatives: "<stem>-<w>.webp", or numbered
		// "<stem>-<n>-<w>.webp" (adopted, or regenerated).
		stems = append(stems, claimKey(strings.TrimSuffix(key, path.Ext(key))+"-"))
	}

	if l.cfg.ReadOnly {
		return nil
	}
	if err := l.settleIntents(ctx); err != nil {
		return err
	}
	if err := l.sweepLocal(ctx, months, keep, stems); err != nil {
		return err
	}
	return nil
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
