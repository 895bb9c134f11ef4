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
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media/fault"
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

func (e *ValidationError) Unwrap() error {
	return &fault.Error{Code: fault.Unprocessable, Message: e.Error()}
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
	// follows it; the engine's fetch holds it too (engine.Engine.RefLock).
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
	return &Writer{cfg: cfg, repo: &repo{gitDir: cfg.GitDir, siteRoot: cfg.SiteRoot, env: cfg.GitEnv, redact: cfg.Redact}, slot: make(chan struct{}, 1)}
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
	if _, err := w.checkLocale(branch, &d); err != nil {
		return Result{}, err
	}
	if d.TranslationOf != "" && (o != opCreate || d.Kind == KindGlobals || !content.ValidSlug(d.TranslationOf)) {
		return Result{}, fault.New(fault.Invalid, "translationOf: the slug of the document a new one translates (creates of items and pages)")
	}
	opts.Author = w.defaultAuthor(opts.Author)
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()

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
	plan, err := w.plan(ctx, o, d, opts, branch, head)
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

// Slugify makes a slug of a title: its letters and digits lower-cased
// (the common accented Latin letters folded to their base letter, other
// scripts kept, as Hugo's urlize and Decap's default unicode encoding
// keep them), every other run of characters one '-', at most 80 bytes.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		r = fold(r)
		if unicode.In(r, unicode.L, unicode.M, unicode.N) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 80 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}

// fold maps the common accented Latin letters to their base letter.
func fold(r rune) rune {
	const from, to = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ", "aaaaaaceeeeiiiinoooooouuuuyy"
	if i := strings.IndexRune(from, r); i >= 0 {
		return []rune(to)[len([]rune(from[:i]))]
	}
	return r
}

// docExts are the extensions a document's file may have, in the order
// they are looked for.
var docExts = []string{".md", ".markdown", ".yaml", ".yml", ".json", ".toml", ".html", ".htm"}

// candidates are the paths a document's file may have when the snapshot
// does not tell.
func candidates(d Doc) []string {
	var dir string
	switch d.Kind {
	case KindItem:
		dir = "content/" + d.Type + "/"
	case KindPage:
		dir = "pages/"
	case KindGlobals:
		out := make([]string, 0, 4)
		for _, e := range []string{".yaml", ".yml", ".json", ".toml"} {
			out = append(out, "globals"+e)
		}
		return out
	}
	out := make([]string, 0, len(docExts)+2)
	for _, e := range docExts {
		out = append(out, dir+d.Slug+e)
	}
	return append(out, dir+d.Slug+"/index.md", dir+d.Slug+"/_index.md")
}

