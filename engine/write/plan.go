package write

// The plan of a write: which files change and how, checked against
// what the branch holds.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/content/schema"
)

// planner works out one write against a head: it reads the repository
// and the operation's view of the served snapshots, and stores the new
// file's blob; it commits nothing (the Writer does: commitPlan).
type planner struct {
	repo *repo
	view
}

// plan is the write of d (op o) at the branch's commit head, checked.
func (pn planner) plan(ctx context.Context, o op, d Doc, opts Options, head string) (*plan, error) {
	if o != opCreate {
		pn.resolveSlug(&d)
	}
	pl := &plan{op: o, kind: d.Kind, slug: d.Slug, parent: head, locale: d.Locale}
	pn.dropDerived(&d)
	servedPath, model, cfg := pn.served(d)
	i18n := pn.i18n()
	snap := pn.own
	var err error
	if servedPath != "" {
		if pl.oldBlob, err = pn.repo.blobAt(ctx, head, servedPath); err != nil {
			return nil, err
		}
		if pl.oldBlob != "" {
			pl.path = servedPath
		}
	}
	if pl.path == "" && servedPath == "" && i18n != nil {
		// a branch this box does not serve (a new draft branch): the
		// published snapshot's file of the locale's document, while the
		// branch has it unchanged
		if p := pn.unchangedPublished(ctx, d, head); p != "" {
			pl.path, pl.oldBlob = p, ""
			if pl.oldBlob, err = pn.repo.blobAt(ctx, head, p); err != nil {
				return nil, err
			}
		}
	}
	if pl.path == "" && o == opCreate && i18n != nil {
		// a new document of a locale: where the layout puts it, at the
		// path of the document it translates
		if d.Kind == KindItem && !pn.knownType(d.Type) {
			return nil, fault.New(fault.NotFound, "no content type %q: a type begins with a file pushed to content/%s/ or a types: entry in folio.yaml, not with a write", d.Type, d.Type)
		}
		if err := pn.placeNew(ctx, i18n, snap, pl, &d, head); err != nil {
			return nil, err
		}
		if pl.path != "" && pl.oldBlob == "" {
			if i18n.Layout == content.LayoutFields && d.Locale != i18n.Default {
				// the one file of every locale: its locale's values
				if pl.oldBlob, err = pn.repo.blobAt(ctx, head, pl.path); err != nil {
					return nil, err
				}
			}
			format := FormatYAML
			if f := cfg.Types[d.Type].Format; f != "" && d.Kind == KindItem {
				format = f
			}
			var old []byte
			if pl.oldBlob != "" {
				if old, err = pn.repo.readBlob(ctx, pl.oldBlob); err != nil {
					return nil, err
				}
			}
			return pl, pn.prepare(ctx, pl, o, d, opts, old, format, model)
		}
	}
	if pl.path == "" {
		for _, c := range candidatesIn(i18n, snap, d) {
			b, err := pn.repo.blobAt(ctx, head, c)
			if err != nil {
				return nil, err
			}
			if b != "" {
				pl.path, pl.oldBlob = c, b
				break
			}
		}
	}
	what := describe(d)
	if o == opCreate {
		if pl.path != "" {
			return nil, fault.New(fault.Conflict, "%s already exists (%s)", what, pl.path)
		}
		if d.Kind == KindItem && !pn.knownType(d.Type) {
			return nil, fault.New(fault.NotFound, "no content type %q: a type begins with a file pushed to content/%s/ or a types: entry in folio.yaml, not with a write", d.Type, d.Type)
		}
		format := FormatYAML
		if d.Kind == KindItem {
			if f := cfg.Types[d.Type].Format; f != "" {
				format = f
			}
		}
		pl.path = candidatesIn(i18n, snap, d)[0]
		return pl, pn.prepare(ctx, pl, o, d, opts, nil, format, model)
	}
	if pl.path == "" {
		if d.Kind == KindGlobals && o != opDelete {
			pl.path = "globals.yaml"
			if i18n != nil {
				if p, _ := globalsPath(i18n, snap, d.Locale); p != "" {
					pl.path = p
				}
			}
		} else {
			return nil, fault.New(fault.NotFound, "no %s on the branch %s", what, pn.branch)
		}
	}
	if err := checkIfMatch(opts.IfMatch, pl.oldBlob, what); err != nil {
		return nil, err
	}
	if o == opDelete && !fieldsLocale(i18n, d) {
		return pl, nil
	}
	var old []byte
	if pl.oldBlob != "" {
		if old, err = pn.repo.readBlob(ctx, pl.oldBlob); err != nil {
			return nil, err
		}
	}
	return pl, pn.prepare(ctx, pl, o, d, opts, old, FormatYAML, model)
}

