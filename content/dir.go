package content

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ReadDir reads and parses the content files (see Relevant) of a folder
// as they are on disk, in path order, each with its modification time as
// Updated. Folders starting with "." (.git) are not entered; symbolic
// links are not followed.
func ReadDir(dir string) ([]File, error) {
	files, err := readDir(dir, Relevant)
	if err != nil {
		return nil, err
	}
	// a site whose locales read content from folders outside content/
	// (Hugo's contentDir = "content_fr"): those files too
	if dirs := ContentDirs(files); len(dirs) > 0 {
		return readDir(dir, func(p string) bool { return RelevantIn(p, dirs) })
	}
	return files, nil
}

func readDir(dir string, relevant func(string) bool) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !relevant(rel) {
			return nil
		}
		f := File{Path: rel}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f.Updated = info.ModTime().UTC()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			f.Err = Problem{Path: rel, Message: "symlink not followed"}
		case !d.Type().IsRegular():
			return nil
		case info.Size() > MaxFileSize:
			f.Err = Problem{Path: rel, Message: fmt.Sprintf("file is %d bytes, larger than the %d byte limit; not read", info.Size(), MaxFileSize)}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.Doc, f.Err = Parse(rel, data)
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return files, nil
}
