package write

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
)

// Writes in a locale (Doc.Locale) on a site with locales
// (docs/translations.md): the document of that locale is
// found in that locale's site of the branch's snapshot (by its slug, or
// by the slug of one of its translations); a new one goes where the
// site's layout puts that locale's files:
//
//   - folder: content/<contentDir or code>/<type>/<slug>.md, as the
//     locale's other documents of the type are laid out when it has some
//     (pages/<code>/…, Decap's content/<type>/<code>/…);
//   - file: <slug>.<code>.md beside the default locale's <slug>.md;
//   - fields: the one file of every locale, in which only that locale's
//     values are written (title: {en: …, fr: …}).
//
// A translation of an existing document (Doc.TranslationOf, or a slug an
// existing document of another locale has) gets that document's path in
// its locale, so that the two are linked, and its translationKey when it
// has one; a translated slug is written as the file's slug:.

// i18n is the locales of the branch's snapshot (else the published
// branch's); nil for a site without.
func (v view) i18n() *content.I18n {
	snap := v.ownOrPublished()
	if snap == nil || snap.Site == nil {
		return nil
	}
	return snap.Site.I18n
}

// siteOf is the served site of the branch (else the published one's):
// what a file written is read with (its declared types, its locales'
// folders); nil before the first load.
func (v view) siteOf() *content.Site {
	if snap := v.ownOrPublished(); snap != nil {
		return snap.Site
	}
	return nil
}

// checkLocale resolves d.Locale: "" is the default locale on a site with
// locales; a locale the site does not have is Invalid, its message the
// one the read routes give (engine.LocaleError).
func (v view) checkLocale(d *Doc) (*content.I18n, error) {
	c := v.i18n()
	if c == nil {
		if d.Locale != "" {
			return nil, fault.New(fault.Invalid, "%s", (&engine.LocaleError{Asked: d.Locale}).Error())
		}
		return nil, nil
	}
	if d.Locale == "" {
		d.Locale = c.Default
	}
	if _, ok := c.Locale(d.Locale); !ok {
		return nil, fault.New(fault.Invalid, "%s", (&engine.LocaleError{Asked: d.Locale, Known: c.Codes()}).Error())
	}
	return c, nil
}

// localeSite is the site of locale loc in snap; nil when none.
func localeSite(snap *engine.Snapshot, loc string) *content.Site {
	if snap == nil || snap.Site == nil {
		return nil
	}
	site := snap.Site
	if site.I18n == nil || loc == "" || loc == site.Locale {
		return site
	}
	return site.Locales[loc]
}

// findIn finds the document of kind/type/slug in site: its file and
// its translations.
func findIn(site *content.Site, d Doc) (p string, tr map[string]content.Translation, ok bool) {
	if site == nil {
		return "", nil, false
	}
	switch d.Kind {
	case KindItem:
		items := site.Items[d.Type]
		if i, found := slices.BinarySearchFunc(items, d.Slug, func(it *content.Item, s string) int { return strings.Compare(it.Slug, s) }); found {
			return items[i].Meta.Path, items[i].Translations, true
		}
	case KindPage:
		if i, found := slices.BinarySearchFunc(site.Pages, d.Slug, func(pg *content.Page, s string) int { return strings.Compare(pg.Slug, s) }); found {
			return site.Pages[i].Meta.Path, site.Pages[i].Translations, true
		}
	}
	return "", nil, false
}

// translationSource is the document of another locale that a new
// document of d.Locale translates: the one d.TranslationOf names, else
// one with d.Slug; its file and locale. The default locale is looked in
// first.
func translationSource(snap *engine.Snapshot, c *content.I18n, d Doc) (p, loc string, ok bool) {
	slug := d.TranslationOf
	if slug == "" {
		slug = d.Slug
	}
	codes := append([]string{c.Default}, c.Codes()...)
	for _, code := range codes {
		if code == d.Locale {
			continue
		}
		src := d
		src.Slug = slug
		if p, _, ok := findIn(localeSite(snap, code), src); ok {
			return p, code, true
		}
	}
	return "", "", false
}