// candidatesIn are the paths of candidates(d) in d's locale on a site
// with locales (c non-nil).
func candidatesIn(c *content.I18n, snap *engine.Snapshot, d Doc) []string {
	if c == nil || d.Locale == "" {
		return candidates(d)
	}
	if d.Kind == KindGlobals {
		var out []string
		if d.Locale == c.Default {
			out = candidates(d)
		}
		if p, own := globalsPath(c, snap, d.Locale); own || p != "" {
			out = append(out, p)
		}
		for _, e := range []string{".yaml", ".yml", ".json", ".toml"} {
			for _, p := range []string{"globals." + d.Locale + e, "globals/" + d.Locale + e} {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
		return out
	}
	var out []string
	for _, v := range candidates(d) {
		out = append(out, localePaths(c, d.Locale, v)...)
	}
	return out
}

// served finds the document in the branch's snapshot (in its locale):
// its path and the snapshot's model.
func (w *Writer) served(branch string, d Doc) (p string, model *schema.Model, cfg content.Config) {
	snap := w.cfg.Snapshot(branch)
	if snap == nil && branch != w.cfg.Branch {
		snap = w.cfg.Snapshot(w.cfg.Branch)
		defer func() { p = "" }() // another branch's paths do not hold here
	}
	if snap == nil || snap.Site == nil {
		return "", nil, content.Config{}
	}
	site := localeSite(snap, d.Locale)
	if site == nil {
		return "", snap.Model, snap.Site.Config
	}
	switch d.Kind {
	case KindItem, KindPage:
		p, _, _ = findIn(site, d)
	case KindGlobals:
		p = site.GlobalsPath
		if c := snap.Site.I18n; c != nil {
			p, _ = globalsPath(c, snap, d.Locale)
		}
	}
	return p, snap.Model, snap.Site.Config
}

// resolveSlug takes the slug of a document of another locale to its
// translation's slug in d's locale (as the read routes do: a slug of
// another locale finds the document's translation).
func (w *Writer) resolveSlug(branch string, d *Doc) {
	snap := w.cfg.Snapshot(branch)
	if snap == nil {
		snap = w.cfg.Snapshot(w.cfg.Branch)
	}
	if snap == nil || snap.Site == nil || snap.Site.I18n == nil || d.Kind == KindGlobals || d.Locale == "" {
		return
	}
	if _, _, ok := findIn(localeSite(snap, d.Locale), *d); ok {
		return
	}
	for _, code := range snap.Site.I18n.Codes() {
		if code == d.Locale {
			continue
		}
		if _, tr, ok := findIn(localeSite(snap, code), *d); ok {
			if t, ok := tr[d.Locale]; ok && t.Slug != "" {
				d.Slug = t.Slug
			}
			return
		}
	}
}

// knownType tells whether a create may add an item of typ: the type has
// items on the branch (or the published one), or folio.yaml or the model
// declares it. A typo in a front end's type is then a 404, not a new
// folder under content/. Without a snapshot (nothing loaded yet) every
// type is allowed.
func (w *Writer) knownType(branch, typ string) bool {
	snap := w.cfg.Snapshot(branch)
	if snap == nil {
		snap = w.cfg.Snapshot(w.cfg.Branch)
	}
	if snap == nil || snap.Site == nil {
		return true
	}
	_, declared := snap.Site.Config.Types[typ]
	if len(snap.Site.Items[typ]) > 0 || declared || snap.Model.Of(typ) != nil {
		return true
	}
	for _, site := range snap.Site.Locales { // a type one locale has
		if len(site.Items[typ]) > 0 {
			return true
		}
	}
	return false
}

// dropDerived leaves out of a write the publishedAt that the API filled
// in from the commit time (the file has none) when it comes back as it
// was served: a document read and written back keeps taking its date
// from its commits.
func (w *Writer) dropDerived(branch string, d *Doc) {
	v, ok := d.Fields["publishedAt"]
	if !ok || v == nil {
		return
	}
	snap := w.cfg.Snapshot(branch)
	if snap == nil || snap.Site == nil {
		return
	}
	site := localeSite(snap, d.Locale)
	if site == nil {
		return
	}
	var meta content.Meta
	var at time.Time
	switch d.Kind {
	case KindItem:
		items := site.Items[d.Type]
		i, ok := slices.BinarySearchFunc(items, d.Slug, func(it *content.Item, s string) int { return strings.Compare(it.Slug, s) })
		if !ok {
			return
		}
		meta, at = items[i].Meta, items[i].PublishedAt
	case KindPage:
		i, ok := slices.BinarySearchFunc(site.Pages, d.Slug, func(pg *content.Page, s string) int { return strings.Compare(pg.Slug, s) })
		if !ok {
			return
		}
		meta, at = site.Pages[i].Meta, site.Pages[i].PublishedAt
	default:
		return
	}
	if meta.PublishedSet {
		return
	}
	if t, err := content.ParseDate(v); err == nil && t.Equal(at) {
		d.Fields = maps.Clone(d.Fields)
		delete(d.Fields, "publishedAt")
	}
}

// keepServed takes out of a write the fields given exactly as the
// document is served now (when what is served is the file at the head):
// a page's sections made from its body, a default seo title, the slug its
// path gives stay as the file has them (or leaves them out), instead of
// being written in the served form.
func (w *Writer) keepServed(branch string, d *Doc, blob string) {
	snap := w.cfg.Snapshot(branch)
	if snap == nil || snap.Site == nil || blob == "" {
		return
	}
	site := localeSite(snap, d.Locale)
	if site == nil {
		return
	}
	var served any
	var at string
	switch d.Kind {
	case KindItem:
		items := site.Items[d.Type]
		if i, ok := slices.BinarySearchFunc(items, d.Slug, func(it *content.Item, s string) int { return strings.Compare(it.Slug, s) }); ok {
			served, at = items[i], items[i].Meta.Blob
		}
	case KindPage:
		if i, ok := slices.BinarySearchFunc(site.Pages, d.Slug, func(pg *content.Page, s string) int { return strings.Compare(pg.Slug, s) }); ok {
			served, at = site.Pages[i], site.Pages[i].Meta.Blob
		}
	}
	if served == nil || at != blob {
		return
	}
	data, err := json.Marshal(served)
	if err != nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return
	}
	sd, err := FromAPI(d.Kind, d.Type, d.Slug, m)
	if err != nil {
		return
	}
	var fields map[string]any
	for k, v := range d.Fields {
		if sv, ok := sd.Fields[k]; ok && v != nil && sameValue(sv, v) {
			if fields == nil {
				fields = maps.Clone(d.Fields)
				d.unchanged = map[string]bool{}
			}
			delete(fields, k)
			d.unchanged[k] = true
		}
	}
	if fields != nil {
		d.Fields = fields
	}
}

func (w *Writer) plan(ctx context.Context, o op, d Doc, opts Options, branch, head string) (*plan, error) {
	if o != opCreate {
		w.resolveSlug(branch, &d)
	}
	pl := &plan{op: o, kind: d.Kind, slug: d.Slug, parent: head, locale: d.Locale}
	w.dropDerived(branch, &d)
	servedPath, model, cfg := w.served(branch, d)
	i18n := w.i18nOf(branch)
	snap := w.cfg.Snapshot(branch)
	var err error
	if servedPath != "" {
		if pl.oldBlob, err = w.repo.blobAt(ctx, head, servedPath); err != nil {
			return nil, err
		}
		if pl.oldBlob != "" {
			pl.path = servedPath
		}
	}
	if pl.path == "" && servedPath == "" && i18n != nil {
		// a branch this box does not serve (a new draft branch): the
		// published snapshot's file of the locale's document, while the
		// branch has it unchanged
		if p := w.unchangedPublished(ctx, d, head); p != "" {
			pl.path, pl.oldBlob = p, ""
			if pl.oldBlob, err = w.repo.blobAt(ctx, head, p); err != nil {
				return nil, err
			}
		}
	}
	if pl.path == "" && o == opCreate && i18n != nil {
		// a new document of a locale: where the layout puts it, at the
		// path of the document it translates
		if d.Kind == KindItem && !w.knownType(branch, d.Type) {
			return nil, fault.New(fault.NotFound, "no content type %q: a type begins with a file pushed to content/%s/ or a types: entry in folio.yaml, not with a write", d.Type, d.Type)
		}
		if err := w.placeNew(ctx, i18n, snap, pl, &d, head); err != nil {
			return nil, err
		}
		if pl.path != "" && pl.oldBlob == "" {
			if i18n.Layout == content.LayoutFields && d.Locale != i18n.Default {
				// the one file of every locale: its locale's values
				if pl.oldBlob, err = w.repo.blobAt(ctx, head, pl.path); err != nil {
					return nil, err
				}
			}
			format := FormatYAML
			if f := cfg.Types[d.Type].Format; f != "" && d.Kind == KindItem {
				format = f
			}
			var old []byte
			if pl.oldBlob != "" {
				if old, err = w.repo.readBlob(ctx, pl.oldBlob); err != nil {
					return nil, err
				}
			}
			return pl, w.prepare(ctx, pl, o, d, opts, old, format, model, branch)
		}
	}
	if pl.path == "" {
		for _, c := range candidatesIn(i18n, snap, d) {
			b, err := w.repo.blobAt(ctx, head, c)
			if err != nil {
				return nil, err
			}
			if b != "" {
				pl.path, pl.oldBlob = c, b
				break
			}
		}
	}
	what := describe(d)
	if o == opCreate {
		if pl.path != "" {
			return nil, fault.New(fault.Conflict, "%s already exists (%s)", what, pl.path)
		}
		if d.Kind == KindItem && !w.knownType(branch, d.Type) {
			return nil, fault.New(fault.NotFound, "no content type %q: a type begins with a file pushed to content/%s/ or a types: entry in folio.yaml, not with a write", d.Type, d.Type)
		}
		format := FormatYAML
		if d.Kind == KindItem {
			if f := cfg.Types[d.Type].Format; f != "" {
				format = f
			}
		}
		pl.path = candidatesIn(i18n, snap, d)[0]
		return pl, w.prepare(ctx, pl, o, d, opts, nil, format, model, branch)
	}
	if pl.path == "" {
		if d.Kind == KindGlobals && o != opDelete {
			pl.path = "globals.yaml"
			if i18n != nil {
				if p, _ := globalsPath(i18n, snap, d.Locale); p != "" {
					pl.path = p
				}
			}
		} else {
			return nil, fault.New(fault.NotFound, "no %s on the branch %s", what, branch)
		}
	}
	if err := checkIfMatch(opts.IfMatch, pl.oldBlob, what); err != nil {
		return nil, err
	}
	if o == opDelete && !fieldsLocale(i18n, d) {
		return pl, nil
	}
	var old []byte
	if pl.oldBlob != "" {
		if old, err = w.repo.readBlob(ctx, pl.oldBlob); err != nil {
			return nil, err
		}
	}
	return pl, w.prepare(ctx, pl, o, d, opts, old, FormatYAML, model, branch)
}

func describe(d Doc) string {
	switch d.Kind {
	case KindItem:
		return fmt.Sprintf("%s item %q", d.Type, d.Slug)
	case KindPage:
		return fmt.Sprintf("page %q", d.Slug)
	}
	return "globals file"
}

// checkIfMatch compares an If-Match with the document's blob.
func checkIfMatch(ifMatch, blob, what string) error {
	if ifMatch == "" {
		return nil
	}
	for _, tag := range strings.Split(ifMatch, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			if blob != "" {
				return nil
			}
			continue
		}
		tag = strings.TrimPrefix(tag, "W/")
		tag = strings.Trim(tag, `"`)
		tag, _, _ = strings.Cut(tag, ".")
		if len(tag) >= 7 && blob != "" && strings.HasPrefix(blob, tag) {
			return nil
		}
	}
	return fault.New(fault.PreconditionFailed, "the %s changed since it was read (If-Match does not match its ETag); read it again", what)
}

