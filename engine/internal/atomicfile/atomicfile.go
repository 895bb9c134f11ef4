// Package atomicfile writes a file so that a crash leaves the old content
// or the new one, never a part: the engine's parse cache and the search
// index's store use it.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside name, syncs it and
// renames it over name.
func Write(name string, data []byte) error {
	return WriteFunc(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write of what write writes (buffered), so that a large
// file need not be held whole; an error of write leaves name as it was.
func WriteFunc(name string, write func(io.Writer) error) error {
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
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
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
