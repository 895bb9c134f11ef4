package engine

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
)

// TreeMedia resolves, for one response, the images of body trees whose
// URL is a media reference (the forms expand= reads: "/uploads/<key>", an
// absolute URL under the library's public base, "media:<id>") to the
// media item they name, as expand=media shows it (MediaRef). Made by
// View.TreeMedia; use one per response.
type TreeMedia struct {
	ml      MediaLookup
	rr      content.RefReader
	locales []string
	// Max bounds the images given their media item in one response (as
	// Expand.Max bounds expanded references); past it, images carry no
	// media. 0: no limit.
	Max      int
	resolved int
	byID     map[string]json.RawMessage
	keys     map[string]bool
}

// TreeMedia is a TreeMedia reading v's media references from ml (nil: no
// library, no image is resolved), with the alt text of the first of
// locales the item has (Expand.MediaLocales). Its Max is MaxExpanded.
func (v *View) TreeMedia(ml MediaLookup, locales []string) *TreeMedia {
	return &TreeMedia{ml: ml, rr: content.RefReader{MediaBases: v.snap.mediaBases}, locales: locales, Max: MaxExpanded}
}

// Keys are the surrogate keys ("media:<id>", sorted) of the media items
// resolved so far.
func (tm *TreeMedia) Keys() []string {
	if tm == nil || len(tm.keys) == 0 {
		return nil
	}
	out := make([]string, 0, len(tm.keys))
	for k := range tm.keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// resolve is the JSON of the media item an image URL names; nil for none.
func (tm *TreeMedia) resolve(u string) json.RawMessage {
	if tm.ml == nil || (tm.Max > 0 && tm.resolved >= tm.Max) {
		return nil
	}
	if strings.HasPrefix(u, "/uploads/") && strings.Contains(u, "%") {
		// The tree's URLs are escaped as the HTML's are.
		p, err := url.PathUnescape(u)
		if err != nil {
			return nil
		}
		u = p
	}
	r, ok := tm.rr.Parse(u)
	if !ok || r.Kind != content.RefMedia {
		return nil
	}
	it, ok := tm.ml.Get(r.MediaID)
	if r.MediaID == "" {
		it, ok = tm.ml.ByKey(r.MediaKey)
	}
	if !ok || it == nil {
		return nil
	}
	tm.resolved++
	if j, ok := tm.byID[it.ID]; ok {
		return j
	}
	j, err := json.Marshal(mediaRef(it, tm.locales))
	if err != nil {
		return nil
	}
	if tm.byID == nil {
		tm.byID, tm.keys = map[string]json.RawMessage{}, map[string]bool{}
	}
	tm.byID[it.ID] = j
	tm.keys["media:"+it.ID] = true
	return j
}