// prepare works out the new file of a create, replace or patch, checks
// it and stores its blob.
func (w *Writer) prepare(ctx context.Context, pl *plan, o op, d Doc, opts Options, old []byte, format string, model *schema.Model, branch string) error {
	cur, err := splitFile(pl.path, old, format)
	var meta map[string]any
	if err == nil {
		meta, err = metaOf(pl.path, old)
	}
	if err != nil && o == opReplace {
		// A file that does not parse is replaced whole: how a broken
		// document is mended.
		cur, _ = splitFile(pl.path, nil, format)
		meta, err = map[string]any{}, nil
	}
	if err != nil {
		return fault.New(fault.Conflict, "%s cannot be edited: it does not parse (replace it whole with PUT): %v", pl.path, problemMessage(err))
	}
	if c := w.i18nOf(branch); fieldsLocale(c, d) || (fieldsDoc(c, d) && hasLocaleValues(c, meta)) {
		// the one file of every locale: the locale's values only
		if d, err = localeFields(c, d.Locale, o, d, meta); err != nil {
			return err
		}
		o = opPatch
	} else if o == opReplace || o == opPatch {
		w.keepServed(branch, &d, pl.oldBlob)
	}
	ch := toChange(o, d, meta)
	// Without If-Match, a document changed since the client's read gets
	// the write's own changes only (see the package documentation).
	if opts.IfMatch == "" && opts.Base != "" && o != opCreate {
		baseBlob, err := w.repo.blobAt(ctx, opts.Base, pl.path)
		if err != nil {
			// Not known: the write is not applied as if nothing changed.
			return err
		}
		if baseBlob != "" && baseBlob != pl.oldBlob {
			if ch, err = w.rebaseChange(ctx, pl.path, baseBlob, old, meta, ch, o, d); err != nil {
				return err
			}
		}
	}
	if err := cur.apply(ch); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return &ValidationError{[]FieldProblem{{fe.field, fe.message}}}
		}
		if fault.CodeOf(err) == fault.TooLarge {
			return err
		}
		return fault.New(fault.Conflict, "%s cannot be edited: %v", pl.path, err)
	}
	data := cur.bytes()
	if old != nil && string(data) == string(old) {
		pl.unchanged = true
		return nil
	}
	if len(data) > content.MaxFileSize {
		return fault.New(fault.TooLarge, "the file would be %d bytes, over the limit of %d", len(data), content.MaxFileSize)
	}
	// One parse for both checks: a file of many values costs tens of
	// megabytes to parse.
	parsed, _ := content.Parse(pl.path, data) // nil: roundTrip says why
	if err := roundTrip(pl.path, data, parsed, ch); err != nil {
		return err
	}
	if err := w.validate(ctx, pl, d, data, parsed, model, branch); err != nil {
		return err
	}
	pl.newBlob, err = w.repo.writeBlob(ctx, data)
	return err
}

