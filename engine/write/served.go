package write

// What the served snapshot says of a document a write names: its file,
// its model, what folio derives and keeps.

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
)

// view is what one operation reads of the served snapshots: the branch
// it writes, that branch's snapshot and the published branch's. An
// operation takes its view once, when it holds the write slot (so that
// it sees the writes made before it), and hands it down: it never reads
// two versions of a branch.
type view struct {
	branch    string
	own       *engine.Snapshot // the branch's snapshot; nil when the branch is not served
	published *engine.Snapshot // the published branch's; nil before the first load
}

// view takes the snapshots of branch and of the published branch.
func (w *Writer) view(branch string) view {
	v := view{branch: branch, published: w.cfg.Snapshot(w.cfg.Branch)}
	if branch == w.cfg.Branch {
		v.own = v.published
	} else {
		v.own = w.cfg.Snapshot(branch)
	}
	return v
}

// ownOrPublished is the branch's snapshot, else the published branch's.
func (v view) ownOrPublished() *engine.Snapshot {
	if v.own != nil {
		return v.own
	}
	return v.published
}

// served finds the document in the branch's snapshot (in its locale):
// its path and the snapshot's model.
func (v view) served(d Doc) (p string, model *schema.Model, cfg content.Config) {
	snap := v.own
	if snap == nil {
		snap = v.published
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
func (v view) resolveSlug(d *Doc) {
	snap := v.ownOrPublished()
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
func (v view) knownType(typ string) bool {
	snap := v.ownOrPublished()
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
func (v view) dropDerived(d *Doc) {
	given, ok := d.Fields["publishedAt"]
	if !ok || given == nil {
		return
	}
	snap := v.own
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
	if t, err := content.ParseDate(given); err == nil && t.Equal(at) {
		d.Fields = maps.Clone(d.Fields)
		delete(d.Fields, "publishedAt")
	}
}

// keepServed takes out of a write the fields given exactly as the
// document is served now (when what is served is the file at the head):
// a page's sections made from its body, a default seo title, the slug its
// path gives stay as the file has them (or leaves them out), instead of
// being written in the served form.
func (v view) keepServed(d *Doc, blob string) {
	snap := v.own
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
	for k, given := range d.Fields {
		if sv, ok := sd.Fields[k]; ok && given != nil && sameValue(sv, given) {
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
