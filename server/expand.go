package server

import (
	"net/http"
	"slices"
	"strings"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server/repr"
)

// expandParam reads `expand` (repr.ParseExpand) for view v; nil when
// absent. On the public surface only public types expand.
func expandParam(r *http.Request, v *engine.View, publicOnly bool) (*repr.Expand, error) {
	e, err := repr.ParseExpand(query(r).Get("expand"), v, publicOnly)
	if err != nil {
		return nil, badRequest("expand: %v", err)
	}
	return e, nil
}

// mediaLookup is the media library as ExpandBody wants it; nil when the
// server has none.
func (s *contentHandlers) mediaLookup() engine.MediaLookup {
	if s.media == nil {
		return nil
	}
	return s.media
}

// serveExpanded serves one resource with its references expanded. The body
// is built per request from the snapshot's encoding and the media library
// as it is now, so its ETag (of the bytes) changes with either; the
// surrogate keys name what it embeds too. orig is the resource before any
// `fields` projection (it names the resource for the cycle check); more
// are surrogate keys of what else the body embeds (a body tree's media).
func (s *contentHandlers) serveExpanded(w http.ResponseWriter, r *http.Request, v *engine.View, orig, res *engine.Resource, e *repr.Expand, cc string, more []string) error {
	e.MediaLocales = mediaChain(s.engine, s.contentLocale(v))
	body, _, err := res.Body()
	if err != nil {
		return err
	}
	out, extra, err := v.ExpandBody(body, &e.Expand, s.mediaLookup(), orig.Ref())
	if err != nil {
		return err
	}
	return serveBody(w, r, out, engine.ETag(out), cc, withKeys(keysOf(orig.Keys()), append(extra, more...)))
}

// serveExpandedList is serveList with each item's references expanded
// (serveExpanded); origs are the items before projection.
func (s *contentHandlers) serveExpandedList(w http.ResponseWriter, r *http.Request, v *engine.View, origs, items []*engine.Resource, e *repr.Expand, total, limit, offset int, cc string, keys keyHdr) error {
	e.MediaLocales = mediaChain(s.engine, s.contentLocale(v))
	bs := make([][]byte, len(items))
	var extra []string
	for i, it := range items {
		body, _, err := it.Body()
		if err != nil {
			return err
		}
		out, k, err := v.ExpandBody(body, &e.Expand, s.mediaLookup(), origs[i].Ref())
		if err != nil {
			return err
		}
		bs[i] = out
		extra = append(extra, k...)
	}
	body := listBody("items", bs, total, limit, offset)
	return serveBody(w, r, body, engine.ETag(body), cc, withKeys(keys, extra))
}

// maxKeyHeader bounds the Surrogate-Key and Cache-Tag headers of an
// expanded response: past it, the keys of what it embeds collapse to
// their types' keys and "media" (engine.CollapseKeys). nginx's default
// proxy buffer (4 KB or 8 KB, one page) must hold every header of a
// response; Fastly and Cloudflare cap these headers near 16 KB.
const maxKeyHeader = 2048

// withKeys adds extra surrogate keys to k (new slices; k's are shared),
// collapsed when they would make a header over maxKeyHeader bytes.
func withKeys(k keyHdr, extra []string) keyHdr {
	if len(extra) == 0 {
		return k
	}
	var all []string
	if len(k.sk) > 0 {
		all = strings.Fields(k.sk[0])
	}
	base := len(all)
	size := 0
	if len(k.sk) > 0 {
		size = len(k.sk[0])
	}
	seen := make(map[string]bool, len(all)+len(extra))
	for _, x := range all {
		seen[x] = true
	}
	for _, x := range extra {
		if !seen[x] {
			seen[x] = true
			all = append(all, x)
			size += 1 + len(x)
		}
	}
	if size > maxKeyHeader {
		all = all[:base]
		for _, x := range engine.CollapseKeys(extra) {
			if !slices.Contains(all, x) {
				all = append(all, x)
			}
		}
	}
	return keyHdr{[]string{strings.Join(all, " ")}, []string{strings.Join(all, ",")}}
}
