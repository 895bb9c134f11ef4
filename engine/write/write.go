// Package write commits edits of a site's documents (content items,
// pages, the globals file) to the site's Git repository, one commit per
// write, without a work tree, and pushes them to the remote.
//
// # API
//
// A Writer is made once per box (New) and is safe for concurrent use;
// writes are made one at a time. Each of
//
//	Create(ctx, Doc, Options) (Result, error)
//	Replace(ctx, Doc, Options) (Result, error)
//	Patch(ctx, Doc, Options) (Result, error)
//	Delete(ctx, Doc, Options) (Result, error)
//
// reads the target branch's head, finds the document's file (by its
// slug, through the served snapshot, else the usual paths), rewrites it
// in its own format (YAML through yaml.v3's node API, TOML line by line,
// JSON in key order: keys the write does not change keep their place and
// comments), validates the result (the file parses, the content rules,
// the content model), commits it (author: Options.Author, committer:
// Config.Committer) and, for a remote site, pushes it. A Result names the
// path, branch, commit and blob; Result.ETag is the document's ETag tied
// to its blob.
//
// Doc.Fields are the document's keys as the API names them (title, slug,
// publishedAt, draft, …, and the keys of data); FromAPI builds a Doc from
// the API's JSON shape of a document.
//
// For editors that work on whole files (Decap CMS's proxy backend):
//
//	ReadFile(ctx, branch, path) ([]byte, blob, error)
//	ListFiles(ctx, branch, dir) ([]File, error)
//	PutFile(ctx, path, data, Options) (Result, error)
//	DeleteFile(ctx, path, Options) (Result, error)
//
// take a content path (pages/…, content/<type>/…, globals.*) and make the
// same checks, commits and pushes; Options.Read (FileBase) names the
// version of the file the editor opened, so that PutFile merges a save
// with what changed since, or refuses it, instead of writing over it. Publish(ctx, PublishOptions) merges the
// draft branch (or documents of it) into the published branch;
// TargetBranch tells which branch Options.Branch means (and whether it
// may be written); Recover finishes a push a killed run left under way.
//
// For editors that keep work on side branches of their own (Decap CMS's
// editorial workflow, cms/<collection>/<slug>): Repo reads branches,
// commits, files and trailers; AddTrailer, MergeBranch and DeleteBranch
// commit, merge and delete with the same pushes and journal (branches.go).
//
// # Errors
//
// Every error a client can cause is a *fault.Error (or wraps one):
//
//   - fault.Invalid: a bad slug, type, branch or body shape (400)
//   - fault.NotFound: no such document (404)
//   - fault.Conflict: Create over an existing slug, a field changed by
//     someone else since the client's read (see below), or the file
//     changed on the remote while pushing (409)
//   - fault.PreconditionFailed: Options.IfMatch is not the document's
//     current ETag (412)
//   - fault.Unprocessable: *ValidationError, one FieldProblem per field
//     (422); nothing is committed
//   - fault.TooLarge: the file would be over content.MaxFileSize (413)
//   - fault.GitUnavailable: the remote refused the push or could not be
//     reached (503), or the write waited Config.QueueWait for the one
//     before it (*BusyError, queue.go); nothing was written
//
// # Merge rule
//
// With Options.IfMatch, the write applies only to the blob the client
// read. Without it, Options.Base names the commit the client read from
// (the server passes the commit it serves): when the document changed on
// the branch since then, the write's own changes (the keys and body it
// changes relative to the document at Base) are applied to the current
// document, unless one of them is a key (or the body) that was also
// changed since Base to another value: then nothing is written and the
// error is a Conflict naming those fields.
package write

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/gitsource"
)

// Person is a commit's author or committer.
type Person struct{ Name, Email string }

// Kind is what a document is.
type Kind string

// The kinds of documents.
const (
	KindItem    Kind = "item"
	KindPage    Kind = "page"
	KindGlobals Kind = "globals"
)

