package media

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media/internal/objkey"
)

// metaDir is the folder, beside the originals of a month, that holds their
// sidecars. It begins with a dot, so it is never a valid storage key and is
// never served.
const metaDir = ".meta"

// sidecarPath is the path, relative to the media root, of the sidecar of
// the original at key: "2026/11/a.jpg" → "2026/11/.meta/a.jpg.yaml".
func sidecarPath(key string) string {
	dir, name := path.Split(key)
	return filepath.FromSlash(dir + metaDir + "/" + name + ".yaml")
}

// writeFileAtomic writes data to name under root so that name holds either
// its old content or the new one after a crash: temporary file beside it,
// fsync, rename, fsync of the directory. Missing directories are created
// and made durable too.
func writeFileAtomic(root *os.Root, name string, data []byte) (err error) {
	dir := filepath.Dir(name)
	if err := mkdirDurable(root, dir); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".tmp-"+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = root.Rename(tmp, name); err != nil {
		return err
	}
	return syncDir(root, dir)
}

// removeDurable removes name and syncs its directory, so the removal
// survives a crash before anything that depends on it happens.
func removeDurable(root *os.Root, name string) error {
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(root, filepath.Dir(name))
}

func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// mkdirDurable creates dir and its missing parents, syncing the parent of
// each directory it creates so that the new entry survives a crash.
func mkdirDurable(root *os.Root, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if fi, err := root.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	parent := filepath.Dir(dir)
	if err := mkdirDurable(root, parent); err != nil {
		return err
	}
	if err := root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(root, parent)
}

func encodeSidecar(it *Item) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(it); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeSidecar parses a sidecar found at rel (relative to the media root,
// slash-separated: "2026/11/.meta/a.jpg.yaml") and checks that it is
// consistent with its place, so that a sidecar edited by hand or copied
// elsewhere can never claim a key outside its own month folder.
func decodeSidecar(rel string, data []byte) (*Item, error) {
	var it Item
	if err := yaml.Unmarshal(data, &it); err != nil {
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

// checkItem checks what a sidecar says of its item wherever it comes from
// (a local sidecar, the bucket, a log entry, a checkpoint): a valid id and
// key, a size, a folder (cleaned in place), derivatives beside the
// original.
func checkItem(it *Item) error {
	switch {
	case !ValidID(it.ID):
		return fmt.Errorf("invalid id %q", it.ID)
	case objkey.Check(it.Key) != nil:
		return fmt.Errorf("invalid key %q", it.Key)
	case it.Size < 0:
		return fmt.Errorf("negative size")
	}
	folder, err := CleanFolder(it.Folder)
	if err != nil {
		return fmt.Errorf("folder %q: %v", it.Folder, err)
	}
	it.Folder = folder
	if err := checkItemLocales(it); err != nil {
		return err
	}
	for _, s := range it.Sizes {
		if objkey.Check(s.Key) != nil || path.Dir(s.Key) != path.Dir(it.Key) {
			return fmt.Errorf("invalid derivative key %q", s.Key)
		}
	}
	return nil
}
