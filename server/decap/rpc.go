// Package decap implements the JSON RPC of Decap CMS's proxy backend (the
// protocol of decap-server's git mode) on folio: entries are read from
// the commits folio serves, writes are commits pushed to the site's
// remote, media go to folio's media library, and the editorial workflow
// keeps each unpublished entry on a cms/<collection>/<slug> branch.
package decap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
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
	if len(br.spool.files) > 0 && !sendsAssets(req.Action) {
		return nil, bad("body: action %q sends no assets", req.Action)
	}
	return s.call(ctx, who, req, br.spool)
}

// call answers a decoded RPC request (its action's, actions.go); sp
// holds its spooled assets.
func (s *Service) call(ctx context.Context, who Caller, req request, sp *spool) (any, error) {
	act, ok := actions[req.Action]
	if !ok {
		return nil, bad("action: unknown action %q", req.Action)
	}
	c := &rpcCall{who: who, action: req.Action, params: req.Params, spool: sp}
	if act.branchless {
		return act.do(ctx, s, c)
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
	c.branch = dp.Branch
	return act.do(ctx, s, c)
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
	if fault.CodeOf(err) == fault.TooLarge {
		keep, datas, err = s.readEachBlob(ctx, keep)
	}
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

// readEachBlob reads files one at a time and leaves out those over the
// content-file limit (a big file named .md: folio never reads one, its
// Load and check report it): one such file does not make its whole
// collection unreadable in the editor.
func (s *Service) readEachBlob(ctx context.Context, files []write.File) ([]write.File, [][]byte, error) {
	var keep []write.File
	var datas [][]byte
	for _, f := range files {
		d, err := s.Repo.Blobs(ctx, []string{f.Blob})
		switch {
		case fault.CodeOf(err) == fault.TooLarge:
			continue
		case err != nil:
			return nil, nil, err
		}
		keep, datas = append(keep, f), append(datas, d[0])
	}
	return keep, datas, nil
}