// Doc is a document to write.
type Doc struct {
	Kind Kind
	Type string // the content type of an item
	// Slug names the document (items, pages). Create may leave it
	// empty: it is then Fields["slug"], else made from Fields["title"].
	Slug string
	// Fields are the document's keys as the API names them; a nil value
	// removes the key (Patch).
	Fields map[string]any
	// Body is the Markdown body; nil keeps the body (Patch, Replace of a
	// data file) or writes none (Create).
	Body *string
	// Locale is the locale written on a site with locales ("": the
	// default locale); see locale.go.
	Locale string
	// TranslationOf is the slug of the document (of another locale) a
	// Create in Locale translates; "": the one with the new slug, if any.
	TranslationOf string

	// unchanged are the fields given as they are served now: the file
	// keeps them as it writes them (see keepServed).
	unchanged map[string]bool
}

// Options are a write's options.
type Options struct {
	// Branch is the branch to commit to; "": the draft branch when the
	// site has one, else the published branch.
	Branch string
	// IfMatch is the client's If-Match: the write applies only while the
	// document's ETag is this one ("*": while the document exists).
	IfMatch string
	// Base is the commit the client read the document from; "": unknown
	// (the write then applies to whatever the branch holds).
	Base    string
	Message string // the commit message; "": "Update posts/hello" and the like
	Author  Person // Email "": Config.AuthorEmail
	// Trailers end the message: folio's own (Decap's status). The
	// Message's lines that read as a reserved trailer are dropped
	// (clientMessage).
	Trailers []TrailerLine
	// Read is, for PutFile, the version of the file the editor read and
	// saved whole; nil: none given (IfMatch alone decides).
	Read *FileBase
}

// Result is a write that was committed (and pushed).
type Result struct {
	Path   string
	Branch string
	Commit string // "" when the write changed nothing
	Blob   string // the file's blob; "" after a Delete
	Slug   string
	Locale string // the document's locale; "" on a site without locales
}

// ETag is the document's ETag as the API serves it: tied to its blob.
func (r Result) ETag() string { return BlobETag(r.Blob) }

// BlobETag is the ETag prefix of a document whose file is blob; a
// served document's ETag is this prefix, a dot, and the hash of its
// JSON (engine: Resource.Body).
func BlobETag(blob string) string {
	if len(blob) > engine.BlobTagLen {
		blob = blob[:engine.BlobTagLen]
	}
	return `"` + blob + `"`
}

// FieldProblem is one reason a write is refused, for one field.
type FieldProblem struct {
	Path    string `json:"path"` // dotted field path; "" for the whole document
	Message string `json:"message"`
}

// ValidationError is a write the content rules or the model reject.
type ValidationError struct{ Fields []FieldProblem }

func (e *ValidationError) Error() string {
	var parts []string
	for _, f := range e.Fields {
		if f.Path == "" {
			parts = append(parts, f.Message)
		} else {
			parts = append(parts, f.Path+": "+f.Message)
		}
	}
	return "the document is not valid: " + strings.Join(parts, "; ")
}

// Unwrap is the error's fault: Unprocessable, with its fields.
func (e *ValidationError) Unwrap() error {
	fields := make([]fault.Field, len(e.Fields))
	for i, f := range e.Fields {
		fields[i] = fault.Field(f)
	}
	return &fault.Error{Code: fault.Unprocessable, Message: e.Error(), Fields: fields}
}

