// Package atomicfile writes a file so that a crash leaves the old content
// or the new one, never a part: the engine's parse cache and the search
// index's store use it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside name, syncs it and
// renames it over name.
func Write(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable; not all systems allow it
		d.Close()
	}
	return nil
}
