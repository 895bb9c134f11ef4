package decap

// Saves, uploads and deletes: persistEntry, persistMedia, deleteFiles.

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"path"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
)

type dataFile struct {
	Slug    string `json:"slug"`
	Path    string `json:"path"`
	Raw     string `json:"raw"`
	NewPath string `json:"newPath,omitempty"`
	// Base is folio's addition (its editor page adds it): the id of the
	// file the editor opened (getEntry's file.id, "" for none), or the
	// base the last save of it answered. nil: not given.
	Base *string `json:"base,omitempty"`
}

type asset struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

type persistParams struct {
	Entry     *dataFile  `json:"entry"`
	DataFiles []dataFile `json:"dataFiles"`
	Assets    []asset    `json:"assets"`
	Options   struct {
		CollectionName string `json:"collectionName"`
		CommitMessage  string `json:"commitMessage"`
		UseWorkflow    bool   `json:"useWorkflow"`
		Status         string `json:"status"`
		NewEntry       bool   `json:"newEntry"`
	} `json:"options"`
}

// persisted is persistEntry's answer: Decap reads message; folio's
// editor page takes each file's base for the next save of it.
type persisted struct {
	Message string          `json:"message"`
	Files   []persistedFile `json:"files"`
}

type persistedFile struct {
	Path string `json:"path"` // Decap's path
	// Base is the id of the file as the editor's save made it (the
	// version its form now shows): the base of its next save.
	Base string `json:"base"`
}

// author is who a commit is written for: the key's name and e-mail
// (Service.Email, else the Writer's, for a key without one).
func (s *Service) author(who Caller) write.Person {
	p := write.Person{Name: who.Name, Email: who.Email}
	if p.Email == "" {
		p.Email = s.Email
	}
	if s.Writer != nil {
		p = s.Writer.Author(p)
	}
	return p
}

// writer is the Writer, or NotAllowed on a box without one.
func (s *Service) writer() (*write.Writer, error) {
	if s.Writer == nil {
		return nil, fault.New(fault.NotAllowed, "this folio does not write content (no writer configured)")
	}
	return s.Writer, nil
}

// message is the commit message: Decap's, or "Update <path>".
func message(given, fallback string) string {
	given = strings.TrimSpace(given)
	if given == "" || len(given) > 4096 {
		return fallback
	}
	return given
}

func (s *Service) persistEntry(ctx context.Context, who Caller, branch string, p persistParams, sp *spool) (any, error) {
	files := p.DataFiles
	if p.Entry != nil {
		if files != nil {
			return nil, bad("params: give entry or dataFiles, not both")
		}
		files = []dataFile{*p.Entry}
	}
	if len(files) == 0 {
		return nil, bad("params.dataFiles: missing")
	}
	// Each data file is a commit, a push and a reload, made while every
	// other save waits: Decap sends one per locale, and a body of 20,000
	// tiny files held the write lock for minutes.
	if most := s.mostDataFiles(); len(files) > most {
		return nil, bad("params.dataFiles: %d files; an entry has at most %d (one per locale of the site)", len(files), most)
	}
	if len(p.Assets) > 0 && !who.Can("media:write") {
		return nil, fault.New(fault.Forbidden, "an entry with new media needs the scope media:write")
	}
	for _, f := range files {
		if !safeRepoPath(f.Path) {
			return nil, bad("params.dataFiles: %q is not a repository path", f.Path)
		}
		if f.NewPath != "" && !safeRepoPath(f.NewPath) {
			return nil, bad("params.dataFiles: newPath %q is not a repository path", f.NewPath)
		}
		if f.Slug == "" {
			return nil, bad("params.dataFiles: a slug is missing")
		}
		if len(f.Raw) > content.MaxFileSize {
			return nil, fault.New(fault.TooLarge, "%s: %d bytes, over the limit of %d for a content file", f.Path, len(f.Raw), content.MaxFileSize)
		}
	}
	for _, a := range p.Assets {
		if err := checkAsset(a); err != nil {
			return nil, err
		}
	}
	if _, err := s.writer(); err != nil {
		return nil, err
	}
	target := branch
	status := ""
	if p.Options.UseWorkflow {
		cms, err := cmsBranch(p.Options.CollectionName, files[0].Slug)
		if err != nil {
			return nil, err
		}
		head, err := s.Repo.Head(ctx, cms)
		if err != nil {
			return nil, err
		}
		if head == "" {
			// A new unpublished entry: its status rides on the first
			// commit of its branch.
			status = p.Options.Status
			if !statuses[status] {
				status = "draft"
			}
		}
		target = cms
	}
	files, err := s.dropUntranslated(ctx, target, files) // i18n.go
	if err != nil {
		return nil, err
	}
	// Every document is parsed and checked before anything is stored.
	docs := make([]entryWrite, 0, len(files))
	for _, f := range files {
		ew, err := s.planEntry(ctx, target, f, p.Options.NewEntry)
		if err != nil {
			return nil, err
		}
		if err := s.mayWrite(ctx, who, target, ew); err != nil { // access.go
			return nil, err
		}
		docs = append(docs, ew)
	}
	// Media go to the library; the entry names their library URLs.
	var rewrites []string
	for _, a := range p.Assets {
		it, err := s.upload(ctx, sp, a)
		if err != nil {
			return nil, err
		}
		rewrites = append(rewrites, PublicFolder+"/"+path.Base(a.Path), it.URL)
	}
	msg := message(p.Options.CommitMessage, "Update "+strings.TrimSuffix(files[0].Path, path.Ext(files[0].Path)))
	var trailers []write.TrailerLine
	if status != "" {
		trailers = []write.TrailerLine{{Key: statusTrailer, Value: status}}
	}
	out := persisted{Message: "entry persisted", Files: []persistedFile{}}
	for _, ew := range docs {
		// The next save of the file is made from what the editor's form
		// holds now: this raw, as Decap sent it.
		base, err := s.Writer.StoreBlob(ctx, []byte(ew.raw))
		if err != nil {
			return nil, err
		}
		if len(rewrites) > 0 {
			ew.raw = strings.NewReplacer(rewrites...).Replace(ew.raw)
		}
		if err := s.writeEntry(ctx, who, target, msg, trailers, ew); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, persistedFile{Path: ew.decapPath, Base: base})
	}
	return out, nil
}

