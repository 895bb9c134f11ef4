package content

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content/chunks"
)

// An Assembler fed successive versions of a site gives exactly what a
// fresh Assemble gives for each, whatever changed: homepage rules,
// duplicates appearing and going, broken files, bad type folders, new
// commit times. Unchanged files keep their *Item and *Page, and sites
// handed out earlier are never modified.
func TestAssembler_Incremental(t *testing.T) {
	docs := map[string]*Doc{} // parsed once per (path, text), as a source's cache would
	parse := func(p, src string) (*Doc, error) {
		k := p + "\x00" + src
		if d, ok := docs[k]; ok {
			return d, nil
		}
		d, err := Parse(p, []byte(src))
		if err == nil {
			docs[k] = d
		}
		return d, err
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	base := map[string]string{
		"globals.yaml":            "siteName: A\n",
		"folio.yaml":              "types:\n  posts: {public: true}\n",
		"pages/index.md":          "---\ntitle: Index\n---\nHi\n",
		"pages/about.yaml":        "title: About\nsections: [{type: hero}]\n",
		"pages/home.md":           "---\ntitle: Home\n---\n",
		"content/posts/a.md":      "---\ntitle: A\n---\nA *body*\n",
		"content/posts/b.md":      "---\ntitle: B\ndate: 2024-01-01\n---\n",
		"content/posts/c.md":      "---\ntitle: C\nid: x1\n---\n",
		"content/Bad Type/z.md":   "---\ntitle: Z\n---\n",
		"content/events/e.yaml":   "title: E\nexpiresAt: 2030-01-01\n",
		"content/posts/broken.md": "---\ndate: yesterday\n---\n",
	}
	type version struct {
		name    string
		changes map[string]string // "" deletes
		touched []string          // new Updated time, same text
		patched bool              // the last site is patched, not assembled afresh
	}
	versions := []version{
		{name: "start"},
		{name: "edit one item", changes: map[string]string{"content/posts/a.md": "---\ntitle: A2\n---\nA *body* 2\n"}, patched: true},
		{name: "new time only", touched: []string{"content/posts/b.md"}, patched: true},
		{name: "duplicate slug appears before", changes: map[string]string{"content/posts/0.md": "---\nslug: b\n---\n"}},
		{name: "duplicate id appears after", changes: map[string]string{"content/posts/d.md": "---\nid: x1\n---\n"}},
		{name: "duplicate goes", changes: map[string]string{"content/posts/0.md": ""}},
		{name: "page marks homepage", changes: map[string]string{"pages/about.yaml": "title: About\nisHomepage: true\n"}},
		{name: "two marked", changes: map[string]string{"pages/a-first.md": "---\nisHomepage: true\n---\n"}},
		{name: "marks go, index says false", changes: map[string]string{"pages/a-first.md": "", "pages/about.yaml": "title: About\n", "pages/index.md": "---\nisHomepage: false\n---\n"}},
		{name: "index goes", changes: map[string]string{"pages/index.md": ""}},
		{name: "broken fixed, bad type stays", changes: map[string]string{"content/posts/broken.md": "---\ndate: 2024-02-02\n---\n"}},
		{name: "new file wants the slug of a file left out for its id", changes: map[string]string{"content/posts/0d.md": "---\nslug: d\n---\n"}},
		{name: "and goes", changes: map[string]string{"content/posts/0d.md": ""}},
		{name: "page added", changes: map[string]string{"pages/contact.md": "---\ntitle: Contact\n---\n"}, patched: true},
		{name: "page removed", changes: map[string]string{"pages/contact.md": ""}, patched: true},
		{name: "rename changes order", changes: map[string]string{"content/posts/a.md": "", "content/posts/zz.md": "---\ntitle: A2\n---\nA *body* 2\n"}, patched: true},
		{name: "slug moves to a free one", changes: map[string]string{"content/posts/b.md": "---\ntitle: B\nslug: aaa\n---\n"}, patched: true},
		{name: "edit takes a used slug", changes: map[string]string{"content/posts/broken.md": "---\nslug: aaa\n---\n"}},
		{name: "a wanted slug given back", changes: map[string]string{"content/posts/b.md": "---\ntitle: B\n---\n"}},
		{name: "edit of an item whose id a left-out file wants", changes: map[string]string{"content/posts/c.md": "---\ntitle: C2\nid: x1\n---\n"}},
		{name: "new type", changes: map[string]string{"content/notes/n.md": "---\ntitle: N\n---\n"}},
		{name: "edit in the new type", changes: map[string]string{"content/notes/n.md": "---\ntitle: N2\n---\n"}, patched: true},
		{name: "last of a type goes", changes: map[string]string{"content/notes/n.md": ""}},
		{name: "two edits in two types", changes: map[string]string{"content/posts/zz.md": "---\ntitle: A3\n---\n", "content/events/e.yaml": "title: E2\nexpiresAt: 2030-01-01\n"}, patched: true},
		{name: "an item moves to a free id", changes: map[string]string{"content/posts/zz.md": "---\ntitle: A3\nid: fresh\n---\n"}, patched: true},
		{name: "an item added with a free slug and id", changes: map[string]string{"content/posts/w.md": "---\ntitle: W\n---\n"}, patched: true},
		{name: "an item added with a used id", changes: map[string]string{"content/posts/y.md": "---\ntitle: Y\nid: fresh\n---\n"}},
		{name: "both go", changes: map[string]string{"content/posts/w.md": "", "content/posts/y.md": ""}},
		{name: "a page added with a used id", changes: map[string]string{"pages/p2.md": "---\ntitle: P2\nid: page-x\n---\n", "pages/p1.md": "---\ntitle: P1\nid: page-x\n---\n"}},
		{name: "the page holding it goes", changes: map[string]string{"pages/p1.md": ""}},
		{name: "a page added with a free id", changes: map[string]string{"pages/p3.md": "---\ntitle: P3\nid: page-y\n---\n"}, patched: true},
		{name: "a page added with the id of one", changes: map[string]string{"pages/p4.md": "---\ntitle: P4\nid: page-y\n---\n"}},
		{name: "pages go", changes: map[string]string{"pages/p2.md": "", "pages/p3.md": "", "pages/p4.md": ""}},
		{name: "two files swap their slugs", changes: map[string]string{"content/posts/zz.md": "---\ntitle: A3\nid: fresh\nslug: c\n---\n", "content/posts/c.md": "---\ntitle: C2\nid: x1\nslug: zz\n---\n"}},
		{name: "globals and config change", changes: map[string]string{"globals.yaml": "siteName: B\n", "folio.yaml": "types: {posts: {defaultSort: title}}\n"}},
		{name: "back to the start", changes: base},
	}
	cur := map[string]string{}
	times := map[string]time.Time{}
	as := new(Assembler)
	asc := new(Assembler) // fed sorted files and what changed, as an engine does
	var lastFiles []File
	var prevSite *Site
	var prevSnapshot []byte
	fromChangesN := 0
	for vi, v := range versions {
		if vi == 0 {
			v.changes = base
		}
		for p, src := range v.changes {
			if src == "" {
				delete(cur, p)
				continue
			}
			cur[p] = src
			times[p] = t0.Add(time.Duration(vi) * time.Hour)
		}
		for _, p := range v.touched {
			times[p] = t0.Add(time.Duration(vi) * time.Hour)
		}
		var files []File
		for p, src := range cur {
			f := File{Path: p, Updated: times[p]}
			f.Doc, f.Err = parse(p, src)
			files = append(files, f)
		}
		patchedBefore := as.patched
		got, gotProbs := as.Assemble(files)
		want, wantProbs := Assemble(files)
		sorted := slices.Clone(files)
		slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		var changed []string
		for _, f := range sorted {
			if i := slices.IndexFunc(lastFiles, func(g File) bool { return g.Path == f.Path }); i < 0 || !sameFile(lastFiles[i], f) {
				changed = append(changed, f.Path)
			}
		}
		for _, f := range lastFiles {
			if !slices.ContainsFunc(sorted, func(g File) bool { return g.Path == f.Path }) {
				changed = append(changed, f.Path)
			}
		}
		slices.Sort(changed)
		fromChanges := asc.fromChanges
		gotC, gotCProbs := asc.AssembleChanged(chunks.Of(sorted), changed)
		lastFiles = sorted
		if !reflect.DeepEqual(gotC, want) || !reflect.DeepEqual(gotCProbs, wantProbs) {
			t.Fatalf("%s: AssembleChanged differs from a fresh Assemble:\n got %+v %v\nwant %+v %v", v.name, gotC, gotCProbs, want, wantProbs)
		}
		if asc.fromChanges > fromChanges {
			fromChangesN++
		}
		if patched := as.patched > patchedBefore; patched != v.patched {
			t.Errorf("%s: patched %v, want %v", v.name, patched, v.patched)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotProbs, wantProbs) {
			t.Fatalf("%s: incremental differs from a fresh Assemble:\n got %+v %v\nwant %+v %v", v.name, got, gotProbs, want, wantProbs)
		}
		if prevSite != nil {
			if snap := siteSnapshot(prevSite); string(snap) != string(prevSnapshot) {
				t.Fatalf("%s: the previous site changed", v.name)
			}
			// Unchanged files keep their documents' pointers.
			for typ, items := range got.Items {
				for _, it := range items {
					if v.changes[it.Meta.Path] != "" || contains(v.touched, it.Meta.Path) {
						continue
					}
					for _, old := range prevSite.Items[typ] {
						if old.Meta.Path == it.Meta.Path && old != it {
							t.Errorf("%s: %s was read again", v.name, it.Meta.Path)
						}
					}
				}
			}
		}
		prevSite, prevSnapshot = got, siteSnapshot(got)
	}
	// the edits of pages and items (the homepage's and the config's
	// apart) read only the changed files
	if fromChangesN != len(versions)-3 { // the start, the config change and back to the start read every file
		t.Errorf("AssembleChanged read only the changed files %d times of %d", fromChangesN, len(versions))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// siteSnapshot is a deep copy's fingerprint of what a site serves.
func siteSnapshot(s *Site) []byte {
	var out []byte
	for _, p := range s.Pages {
		out = append(out, p.Slug...)
		if p.IsHomepage {
			out = append(out, '*')
		}
		out = append(out, p.Title...)
	}
	for _, typ := range []string{"posts", "events"} {
		for _, it := range s.Items[typ] {
			out = append(out, it.Slug...)
			out = append(out, it.Title...)
			out = append(out, it.UpdatedAt.String()...)
		}
	}
	return out
}