// localePaths are the paths a file of virtual path virt (its path in its
// locale's site: content/posts/a.md, pages/about.md) may have in locale
// loc, each classified back to (loc, virt), in the order a new file takes
// them.
func localePaths(c *content.I18n, loc, virt string) []string {
	var out []string
	add := func(p string) {
		if p == "" || slices.Contains(out, p) {
			return
		}
		if l, v, ok := c.Classify(p); ok && l == loc && v == virt {
			out = append(out, p)
		}
	}
	// rest is the path below a locale's content folder: root files are
	// pages, folders types.
	rest := ""
	if r, ok := strings.CutPrefix(virt, "content/"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(virt, "pages/"); ok && !strings.Contains(r, "/") {
		rest = r
	}
	switch c.Layout {
	case content.LayoutFields:
		add(virt)
	case content.LayoutFile:
		if loc == c.Default {
			add(virt)
		}
		ext := path.Ext(virt)
		add(strings.TrimSuffix(virt, ext) + "." + loc + ext)
		if strings.HasPrefix(virt, "pages/") && rest != "" {
			// a root file of content/ is a page too
			add("content/" + strings.TrimSuffix(rest, ext) + "." + loc + ext)
		}
	default:
		l, _ := c.Locale(loc)
		if l != nil && l.ContentDir != "" && rest != "" {
			add(l.ContentDir + "/" + rest)
		}
		if loc == c.Default {
			add(virt)
		}
		if rest != "" {
			add("content/" + loc + "/" + rest)
		}
		if r, ok := strings.CutPrefix(virt, "pages/"); ok {
			add("pages/" + loc + "/" + r)
		}
		if r, ok := strings.CutPrefix(virt, "content/"); ok {
			if typ, tail, ok := strings.Cut(r, "/"); ok {
				add("content/" + typ + "/" + loc + "/" + tail) // Decap's multiple_folders
			}
		}
	}
	return out
}

// siblingForm picks, of the paths localePaths gives for virt, the one
// laid out as an existing document of the same kind (and type) in loc
// is: a new post goes where the locale's posts are.
func siblingForm(c *content.I18n, site *content.Site, d Doc, loc, virt string, paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	var ex string
	if site != nil {
		switch d.Kind {
		case KindItem:
			if items := site.Items[d.Type]; len(items) > 0 {
				ex = items[0].Meta.Path
			}
		case KindPage:
			if len(site.Pages) > 0 {
				ex = site.Pages[0].Meta.Path
			}
		}
	}
	if ex != "" {
		if l, exVirt, ok := c.Classify(ex); ok && l == loc {
			for i, cand := range localePaths(c, loc, exVirt) {
				if cand == ex {
					// the same form for virt is at the same place of its list
					if form := localePaths(c, loc, virt); i < len(form) && slices.Contains(paths, form[i]) {
						return form[i]
					}
				}
			}
		}
	}
	return paths[0]
}

// globalsPath is the file of locale loc's globals: its own file when it
// has one, else globals.<code>.yaml (globals/<code>.yaml when the site
// keeps its globals in a folder); the default locale's is the globals
// file.
func globalsPath(c *content.I18n, snap *engine.Snapshot, loc string) (p string, own bool) {
	site := localeSite(snap, loc)
	if site != nil && site.GlobalsPath != "" {
		if code, ok := content.GlobalsLocale(site.GlobalsPath); ok && code == loc {
			return site.GlobalsPath, true
		}
		if loc == c.Default && !strings.Contains(site.GlobalsPath, "/") {
			return site.GlobalsPath, true
		}
	}
	folder := false
	if root := localeSite(snap, c.Default); root != nil && strings.HasPrefix(root.GlobalsPath, "globals/") {
		folder = true
	}
	if loc == c.Default && !folder {
		return "", false // the usual globals.yaml
	}
	if folder {
		return "globals/" + loc + ".yaml", false
	}
	return "globals." + loc + ".yaml", false
}

// virtualPath is the path a file has in its locale's site; p itself on a
// site without locales.
func virtualPath(c *content.I18n, p string) (loc, virt string) {
	if c == nil {
		return "", p
	}
	if code, ok := content.GlobalsLocale(p); ok {
		return code, "globals" + path.Ext(p)
	}
	if !strings.HasPrefix(p, "content/") && !strings.HasPrefix(p, "pages/") {
		if l, v, ok := c.Classify(p); ok && v != p && (strings.HasPrefix(v, "content/") || strings.HasPrefix(v, "pages/")) {
			return l, v // in a locale's contentDir outside content/ (content_fr/…)
		}
		return c.Default, p
	}
	if l, v, ok := c.Classify(p); ok {
		return l, v
	}
	return "", p
}

// localeFields turns a write of locale loc into the fields layout's
// change of the one file whose front matter is meta: each value is set
// in the key's map of locale codes ({en: …, fr: …}; a plain value that
// a write in another locale than the default changes becomes one, the
// default locale keeping the old value), or in Decap's map of the locale
// (fr: {title: …}) when the file has one. The body is the locale's
// body as content reads it: body in Decap's map of the locale, else in a
// body: {en: …, fr: …} map, which a locale other than the default gets
// when the file has none (the default locale's body staying after the
// front matter). A Replace removes the locale's values of the keys it
// does not give; a Delete removes every value of the locale.
func localeFields(c *content.I18n, loc string, o op, d Doc, meta map[string]any) (Doc, error) {
	def := loc == c.Default
	out := Doc{Kind: d.Kind, Type: d.Type, Slug: d.Slug, Locale: d.Locale, Fields: map[string]any{}}
	if own, ok := meta[loc].(map[string]any); ok {
		// Decap's form: the locale's values in one map
		nm := map[string]any{}
		if o != opReplace && o != opDelete {
			for k, v := range own {
				nm[k] = v
			}
		}
		if o == opDelete {
			out.Fields[loc] = nil
			return out, nil
		}
		for k, v := range d.Fields {
			if v == nil {
				delete(nm, k)
			} else {
				nm[k] = v
			}
		}
		if d.Body != nil {
			if *d.Body == "" {
				delete(nm, "body")
			} else {
				nm["body"] = *d.Body
			}
		}
		out.Fields[loc] = nm
		return out, nil
	}
	given := map[string]bool{}
	for name := range d.Fields {
		given[fileKey(name, meta)] = true
	}
	if d.Body != nil {
		given["body"] = true
	}
	found := false
	for k, v := range meta {
		m, ok := c.LocaleMap(v)
		if !ok {
			continue
		}
		if _, has := m[loc]; !has {
			continue
		}
		found = true
		if o == opDelete || (o == opReplace && !given[k]) {
			nm := cloneMap(m)
			delete(nm, loc)
			out.Fields[k] = nm
			if len(nm) == 0 {
				out.Fields[k] = nil
			}
		}
	}
	if o == opDelete {
		if !found {
			return out, fault.New(fault.NotFound, "%s has no values of locale %s", describe(d), loc)
		}
		return out, nil
	}
	if o == opCreate && found {
		return out, fault.New(fault.Conflict, "%s has values of locale %s already", describe(d), loc)
	}
	set := func(k string, v any) {
		cur, exists := meta[k]
		if m, ok := c.LocaleMap(cur); ok {
			nm := cloneMap(m)
			if v == nil {
				delete(nm, loc)
			} else {
				nm[loc] = v
			}
			out.Fields[k] = nm
			if len(nm) == 0 {
				out.Fields[k] = nil
			}
			return
		}
		switch {
		case def:
			out.Fields[k] = v // a plain value is the default locale's
		case v == nil:
			// a shared value is not the locale's to remove
		case exists && sameValue(cur, v):
		case exists:
			out.Fields[k] = map[string]any{c.Default: cur, loc: v}
		default:
			out.Fields[k] = map[string]any{loc: v}
		}
	}
	for name, v := range d.Fields {
		set(fileKey(name, meta), v)
	}
	_, bodyMap := c.LocaleMap(meta["body"])
	switch {
	case d.Body == nil && o == opReplace && def && !bodyMap:
		empty := ""
		out.Body = &empty
	case d.Body == nil:
	case def && !bodyMap:
		out.Body = d.Body // the file's body is the default locale's
	case *d.Body == "":
		set("body", nil)
	default:
		set("body", *d.Body)
	}
	return out, nil
}

// hasLocaleValues tells whether a fields-layout file (its front matter
// meta) holds values of some locale: a map of locale codes, or Decap's
// map of a locale.
func hasLocaleValues(c *content.I18n, meta map[string]any) bool {
	for k, v := range meta {
		if _, isCode := c.Locale(k); isCode {
			if _, ok := v.(map[string]any); ok {
				return true
			}
		}
		if _, ok := c.LocaleMap(v); ok {
			return true
		}
	}
	return false
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// slugOfVirt is the slug a document's virtual path gives it.
func slugOfVirt(virt string) string {
	s := strings.TrimPrefix(virt, "pages/")
	if r, ok := strings.CutPrefix(virt, "content/"); ok {
		_, s, _ = strings.Cut(r, "/")
	}
	s = strings.TrimSuffix(s, path.Ext(s))
	for _, idx := range []string{"/index", "/_index"} {
		s = strings.TrimSuffix(s, idx)
	}
	return s
}

// placeNew finds the file of a new document of d.Locale: the path in
// the locale of the document it translates (whose translationKey it
// takes; a slug other than the one that path gives is written as
// slug:), else the place the layout and the locale's other documents
// give; in the fields layout, the translated document's file itself.
func (pn planner) placeNew(ctx context.Context, c *content.I18n, snap *engine.Snapshot, pl *plan, d *Doc, head string) error {
	if d.Kind == KindGlobals {
		return nil
	}
	site := localeSite(snap, d.Locale)
	if p, _, ok := findIn(site, *d); ok {
		return fault.New(fault.Conflict, "%s already exists in locale %s (%s)", describe(*d), d.Locale, p)
	}
	srcPath, _, ok := translationSource(snap, c, *d)
	if d.TranslationOf != "" && !ok {
		return fault.New(fault.NotFound, "translationOf: no %s in another locale", describe(Doc{Kind: d.Kind, Type: d.Type, Slug: d.TranslationOf}))
	}
	virt := candidates(*d)[0]
	if ok {
		_, virt = virtualPath(c, srcPath)
		if c.Layout != content.LayoutFields {
			blob, err := pn.repo.blobAt(ctx, head, srcPath)
			if err != nil {
				return err
			}
			if blob != "" {
				data, err := pn.repo.readBlob(ctx, blob)
				if err != nil {
					return err
				}
				if meta, err := metaOf(srcPath, data); err == nil {
					if k := keyFold(meta, "translationKey"); k != "" && !hasFold(d.Fields, "translationKey") {
						d.Fields = cloneMap(d.Fields)
						d.Fields[k] = meta[k]
					}
				}
			}
		}
	}
	if c.Layout == content.LayoutFields && ok {
		pl.path = srcPath
	} else {
		paths := localePaths(c, d.Locale, virt)
		if len(paths) == 0 {
			return fault.New(fault.Invalid, "%s has no place in locale %s in this site's layout (%s)", virt, d.Locale, c.Layout)
		}
		pl.path = siblingForm(c, site, *d, d.Locale, virt, paths)
		blob, err := pn.repo.blobAt(ctx, head, pl.path)
		if err != nil {
			return err
		}
		if blob != "" {
			return fault.New(fault.Conflict, "%s already exists (%s)", describe(*d), pl.path)
		}
	}
	if ps := slugOfVirt(virt); ps != d.Slug {
		if !hasFold(d.Fields, "slug") {
			d.Fields = cloneMap(d.Fields)
			d.Fields["slug"] = d.Slug
		}
		d.Slug = ps
	}
	return nil
}

// fieldsLocale tells whether a write of d goes to the values of a locale
// other than the default in the one file of every locale.
func fieldsLocale(c *content.I18n, d Doc) bool {
	return fieldsDoc(c, d) && d.Locale != "" && d.Locale != c.Default
}

// fieldsDoc tells whether d is a document (not the globals) of a site
// with the fields layout, in any locale.
func fieldsDoc(c *content.I18n, d Doc) bool {
	return c != nil && c.Layout == content.LayoutFields && d.Kind != KindGlobals
}

// overDefaultGlobals is a locale's globals file as the locale reads it:
// its keys over those of the default locale's globals file (at commit),
// as the model checks the globals served.
func (pn planner) overDefaultGlobals(ctx context.Context, commit string, c *content.I18n, doc *content.Doc) (*content.Doc, error) {
	var candidates []string
	for _, e := range []string{".yaml", ".yml", ".json", ".toml"} {
		candidates = append(candidates, "globals"+e, "globals/"+c.Default+e, "globals."+c.Default+e)
	}
	def, err := pn.repo.firstAt(ctx, commit, candidates)
	if err != nil {
		return nil, err
	}
	if def == "" {
		return doc, nil
	}
	data, _, err := pn.repo.fileAt(ctx, commit, def)
	if err != nil {
		return nil, err
	}
	meta, err := metaOf(def, data)
	if err != nil {
		return doc, nil // the default's problem, not this write's
	}
	merged := cloneMap(meta)
	for k, v := range doc.Fields() {
		merged[k] = v
	}
	return doc.WithMeta(merged), nil
}

// LocaleFiles are the repository paths the file of locale loc may have
// whose path in its locale's site is virt (content/posts/a.md,
// pages/about.md), on the site of snap: first the one a new file takes
// (laid out as the locale's other documents of its kind are), then the
// others the layout allows. nil for a site without locales. For editors
// that name files by their own layout (Decap CMS's i18n structures).
func LocaleFiles(snap *engine.Snapshot, loc, virt string) []string {
	if snap == nil || snap.Site == nil || snap.Site.I18n == nil {
		return nil
	}
	c := snap.Site.I18n
	paths := localePaths(c, loc, virt)
	if len(paths) == 0 {
		return nil
	}
	first := siblingForm(c, localeSite(snap, loc), docOfPath(virt), loc, virt, paths)
	out := []string{first}
	for _, p := range paths {
		if p != first {
			out = append(out, p)
		}
	}
	return out
}

// unchangedPublished is the file of d (in its locale) in the published
// branch's snapshot when the commit head has that very file (same blob):
// how a document is found on a branch this box does not serve, whose
// paths the published snapshot only tells while they are unchanged.
func (pn planner) unchangedPublished(ctx context.Context, d Doc, head string) string {
	site := localeSite(pn.published, d.Locale)
	if site == nil {
		return ""
	}
	var p, blob string
	switch d.Kind {
	case KindItem:
		items := site.Items[d.Type]
		if i, ok := slices.BinarySearchFunc(items, d.Slug, func(it *content.Item, s string) int { return strings.Compare(it.Slug, s) }); ok {
			p, blob = items[i].Meta.Path, items[i].Meta.Blob
		}
	case KindPage:
		if i, ok := slices.BinarySearchFunc(site.Pages, d.Slug, func(pg *content.Page, s string) int { return strings.Compare(pg.Slug, s) }); ok {
			p, blob = site.Pages[i].Meta.Path, site.Pages[i].Meta.Blob
		}
	}
	if p == "" || blob == "" {
		return ""
	}
	if b, err := pn.repo.blobAt(ctx, head, p); err != nil || b != blob {
		return ""
	}
	return p
}
