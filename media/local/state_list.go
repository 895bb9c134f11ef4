package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/folio-cms/folio/media"
)

// List walks the directories under prefix. Keys are gathered and sorted
// before fn sees them, since a walk's order is not the keys' ("a/b" is
// walked before "a-c", which sorts first). A directory read in an
// os.Root stats every entry (fstatat on the directory), and that stat
// gives the tag: one system call per object, where a second stat by name
// after the walk doubled them (about a third of a start's reconcile).
func (st *State) List(ctx context.Context, prefix, startAfter string, fn func(media.StateObject) error) error {
	return st.list(ctx, prefix, startAfter, true, func(key string, fi fs.FileInfo) error {
		return fn(media.StateObject{Key: key, ETag: tagOf(fi), LastModified: fi.ModTime()})
	})
}

// ListKeys calls fn for every key under prefix, in key order, until fn
// returns an error: List without the tags, so without a stat per object
// (the directory entries say which are files). A start without a
// checkpoint reads every sidecar anyway, and takes the tag from the open
// file.
func (st *State) ListKeys(ctx context.Context, prefix string, fn func(key string) error) error {
	return st.list(ctx, prefix, "", false, func(key string, _ fs.FileInfo) error { return fn(key) })
}

// list is List, with each object's stat when withInfo (nil otherwise).
func (st *State) list(ctx context.Context, prefix, startAfter string, withInfo bool, fn func(key string, fi fs.FileInfo) error) error {
	base := "."
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		base = prefix[:i]
	}
	type listed struct {
		key string
		fi  fs.FileInfo
	}
	var keys []listed
	root, err := st.readRoot()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no writer made it yet: empty
	}
	if err != nil {
		return st.wrap("list", prefix, err)
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := root.Open(filepath.FromSlash(dir))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		ents, err := readDir(f, withInfo)
		f.Close()
		if err != nil {
			return err
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			key := e.Name()
			if dir != "." {
				key = dir + "/" + e.Name()
			}
			switch {
			case e.IsDir():
				// Only directories that can hold keys under the prefix.
				if strings.HasPrefix(key+"/", prefix) || strings.HasPrefix(prefix, key+"/") {
					if err := walk(key); err != nil {
						return err
					}
				}
			case e.Type().IsRegular() && strings.HasPrefix(key, prefix) && key > startAfter:
				if !withInfo {
					keys = append(keys, listed{key: key})
					continue
				}
				fi, err := e.Info()
				if errors.Is(err, fs.ErrNotExist) {
					continue // deleted since the directory was read
				}
				if err != nil {
					return err
				}
				keys = append(keys, listed{key, fi})
			}
		}
		return nil
	}
	if err := walk(base); err != nil {
		return st.wrap("list", prefix, err)
	}
	slices.SortFunc(keys, func(a, b listed) int { return strings.Compare(a.key, b.key) })
	for _, k := range keys {
		if err := fn(k.key, k.fi); err != nil {
			return err
		}
	}
	return nil
}

// readDir reads the directory f (opened in the root). A directory opened
// in an os.Root stats every entry as it reads it; without withInfo the
// entries come from a copy of its descriptor outside the root, whose
// entries have their types from the directory read itself (d_type) and
// stat only when asked for their Info.
func readDir(f *os.File, withInfo bool) ([]fs.DirEntry, error) {
	if withInfo {
		return f.ReadDir(-1)
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(fd), f.Name())
	defer d.Close()
	return d.ReadDir(-1)
}
