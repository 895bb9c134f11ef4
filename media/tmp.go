package media

import (
	"io/fs"
	"os"
	"path/filepath"
)

// tmpDir, under the media root, holds the temporary files of uploads,
// confirms and regenerations.
const tmpDir = ".tmp"

// cleanTmp removes the files left in .tmp by writes a crash interrupted
// (upload, confirm and regenerate temp files). The media root belongs to
// one writer: nothing else writes there while it opens.
func (l *Library) cleanTmp() {
	ents, err := fs.ReadDir(l.root.FS(), tmpDir)
	if err != nil {
		l.log.Warn("media: cannot read the temporary folder", "err", err)
		return
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := l.root.Remove(filepath.Join(tmpDir, e.Name())); err != nil {
			l.log.Warn("media: temporary file not removed", "file", e.Name(), "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		l.log.Info("media: removed temporary files of interrupted writes", "files", n)
	}
}

// TempFile creates a temporary file in the library's temporary folder
// (on the media root's disk, removed at the next start if left there):
// for a caller that spools an upload before it gives it to Create.
func (l *Library) TempFile(pattern string) (*os.File, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	return os.CreateTemp(filepath.Join(l.cfg.Root, tmpDir), pattern)
}
