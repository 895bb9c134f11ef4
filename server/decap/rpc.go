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

	dates dateCache // config.yml's date keys (datekey.go)
}

// Caller is who calls: the key's author name and e-mail (its display
// name, else its id; "" : Service.Email) and what it may do beyond
// content:write.
type Caller struct {
	Name, Email string
	Can         func(scope string) bool
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
	var req request
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return nil, bad("body: want a JSON object {action, params}: %v", err)
	}
	if dec.More() {
		return nil, bad("body: more than one JSON value")
	}
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
			if !safeRepoPath(f.Path) {
				return nil, bad("params.files: %q is not a repository path", f.Path)
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
		if !safeRepoPath(p.Path) {
			return nil, bad("params.path: want a repository path")
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
		return s.persistEntry(ctx, who, b, p)
	case "deleteFiles", "deleteFile":
		var p struct {
			Paths   []string `json:"paths"`
			Path    string   `json:"path"`
			Options struct {
				CommitMessage string `json:"commitMessage"`
			} `json:"options"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if req.Action == "deleteFile" {
			p.Paths = []string{p.Path}
		}
		return s.deleteFiles(ctx, who, b, p.Paths, p.Options.CommitMessage)
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
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if err := checkAsset(p.Asset); err != nil {
			return nil, err
		}
		if !who.Can("media:write") {
			return nil, fault.New(fault.Forbidden, "uploading media needs the scope media:write")
		}
		it, err := s.upload(ctx, p.Asset)
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
		return s.workflow(ctx, who, b, req.Action, cms, p)
	case "getNotes", "addNote", "updateNote", "deleteNote", "toggleNoteResolution":
		var p notesParams
		if err := decodeParams(req.Params, &p); err != nil {
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
	} `json:"options"`
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

func (s *Service) persistEntry(ctx context.Context, who Caller, branch string, p persistParams) (any, error) {
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
		if !safeRepoPath(f.Path) || (f.NewPath != "" && !safeRepoPath(f.NewPath)) {
			return nil, bad("params.dataFiles: %q is not a repository path", f.Path)
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
		ew, err := s.planEntry(ctx, target, f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, ew)
	}
	// Media go to the library; the entry names their library URLs.
	var rewrites []string
	for _, a := range p.Assets {
		it, err := s.upload(ctx, a)
		if err != nil {
			return nil, err
		}
		rewrites = append(rewrites, PublicFolder+"/"+path.Base(a.Path), it.URL)
	}
	msg := message(p.Options.CommitMessage, "Update "+strings.TrimSuffix(files[0].Path, path.Ext(files[0].Path)))
	if status != "" {
		msg += "\n\n" + statusTrailer + ": " + status + "\n"
	}
	for _, ew := range docs {
		if len(rewrites) > 0 {
			ew.raw = strings.NewReplacer(rewrites...).Replace(ew.raw)
		}
		if err := s.writeEntry(ctx, who, target, msg, ew); err != nil {
			return nil, err
		}
	}
	return map[string]string{"message": "entry persisted"}, nil
}

// served makes the writing box serve the new commit at once (the other
// boxes see the push).
func (s *Service) served(ctx context.Context) {
	_ = s.Engine.Sync(ctx)
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

// upload puts an asset into the media library.
func (s *Service) upload(ctx context.Context, a asset) (*media.Item, error) {
	if s.Media == nil {
		return nil, bad("this folio has no media library")
	}
	if err := checkAsset(a); err != nil {
		return nil, err
	}
	dec := base64.NewDecoder(base64.StdEncoding, strings.NewReader(a.Content))
	it, err := s.Media.Create(ctx, media.UploadInput{Filename: path.Base(a.Path), Body: dec})
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, bad("asset %q: content is not base64", a.Path)
		}
		return nil, err
	}
	return it, nil
}

func (s *Service) deleteFiles(ctx context.Context, who Caller, branch string, paths []string, msg string) (any, error) {
	if len(paths) == 0 {
		return nil, bad("params.paths: missing")
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
		if _, err := s.Writer.DeleteFile(ctx, p, write.Options{Branch: branch, Author: s.author(who),
			Message: message(msg, "Delete "+strings.TrimSuffix(p, path.Ext(p)))}); err != nil {
			return nil, err
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

// mediaFileOf reads an item's original.
func (s *Service) mediaFileOf(ctx context.Context, it *media.Item) (mediaFile, error) {
	key := it.Key
	rc, err := s.Media.Storage().Open(ctx, key)
	if err != nil {
		return mediaFile{}, fmt.Errorf("decap: read media %s: %w", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return mediaFile{}, fmt.Errorf("decap: read media %s: %w", key, err)
	}
	return mediaFile{ID: it.ID, Content: base64.StdEncoding.EncodeToString(b), Encoding: "base64",
		Path: it.URL, Name: it.Filename}, nil
}
