package server

import (
	"context"
	"net/http"

	"github.com/folio-cms/folio/engine"
	"github.com/julienschmidt/httprouter"
)

// refView is the view of ?ref= (a branch, tag or commit), for a key
// holding content:preview (and content:draft with draft=true). A full
// commit hash never changes: its responses may be kept for a year.
func (s *contentHandlers) refView(w http.ResponseWriter, r *http.Request, name string, draft bool) (*engine.View, string, error) {
	if err := requireScope(r, ScopeContentPreview); err != nil {
		return nil, "", err
	}
	if draft {
		if err := requireScope(r, ScopeContentDraft); err != nil {
			return nil, "", err
		}
	}
	v, ref, err := s.viewAt(w, r.Context(), name, draft)
	if err != nil {
		return nil, "", err
	}
	switch {
	case draft:
		return v, cacheNoStore, nil
	case ref.Immutable():
		return v, cachePrivateImmutable, nil
	}
	return v, cachePrivate, nil
}

// Ref snapshot builds a client may start (a ref not in memory yet): a
// flood of distinct refs is refused with 429 before it costs a build each.
var defaultRefBuilds = RateLimit{PerSecond: 1, Burst: 30}

// viewAt resolves a ref and returns its view. who names the client for
// the limit on builds (the key's name, or the preview token's maker).
func (s *contentHandlers) viewAt(w http.ResponseWriter, ctx context.Context, name string, draft bool) (*engine.View, engine.Ref, error) {
	ref, err := s.engine.ResolveRef(ctx, name)
	if err != nil {
		return nil, engine.Ref{}, err
	}
	if !s.engine.RefCached(ref.Commit) {
		who := "anonymous"
		if k := keyFrom(ctx); k != nil {
			who = "key:" + k.Name
		} else if c := previewFrom(ctx); c != nil {
			who = "preview:" + c.Key
		}
		if ok, wait := s.refBuilds.Allow(who); !ok {
			return nil, engine.Ref{}, rateLimited(w, wait)
		}
	}
	snap, err := s.engine.RefSnapshot(ctx, ref)
	if err != nil {
		return nil, engine.Ref{}, err
	}
	return snap.View(draft, s.now()), ref, nil
}

// refsBody is the answer of GET /api/v1/refs.
type refsBody struct {
	Items []engine.Ref `json:"items"`
	Total int          `json:"total"`
}

// listRefs lists the branches and tags that ?ref= may name.
func (s *contentHandlers) listRefs(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	refs, err := s.engine.Refs()
	if err != nil {
		return err
	}
	if refs == nil {
		refs = []engine.Ref{}
	}
	return serveJSON(w, r, refsBody{Items: refs, Total: len(refs)}, cacheNoStore, keyHdr{})
}
