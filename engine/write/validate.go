package write

// Validation of the file a write would commit, against the model and the
// site it joins.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/content/schema"
)

// validate checks the new file: it parses, the content rules take it,
// its slug is its own, and the content model accepts it.
func (pn planner) validate(ctx context.Context, pl *plan, d Doc, data []byte, doc *content.Doc, model *schema.Model) error {
	var err error
	if doc == nil {
		doc, err = content.Parse(pl.path, data)
	}
	if err != nil {
		return &ValidationError{[]FieldProblem{{"", problemMessage(err)}}}
	}
	if d.Kind == KindItem || d.Kind == KindPage {
		self, _, _ := pn.served(d)
		if err := bundleConflict(pn.siteOf(), pl.path, self); err != nil {
			return err
		}
	}
	// On a site with locales, the file is read as its locale's site reads
	// it: at its path in the locale, with the locale's values.
	i18n := pn.i18n()
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
			if others, err = pn.otherReadings(ctx, pl, i18n, virt, src, d, doc, model); err != nil {
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
			if doc, err = pn.overDefaultGlobals(ctx, pl.parent, i18n, doc); err != nil {
				return err
			}
		}
	}
	site, fields := assembleOne(pn.siteOf(), pl.path, virt, src, doc)
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
		if p, _, _ := pn.served(other); p != "" && p != pl.path {
			return fault.New(fault.Conflict, "the slug %q is taken (%s)", pl.slug, p)
		}
		for _, c := range candidatesIn(i18n, pn.own, other) {
			if b, err := pn.repo.blobAt(ctx, pl.parent, c); err == nil && b != "" && c != pl.path {
				return fault.New(fault.Conflict, "the slug %q is taken (%s)", pl.slug, c)
			}
		}
	}
	pl.recheck = pn.recheckFunc(pl, i18n, d, t, doc)
	// The branch's head may be ahead of its snapshot (a push refused
	// earlier fetched it): what the snapshot lacks is checked as a rebase
	// is (see recheck.go).
	if snap := pn.own; snap != nil && snap.Commit != "" && snap.Commit != pl.parent {
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
	for _, p := range t.Validate(doc) {
		if !p.Warn {
			fields = append(fields, FieldProblem{p.Field, p.Message})
		}
	}
	if d.Kind == KindItem {
		fields = append(fields, pn.notUnique(pl.locale, d.Type, pl.path, t, doc)...)
	}
	if len(fields) > 0 {
		return &ValidationError{fields}
	}
	return nil
}

// assembleOne assembles the one document doc of the file p, read at its
// path virt in its locale's site (src: the file's own path when not
// virt) as the served site of (nil: none) reads it (its declared types,
// its locales' folders: a leaf bundle's index.md is a page or an item
// as there): the site, and the problems of p as the fields they are at.
func assembleOne(of *content.Site, p, virt, src string, doc *content.Doc) (*content.Site, []FieldProblem) {
	var fields []FieldProblem
	site, problems := content.AssembleOne(content.File{Path: virt, Source: src, Doc: doc}, of)
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
func (pn planner) otherReadings(ctx context.Context, pl *plan, c *content.I18n, virt, src string, d Doc, doc *content.Doc, model *schema.Model) ([]FieldProblem, error) {
	var old *content.Doc
	if pl.oldBlob != "" {
		data, err := pn.repo.readBlob(ctx, pl.oldBlob)
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
		_, fields := assembleOne(pn.siteOf(), pl.path, virt, src, ld)
		if len(fields) == 0 && t != nil {
			for _, p := range t.Validate(ld) {
				if !p.Warn {
					fields = append(fields, FieldProblem{p.Field, p.Message})
				}
			}
			if d.Kind == KindItem {
				fields = append(fields, pn.notUnique(loc, d.Type, pl.path, t, ld)...)
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
	return a.Body.Source() == b.Body.Source() && a.HasBody == b.HasBody && sameValue(a.Meta(), b.Meta())
}

// notUnique lists the fields declared unique whose value in doc another
// item of the type (in the branch's snapshot, else the published one's;
// the one at path aside)
// already has: the model's cross-document rule, checked before the commit
// as every other rule is.
func (v view) notUnique(locale, typ, path string, t *schema.Type, doc *content.Doc) []FieldProblem {
	unique := t.Unique()
	if len(unique) == 0 {
		return nil
	}
	site := localeSite(v.ownOrPublished(), locale)
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
		v, ok := doc.Value(f)
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
	for k, l := range doc.KeyLines() {
		if l == line && !strings.HasPrefix(k, "/") {
			return k
		}
	}
	return ""
}