// Config configures a Writer.
type Config struct {
	// GitDir is the repository the engine reads (engine.Engine.GitDir):
	// a local site's own repository, or the clone of a remote one.
	GitDir string
	// Remote: the site is a remote; commits are pushed to its origin.
	Remote      bool
	Branch      string // the published branch
	DraftBranch string // "" : none
	// WriteBranches are the patterns of the other branches a write may
	// name (path.Match, and "prefix/*" matches every branch under
	// prefix/); nil: DefaultWriteBranches.
	WriteBranches []string
	AuthorEmail   string // the e-mail of authors; default "editor@folio.invalid"
	Committer     Person // default folio <folio@folio.invalid>
	// Snapshot returns the snapshot served of branch, nil when none (its
	// model validates writes; it finds documents by slug).
	Snapshot func(branch string) *engine.Snapshot
	// Written is told of every commit that reached the repository
	// (pushed, for a remote), before the write returns: the server
	// reloads, so that the writing box serves it at once.
	Written func(ctx context.Context, branch, commit string)
	// JournalDir holds the record of a push under way (see Recover);
	// "" : GitDir.
	JournalDir string
	// RefLock, when set, is held from each push until the clone's ref
	// follows it; the engine's fetch holds it too (engine.Engine.RefLock:
	// the Git source's one ref lock, whose rule package engine/gitsource
	// states).
	// Without it a fetch that read the remote's refs before a push can
	// set the clone's branch back, or prune a branch the push made, until
	// the next fetch.
	RefLock sync.Locker
	// SiteRoot, when set, is the site root of the served site (engine's
	// SiteRoot): the folder of the repository the site is in. Every path
	// the Writer and its Repo take and give is the site's (content/post/a.md);
	// the commits change root/content/post/a.md.
	SiteRoot func() string
	// GitEnv is added to the environment of every git command (the
	// remote's credentials: engine's GitEnv, as the fetch has them), and
	// Redact takes them out of what an error says (nil: nothing to take
	// out).
	GitEnv []string
	Redact func(string) string
	// PushTimeout bounds one push (and the look at the remote after a
	// failed one); default 1 minute. A push cut off is 503, nothing
	// written, unless the remote shows that it landed.
	PushTimeout time.Duration
	// QueueWait bounds how long a write waits for the one before it
	// (queue.go); default DefaultQueueWait. A write that waited longer
	// is a *BusyError (503), nothing written.
	QueueWait time.Duration
	Logger    *slog.Logger
}

// DefaultWriteBranches are the branches a write may name besides the
// default one: the editorial workflow's.
var DefaultWriteBranches = []string{"cms/*"}

// Writer commits documents; see the package documentation.
type Writer struct {
	cfg  Config
	repo *repo
	slot chan struct{} // one write at a time (queue.go)

	umu      sync.Mutex
	unpushed *Recovery // see Unpushed; guarded by umu
}

// New returns a Writer.
func New(cfg Config) *Writer {
	if cfg.AuthorEmail == "" {
		cfg.AuthorEmail = "editor@folio.invalid"
	}
	if cfg.Committer.Name == "" {
		cfg.Committer.Name = "folio"
	}
	if cfg.Committer.Email == "" {
		cfg.Committer.Email = "folio@folio.invalid"
	}
	if cfg.WriteBranches == nil {
		cfg.WriteBranches = DefaultWriteBranches
	}
	if cfg.Branch == "" {
		cfg.Branch = "main"
	}
	if cfg.JournalDir == "" {
		cfg.JournalDir = cfg.GitDir
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PushTimeout <= 0 {
		cfg.PushTimeout = time.Minute
	}
	if cfg.QueueWait <= 0 {
		cfg.QueueWait = DefaultQueueWait
	}
	if cfg.Snapshot == nil {
		cfg.Snapshot = func(string) *engine.Snapshot { return nil }
	}
	return &Writer{cfg: cfg, repo: &repo{gitDir: cfg.GitDir, siteRoot: cfg.SiteRoot, env: cfg.GitEnv, redact: cfg.Redact,
		files: gitsource.OpenFiles(cfg.GitDir)}, slot: make(chan struct{}, 1)}
}

type op int

const (
	opCreate op = iota
	opReplace
	opPatch
	opDelete
)

// Create writes a new document; a Conflict when its slug is taken.
func (w *Writer) Create(ctx context.Context, d Doc, o Options) (Result, error) {
	return w.write(ctx, opCreate, d, o)
}

// Replace writes the document as given: keys it does not give are
// removed, but for id and the draft keys (draft, published, status) and
// updatedAt/lastmod, which stay unless given.
func (w *Writer) Replace(ctx context.Context, d Doc, o Options) (Result, error) {
	return w.write(ctx, opReplace, d, o)
}

// Patch sets the given keys (nil removes one) and the body when given.
func (w *Writer) Patch(ctx context.Context, d Doc, o Options) (Result, error) {
	return w.write(ctx, opPatch, d, o)
}

// Delete removes the document's file.
func (w *Writer) Delete(ctx context.Context, d Doc, o Options) (Result, error) {
	return w.write(ctx, opDelete, d, o)
}

// TargetBranch is the branch a write with Options.Branch b goes to, or an
// Invalid error when b may not be written.
func (w *Writer) TargetBranch(b string) (string, error) {
	def := w.cfg.Branch
	if w.cfg.DraftBranch != "" {
		def = w.cfg.DraftBranch
	}
	if b == "" || b == def {
		return def, nil
	}
	if !validBranch(b) {
		return "", fault.New(fault.Invalid, "invalid branch name %q", b)
	}
	for _, p := range w.cfg.WriteBranches {
		if MatchBranch(p, b) {
			return b, nil
		}
	}
	return "", fault.New(fault.Forbidden, "writes may go to %s and to branches matching %s, not to %q", def, strings.Join(w.cfg.WriteBranches, ", "), b)
}

// MatchBranch tells whether branch matches pattern: path.Match, and a
// pattern "prefix/*" also matches every branch under prefix/.
func MatchBranch(pattern, branch string) bool {
	if ok, _ := path.Match(pattern, branch); ok {
		return true
	}
	if pre, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(branch, pre+"/")
	}
	return false
}

