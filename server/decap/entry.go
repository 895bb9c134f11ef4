package decap

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media/fault"
)

// docOf names the document a repository path holds: an item of
// content/<type>/, a page of pages/, the globals file.
func docOf(p string) (write.Doc, bool) {
	ext := path.Ext(p)
	switch ext {
	case ".md", ".markdown", ".yaml", ".yml", ".json", ".toml":
	default:
		return write.Doc{}, false
	}
	if strings.HasPrefix(p, "globals.") && !strings.Contains(p, "/") {
		return write.Doc{Kind: write.KindGlobals}, true
	}
	slugOf := func(rel string) string {
		for _, idx := range []string{"/index.md", "/_index.md"} {
			if s, ok := strings.CutSuffix(rel, idx); ok {
				return s
			}
		}
		return strings.TrimSuffix(rel, ext)
	}
	if rest, ok := strings.CutPrefix(p, "content/"); ok {
		typ, rel, ok := strings.Cut(rest, "/")
		if !ok || !content.ValidType(typ) {
			return write.Doc{}, false
		}
		slug := slugOf(rel)
		return write.Doc{Kind: write.KindItem, Type: typ, Slug: slug}, content.ValidSlug(slug)
	}
	if rel, ok := strings.CutPrefix(p, "pages/"); ok {
		slug := slugOf(rel)
		return write.Doc{Kind: write.KindPage, Slug: slug}, content.ValidSlug(slug)
	}
	return write.Doc{}, false
}

// entryWrite is one data file of an entry, parsed and ready to write.
type entryWrite struct {
	path    string // where the entry is written
	oldPath string // the path it moves from ("" : none)
	raw     string
	doc     write.Doc
	exists  bool // the document is on the branch (Replace, else Create)
}

// rewrite replaces media paths in the entry (Decap's /uploads/<name> by
// the library's URL).
func (e *entryWrite) rewrite(r *strings.Replacer) {
	e.raw = r.Replace(e.raw)
	for k, v := range e.doc.Fields {
		e.doc.Fields[k] = rewriteValue(r, v)
	}
	if e.doc.Body != nil {
		b := r.Replace(*e.doc.Body)
		e.doc.Body = &b
	}
}

func rewriteValue(r *strings.Replacer, v any) any {
	switch x := v.(type) {
	case string:
		return r.Replace(x)
	case []any:
		for i := range x {
			x[i] = rewriteValue(r, x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = rewriteValue(r, x[k])
		}
	}
	return v
}

// planEntry parses a data file as Decap sends it (the whole file) into
// the document the writer writes.
func (s *Service) planEntry(ctx context.Context, branch string, f dataFile) (entryWrite, error) {
	target := f.Path
	ew := entryWrite{path: target, raw: f.Raw}
	if f.NewPath != "" && f.NewPath != f.Path {
		target, ew.path, ew.oldPath = f.NewPath, f.NewPath, f.Path
	}
	d, ok := docOf(target)
	if !ok {
		return ew, bad("params.dataFiles: %s is not a document folio edits (content/<type>/…, pages/…, globals.*)", target)
	}
	parsed, err := content.Parse(target, []byte(f.Raw))
	if err != nil {
		return ew, &write.ValidationError{Fields: []write.FieldProblem{{Path: "", Message: err.Error()}}}
	}
	d.Fields = make(map[string]any, len(parsed.Meta))
	for k, v := range parsed.Meta {
		d.Fields[k] = plain(v)
	}
	if parsed.HasBody || strings.HasSuffix(target, ".md") || strings.HasSuffix(target, ".markdown") {
		b := parsed.Body.Source()
		d.Body = &b
	}
	if d.Kind == write.KindGlobals {
		d.Body = nil
	}
	ew.doc = d
	head, err := s.Git.Head(ctx, branch)
	if err != nil {
		return ew, err
	}
	if head == "" {
		pub, _ := s.Engine.Branches()
		if head, err = s.Git.Head(ctx, pub); err != nil {
			return ew, err
		}
	}
	if _, _, err := s.Git.Read(ctx, head, target); err == nil {
		ew.exists = true
	} else if !errors.Is(err, errNoFile) {
		return ew, err
	}
	return ew, nil
}

// plain turns values YAML decoding typed (timestamps) back into the text
// they were written as.
func plain(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = plain(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k := range x {
			out[k] = plain(x[k])
		}
		return out
	}
	return v
}

// writeEntry writes one document through the writer: Replace when it is
// on the branch, Create for a new Markdown document; a new data file
// (YAML, JSON, TOML), which the writer would make a Markdown file, is
// committed as Decap wrote it, after the model's check.
func (s *Service) writeEntry(ctx context.Context, who Caller, branch, msg string, ew entryWrite) error {
	opts := write.Options{Branch: branch, Message: msg, Author: write.Person{Name: who.Name}}
	var err error
	switch {
	case ew.exists:
		_, err = s.Writer.Replace(ctx, ew.doc, opts)
	case ew.doc.Kind != write.KindGlobals && (strings.HasSuffix(ew.path, ".md")):
		_, err = s.Writer.Create(ctx, ew.doc, opts)
	default:
		err = s.commitRaw(ctx, who, branch, msg, ew)
	}
	if err != nil {
		return err
	}
	if ew.oldPath != "" {
		if od, ok := docOf(ew.oldPath); ok {
			if _, err := s.Writer.Delete(ctx, od, write.Options{Branch: branch, Message: msg, Author: write.Person{Name: who.Name}}); err != nil && fault.CodeOf(err) != fault.NotFound {
				return err
			}
		}
	}
	return nil
}

// commitRaw commits a new data file as Decap wrote it.
func (s *Service) commitRaw(ctx context.Context, who Caller, branch, msg string, ew entryWrite) error {
	snap := s.Engine.Published()
	if snap != nil {
		if err := validate(snap.Model, ew.path, []byte(ew.raw)); err != nil {
			return err
		}
	}
	head, err := s.Git.Head(ctx, branch)
	if err != nil {
		return err
	}
	c := Commit{Branch: branch, Parent: head, Files: map[string][]byte{ew.path: []byte(ew.raw)}, Author: s.author(who), Message: msg}
	if head == "" {
		pub, _ := s.Engine.Branches()
		if c.From, err = s.Git.Head(ctx, pub); err != nil {
			return err
		}
	}
	if _, err := s.apply(ctx, c); err != nil {
		return err
	}
	s.served(ctx)
	return nil
}