// roundTrip checks that the new file reads back as the change meant:
// each key set to its value, each removed key gone, the body as given. A
// value that the format cannot hold as it is (a delimiter line inside a
// TOML multi-line string, say) is refused rather than written wrong. doc
// is data parsed, or nil.
func roundTrip(p string, data []byte, doc *content.Doc, ch change) error {
	if doc == nil {
		var err error
		if doc, err = content.Parse(p, data); err != nil {
			return &ValidationError{[]FieldProblem{{"", "the document would not parse: " + problemMessage(err)}}}
		}
	}
	var fields []FieldProblem
	for _, k := range ch.keys() {
		if v, ok := doc.Meta[k]; !ok || !sameValue(v, ch.set[k]) {
			fields = append(fields, FieldProblem{k, "this value cannot be written in the document's format as it is"})
		}
	}
	for k := range ch.remove {
		if _, ok := doc.Meta[k]; ok {
			fields = append(fields, FieldProblem{k, "the key cannot be removed (it is given twice?)"})
		}
	}
	if ch.body != nil && isMarkdownPath(p) {
		f, err := splitFile(p, data, FormatYAML)
		if err != nil || strings.TrimRight(string(f.body), "\n") != strings.TrimRight(*ch.body, "\n") {
			fields = append(fields, FieldProblem{"body", "the body cannot be written as it is (it would be read back differently)"})
		}
	}
	if len(fields) > 0 {
		return &ValidationError{fields}
	}
	return nil
}