// validBranch tells whether git takes b as a branch name (the rules of
// git check-ref-format): a name git refuses would fail only at the push.
func validBranch(b string) bool {
	if b == "" || b == "@" || len(b) > 200 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".") || strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") {
		return false
	}
	for _, seg := range strings.Split(b, "/") {
		if strings.HasPrefix(seg, ".") || strings.HasSuffix(seg, ".lock") {
			return false
		}
	}
	for _, r := range b {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	return true
}

// maxAttempts bounds the retries of a write whose branch moved meanwhile.
const maxAttempts = 5

func (w *Writer) write(ctx context.Context, o op, d Doc, opts Options) (Result, error) {
	if err := checkDoc(o, &d); err != nil {
		return Result{}, err
	}
	if err := opts.checkMessage(); err != nil {
		return Result{}, err
	}
	if err := checkSize(d); err != nil {
		return Result{}, err
	}
	branch, err := w.TargetBranch(opts.Branch)
	if err != nil {
		return Result{}, err
	}
	opts.Author = w.defaultAuthor(opts.Author)
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()

	v := w.view(branch)
	if _, err := v.checkLocale(&d); err != nil {
		return Result{}, err
	}
	if err := checkSectionIndex(o, d, v); err != nil {
		return Result{}, err
	}
	if d.TranslationOf != "" && (o != opCreate || d.Kind == KindGlobals || !content.ValidSlug(d.TranslationOf)) {
		return Result{}, fault.New(fault.Invalid, "translationOf: the slug of the document a new one translates (creates of items and pages)")
	}
	head, err := w.head(ctx, branch)
	if err != nil {
		return Result{}, err
	}
	if head == "" {
		// A new branch (the draft branch's first write, cms/…): see
		// BranchStart.
		if head, err = w.BranchStart(ctx, branch); err != nil {
			return Result{}, err
		}
		if head == "" {
			return Result{}, fault.New(fault.NotFound, "the published branch %q does not exist", w.cfg.Branch)
		}
	}
	plan, err := planner{w.repo, v}.plan(ctx, o, d, opts, head)
	if err != nil {
		return Result{}, err
	}
	return w.commitPlan(ctx, branch, plan, opts)
}

