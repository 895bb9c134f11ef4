package decap

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// action is one action of the RPC: what it needs and how it is answered.
type action struct {
	// scopes are the scopes it needs beyond content:write (scopes.go);
	// checked when its params begin, before they are read (spool.go).
	scopes []string
	// assets: its params may send files, spooled as they are read
	// (spool.go); an action without sends none.
	assets bool
	// branchless: its params name no branch (info); every other
	// action's params.branch is the published or the draft branch.
	branchless bool
	do         func(ctx context.Context, s *Service, c *rpcCall) (any, error)
}

// rpcCall is one decoded call: who calls, the action, its params, the
// branch they name and the assets spooled from them.
type rpcCall struct {
	who    Caller
	action string
	params json.RawMessage
	branch string
	spool  *spool
}

// actions lists every action the RPC answers. The access matrix
// (server/access_matrix_test.go) reads its scopes from here: an action
// the matrix has no row for fails it. persistEntry with assets needs
// media:write, deleteFiles of a media path media:delete, the workflow's
// and the notes' actions a role: they are checked with the parameters.
var actions = map[string]action{
	"info":                         {branchless: true, do: doInfo},
	"entriesByFolder":              {scopes: readEntries, do: doEntriesByFolder},
	"entriesByFiles":               {scopes: readEntries, do: doEntriesByFiles},
	"getEntry":                     {scopes: readEntries, do: doGetEntry},
	"persistEntry":                 {assets: true, do: doPersistEntry},
	"deleteFiles":                  {do: doDeleteFiles},
	"deleteFile":                   {do: doDeleteFiles},
	"getMedia":                     {scopes: readMedia, do: doGetMedia},
	"getMediaFile":                 {scopes: readMedia, do: doGetMediaFile},
	"persistMedia":                 {scopes: []string{scopeMediaWrite}, assets: true, do: doPersistMedia},
	"unpublishedEntries":           {scopes: readEntries, do: doUnpublishedEntries},
	"unpublishedEntry":             {scopes: readEntries, do: doWorkflow},
	"unpublishedEntryDataFile":     {scopes: readEntries, do: doWorkflow},
	"unpublishedEntryMediaFile":    {scopes: readMedia, do: doWorkflow},
	"deleteUnpublishedEntry":       {do: doWorkflow},
	"updateUnpublishedEntryStatus": {do: doWorkflow},
	"publishUnpublishedEntry":      {do: doWorkflow},
	// Notes are read back in every answer: the review is read content.
	"getNotes":             {scopes: readEntries, do: doNotes},
	"addNote":              {scopes: readEntries, do: doNotes},
	"updateNote":           {scopes: readEntries, do: doNotes},
	"deleteNote":           {scopes: readEntries, do: doNotes},
	"toggleNoteResolution": {scopes: readEntries, do: doNotes},
	"getPRMetadata":        {do: doPRMetadata},
	"getDeployPreview":     {do: doDeployPreview},
}

// sendsAssets tells whether the params of action may send files.
func sendsAssets(action string) bool { return actions[action].assets }

func doInfo(_ context.Context, s *Service, _ *rpcCall) (any, error) {
	return map[string]any{"repo": path.Base(strings.TrimSuffix(s.Engine.Site(), ".git")),
		"publish_modes": []string{"simple", "editorial_workflow"}, "type": "local_git"}, nil
}

func doEntriesByFolder(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p struct {
		Folder    string `json:"folder"`
		Extension string `json:"extension"`
		Depth     int    `json:"depth"`
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if !safeRepoPath(p.Folder) || p.Extension == "" || strings.ContainsAny(p.Extension, "/\x00") {
		return nil, bad("params: want a folder (a repository path) and an extension")
	}
	if _, ok := s.docOfFile(strings.TrimSuffix(p.Folder, "/") + "/x.md"); !ok {
		return nil, bad("params.folder: %s is not a folder of documents folio edits (content/<type>, pages)", p.Folder)
	}
	return s.entriesByFolderAs(ctx, c.branch, p.Folder, p.Extension, p.Depth) // i18n.go
}

func doEntriesByFiles(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p struct {
		Files []struct {
			Path  string `json:"path"`
			Label string `json:"label,omitempty"`
		} `json:"files"`
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if p.Files == nil {
		return nil, bad("params.files: missing")
	}
	commit, err := s.commitOf(ctx, c.branch)
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
}

func doGetEntry(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if err := s.entryPath(p.Path); err != nil {
		return nil, err
	}
	commit, err := s.commitOf(ctx, c.branch)
	if err != nil {
		return nil, err
	}
	return s.readEntryAs(ctx, commit, p.Path) // i18n.go
}

func doPersistEntry(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p persistParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	return s.persistEntry(ctx, c.who, c.branch, p, c.spool)
}

// doDeleteFiles answers deleteFiles and deleteFile (one path).
func doDeleteFiles(ctx context.Context, s *Service, c *rpcCall) (any, error) {
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
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if c.action == "deleteFile" {
		p.Paths = []string{p.Path}
	}
	return s.deleteFiles(ctx, c.who, c.branch, p.Paths, p.Bases, p.Options.CommitMessage)
}

func doGetMedia(ctx context.Context, s *Service, _ *rpcCall) (any, error) {
	return s.getMedia(ctx)
}

func doGetMediaFile(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	return s.mediaFile(ctx, p.Path)
}

func doPersistMedia(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p struct {
		Asset asset `json:"asset"`
	}
	if !c.who.Can("media:write") {
		return nil, fault.New(fault.Forbidden, "uploading media needs the scope media:write")
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if err := checkAsset(p.Asset); err != nil {
		return nil, err
	}
	it, err := s.upload(ctx, c.spool, p.Asset)
	if err != nil {
		return nil, err
	}
	return s.mediaFileOf(ctx, it)
}

func doUnpublishedEntries(ctx context.Context, s *Service, _ *rpcCall) (any, error) {
	bs, err := s.Repo.Branches(ctx, branchPrefix)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(bs))
	for _, br := range bs {
		keys = append(keys, strings.TrimPrefix(br, branchPrefix))
	}
	return keys, nil
}

// doWorkflow answers the editorial workflow's actions on one
// unpublished entry (workflow.go); on a site with locales, those that
// read an entry name its files as Decap does (i18n.go).
func doWorkflow(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	if res, done, err := s.i18nWorkflow(ctx, c.who, c.branch, c.action, c.params); done { // i18n.go
		return res, err
	}
	var p workflowParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if c.action == "unpublishedEntry" && p.ID != "" {
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
	if err := mayWorkflow(c.who, c.action, p); err != nil { // access.go
		return nil, err
	}
	return s.workflow(ctx, c.who, c.branch, c.action, cms, p)
}

// doNotes answers the actions on an unpublished entry's notes
// (notes.go).
func doNotes(ctx context.Context, s *Service, c *rpcCall) (any, error) {
	var p notesParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if err := mayNote(c.who, c.action, p); err != nil { // access.go
		return nil, err
	}
	return s.notes(ctx, c.who, c.branch, c.action, p)
}

// doPRMetadata: pull-request metadata is the Git hosts' (GitHub,
// GitLab); folio's entries have none.
func doPRMetadata(context.Context, *Service, *rpcCall) (any, error) {
	return map[string]any{"metadata": nil}, nil
}

func doDeployPreview(context.Context, *Service, *rpcCall) (any, error) {
	return nil, nil
}