func describe(d Doc) string {
	switch d.Kind {
	case KindItem:
		return fmt.Sprintf("%s item %q", d.Type, d.Slug)
	case KindPage:
		return fmt.Sprintf("page %q", d.Slug)
	}
	return "globals file"
}

// checkIfMatch compares an If-Match with the document's blob.
func checkIfMatch(ifMatch, blob, what string) error {
	if ifMatch == "" {
		return nil
	}
	for _, tag := range strings.Split(ifMatch, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			if blob != "" {
				return nil
			}
			continue
		}
		tag = strings.TrimPrefix(tag, "W/")
		tag = strings.Trim(tag, `"`)
		tag, _, _ = strings.Cut(tag, ".")
		if len(tag) >= 7 && blob != "" && strings.HasPrefix(blob, tag) {
			return nil
		}
	}
	return fault.New(fault.PreconditionFailed, "the %s changed since it was read (If-Match does not match its ETag); read it again", what)
}

// prepare works out the new file of a create, replace or patch, checks
// it and stores its blob.
func (pn planner) prepare(ctx context.Context, pl *plan, o op, d Doc, opts Options, old []byte, format string, model *schema.Model) error {
	cur, err := splitFile(pl.path, old, format)
	var meta map[string]any
	if err == nil {
		meta, err = metaOf(pl.path, old)
	}
	if err != nil && o == opReplace {
		// A file that does not parse is replaced whole: how a broken
		// document is mended.
		cur, _ = splitFile(pl.path, nil, format)
		meta, err = map[string]any{}, nil
	}
	if err != nil {
		return fault.New(fault.Conflict, "%s cannot be edited: it does not parse (replace it whole with PUT): %v", pl.path, problemMessage(err))
	}
	if c := pn.i18n(); fieldsLocale(c, d) || (fieldsDoc(c, d) && hasLocaleValues(c, meta)) {
		// the one file of every locale: the locale's values only
		if d, err = localeFields(c, d.Locale, o, d, meta); err != nil {
			return err
		}
		o = opPatch
	} else if o == opReplace || o == opPatch {
		pn.keepServed(&d, pl.oldBlob)
	}
	ch := toChange(o, d, meta)
	// Without If-Match, a document changed since the client's read gets
	// the write's own changes only (see the package documentation).
	if opts.IfMatch == "" && opts.Base != "" && o != opCreate {
		baseBlob, err := pn.repo.blobAt(ctx, opts.Base, pl.path)
		if err != nil {
			// Not known: the write is not applied as if nothing changed.
			return err
		}
		if baseBlob != "" && baseBlob != pl.oldBlob {
			if ch, err = pn.rebaseChange(ctx, pl.path, baseBlob, old, meta, ch, o, d); err != nil {
				return err
			}
		}
	}
	if err := cur.apply(ch); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return &ValidationError{[]FieldProblem{{fe.field, fe.message}}}
		}
		if fault.CodeOf(err) == fault.TooLarge {
			return err
		}
		return fault.New(fault.Conflict, "%s cannot be edited: %v", pl.path, err)
	}
	data := cur.bytes()
	if old != nil && string(data) == string(old) {
		pl.unchanged = true
		return nil
	}
	if len(data) > content.MaxFileSize {
		return fault.New(fault.TooLarge, "the file would be %d bytes, over the limit of %d", len(data), content.MaxFileSize)
	}
	// One parse for both checks: a file of many values costs tens of
	// megabytes to parse.
	parsed, _ := content.Parse(pl.path, data) // nil: roundTrip says why
	if err := roundTrip(pl.path, data, parsed, ch); err != nil {
		return err
	}
	if err := pn.validate(ctx, pl, d, data, parsed, model); err != nil {
		return err
	}
	pl.newBlob, err = pn.repo.writeBlob(ctx, data)
	return err
}
