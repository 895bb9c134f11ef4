// Package decap implements the JSON RPC of Decap CMS's proxy backend (the
// protocol of decap-server's git mode) on folio: entries are read from
// the commits folio serves, writes are commits pushed to the site's
// remote, media go to folio's media library, and the editorial workflow
// keeps each unpublished entry on a cms/<collection>/<slug> branch.
package decap

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/fault"
)

// CMS branches and statuses, as Decap names them.
const (
	branchPrefix = "cms/"
	labelPrefix  = "decap-cms/"
	// statusTrailer is the commit message trailer that records an
	// unpublished entry's status on its branch (decap-server keeps it in
	// the local git config, which a push does not carry to other boxes).
	statusTrailer = "Decap-Status"
	// MediaFolder and PublicFolder are where the generated config puts
	// media: Decap's paths below MediaFolder are library uploads, served
	// under PublicFolder.
	MediaFolder  = "uploads"
	PublicFolder = "/uploads"
)

// Service answers the RPC.
type Service struct {
	Engine *engine.Engine
	// Writer commits documents (engine/write): entries are written
	// through it, in their file's own format, validated by the model,
	// pushed; nil refuses writes.
	Writer *write.Writer
	// Repo reads the repository (the Writer's, or write.OpenRepo on a
	// box without one): entries, unpublished entries' branches.
	Repo  *write.Repo
	Media *media.Library // nil: no media library (media actions are 400)
	// Email is the author e-mail of commits (the author name is the
	// key's); "" : the Writer's (write.Config.AuthorEmail).
	Email string
	// MediaListed and MediaThumbBytes bound getMedia's answer (see
	// DefaultMediaListed, DefaultMediaThumbBytes); 0: the defaults.
	MediaListed, MediaThumbBytes int

	Logger *slog.Logger // nil: none

	dates dateCache // config.yml's date keys (datekey.go)
}

// Caller is who calls: the key's author name and e-mail (its display
// name, else its id; "" : Service.Email) and what it may do beyond
// content:write.
type Caller struct {
	Name, Email string
	Can         func(scope string) bool
	// MayEdit and MayPublish are a signed-in person's role (access.go);
	// nil for a key.
	MayEdit    func(collection, locale string) error
	MayPublish func() error
}

type request struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
}

func bad(format string, args ...any) error { return fault.New(fault.Invalid, format, args...) }

// decodeStrict reads params into v, refusing unknown-typed values.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return bad("params: missing")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return bad("params: %v", err)
	}
	return nil
}

// Call answers one RPC body.
func (s *Service) Call(ctx context.Context, who Caller, body []byte) (any, error) {
	return s.CallStream(ctx, who, bytes.NewReader(body), nil)
}

// CallStream answers the RPC body r, read as a stream: assets' contents
// are spooled to the media library's temporary folder and decoded from
// there, and a persistMedia without media:write is refused before its
// params are read (spool.go). Errors of r that are *fault.Error (a body
// over its limit, too slow) are returned as they are. heavy, if not nil,
// is called once the body's text (besides spooled assets) passes
// HeavyText, before it is decoded: the caller may wait there for a turn
// (its error ends the call).
func (s *Service) CallStream(ctx context.Context, who Caller, r io.Reader, heavy func() error) (any, error) {
	var newFile func() (*os.File, error)
	if s.Media != nil {
		newFile = func() (*os.File, error) { return s.Media.TempFile("decap-*") }
	}
	br, err := newBodyReader(r, newFile, who.Can("media:write"))
	if err != nil {
		return nil, err
	}
	br.heavy = heavy
	br.allow = func(action string) error { return allowed(who, action) }
	defer br.spool.close()
	var req request
	dec := json.NewDecoder(br)
	if err := dec.Decode(&req); err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, bad("body: want a JSON object {action, params}: %v", err)
	}
	if dec.More() {
		return nil, bad("body: more than one JSON value")
	}
	if err := allowed(who, req.Action); err != nil { // scopes.go
		return nil, err
	}
	if len(br.spool.files) > 0 && req.Action != "persistMedia" && req.Action != "persistEntry" {
		return nil, bad("body: action %q sends no assets", req.Action)
	}
	return s.call(ctx, who, req, br.spool)
}

