package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/history"
	"github.com/julienschmidt/httprouter"
)

// The sub-resources of a page or item: GET …/{slug}/history,
// …/{slug}/diff and …/{slug}/referrers (referrers.go). A document whose
// own slug ends in /history, /diff or /referrers is served as the
// document: the sub-resource is asked of its parent slug only when no
// such document exists.
const (
	subHistory = "/history"
	subDiff    = "/diff"
)

// subResource splits "guides/install/history" into ("guides/install",
// "/history") when the view has no document with the whole slug.
func subResource(slug string, exists func(string) bool) (base, sub string) {
	for _, s := range []string{subHistory, subDiff, subReferrers} {
		if b, ok := strings.CutSuffix(slug, s); ok && b != "" && !exists(slug) {
			return b, s
		}
	}
	return slug, ""
}

// Page sizes of history lists.
const (
	historyDefaultLimit = 20
	historyMaxLimit     = 100
)

// historyBody is the answer of a history route.
type historyBody struct {
	Items  []history.Entry `json:"items"`
	Total  int             `json:"total"`
	Limit  int             `json:"limit"`
	Offset int             `json:"offset"`
}

// serveHistory answers the history of the file at path; authors' e-mail
// only for a key with content:draft.
func (s *contentHandlers) serveHistory(w http.ResponseWriter, r *http.Request, path string) error {
	pg, err := parsePage(query(r), historyDefaultLimit, historyMaxLimit)
	if err != nil {
		return err
	}
	var entries []history.Entry
	var total int
	if path == "" {
		entries, total, err = s.engine.GlobalsHistory(r.Context(), pg.Limit, pg.Offset)
	} else {
		entries, total, err = s.engine.History(r.Context(), path, pg.Limit, pg.Offset)
	}
	if err != nil {
		if errors.Is(err, engine.ErrHistoryPending) {
			w.Header().Set("Retry-After", "1")
		}
		return err
	}
	if k := keyFrom(r.Context()); k == nil || !k.Has(ScopeContentDraft) {
		for i := range entries {
			entries[i].Email = ""
		}
	}
	if entries == nil {
		entries = []history.Entry{}
	}
	return serveJSON(w, r, historyBody{Items: entries, Total: total, Limit: pg.Limit, Offset: pg.Offset}, cachePrivate, keyHdr{})
}

func (s *contentHandlers) globalsHistory(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if _, _, err := s.view(w, r); err != nil {
		return err
	}
	return s.serveHistory(w, r, "")
}

// fieldChange is one field that differs between two versions of a
// document: a top-level field, or data.<key>.
type fieldChange struct {
	Field  string `json:"field"`
	Change string `json:"change"` // added, removed or modified
	From   any    `json:"from,omitempty"`
	To     any    `json:"to,omitempty"`
}

// diffBody is the answer of a diff route.
type diffBody struct {
	From    string        `json:"from"`
	To      string        `json:"to"`
	Changes []fieldChange `json:"changes"`
}

// serveDiff compares a document between two refs (from and to; to
// defaults to the published commit). find looks the document up in a
// view. Both versions are read with the request's draft flag.
func (s *contentHandlers) serveDiff(w http.ResponseWriter, r *http.Request, find func(*engine.View) (*engine.Resource, bool), what string) error {
	q := query(r)
	if err := requireScope(r, ScopeContentPreview); err != nil {
		return err
	}
	draft, err := parseBool(q, "draft")
	if err != nil {
		return err
	}
	if draft {
		if err := requireScope(r, ScopeContentDraft); err != nil {
			return err
		}
	}
	from := q.Get("from")
	if from == "" {
		return badRequest("from: a branch, tag or commit is required")
	}
	to := q.Get("to")
	if to == "" {
		to = s.engine.Published().Commit
	}
	var docs [2]map[string]any
	var commits [2]string
	found := false
	for i, name := range []string{from, to} {
		v, ref, err := s.viewAt(w, r.Context(), name, draft)
		if err != nil {
			return err
		}
		commits[i] = ref.Commit
		res, ok := find(v)
		if !ok {
			continue
		}
		found = true
		body, _, err := res.Body()
		if err != nil {
			return err
		}
		if err := json.Unmarshal(body, &docs[i]); err != nil {
			return err
		}
	}
	if !found {
		return notFound("no %s in either version", what)
	}
	changes := diffFields("", docs[0], docs[1])
	return serveJSON(w, r, diffBody{From: commits[0], To: commits[1], Changes: changes}, cachePrivate, keyHdr{})
}

