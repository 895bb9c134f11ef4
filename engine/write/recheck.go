package write

import (
	"context"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/content/schema"
)

// A write is validated against the branch's snapshot. When its push is
// refused because another box pushed first, the write is rebased on the
// branch's new head (its own file unchanged there), and what that head
// gained is checked before the push is tried again: a file that now holds
// the write's unique value (422, as when the snapshot holds it), and a
// change to the content model, compiled at that head, validates the write
// again (422; 409 when it does not compile). Nothing is pushed then.

// recheckFunc is the plan's recheck of a write of doc on a site with
// locales i18n (nil: without).
func (pn planner) recheckFunc(pl *plan, i18n *content.I18n, d Doc, t *schema.Type, doc *content.Doc) func(ctx context.Context, from, to string) error {
	var unique []string
	if t != nil && d.Kind == KindItem {
		unique = t.Unique()
	}
	return func(ctx context.Context, from, to string) error {
		changed, err := pn.repo.changedPaths(ctx, from, to)
		if err != nil {
			return err
		}
		for _, p := range changed {
			if p == pl.path || !modelPath(p) {
				continue
			}
			// The model changed: the write is validated by the new one.
			m, err := pn.modelAt(ctx, to)
			if err != nil {
				return err
			}
			if m == nil {
				return fault.New(fault.Conflict, "the content model changed on the branch while this write was made (%s) and does not compile; read it again and retry", p)
			}
			nt := typeOf(m, d)
			var fields []FieldProblem
			if nt != nil {
				for _, v := range nt.Validate(doc) {
					if !v.Warn {
						fields = append(fields, FieldProblem{v.Field, v.Message})
					}
				}
			}
			if len(fields) > 0 {
				return &ValidationError{fields}
			}
			unique = nil
			if nt != nil && d.Kind == KindItem {
				unique = nt.Unique()
			}
			break
		}
		var items []*content.Item
		for _, p := range changed {
			if p == pl.path || len(unique) == 0 {
				continue
			}
			loc, virt := virtualPath(i18n, p)
			if loc != pl.locale || !strings.HasPrefix(virt, "content/"+d.Type+"/") {
				continue
			}
			data, blob, err := pn.repo.fileAt(ctx, to, p)
			if err != nil {
				return err
			}
			if blob == "" {
				continue // removed: its value is free, which the snapshot does not know yet
			}
			od, err := content.Parse(p, data)
			if err != nil {
				continue
			}
			if i18n != nil && i18n.Layout == content.LayoutFields {
				ld, in := content.Localize(od, pl.locale, i18n)
				if !in {
					continue // not a document of the locale
				}
				od = ld
			}
			src := ""
			if virt != p {
				src = p
			}
			site, _ := content.Assemble([]content.File{{Path: virt, Source: src, Doc: od}})
			items = append(items, site.Items[d.Type]...)
		}
		if fields := uniqueClashes(unique, d.Type, pl.path, doc, items); len(fields) > 0 {
			return &ValidationError{fields}
		}
		return nil
	}
}

// modelPath tells a file the content model is read from.
func modelPath(p string) bool {
	return content.ModelFile(p) || (!strings.Contains(p, "/") && strings.HasPrefix(strings.ToLower(p), "folio."))
}

// typeOf is the model's type of the document d.
func typeOf(m *schema.Model, d Doc) *schema.Type {
	if m == nil {
		return nil
	}
	switch d.Kind {
	case KindItem:
		return m.Of(d.Type)
	case KindPage:
		return m.Pages
	case KindGlobals:
		return m.Globals
	}
	return nil
}

// modelAt compiles the content model of commit (its folio.yaml and model
// files); nil when it does not compile.
func (pn planner) modelAt(ctx context.Context, commit string) (*schema.Model, error) {
	tree, err := pn.repo.listTree(ctx, commit, "")
	if err != nil {
		return nil, err
	}
	var files []content.File
	for _, f := range tree {
		p := f.Path
		if !modelPath(p) {
			continue
		}
		data, _, err := pn.repo.fileAt(ctx, commit, p)
		if err != nil {
			return nil, err
		}
		doc, err := content.Parse(p, data)
		if err != nil {
			return nil, nil
		}
		files = append(files, content.File{Path: p, Doc: doc})
	}
	site, _ := content.Assemble(files)
	m, _, ok := schema.Compile(site)
	if !ok {
		return nil, nil
	}
	return m, nil
}