// metaOf is the front matter of a file as folio reads it; nil for none.
func metaOf(p string, data []byte) (map[string]any, error) {
	if data == nil {
		return map[string]any{}, nil
	}
	doc, err := content.Parse(p, data)
	if err != nil {
		return nil, err
	}
	if doc.Meta == nil {
		return map[string]any{}, nil
	}
	return doc.Meta, nil
}

// fileKey is the key of the file that API field name writes: the file's
// own spelling of it or of an alias (date for publishedAt, …), else name.
func fileKey(name string, meta map[string]any) string {
	group := []string{strings.ToLower(name)}
	switch strings.ToLower(name) {
	case "publishedat":
		group = []string{"publishedat", "publishdate", "date"}
	case "expiresat":
		group = []string{"expiresat", "expirydate"}
	case "updatedat":
		group = []string{"updatedat", "lastmod"}
	}
	for _, g := range group {
		for k := range meta {
			if strings.ToLower(k) == g {
				return k
			}
		}
	}
	return name
}

// pageBuiltins are the keys of a page the API always shows.
var pageBuiltins = map[string]bool{"isHomepage": true, "seo": true, "sections": true}

// isZero tells an empty value: false, "", an empty list, a map of empty
// values.
func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, e := range v {
			if !isZero(e) {
				return false
			}
		}
		return true
	}
	return false
}

// keptOnReplace are the keys (lower case) a Replace keeps unless given.
var keptOnReplace = map[string]bool{"id": true, "draft": true, "published": true, "status": true, "updatedat": true, "lastmod": true}

