package write

import (
	"context"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/media/fault"
)

// A write is validated against the branch's snapshot. When its push is
// refused because another box pushed first, the write is rebased on the
// branch's new head (its own file unchanged there), and what that head
// gained is checked before the push is tried again: a file that now holds
// the write's unique value (422, as when the snapshot holds it), or a
// change to the content model (409: the write was validated against the
// old one). Nothing is pushed then.

// recheckFunc is the plan's recheck of a write of doc (nil when no rule
// spans documents for it).
func (w *Writer) recheckFunc(pl *plan, branch string, d Doc, t *schema.Type, doc *content.Doc) func(ctx context.Context, from, to string) error {
	var unique []string
	if t != nil && d.Kind == KindItem {
		unique = t.Unique()
	}
	i18n := w.i18nOf(branch)
	return func(ctx context.Context, from, to string) error {
		changed, err := w.repo.changedPaths(ctx, from, to)
		if err != nil {
			return err
		}
		var items []*content.Item
		for _, p := range changed {
			if p == pl.path {
				continue
			}
			if content.ModelFile(p) || strings.HasPrefix(strings.ToLower(p), "folio.") {
				return fault.New(fault.Conflict, "the content model changed on the branch while this write was made (%s); read it again and retry", p)
			}
			if len(unique) == 0 {
				continue
			}
			loc, virt := virtualPath(i18n, p)
			if loc != pl.locale || !strings.HasPrefix(virt, "content/"+d.Type+"/") {
				continue
			}
			blob, err := w.repo.blobAt(ctx, to, p)
			if err != nil {
				return err
			}
			if blob == "" {
				continue // removed: its value is free, which the snapshot does not know yet
			}
			data, err := w.repo.readBlob(ctx, blob)
			if err != nil {
				return err
			}
			od, err := content.Parse(p, data)
			if err != nil {
				continue
			}
			if i18n != nil && i18n.Layout == content.LayoutFields {
				ld := *od
				ld.Meta = localizedMeta(i18n, pl.locale, od.Meta)
				od = &ld
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