// commitPlan commits a planned write and publishes it (see publish),
// rebasing it while the branch moves under it and its file does not.
func (w *Writer) commitPlan(ctx context.Context, branch string, plan *plan, opts Options) (Result, error) {
	if plan.unchanged {
		return Result{Path: plan.path, Branch: branch, Blob: plan.oldBlob, Slug: plan.slug, Locale: plan.locale}, nil
	}
	if plan.oldBlob == "" && plan.op != opDelete {
		if err := w.repo.checkCaseClash(ctx, plan.parent, plan.path); err != nil {
			return Result{}, err
		}
	}
	for attempt := 1; ; attempt++ {
		commit, err := w.repo.commitFile(ctx, plan.parent, plan.path, plan.newBlob, plan.message(opts), opts.Author, w.cfg.Committer)
		if err != nil {
			return Result{}, err
		}
		moved, err := w.publish(ctx, branch, plan.parent, commit, plan.path)
		if err != nil {
			return Result{}, err
		}
		if moved == "" {
			if w.cfg.Written != nil {
				w.cfg.Written(ctx, branch, commit)
			}
			return Result{Path: plan.path, Branch: branch, Commit: commit, Blob: plan.newBlob, Slug: plan.slug, Locale: plan.locale}, nil
		}
		// The branch moved under the write: rebase it on the new head
		// when the file is as it was, else it is a conflict.
		now, err := w.repo.blobAt(ctx, moved, plan.path)
		if err != nil {
			return Result{}, err
		}
		if now != plan.oldBlob {
			if opts.IfMatch != "" {
				return Result{}, fault.New(fault.PreconditionFailed, "%s changed while this write was made; read it again", plan.path)
			}
			return Result{}, fault.New(fault.Conflict, "%s changed on the branch %s while this write was made; read it again and retry", plan.path, branch)
		}
		if attempt >= maxAttempts {
			return Result{}, fault.New(fault.Conflict, "the branch %s kept moving; retry", branch)
		}
		// What the branch gained meanwhile (another box's write) may
		// break a rule that spans documents: checked again on it before
		// the write goes on top of it.
		if plan.recheck != nil {
			if err := plan.recheck(ctx, plan.parent, moved); err != nil {
				return Result{}, err
			}
		}
		plan.parent = moved
	}
}

// plan is one write, worked out against a head.
type plan struct {
	op        op
	kind      Kind
	path      string
	slug      string
	parent    string
	oldBlob   string
	newBlob   string
	unchanged bool
	locale    string // the document's locale; "" on a site without
	// recheck checks the write again against the files that changed
	// between two commits of the branch (see commitPlan); nil: nothing
	// to check.
	recheck func(ctx context.Context, from, to string) error
}

func (p *plan) message(o Options) string {
	return withTrailers(p.subject(o), o.Trailers)
}

func (p *plan) subject(o Options) string {
	if o.Message != "" {
		return o.Message
	}
	what := strings.TrimSuffix(p.path, path.Ext(p.path))
	what = strings.TrimPrefix(what, "content/")
	verb := "Update"
	switch p.op {
	case opCreate:
		verb = "Create"
	case opDelete:
		verb = "Delete"
	}
	return verb + " " + what
}

func checkDoc(o op, d *Doc) error {
	switch d.Kind {
	case KindItem:
		if !content.ValidType(d.Type) {
			return fault.New(fault.Invalid, "invalid content type %q", d.Type)
		}
	case KindPage:
	case KindGlobals:
		if o == opCreate || o == opDelete {
			return fault.New(fault.NotAllowed, "globals are replaced or patched, not created or deleted")
		}
		d.Slug = ""
		return nil
	default:
		return fault.New(fault.Invalid, "unknown kind of document %q", d.Kind)
	}
	if o == opCreate && d.Slug == "" {
		if s, ok := d.Fields["slug"].(string); ok && s != "" {
			d.Slug = strings.Trim(s, "/")
		} else if t, ok := d.Fields["title"].(string); ok {
			d.Slug = Slugify(t)
			if d.Slug == "" {
				return &ValidationError{[]FieldProblem{{"slug", "no slug given and none can be made from the title"}}}
			}
		} else {
			return &ValidationError{[]FieldProblem{{"slug", "give a slug or a title"}}}
		}
	}
	if !content.ValidSlug(d.Slug) {
		if o == opCreate {
			return &ValidationError{[]FieldProblem{{"slug", fmt.Sprintf("%q is not a valid slug: letters, digits, '.', '_', '~' and '-', segments joined by '/', no '.' or '..' segment", d.Slug)}}}
		}
		return fault.New(fault.Invalid, "invalid slug %q", d.Slug)
	}
	return nil
}

