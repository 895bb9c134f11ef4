package write

import (
	"context"
	"path"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// The file-level API, for editors that think in files (Decap CMS's proxy
// backend reads and writes whole files with their front matter): the same
// checks, commits and pushes as the document API.

// File is a content file of a branch.
type File struct {
	Path string
	Blob string
}

// ReadFile returns a file of branch ("": the default write branch) and its
// blob; NotFound when there is none.
func (w *Writer) ReadFile(ctx context.Context, branch, p string) ([]byte, string, error) {
	branch, head, err := w.readHead(ctx, branch)
	if err != nil {
		return nil, "", err
	}
	if err := checkPath(p); err != nil {
		return nil, "", err
	}
	data, blob, err := w.repo.fileAt(ctx, head, p)
	if err == nil && blob == "" {
		return nil, "", fault.New(fault.NotFound, "no file %s on the branch %s", p, branch)
	}
	return data, blob, err
}

// ListFiles lists the files under dir (recursively) on branch ("": the
// default write branch), in path order.
func (w *Writer) ListFiles(ctx context.Context, branch, dir string) ([]File, error) {
	_, head, err := w.readHead(ctx, branch)
	if err != nil {
		return nil, err
	}
	dir = strings.Trim(dir, "/")
	if dir != "" {
		if err := checkPath(dir); err != nil {
			return nil, err
		}
	}
	return w.repo.listTree(ctx, head, dir)
}

func (w *Writer) readHead(ctx context.Context, branch string) (string, string, error) {
	if branch != w.cfg.Branch {
		// Reads may name the published branch too; other branches as
		// writes may.
		b, err := w.TargetBranch(branch)
		if err != nil {
			return "", "", err
		}
		branch = b
	}
	head, err := w.head(ctx, branch)
	if err != nil {
		return "", "", err
	}
	if head == "" {
		if head, err = w.BranchStart(ctx, branch); err != nil {
			return "", "", err
		}
	}
	if head == "" {
		return "", "", fault.New(fault.NotFound, "the branch %q does not exist", branch)
	}
	return branch, head, nil
}

// checkContentPath is checkPath of a file folio reads as a page, an
// item or the globals (content.Relevant, not a model file) on a site
// with locales c (nil: without): a locale's contentDir outside content/
// (content_fr/…) holds content files too.
func checkContentPath(c *content.I18n, p string) error {
	if err := checkPath(p); err != nil {
		return err
	}
	dirs := c.OutsideDirs()
	if !content.RelevantIn(p, dirs) || content.ModelFile(p) || strings.HasPrefix(strings.ToLower(p), "folio.") {
		where := "pages/…, content/<type>/…, globals.*"
		for _, d := range dirs {
			where += ", " + d + "/…"
		}
		return fault.New(fault.Invalid, "%s is not a content file (%s)", p, where)
	}
	return nil
}

// checkPath accepts a clean, relative repository path.
func checkPath(p string) error {
	if p == "" || len(p) > 1024 || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == ".." {
		return fault.New(fault.Invalid, "invalid path %q", p)
	}
	for _, r := range p {
		if r < ' ' || r == 0x7f || r == '\\' {
			return fault.New(fault.Invalid, "invalid path %q: control characters or backslashes", p)
		}
	}
	return nil
}

// docOfPath is what a content path holds.
func docOfPath(p string) Doc {
	segs := strings.Split(p, "/")
	switch {
	case len(segs) == 1:
		return Doc{Kind: KindGlobals}
	case segs[0] == "pages":
		return Doc{Kind: KindPage}
	}
	return Doc{Kind: KindItem, Type: segs[1]}
}

// pageAt is the page of the branch's snapshot (of locale loc) whose file
// is p, when one is: a Hugo leaf bundle's content/about/index.md and
// content/about.md are pages, though their paths look like an item's.
func (v view) pageAt(p, loc string) (Doc, bool) {
	if !strings.HasPrefix(p, "content/") && (v.own == nil || v.own.Site == nil || v.own.Site.I18n == nil) {
		return Doc{}, false // pages/…: docOfPath says so
	}
	site := localeSite(v.own, loc)
	if site == nil {
		return Doc{}, false
	}
	for _, pg := range site.Pages {
		if pg.Meta.Path == p {
			return Doc{Kind: KindPage, Slug: pg.Slug, Locale: loc}, true
		}
	}
	return Doc{}, false
}

// PutFile writes a whole content file (front matter and body as the
// editor made them) at p: checked as a document write is (the file
// parses, the content rules, the content model, a slug no other document
// has), committed and pushed. Options.Read names the version the editor
// read (see FileBase): a file changed since is merged with the save or
// refused. Options.IfMatch: the file's ETag must be this one. With
// neither, a file that exists is replaced.
func (w *Writer) PutFile(ctx context.Context, p string, data []byte, opts Options) (Result, error) {
	return w.writeFile(ctx, p, data, false, opts)
}

// DeleteFile removes a content file; NotFound when there is none.
func (w *Writer) DeleteFile(ctx context.Context, p string, opts Options) (Result, error) {
	return w.writeFile(ctx, p, nil, true, opts)
}

func (w *Writer) writeFile(ctx context.Context, p string, data []byte, del bool, opts Options) (Result, error) {
	if err := checkPath(p); err != nil {
		return Result{}, err
	}
	if err := opts.checkMessage(); err != nil {
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
	i18n := v.i18n()
	if err := checkContentPath(i18n, p); err != nil {
		return Result{}, err
	}
	// on a site with locales, a locale's file is its locale's document
	loc, virt := virtualPath(i18n, p)
	d := docOfPath(virt)
	d.Locale = loc
	if sd, ok := v.pageAt(p, loc); ok {
		d = sd // a page whose path looks like an item's (content/about/index.md)
	}
	if d.Kind == KindItem && !content.ValidType(d.Type) {
		return Result{}, fault.New(fault.Invalid, "invalid content type %q in %s", d.Type, p)
	}
	if len(data) > content.MaxFileSize {
		return Result{}, fault.New(fault.TooLarge, "the file is %d bytes, over the limit of %d", len(data), content.MaxFileSize)
	}
	_, head, err := w.readHead(ctx, branch)
	if err != nil {
		return Result{}, err
	}
	pl := &plan{op: opReplace, kind: d.Kind, path: p, parent: head, locale: loc}
	if pl.oldBlob, err = w.repo.blobAt(ctx, head, p); err != nil {
		return Result{}, err
	}
	if err := checkIfMatch(opts.IfMatch, pl.oldBlob, p); err != nil {
		return Result{}, err
	}
	switch {
	case del:
		if pl.oldBlob == "" {
			return Result{}, fault.New(fault.NotFound, "no file %s on the branch %s", p, branch)
		}
		pl.op = opDelete
	case pl.oldBlob == "":
		pl.op = opCreate
	}
	if !del && opts.Read != nil {
		if data, err = w.readBase(ctx, p, opts.Read, pl.oldBlob, data); err != nil {
			return Result{}, err
		}
	}
	if !del {
		if old, err := w.repo.readBlob(ctx, pl.oldBlob); pl.oldBlob != "" && err == nil && string(old) == string(data) {
			pl.unchanged = true
			return Result{Path: p, Branch: branch, Blob: pl.oldBlob}, nil
		}
		_, model, _ := v.served(d)
		if err := (planner{w.repo, v}).validate(ctx, pl, d, data, nil, model); err != nil {
			return Result{}, err
		}
		if pl.newBlob, err = w.repo.writeBlob(ctx, data); err != nil {
			return Result{}, err
		}
	}
	return w.commitPlan(ctx, branch, pl, opts)
}
