package decap

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media/fault"
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
	path    string // where the entry is written
	oldPath string // the path it moves from ("" : none)
	raw     string
	// ifMatch is the file's blob in the commit this box serves (what
	// the editor most likely read): a save over a file changed since is
	// refused (412), not a lost update. Decap sends no version of its
	// own.
	ifMatch string
}

// planEntry checks a data file as Decap sends it (the whole file).
func (s *Service) planEntry(ctx context.Context, branch string, f dataFile) (entryWrite, error) {
	f, err := s.repoFile(ctx, branch, f) // i18n.go
	if err != nil {
		return entryWrite{}, err
	}
	ew := entryWrite{path: f.Path, raw: f.Raw}
	if f.NewPath != "" && f.NewPath != f.Path {
		ew.path, ew.oldPath = f.NewPath, f.Path
	}
	for _, p := range []string{ew.path, ew.oldPath} {
		if _, ok := s.docOfFile(p); p != "" && !ok {
			return ew, bad("params.dataFiles: %s is not a document folio edits (content/<type>/…, pages/…, globals.*)", p)
		}
	}
	if snap := s.Engine.SnapshotOf(branch); snap != nil {
		_, id, err := s.Repo.Read(ctx, snap.Commit, f.Path)
		switch {
		case err == nil:
			ew.ifMatch = `"` + id + `"`
		case fault.CodeOf(err) != fault.NotFound:
			return ew, err
		}
	}
	return ew, nil
}

// writeEntry writes one data file through the writer's file API (as
// Decap made it: the writer checks that it parses, the content rules and
// the model, commits and pushes), then removes the file it moved from.
func (s *Service) writeEntry(ctx context.Context, who Caller, branch, msg string, trailers []write.TrailerLine, ew entryWrite) error {
	opts := write.Options{Branch: branch, Message: msg, Author: s.author(who), Trailers: trailers}
	put := opts
	if ew.oldPath == "" {
		put.IfMatch = ew.ifMatch
	}
	if _, err := s.Writer.PutFile(ctx, ew.path, []byte(ew.raw), put); err != nil {
		if c := fault.CodeOf(err); c == fault.Conflict || c == fault.PreconditionFailed {
			// The box catches up, so that the editor's next try (after
			// reloading the entry) starts from the new state.
			s.served(ctx)
		}
		return err
	}
	if ew.oldPath != "" {
		opts.IfMatch = ew.ifMatch
		if _, err := s.Writer.DeleteFile(ctx, ew.oldPath, opts); err != nil && fault.CodeOf(err) != fault.NotFound {
			return err
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