// checkSectionIndex refuses the slug _index on a site without locales:
// <type>/_index.md (pages/_index.md) is then the list page of the
// section, Hugo's, which no document route serves. A create there
// answered 201 with a document nobody could read, and a delete removed
// the file. (A site with locales serves Hugo's section pages.)
func checkSectionIndex(o op, d Doc, v view) error {
	if d.Slug != "_index" || d.Kind == KindGlobals || v.i18n() != nil {
		return nil
	}
	if o == opCreate {
		return &ValidationError{[]FieldProblem{{"slug", "_index names the list page of the section, not a document: choose another slug"}}}
	}
	return fault.New(fault.NotFound, "no document _index: _index is the list page of the section, not a document")
}

// publish makes commit the branch's head: a compare-and-swap of the ref
// in a local repository; a push (never forced) for a remote, recorded in
// the journal until it is done. It returns the branch's new head when it
// moved under the write (nothing was published), else "".
func (w *Writer) publish(ctx context.Context, branch, parent, commit, p string) (string, error) {
	if !w.cfg.Remote {
		if err := w.repo.updateRef(ctx, branch, commit, w.headOrEmpty(ctx, branch, parent)); err != nil {
			now, herr := w.head(ctx, branch)
			if herr != nil {
				return "", herr
			}
			if now != parent {
				return now, nil
			}
			return "", err
		}
		return "", nil
	}
	if err := w.journal(pending{Branch: branch, Commit: commit, Parent: parent, Path: p, New: w.headOrEmpty(ctx, branch, parent) == ""}); err != nil {
		return "", err
	}
	defer w.lockRefs()()
	pctx, cancel := context.WithTimeout(ctx, w.cfg.PushTimeout)
	res, err := w.repo.push(pctx, commit, branch)
	cancel()
	if res == refused {
		// A push that lost a race may be refused in other words than
		// non-fast-forward ("failed to update ref", a lock): the branch
		// moved if the remote is no longer at parent. A push cut off by
		// the timeout may have landed all the same.
		lctx, cancel := context.WithTimeout(ctx, w.cfg.PushTimeout)
		now, lerr := w.repo.text(lctx, "ls-remote", "origin", "refs/heads/"+branch)
		cancel()
		if lerr == nil {
			switch h, _, _ := strings.Cut(now, "\t"); {
			case h == commit:
				res = pushed
			case h != "" && h != parent:
				res = rejected
			}
		}
	}
	switch res {
	case pushed:
		w.clearJournal()
		if err := w.repo.setRef(ctx, branch, commit); err != nil {
			w.cfg.Logger.Warn("write: pushed; the clone's ref will follow on the next fetch", "err", err)
		}
		return "", nil
	case rejected:
		w.clearJournal()
		fctx, cancel := w.remoteCtx(ctx)
		now, ferr := w.repo.fetchBranch(fctx, branch)
		cancel()
		if ferr != nil {
			return "", fault.Wrap(fault.GitUnavailable, ferr, "the Git remote refused the push and cannot be fetched; nothing was written")
		}
		if now == "" || now == parent {
			return "", fault.Wrap(fault.GitUnavailable, err, "the Git remote refused the push; nothing was written")
		}
		return now, nil
	}
	w.clearJournal()
	w.cfg.Logger.Warn("write: push refused", "branch", branch, "commit", commit, "err", err)
	return "", fault.Wrap(fault.GitUnavailable, err, "the Git remote refused the push or cannot be reached; nothing was written")
}

// lockRefs takes Config.RefLock (when set) and returns its unlock: held
// from a push until the clone's ref follows it, so that a fetch of the
// engine that read the remote's refs before the push does not roll the
// ref back, or prune a new branch, after it.
func (w *Writer) lockRefs() (unlock func()) {
	if w.cfg.RefLock == nil {
		return func() {}
	}
	w.cfg.RefLock.Lock()
	return w.cfg.RefLock.Unlock
}

// headOrEmpty is parent when branch exists, "" when the write creates it.
func (w *Writer) headOrEmpty(ctx context.Context, branch, parent string) string {
	if h, err := w.head(ctx, branch); err == nil && h == "" {
		return ""
	}
	return parent
}