// toChange turns a write into a change of the file whose front matter is
// meta.
func toChange(o op, d Doc, meta map[string]any) change {
	ch := change{set: map[string]any{}, remove: map[string]bool{}, body: d.Body}
	given := map[string]bool{}
	order := []string{"title", "slug", "publishedAt", "draft"}
	order = append(order, slices.Sorted(maps.Keys(d.Fields))...)
	for _, name := range order {
		v, ok := d.Fields[name]
		if !ok {
			continue
		}
		k := fileKey(name, meta)
		if given[k] {
			continue
		}
		if d.Kind == KindPage && pageBuiltins[name] && !hasFold(meta, name) && isZero(v) {
			continue // what the API shows for a page that sets none
		}
		if s, ok := v.(string); ok && strings.EqualFold(name, "slug") && !hasFold(meta, "slug") && strings.Trim(s, "/") == d.Slug && d.Kind != KindGlobals {
			continue // the file's path gives it already
		}
		given[k] = true
		if b, ok := v.(bool); ok && strings.EqualFold(name, "draft") && !hasFold(meta, "draft") {
			// The file says published: or status: instead; draft is
			// written as the file says it.
			if pk := keyFold(meta, "published"); pk != "" {
				ch.set[pk], given[pk] = !b, true
				continue
			}
			if sk := keyFold(meta, "status"); sk != "" {
				ch.set[sk], given[sk] = map[bool]string{true: "draft", false: "published"}[b], true
				continue
			}
		}
		if v == nil {
			ch.remove[k] = true
			continue
		}
		ch.set[k] = v
		ch.order = append(ch.order, k)
	}
	if o == opReplace {
		for name := range d.unchanged {
			given[fileKey(name, meta)] = true
		}
		for k := range meta {
			if !given[k] && !keptOnReplace[strings.ToLower(k)] {
				ch.remove[k] = true
			}
		}
		if d.Body == nil {
			empty := ""
			ch.body = &empty
		}
	}
	return ch
}

// rebaseChange turns a write planned against the client's base into a
// change of the current file (old): the keys and body the write changes
// relative to base, refused when one of them also changed since base.
func (w *Writer) rebaseChange(ctx context.Context, p, baseBlob string, old []byte, meta map[string]any, ch change, o op, d Doc) (change, error) {
	baseData, err := w.repo.readBlob(ctx, baseBlob)
	if err != nil {
		return ch, err
	}
	baseMeta, err := metaOf(p, baseData)
	if err != nil {
		return ch, nil // the base does not parse: apply as planned
	}
	baseFile, err := splitFile(p, baseData, FormatYAML)
	if err != nil {
		return ch, nil
	}
	curFile, _ := splitFile(p, old, FormatYAML)
	intent := toChange(o, d, baseMeta)
	var conflicts []string
	for k, v := range intent.set {
		if bv, ok := baseMeta[k]; ok && sameValue(bv, v) {
			delete(intent.set, k)
			continue
		}
		if changedSince(baseMeta, meta, k) && !(hasKey(meta, k) && sameValue(meta[k], v)) {
			conflicts = append(conflicts, k)
		}
	}
	for k := range intent.remove {
		if _, ok := baseMeta[k]; !ok {
			delete(intent.remove, k)
			continue
		}
		if changedSince(baseMeta, meta, k) && hasKey(meta, k) {
			conflicts = append(conflicts, k)
		}
	}
	if intent.body != nil {
		if string(baseFile.body) == *intent.body || string(baseFile.body) == *intent.body+"\n" {
			intent.body = nil
		} else if curFile != nil && string(curFile.body) != string(baseFile.body) && string(curFile.body) != *intent.body {
			conflicts = append(conflicts, "body")
		}
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return ch, fault.New(fault.Conflict, "%s changed since it was read, in the fields this write changes too (%s): read it again", p, strings.Join(conflicts, ", "))
	}
	return intent, nil
}

// keyFold is the key of m equal to k but for case; "" when none.
func keyFold(m map[string]any, k string) string {
	for mk := range m {
		if strings.EqualFold(mk, k) {
			return mk
		}
	}
	return ""
}

func hasFold(m map[string]any, k string) bool { return keyFold(m, k) != "" }

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func changedSince(base, cur map[string]any, k string) bool {
	bv, bok := base[k]
	cv, cok := cur[k]
	if bok != cok {
		return true
	}
	return bok && !sameValue(bv, cv)
}