// served makes the box catch up with the remote (after a save refused
// because the file changed there), so that the editor's next try starts
// from the new state.
func (s *Service) served(ctx context.Context) {
	if err := s.Engine.Sync(ctx); err != nil {
		s.logger().Warn("decap: catching up with the remote after a refused save failed; the next fetch will", "err", err)
	}
}

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func checkAsset(a asset) error {
	if a.Encoding != "base64" {
		return bad("asset %q: encoding must be base64", a.Path)
	}
	if !safeRepoPath(a.Path) || path.Base(a.Path) == "" {
		return bad("asset: %q is not a file path", a.Path)
	}
	return nil
}

// upload puts an asset into the media library, its content decoded as a
// stream (from its spooled file in sp, if it was spooled).
func (s *Service) upload(ctx context.Context, sp *spool, a asset) (*media.Item, error) {
	if s.Media == nil {
		return nil, bad("this folio has no media library")
	}
	if err := checkAsset(a); err != nil {
		return nil, err
	}
	r, err := sp.contentReader(a)
	if err != nil {
		return nil, err
	}
	dec := &readErr{r: r}
	it, err := s.Media.Create(ctx, media.UploadInput{Filename: path.Base(a.Path), Body: dec})
	if err != nil {
		// The library may wrap the reader's error or pass it on as it is
		// (a truncated quantum is io.ErrUnexpectedEOF).
		var ce base64.CorruptInputError
		if errors.As(err, &ce) || errors.As(dec.err, &ce) || errors.Is(dec.err, io.ErrUnexpectedEOF) {
			return nil, bad("asset %q: content is not base64", a.Path)
		}
		return nil, err
	}
	return it, nil
}

// readErr remembers the error its reader gave.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

func (s *Service) deleteFiles(ctx context.Context, who Caller, branch string, paths []string, bases map[string]string, msg string) (any, error) {
	if len(paths) == 0 {
		return nil, bad("params.paths: missing")
	}
	// A file deleted from the version the editor opened goes only while
	// it is that version: a change made since is not deleted unseen.
	opened := map[string]string{}
	for _, p := range paths {
		id, ok := bases[p]
		if !ok || id == "" {
			continue
		}
		if !validID(id) {
			return nil, bad("params.bases: %q is not a file id", id)
		}
		real, err := s.repoPaths(ctx, branch, []string{p})
		if err != nil {
			return nil, err
		}
		opened[real[0]] = id
	}
	paths, err := s.repoPaths(ctx, branch, paths) // i18n.go
	if err != nil {
		return nil, err
	}
	// Everything is checked before anything is deleted.
	var items []*media.Item
	var docPaths []string
	for _, p := range paths {
		if key, ok := uploadKey(p); ok {
			// A media file: deleted from the library.
			if !who.Can("media:delete") {
				return nil, fault.New(fault.Forbidden, "deleting media needs the scope media:delete")
			}
			var it *media.Item
			if s.Media != nil {
				it, ok = s.Media.ByKey(key)
			}
			if it == nil || !ok {
				return nil, fault.New(fault.NotFound, "no media file at %s", p)
			}
			items = append(items, it)
			continue
		}
		if !safeRepoPath(p) {
			return nil, bad("params.paths: %q is not a repository path", p)
		}
		if _, ok := s.docOfFile(p); !ok {
			return nil, bad("params.paths: %s is not a document folio edits (content/<type>/…, pages/…)", p)
		}
		if err := s.mayEdit(who, p); err != nil { // access.go
			return nil, err
		}
		docPaths = append(docPaths, p)
	}
	if len(docPaths) > 0 {
		if _, err := s.writer(); err != nil {
			return nil, err
		}
	}
	for _, it := range items {
		if err := s.Media.Delete(ctx, it.ID); err != nil {
			return nil, err
		}
	}
	for _, p := range docPaths {
		o := write.Options{Branch: branch, Author: s.author(who), Message: message(msg, "Delete "+strings.TrimSuffix(p, path.Ext(p)))}
		if id := opened[p]; id != "" {
			o.IfMatch = `"` + id + `"`
		}
		if _, err := s.Writer.DeleteFile(ctx, p, o); err != nil {
			return nil, s.caughtUp(ctx, err)
		}
	}
	return map[string]string{"message": "deleted files " + strings.Join(paths, ", ")}, nil
}

// mostDataFiles is how many data files one entry may have: one per
// locale of the served site (Decap's multiple_files and multiple_folders
// structures), else one.
func (s *Service) mostDataFiles() int {
	if snap := s.Engine.Published(); snap != nil && snap.Site != nil && snap.Site.I18n != nil && len(snap.Site.I18n.Locales) > 1 {
		return len(snap.Site.I18n.Locales)
	}
	return 1
}
