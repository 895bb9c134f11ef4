package media

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A library of an earlier release kept its state on the media root, beside
// its files: one sidecar per item at <yyyy>/<mm>/.meta/<name>.yaml, the
// explicitly created folders in .folders.yaml. The first Open of a writer
// moves it into the state store (migrate.go); this file reads it, and
// writes nothing.
const (
	// metaDir is the folder, beside the originals of a month, that held
	// their sidecars.
	metaDir = ".meta"
	// foldersFile listed the explicitly created folders.
	foldersFile = ".folders.yaml"
)

var (
	yearRe  = regexp.MustCompile(`^[0-9]{4}$`)
	monthRe = regexp.MustCompile(`^[0-9]{2}$`)
)

// readLegacy reads the library an earlier release kept on root: the items
// of every sidecar that parses (the others are logged and skipped, as is
// an item whose id or files another has already), and the explicit
// folders.
func readLegacy(ctx context.Context, root *os.Root, log interface {
	Error(string, ...any)
	Warn(string, ...any)
}) (items []*Item, folders []string, err error) {
	folders, err = readLegacyFolders(root, log)
	if err != nil {
		return nil, nil, err
	}
	months, err := monthDirs(root)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, m := range months {
		names, err := readNames(root, m+"/"+metaDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("media: read %s: %w", m, err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, ".yaml") && !strings.HasPrefix(name, ".") {
				files = append(files, m+"/"+metaDir+"/"+name)
			}
		}
	}
	read := make([]*Item, len(files))
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				read[i] = readLegacySidecar(root, files[i], log)
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
		return nil, nil, err
	}
	ids := map[string]bool{}
	claimed := map[string]bool{}
	for i, it := range read {
		if it == nil {
			continue
		}
		if ids[it.ID] {
			log.Error("media: duplicate id; sidecar skipped", "file", files[i], "id", it.ID)
			continue
		}
		conflict := false
		for _, k := range itemKeys(it) {
			conflict = conflict || claimed[claimKey(k)]
		}
		if conflict {
			log.Error("media: sidecar claims a file another item owns; skipped", "file", files[i], "id", it.ID)
			continue
		}
		ids[it.ID] = true
		for _, k := range itemKeys(it) {
			claimed[claimKey(k)] = true
		}
		items = append(items, it)
	}
	return items, folders, nil
}

// readLegacySidecar reads and checks one sidecar file; nil when it is
// unreadable or does not parse (logged).
func readLegacySidecar(root *os.Root, file string, log interface{ Error(string, ...any) }) *Item {
	fi, err := root.Lstat(filepath.FromSlash(file))
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	var data []byte
	if err == nil {
		data, err = root.ReadFile(filepath.FromSlash(file))
	}
	if err != nil {
		log.Error("media: sidecar unreadable; item skipped", "file", file, "err", err)
		return nil
	}
	it, err := decodeSidecar(file, data)
	if err != nil {
		log.Error("media: corrupt sidecar; item skipped", "file", file, "err", err)
		return nil
	}
	return it
}

// readLegacyFolders reads .folders.yaml; a list that does not parse loses
// only empty folders (the folders of items come from the sidecars): it is
// logged and ignored.
func readLegacyFolders(root *os.Root, log interface {
	Error(string, ...any)
	Warn(string, ...any)
}) ([]string, error) {
	data, err := root.ReadFile(foldersFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("media: read %s: %w", foldersFile, err)
	}
	var doc struct {
		Folders []string `yaml:"folders"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		log.Error("media: folder list does not parse; explicit folders ignored", "file", foldersFile, "err", err)
		return nil, nil
	}
	var out []string
	for _, p := range doc.Folders {
		c, err := CleanFolder(p)
		if err != nil || c == RootFolder {
			log.Warn("media: invalid folder in folder list skipped", "folder", p)
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// decodeSidecar parses a sidecar found at rel (relative to the media root,
// slash-separated: "2026/11/.meta/a.jpg.yaml") and checks that it is
// consistent with its place, so that a sidecar edited by hand or copied
// elsewhere can never claim a key outside its own month folder.
func decodeSidecar(rel string, data []byte) (*Item, error) {
	var it Item
	if err := unmarshalSidecar(data, &it); err != nil {
		return nil, err
	}
	monthDir := path.Dir(path.Dir(rel))
	wantKey := monthDir + "/" + strings.TrimSuffix(path.Base(rel), ".yaml")
	if ValidID(it.ID) && it.Key != wantKey {
		return nil, fmt.Errorf("key %q does not match the sidecar's place (%q)", it.Key, wantKey)
	}
	if err := checkItem(&it); err != nil {
		return nil, err
	}
	return &it, nil
}

// monthDirs lists the "<yyyy>/<mm>" folders under the media root.
func monthDirs(root *os.Root) ([]string, error) {
	years, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("media: read root: %w", err)
	}
	var out []string
	for _, y := range years {
		if !y.IsDir() || !yearRe.MatchString(y.Name()) {
			continue
		}
		months, err := fs.ReadDir(root.FS(), y.Name())
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

// readNames lists the names in a directory under the root without a stat
// per entry.
func readNames(root *os.Root, dir string) ([]string, error) {
	f, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