// validate checks the new file: it parses, the content rules take it,
// its slug is its own, and the content model accepts it.
func (w *Writer) validate(ctx context.Context, pl *plan, d Doc, data []byte, doc *content.Doc, model *schema.Model, branch string) error {
	var err error
	if doc == nil {
		doc, err = content.Parse(pl.path, data)
	}
	if err != nil {
		return &ValidationError{[]FieldProblem{{"", problemMessage(err)}}}
	}
	// On a site with locales, the file is read as its locale's site reads
	// it: at its path in the locale, with the locale's values.
	i18n := w.i18nOf(branch)
	_, virt := virtualPath(i18n, pl.path)
	src := ""
	if virt != pl.path {
		src = pl.path
	}
	var others []FieldProblem // the other locales' readings' problems
	if i18n != nil {
		if pl.locale == "" {
			pl.locale, _ = virtualPath(i18n, pl.path)
		}
		if fieldsDoc(i18n, d) {
			// every locale's reading of the one file that this write
			// changes is checked, as the read side checks each
			if others, err = w.otherReadings(ctx, pl, branch, i18n, virt, src, d, doc, model); err != nil {
				return err
			}
			ld, in := content.Localize(doc, pl.locale, i18n)
			if !in {
				// the write leaves no value of its locale
				if len(others) > 0 {
					return &ValidationError{others}
				}
				return nil
			}
			doc = ld
		}
		if d.Kind == KindGlobals && pl.locale != "" && pl.locale != i18n.Default {
			if doc, err = w.overDefaultGlobals(ctx, pl.parent, i18n, doc); err != nil {
				return err
			}
		}
	}
	site, fields := assembleOne(pl.path, virt, src, doc)
	if len(fields) > 0 {
		return &ValidationError{append(fields, others...)}
	}
	t := typeOf(model, d)
	switch d.Kind {
	case KindItem:
		if its := site.Items[d.Type]; len(its) == 1 {
			pl.slug = its[0].Slug
		}
	case KindPage:
		if len(site.Pages) == 1 {
			pl.slug = site.Pages[0].Slug
		}
	}
	fields = others
	if pl.slug != d.Slug && d.Kind != KindGlobals {
		// The front matter renames it: the new slug must be free.
		other := Doc{Kind: d.Kind, Type: d.Type, Slug: pl.slug, Locale: pl.locale}
		if p, _, _ := w.served(branch, other); p != "" && p != pl.path {
			return fault.New(fault.Conflict, "the slug %q is taken (%s)", pl.slug, p)
		}
		for _, c := range candidatesIn(i18n, w.cfg.Snapshot(branch), other) {
			if b, err := w.repo.blobAt(ctx, pl.parent, c); err == nil && b != "" && c != pl.path {
				return fault.New(fault.Conflict, "the slug %q is taken (%s)", pl.slug, c)
			}
		}
	}
	pl.recheck = w.recheckFunc(pl, branch, d, t, doc)
	// The branch's head may be ahead of its snapshot (a push refused
	// earlier fetched it): what the snapshot lacks is checked as a rebase
	// is (see recheck.go).
	if snap := w.cfg.Snapshot(branch); snap != nil && snap.Commit != "" && snap.Commit != pl.parent {
		if err := pl.recheck(ctx, snap.Commit, pl.parent); err != nil {
			return err
		}
	}
	if t == nil {
		if len(fields) > 0 {
			return &ValidationError{fields}
		}
		return nil
	}
	for _, v := range t.Validate(doc) {
		if !v.Warn {
			fields = append(fields, FieldProblem{v.Field, v.Message})
		}
	}
	if d.Kind == KindItem {
		fields = append(fields, w.notUnique(branch, pl.locale, d.Type, pl.path, t, doc)...)
	}
	if len(fields) > 0 {
		return &ValidationError{fields}
	}
	return nil
}

// assembleOne assembles the one document doc of the file p, read at its
// path virt in its locale's site (src: the file's own path when not
// virt): the site, and the problems of p as the fields they are at.
func assembleOne(p, virt, src string, doc *content.Doc) (*content.Site, []FieldProblem) {
	var fields []FieldProblem
	site, problems := content.Assemble([]content.File{{Path: virt, Source: src, Doc: doc}})
	for _, pr := range problems {
		if pr.Path == p && pr.Level != content.LevelWarn {
			fields = append(fields, FieldProblem{keyAtLine(doc, pr.Line), pr.Message})
		}
	}
	return site, fields
}