// diffFields compares two documents' fields; data is compared key by key
// (data.<key>), every other field as a whole. Sorted by field.
func diffFields(prefix string, a, b map[string]any) []fieldChange {
	out := []fieldChange{}
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}) {
		if k == "updatedAt" && prefix == "" {
			continue // follows every commit; not a change of the document's own
		}
		x, inA := a[k]
		y, inB := b[k]
		if k == "data" && prefix == "" {
			xm, _ := x.(map[string]any)
			ym, _ := y.(map[string]any)
			out = append(out, diffFields("data.", xm, ym)...)
			continue
		}
		switch {
		case !inA:
			out = append(out, fieldChange{Field: prefix + k, Change: "added", To: y})
		case !inB:
			out = append(out, fieldChange{Field: prefix + k, Change: "removed", From: x})
		case !reflect.DeepEqual(x, y):
			out = append(out, fieldChange{Field: prefix + k, Change: "modified", From: x, To: y})
		}
	}
	return out
}

// changes answers GET /api/v1/changes?since=<commit>.
func (s *contentHandlers) changes(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := query(r)
	since := q.Get("since")
	if since == "" {
		return badRequest("since: a commit (or branch or tag) is required")
	}
	if k := keyFrom(r.Context()); k == nil || !k.Has(ScopeContentPreview) {
		if err := s.sinceServed(w, r, since); err != nil {
			return err
		}
	}
	cs, err := s.engine.ChangesSince(r.Context(), since)
	if err != nil {
		return err
	}
	return serveJSON(w, r, cs, cachePrivate, keyHdr{})
}

// sinceServed checks the since of a key without content:preview: as
// ?ref= needs that scope, such a key names a commit of the published
// branch's history (a commit it was served) or the published branch. Any
// other name, whether it exists or not, is the same 403: the answer
// tells nothing of other branches, tags or commits.
func (s *contentHandlers) sinceServed(w http.ResponseWriter, r *http.Request, since string) error {
	ref, err := s.engine.ResolveRef(r.Context(), since)
	if errors.Is(err, engine.ErrBadRef) {
		return err
	}
	ok := err == nil && (ref.Kind == engine.RefCommit || ref.Kind == engine.RefBranch && ref.Name == s.engine.Branch())
	if ok {
		in, err := s.engine.InPublishedHistory(r.Context(), ref.Commit)
		if err != nil {
			if errors.Is(err, engine.ErrHistoryPending) {
				w.Header().Set("Retry-After", "1")
			}
			return err
		}
		ok = in
	}
	if !ok {
		return errorf(fault.Forbidden, "since: a key without the %s scope names a commit of the published branch's history (or the published branch); another branch, tag or commit needs %s, as ref= does", ScopeContentPreview, ScopeContentPreview)
	}
	return nil
}

// pageSub answers a page's history, diff or referrers.
func (s *contentHandlers) pageSub(w http.ResponseWriter, r *http.Request, v *engine.View, cc, slug, sub string) error {
	find := func(v *engine.View) (*engine.Resource, bool) { return v.Page(slug) }
	if _, ok := find(v); ok && sub == subReferrers {
		return serveReferrers(w, r, v, engine.ReferrersQuery{Slug: slug}, cc)
	}
	if sub == subDiff {
		return s.serveDiff(w, r, find, "page "+slug)
	}
	res, ok := find(v)
	if !ok {
		return notFound("no page with slug %q", slug)
	}
	return s.serveHistory(w, r, res.SourcePath())
}

// itemSub answers an item's history, diff or referrers.
func (s *contentHandlers) itemSub(w http.ResponseWriter, r *http.Request, v *engine.View, cc, typ, slug, sub string) error {
	find := func(v *engine.View) (*engine.Resource, bool) {
		t, ok := v.Type(typ)
		if !ok {
			return nil, false
		}
		return t.Item(slug)
	}
	if _, ok := find(v); ok && sub == subReferrers {
		return serveReferrers(w, r, v, engine.ReferrersQuery{Type: typ, Slug: slug}, cc)
	}
	if sub == subDiff {
		return s.serveDiff(w, r, find, typ+" "+slug)
	}
	res, ok := find(v)
	if !ok {
		return notFound("no %s with slug %q", typ, slug)
	}
	return s.serveHistory(w, r, res.SourcePath())
}
