package server

import (
	"context"
	"net/http"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/julienschmidt/httprouter"
)

// The write API (docs/editing.md): documents are committed to the site's
// Git repository by engine/write; this file is its HTTP side.

// maxWriteBody bounds a write's JSON body: a file may be up to
// content.MaxFileSize, and JSON escapes some of it.
const maxWriteBody = content.MaxFileSize + content.MaxFileSize/4

type writeOp int

const (
	wCreate writeOp = iota
	wReplace
	wPatch
	wDelete
)

// writeHandlers answer the write API (PUT, PATCH, POST, DELETE of pages,
// items and globals) and POST /api/v1/publish.
type writeHandlers struct {
	engine      *engine.Engine
	writer      *write.Writer // nil: the write routes answer 405
	heavyWrites heavyGate
	now         func() time.Time
}

// writeRoute is the handler of one write route: op on a document of kind.
func (s *writeHandlers) writeRoute(kind write.Kind, op writeOp) handler {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
		return s.writeDoc(w, r, p, kind, op)
	}
}

func (s *writeHandlers) writeDoc(w http.ResponseWriter, r *http.Request, p httprouter.Params, kind write.Kind, op writeOp) error {
	if s.writer == nil {
		return errorf(fault.NotAllowed, "this folio does not write content: it has no git command (see docs/editing.md)")
	}
	var typ, slug string
	var err error
	if kind == write.KindItem {
		if typ, err = typeParam(p); err != nil {
			return err
		}
	}
	if op != wCreate && kind != write.KindGlobals {
		if slug, err = slugParam(p); err != nil {
			return err
		}
	}
	var body map[string]any
	if op != wDelete {
		var done func()
		body, done, err = s.readWriteBody(w, r)
		if err != nil {
			return err
		}
		defer done()
	}
	doc, err := write.FromAPI(kind, typ, slug, body)
	if err != nil {
		return err
	}
	q := query(r)
	branch, err := s.writer.TargetBranch(q.Get("branch"))
	if err != nil {
		return err
	}
	if vals, ok := q["locale"]; ok {
		if doc.Locale = vals[0]; doc.Locale == "" {
			return badRequest("locale: empty; give a locale code or leave the parameter out")
		}
	}
	if vals, ok := q["translationOf"]; ok {
		if op != wCreate || kind == write.KindGlobals {
			return badRequest("translationOf: only a create of an item or a page translates a document")
		}
		if doc.TranslationOf = vals[0]; doc.TranslationOf == "" {
			return badRequest("translationOf: empty; give the slug of the document the new one translates")
		}
	}
	opts := write.Options{Branch: branch, IfMatch: r.Header.Get("If-Match"), Message: q.Get("message")}
	if len(opts.Message) > 4096 {
		return badRequest("message: at most 4096 bytes")
	}
	if k := keyFrom(r.Context()); k != nil {
		opts.Author = write.Person{Name: k.AuthorName(), Email: k.Email}
	}
	if err := mayEdit(r, doc, s.engine); err != nil { // signin.go
		return err
	}
	opts.Author = personAuthor(r, opts.Author)
	// Without If-Match, the write is made against what the client most
	// likely read: the commit the box serves of the branch, or, for a
	// branch it does not serve (cms/…, ?ref= reads it), the branch's head
	// as the request arrives (see the merge rule, docs/editing.md).
	if snap := s.engine.SnapshotOf(branch); snap != nil {
		opts.Base = snap.Commit
	} else if opts.Base, err = s.writer.BranchHead(r.Context(), branch); err != nil {
		return err
	}
	// A write is not abandoned with its client: once the commit is made
	// it is pushed, and the answer says what happened.
	ctx := context.WithoutCancel(r.Context())
	var res write.Result
	switch op {
	case wCreate:
		res, err = s.writer.Create(ctx, doc, opts)
	case wReplace:
		res, err = s.writer.Replace(ctx, doc, opts)
	case wPatch:
		res, err = s.writer.Patch(ctx, doc, opts)
	case wDelete:
		res, err = s.writer.Delete(ctx, doc, opts)
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Cache-Control", cacheNoStore)
	if res.Commit != "" {
		h.Set("X-Folio-Commit", res.Commit)
	}
	if op == wDelete {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if res.Locale != "" {
		h.Set("Content-Language", res.Locale)
	}
	status := http.StatusOK
	if op == wCreate {
		status = http.StatusCreated
		inLocale := ""
		if res.Locale != "" {
			inLocale = "?locale=" + res.Locale
		}
		switch kind {
		case write.KindItem:
			h.Set("Location", "/api/v1/content/"+typ+"/"+content.EscapeSlug(res.Slug)+inLocale)
		case write.KindPage:
			h.Set("Location", "/api/v1/pages/"+content.EscapeSlug(res.Slug)+inLocale)
		}
	}
	// The writing box serves the new commit at once (Writer's Written
	// reloaded it): answer with the document as a GET now serves it (the
	// published view for the published branch, else the draft view),
	// to a key that may GET it there: content:read for the published
	// view, content:draft for the draft view. Writing does not imply
	// reading: another key is told where the write went, not what the
	// document holds.
	if snap := s.engine.SnapshotOf(branch); snap != nil && (res.Commit == "" || snap.Commit == res.Commit) {
		views := []bool{true}
		if branch == s.engine.Branch() {
			views = []bool{false, true}
		}
		k := keyFrom(r.Context())
		for _, draft := range views {
			if k == nil || !k.Has(ScopeContentRead) || draft && !k.Has(ScopeContentDraft) {
				continue
			}
			v := s.engine.View(draft)
			if res.Locale != "" {
				if v, err = v.InLocale(res.Locale, false, s.now()); err != nil {
					break
				}
			}
			rs, ok := servedDoc(v, kind, typ, res.Slug)
			if !ok {
				continue
			}
			rbody, etag, err := rs.Body()
			if err != nil {
				break
			}
			h.Set("ETag", etag)
			h.Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, err = w.Write(rbody)
			return err
		}
	}
	h.Set("ETag", res.ETag())
	return writeJSON(w, status, writeResult{Path: res.Path, Branch: res.Branch, Commit: res.Commit, Slug: res.Slug, Type: typ, Locale: res.Locale})
}

// writeResult answers a write whose document this box does not serve
// (another branch, a draft in the published view).
type writeResult struct {
	Type   string `json:"type,omitempty"`
	Slug   string `json:"slug,omitempty"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Commit string `json:"commit"`
	Locale string `json:"locale,omitempty"`
}

// servedDoc is the resource of a document in v.
func servedDoc(v *engine.View, kind write.Kind, typ, slug string) (*engine.Resource, bool) {
	switch kind {
	case write.KindItem:
		if t, ok := v.Type(typ); ok {
			return t.Item(slug)
		}
	case write.KindPage:
		return v.Page(slug)
	case write.KindGlobals:
		return v.Globals()
	}
	return nil, false
}

// publishRequest is POST /api/v1/publish's body (optional).
type publishRequest struct {
	// Documents name what to publish; none: the whole draft branch.
	Documents []struct {
		Type string `json:"type"` // an item's type
		Page bool   `json:"page"` // a page
		// Globals names the globals file.
		Globals bool   `json:"globals"`
		Slug    string `json:"slug"`
		// Locale is the document's locale on a site with locales
		// (default: the default locale).
		Locale string `json:"locale"`
	} `json:"documents"`
	Message string `json:"message"`
}

// publish merges the draft branch (or documents of it) into the
// published branch (the route needs content:draft besides content:write).
func (s *writeHandlers) publish(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := mayPublish(r); err != nil { // signin.go
		return err
	}
	if s.writer == nil {
		return errorf(fault.NotAllowed, "this folio does not write content (no writer configured)")
	}
	var req publishRequest
	if r.ContentLength != 0 {
		if err := decodeJSON(w, r, &req); err != nil {
			return err
		}
	}
	if len(req.Message) > 4096 {
		return badRequest("message: at most 4096 bytes")
	}
	if req.Documents != nil && len(req.Documents) == 0 {
		// An empty list publishes nothing: it is not the whole branch
		// (leave documents out for that).
		return badRequest("documents: empty; name at least one document, or leave documents out to publish the whole draft branch")
	}
	o := write.PublishOptions{Message: req.Message}
	for _, d := range req.Documents {
		switch {
		case d.Globals:
			o.Docs = append(o.Docs, write.Doc{Kind: write.KindGlobals, Locale: d.Locale})
		case d.Page:
			o.Docs = append(o.Docs, write.Doc{Kind: write.KindPage, Slug: d.Slug, Locale: d.Locale})
		case d.Type != "":
			o.Docs = append(o.Docs, write.Doc{Kind: write.KindItem, Type: d.Type, Slug: d.Slug, Locale: d.Locale})
		default:
			return badRequest("documents: each names {type, slug}, {page: true, slug} or {globals: true}")
		}
	}
	if k := keyFrom(r.Context()); k != nil {
		o.Author = write.Person{Name: k.AuthorName(), Email: k.Email}
	}
	o.Author = personAuthor(r, o.Author) // signin.go
	res, err := s.writer.Publish(context.WithoutCancel(r.Context()), o)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheNoStore)
	return writeJSON(w, http.StatusOK, publishResult{Branch: res.Branch, Commit: res.Commit, Published: res.Commit != ""})
}

type publishResult struct {
	Branch    string `json:"branch"`
	Commit    string `json:"commit"`
	Published bool   `json:"published"`
}