// otherReadings checks the readings of a fields-layout file (doc, the
// new file) in the locales other than the write's that the write
// changes: the content rules and the model (unique within the locale),
// as the read side checks each locale's reading. A reading the old file had alike is not this
// write's to check. Each problem says its locale.
func (w *Writer) otherReadings(ctx context.Context, pl *plan, branch string, c *content.I18n, virt, src string, d Doc, doc *content.Doc, model *schema.Model) ([]FieldProblem, error) {
	var old *content.Doc
	if pl.oldBlob != "" {
		data, err := w.repo.readBlob(ctx, pl.oldBlob)
		if err != nil {
			return nil, err
		}
		old, _ = content.Parse(pl.path, data)
	}
	t := typeOf(model, d)
	var out []FieldProblem
	for _, loc := range c.Codes() {
		if loc == pl.locale {
			continue
		}
		ld, in := content.Localize(doc, loc, c)
		if !in {
			continue
		}
		if old != nil {
			if od, in := content.Localize(old, loc, c); in && sameReading(od, ld) {
				continue
			}
		}
		_, fields := assembleOne(pl.path, virt, src, ld)
		if len(fields) == 0 && t != nil {
			for _, v := range t.Validate(ld) {
				if !v.Warn {
					fields = append(fields, FieldProblem{v.Field, v.Message})
				}
			}
			if d.Kind == KindItem {
				fields = append(fields, w.notUnique(branch, loc, d.Type, pl.path, t, ld)...)
			}
		}
		for _, f := range fields {
			f.Message += " (in " + loc + ")"
			out = append(out, f)
		}
	}
	return out, nil
}

// sameReading tells whether two readings of a file hold the same values
// and body.
func sameReading(a, b *content.Doc) bool {
	return a.Body.Source() == b.Body.Source() && a.HasBody == b.HasBody && sameValue(a.Meta, b.Meta)
}

// notUnique lists the fields declared unique whose value in doc another
// item of the type (in the branch's snapshot, the one at path aside)
// already has: the model's cross-document rule, checked before the commit
// as every other rule is.
func (w *Writer) notUnique(branch, locale, typ, path string, t *schema.Type, doc *content.Doc) []FieldProblem {
	unique := t.Unique()
	if len(unique) == 0 {
		return nil
	}
	snap := w.cfg.Snapshot(branch)
	if snap == nil {
		snap = w.cfg.Snapshot(w.cfg.Branch)
	}
	site := localeSite(snap, locale)
	if site == nil {
		return nil
	}
	return uniqueClashes(unique, typ, path, doc, site.Items[typ])
}

// uniqueClashes lists the fields of unique whose value in doc one of
// items (the one at path aside) has too.
func uniqueClashes(unique []string, typ, path string, doc *content.Doc, items []*content.Item) []FieldProblem {
	var out []FieldProblem
	for _, f := range unique {
		v, ok := doc.Meta[f]
		if !ok || v == nil {
			continue
		}
		want := fmt.Sprint(v)
		for _, it := range items {
			if it.Meta.Path == path {
				continue
			}
			got, has := it.Data[f], true
			if f == "title" {
				got = it.Title
			} else if got == nil {
				has = false
			}
			if has && fmt.Sprint(got) == want {
				out = append(out, FieldProblem{f, fmt.Sprintf("must be unique within %s: %s/%s has the same value", typ, typ, it.Slug)})
				break
			}
		}
	}
	return out
}

func problemMessage(err error) string {
	var p content.Problem
	if errors.As(err, &p) {
		if p.Line > 0 {
			return fmt.Sprintf("line %d: %s", p.Line, p.Message)
		}
		return p.Message
	}
	return err.Error()
}

// keyAtLine is the top-level key at a line of the document; "" when not
// known.
func keyAtLine(doc *content.Doc, line int) string {
	if line <= 0 {
		return ""
	}
	for k, l := range doc.Lines {
		if l == line && !strings.HasPrefix(k, "/") {
			return k
		}
	}
	return ""
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
