package decap

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
)

// docOf names the document a repository path holds: an item of
// content/<type>/, a page of pages/, the globals file.
func docOf(p string) (write.Doc, bool) {
	ext := path.Ext(p)
	switch ext {
	case ".md", ".markdown", ".yaml", ".yml", ".json", ".toml":
	default:
		return write.Doc{}, false
	}
	if strings.HasPrefix(p, "globals.") && !strings.Contains(p, "/") {
		return write.Doc{Kind: write.KindGlobals}, true
	}
	if rest, ok := strings.CutPrefix(p, "content/"); ok {
		typ, rel, ok := strings.Cut(rest, "/")
		if !ok || !content.ValidType(typ) {
			return write.Doc{}, false
		}
		slug := content.PathSlug(rel)
		return write.Doc{Kind: write.KindItem, Type: typ, Slug: slug}, content.ValidSlug(slug)
	}
	if rel, ok := strings.CutPrefix(p, "pages/"); ok {
		slug := content.PathSlug(rel)
		return write.Doc{Kind: write.KindPage, Slug: slug}, content.ValidSlug(slug)
	}
	return write.Doc{}, false
}

// docOfFile is docOf of a repository path on the served site: a file of
// a locale's contentDir outside content/ (content_fr/posts/a.md) holds
// what its path in its locale's site does (content/posts/a.md).
func (s *Service) docOfFile(p string) (write.Doc, bool) {
	if d, ok := docOf(p); ok || strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "pages/") {
		return d, ok
	}
	snap := s.Engine.Published()
	if snap == nil || snap.Site == nil || snap.Site.I18n == nil {
		return write.Doc{}, false
	}
	c := snap.Site.I18n
	if !content.RelevantIn(p, c.OutsideDirs()) {
		return write.Doc{}, false
	}
	if _, virt, ok := c.Classify(p); ok && virt != p {
		return docOf(virt)
	}
	return write.Doc{}, false
}

// entryWrite is one data file of an entry, checked and ready to write.
type entryWrite struct {
	decapPath string // the path Decap names it by (its new one, for a rename)
	path      string // where the entry is written
	oldPath   string // the path it moves from ("" : none)
	raw       string
	// read is the version of the file the editor opened (folio's editor
	// page sends it: Decap's protocol has none): a save over a file
	// changed since is merged with it or refused, never written over it.
	read *write.FileBase
}

// planEntry checks a data file as Decap sends it (the whole file).
func (s *Service) planEntry(ctx context.Context, branch string, f dataFile, newEntry bool) (entryWrite, error) {
	decapPath := f.Path
	if f.NewPath != "" {
		decapPath = f.NewPath
	}
	f, err := s.repoFile(ctx, branch, f) // i18n.go
	if err != nil {
		return entryWrite{}, err
	}
	ew := entryWrite{decapPath: decapPath, path: f.Path, raw: f.Raw}
	if f.NewPath != "" && f.NewPath != f.Path {
		ew.path, ew.oldPath = f.NewPath, f.Path
	}
	for _, p := range []string{ew.path, ew.oldPath} {
		if _, ok := s.docOfFile(p); p != "" && !ok {
			return ew, bad("params.dataFiles: %s is not a document folio edits (content/<type>/…, pages/…, globals.*)", p)
		}
	}
	switch {
	case newEntry:
		// A new entry: no file may be there (whatever the page kept of
		// a file deleted before at that path).
		ew.read = &write.FileBase{}
	case f.Base != nil:
		ew.read = &write.FileBase{Blob: *f.Base}
		if *f.Base != "" && !validID(*f.Base) {
			return ew, bad("params.dataFiles: base %q is not a file id", *f.Base)
		}
	default:
		ew.read = &write.FileBase{Unknown: true}
	}
	if c := s.singleI18n(); c != nil {
		ew.read.View = func(p string, data []byte) []byte { return []byte(decapSingle(c, p, string(data))) }
	}
	return ew, nil
}

// validID tells a Git object id as getEntry answers it.
func validID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// writeEntry writes one data file through the writer's file API (as
// Decap made it: the writer checks that it parses, the content rules and
// the model, commits and pushes), then removes the file it moved from.
func (s *Service) writeEntry(ctx context.Context, who Caller, branch, msg string, trailers []write.TrailerLine, ew entryWrite) error {
	opts := write.Options{Branch: branch, Message: msg, Author: s.author(who), Trailers: trailers}
	put := opts
	put.Read = ew.read
	if ew.oldPath != "" && ew.read.Unknown {
		return fault.New(fault.PreconditionFailed, "%s: this save does not say which version of the entry it was made from: reload it and save again", ew.oldPath)
	}
	if ew.oldPath != "" {
		// A rename: nothing may be at the new path; the old one goes
		// only while it is the version the editor opened.
		put.Read = &write.FileBase{}
		if ew.read.Blob != "" {
			opts.IfMatch = `"` + ew.read.Blob + `"`
		}
	}
	if ew.oldPath != "" && ew.read.Blob != "" {
		// The old file changed since it was opened: refused before the
		// new one is written (it was written, and the 412 left both).
		_, blob, err := s.Writer.ReadFile(ctx, branch, ew.oldPath)
		if err != nil && fault.CodeOf(err) != fault.NotFound {
			return err
		}
		if blob != "" && blob != ew.read.Blob {
			return s.caughtUp(ctx, fault.New(fault.PreconditionFailed, "%s changed since it was opened: reload it and rename it again", ew.oldPath))
		}
	}
	res, err := s.Writer.PutFile(ctx, ew.path, []byte(ew.raw), put)
	if err != nil {
		return s.caughtUp(ctx, err)
	}
	if ew.oldPath != "" {
		if _, err := s.Writer.DeleteFile(ctx, ew.oldPath, opts); err != nil && fault.CodeOf(err) != fault.NotFound {
			// Changed between the check and the delete (another box, a
			// push): the new file goes again, so that a refused rename
			// leaves one entry, not two.
			undo := write.Options{Branch: branch, Message: "Undo the rename of " + ew.oldPath + ": it changed since it was opened", Author: opts.Author, IfMatch: `"` + res.Blob + `"`}
			if _, uerr := s.Writer.DeleteFile(ctx, ew.path, undo); uerr != nil {
				s.logger().Error("decap: a refused rename left its new file", "path", ew.path, "old", ew.oldPath, "err", uerr)
			}
			return s.caughtUp(ctx, err)
		}
	}
	return nil
}

// safeRepoPath tells whether p is a clean relative path inside the
// repository: no "..", no absolute path, no .git, no control characters.
func safeRepoPath(p string) bool {
	if p == "" || len(p) > 1024 || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	if filepath.ToSlash(filepath.Clean(p)) != p {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	return true
}