// call answers a decoded RPC request; sp holds its spooled assets.
func (s *Service) call(ctx context.Context, who Caller, req request, sp *spool) (any, error) {
	if req.Action == "info" {
		return map[string]any{"repo": path.Base(strings.TrimSuffix(s.Engine.Site(), ".git")),
			"publish_modes": []string{"simple", "editorial_workflow"}, "type": "local_git"}, nil
	}
	var dp struct {
		Branch string `json:"branch"`
	}
	if err := decodeParams(req.Params, &dp); err != nil {
		return nil, err
	}
	pub, draft := s.Engine.Branch(), s.Engine.DraftBranch()
	if dp.Branch != pub && (draft == "" || dp.Branch != draft) {
		return nil, bad("params.branch: %q is not the published branch %q or the draft branch", dp.Branch, pub)
	}
	b := dp.Branch
	if res, done, err := s.i18nWorkflow(ctx, who, b, req.Action, req.Params); done { // i18n.go
		return res, err
	}
	switch req.Action {
	case "entriesByFolder":
		var p struct {
			Folder    string `json:"folder"`
			Extension string `json:"extension"`
			Depth     int    `json:"depth"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if !safeRepoPath(p.Folder) || p.Extension == "" || strings.ContainsAny(p.Extension, "/\x00") {
			return nil, bad("params: want a folder (a repository path) and an extension")
		}
		if _, ok := s.docOfFile(strings.TrimSuffix(p.Folder, "/") + "/x.md"); !ok {
			return nil, bad("params.folder: %s is not a folder of documents folio edits (content/<type>, pages)", p.Folder)
		}
		return s.entriesByFolderAs(ctx, b, p.Folder, p.Extension, p.Depth) // i18n.go
	case "entriesByFiles":
		var p struct {
			Files []struct {
				Path  string `json:"path"`
				Label string `json:"label,omitempty"`
			} `json:"files"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if p.Files == nil {
			return nil, bad("params.files: missing")
		}
		commit, err := s.commitOf(ctx, b)
		if err != nil {
			return nil, err
		}
		out := make([]entry, 0, len(p.Files))
		for _, f := range p.Files {
			if err := s.entryPath(f.Path); err != nil {
				return nil, err
			}
			e, err := s.readEntryAs(ctx, commit, f.Path) // i18n.go
			if err != nil {
				return nil, err
			}
			e.File.Label = f.Label
			out = append(out, e)
		}
		return out, nil
	case "getEntry":
		var p struct {
			Path string `json:"path"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if err := s.entryPath(p.Path); err != nil {
			return nil, err
		}
		commit, err := s.commitOf(ctx, b)
		if err != nil {
			return nil, err
		}
		return s.readEntryAs(ctx, commit, p.Path) // i18n.go
	case "persistEntry":
		var p persistParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.persistEntry(ctx, who, b, p, sp)
	case "deleteFiles", "deleteFile":
		var p struct {
			Paths   []string `json:"paths"`
			Path    string   `json:"path"`
			Options struct {
				CommitMessage string `json:"commitMessage"`
			} `json:"options"`
			// Bases is folio's addition (its editor page adds it): the
			// version of each file the editor opened, by Decap's path.
			Bases map[string]string `json:"bases"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if req.Action == "deleteFile" {
			p.Paths = []string{p.Path}
		}
		return s.deleteFiles(ctx, who, b, p.Paths, p.Bases, p.Options.CommitMessage)
	case "getMedia":
		return s.getMedia(ctx)
	case "getMediaFile":
		var p struct {
			Path string `json:"path"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.mediaFile(ctx, p.Path)
	case "persistMedia":
		var p struct {
			Asset asset `json:"asset"`
		}
		if !who.Can("media:write") {
			return nil, fault.New(fault.Forbidden, "uploading media needs the scope media:write")
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if err := checkAsset(p.Asset); err != nil {
			return nil, err
		}
		it, err := s.upload(ctx, sp, p.Asset)
		if err != nil {
			return nil, err
		}
		return s.mediaFileOf(ctx, it)
	case "unpublishedEntries":
		bs, err := s.Repo.Branches(ctx, branchPrefix)
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(bs))
		for _, br := range bs {
			keys = append(keys, strings.TrimPrefix(br, branchPrefix))
		}
		return keys, nil
	case "unpublishedEntry", "unpublishedEntryDataFile", "unpublishedEntryMediaFile",
		"deleteUnpublishedEntry", "updateUnpublishedEntryStatus", "publishUnpublishedEntry":
		var p workflowParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if req.Action == "unpublishedEntry" && p.ID != "" {
			i := strings.Index(p.ID, "/")
			if i < 0 {
				return nil, bad("params.id: want <collection>/<slug>")
			}
			p.Collection, p.Slug = p.ID[:i], p.ID[i+1:]
		}
		cms, err := cmsBranch(p.Collection, p.Slug)
		if err != nil {
			return nil, err
		}
		if err := mayWorkflow(who, req.Action, p); err != nil { // access.go
			return nil, err
		}
		return s.workflow(ctx, who, b, req.Action, cms, p)
	case "getNotes", "addNote", "updateNote", "deleteNote", "toggleNoteResolution":
		var p notesParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if err := mayNote(who, req.Action, p); err != nil { // access.go
			return nil, err
		}
		return s.notes(ctx, who, b, req.Action, p)
	case "getPRMetadata":
		// Pull-request metadata is the Git hosts' (GitHub, GitLab); folio's
		// entries have none.
		return map[string]any{"metadata": nil}, nil
	case "getDeployPreview":
		return nil, nil
	default:
		return nil, bad("action: unknown action %q", req.Action)
	}
}

// entryPath checks a path Decap reads an entry at: a document folio
// edits (as persistEntry writes only those), never another file of the
// repository (folio.yaml, a workflow, a secret).
func (s *Service) entryPath(p string) error {
	if !safeRepoPath(p) {
		return bad("params: %q is not a repository path", p)
	}
	if _, ok := s.docOfFile(p); !ok {
		return bad("params: %s is not a document folio edits (content/<type>/…, pages/…, globals.*)", p)
	}
	return nil
}

// cmsBranch is the branch of an unpublished entry.
func cmsBranch(collection, slug string) (string, error) {
	br := branchPrefix + collection + "/" + slug
	if collection == "" || slug == "" || strings.Contains(collection, "/") || engine.CheckRefName(br) != nil || !safeRepoPath(collection+"/"+slug) {
		return "", bad("params: want a collection and a slug")
	}
	return br, nil
}

// commitOf is the commit of branch that folio serves: the published or
// draft snapshot's, or the one ?ref= would serve.
func (s *Service) commitOf(ctx context.Context, branch string) (string, error) {
	if snap := s.Engine.SnapshotOf(branch); snap != nil {
		return snap.Commit, nil
	}
	ref, err := s.Engine.ResolveRef(ctx, branch)
	if err != nil {
		if snap := s.Engine.Published(); snap != nil && branch == s.Engine.DraftBranch() {
			// No draft branch yet: it starts from the published one.
			return snap.Commit, nil
		}
		return "", fault.Wrap(fault.NotFound, err, "branch %q: not found", branch)
	}
	return ref.Commit, nil
}

// entry is a document as Decap reads it: its raw text and its file.
type entry struct {
	Data *string   `json:"data"`
	File entryFile `json:"file"`
}

type entryFile struct {
	Path  string  `json:"path"`
	Label string  `json:"label,omitempty"`
	ID    *string `json:"id"`
}

func (s *Service) readEntry(ctx context.Context, commit, p string) (entry, error) {
	b, id, err := s.Repo.Read(ctx, commit, p)
	if fault.CodeOf(err) == fault.NotFound {
		return entry{File: entryFile{Path: p}}, nil
	}
	if err != nil {
		return entry{}, err
	}
	d := string(b)
	return entry{Data: &d, File: entryFile{Path: p, ID: &id}}, nil
}

func (s *Service) entriesByFolder(ctx context.Context, branch, folder, ext string, depth int) ([]entry, error) {
	commit, err := s.commitOf(ctx, branch)
	if err != nil {
		return nil, err
	}
	files, err := s.Repo.Files(ctx, commit, folder, depth)
	if err != nil {
		return nil, err
	}
	var keep []write.File
	var ids []string
	for _, f := range files {
		if strings.HasSuffix(f.Path, "."+ext) {
			keep, ids = append(keep, f), append(ids, f.Blob)
		}
	}
	datas, err := s.Repo.Blobs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]entry, 0, len(keep))
	for i, bl := range keep {
		d, id := string(datas[i]), bl.Blob
		out = append(out, entry{Data: &d, File: entryFile{Path: bl.Path, ID: &id}})
	}
	return out, nil
}

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

// uploadKey reads a media path ("/uploads/<key>", "uploads/<key>" or a
// library URL) as a library key.
func uploadKey(p string) (string, bool) {
	for _, pre := range []string{PublicFolder + "/", MediaFolder + "/"} {
		if k, ok := strings.CutPrefix(p, pre); ok && k != "" {
			return k, true
		}
	}
	return "", false
}

// mediaFile is a library item as Decap reads it.
type mediaFile struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	Path     string `json:"path"`
	Name     string `json:"name"`
}

func (s *Service) mediaFile(ctx context.Context, p string) (any, error) {
	key, ok := uploadKey(p)
	if !ok || s.Media == nil {
		return nil, fault.New(fault.NotFound, "no media file at %s", p)
	}
	it, ok := s.Media.ByKey(key)
	if !ok {
		return nil, fault.New(fault.NotFound, "no media file at %s", p)
	}
	return s.mediaFileOf(ctx, it)
}

// mediaFileOf is an item's original as Decap reads it (mediaFile), sent
// as a stream: the original is base64-encoded as it is read from storage
// into the answer, never held whole (a 50 MB upload would be 67 MB of
// base64, then its JSON, at each call).
func (s *Service) mediaFileOf(ctx context.Context, it *media.Item) (*mediaStream, error) {
	rc, err := s.Media.Storage().Open(ctx, it.Key)
	if err != nil {
		return nil, fmt.Errorf("decap: read media %s: %w", it.Key, err)
	}
	return &mediaStream{it: it, rc: rc}, nil
}

// mediaStream is a mediaFile whose content is streamed (Streamer).
type mediaStream struct {
	it *media.Item
	rc io.ReadCloser
}

// Stream writes the mediaFile's JSON, the content base64-encoded as the
// original is read; it closes the original.
func (m *mediaStream) Stream(ctx context.Context, w io.Writer) error {
	defer m.rc.Close()
	head, err := json.Marshal(m.it.ID)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"id":`+string(head)+`,"content":"`); err != nil {
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if _, err := io.Copy(enc, ctxReader{ctx, m.rc}); err != nil {
		return fmt.Errorf("decap: read media %s: %w", m.it.Key, err)
	}
	if err := enc.Close(); err != nil {
		return err
	}
	tail, err := json.Marshal(struct {
		Encoding string `json:"encoding"`
		Path     string `json:"path"`
		Name     string `json:"name"`
	}{"base64", m.it.URL, m.it.Filename})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, `",`+string(tail[1:]))
	return err
}

// ctxReader stops reading once ctx is done (the client went away).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
