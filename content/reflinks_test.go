package content

import (
	"strings"
	"testing"
	"time"
)

// refSite is a Hugo site whose paths are not Hugo's defaults: posts by
// date (permalinks), a page with url:, a post with slug:, a branch
// bundle with a page of its own (a leaf bundle's setup.md would be a
// resource, no page).
var refSite = map[string]string{
	"hugo.toml":                          "title = \"R\"\n[permalinks]\n  posts = \"/:year/:month/:day/:slug/\"\n",
	"content/posts/2019-01-01-report.md": "---\ntitle: Report\nslug: report\ndate: 2019-01-01\n---\nFirst.\n",
	"content/posts/moved.md":             "---\ntitle: Moved\nurl: /archive/moved-post/\ndate: 2018-06-01\n---\nMoved.\n",
	"content/docs/guide/_index.md":       "---\ntitle: Guide\nurl: /handbook/\n---\nSee [setup]({{< relref \"setup.md\" >}}).\n",
	"content/docs/guide/setup.md":        "---\ntitle: Setup\n---\nSetup.\n",
	"content/docs/_index.md":             "---\ntitle: Docs\nurl: /documentation/\n---\nDocs.\n",
	"content/about.md": "---\ntitle: About\n---\n" +
		"[a]({{< ref \"posts/2019-01-01-report.md\" >}}) " +
		"[b]({{< relref \"/posts/moved.md#top\" >}}) " +
		"[c]({{< ref \"Moved\" >}}) " +
		"[d]({{< ref \"docs\" >}}) " +
		"[e]({{< ref \"/docs/guide/_index.md\" >}}) " +
		"[f]({{< ref \"#x\" >}}) " +
		"[g]({{< ref \"nope.md#y\" >}})\n",
}

func hrefs(html string) []string {
	var out []string
	for _, part := range strings.Split(html, `href="`)[1:] {
		out = append(out, part[:strings.IndexByte(part, '"')])
	}
	return out
}

func pageHTML(t *testing.T, s *Site, slug string) string {
	t.Helper()
	p := pageBySlug(t, s, slug)
	return p.Sections[len(p.Sections)-1].Data["html"].(Markdown).HTML()
}

// A ref is the path the site serves its target at: its permalinks, url:
// and slug:, not Hugo's default path of the file; a missing one is
// Hugo's default path, and a problem of check.
func TestRefLinks_SitePaths(t *testing.T) {
	s, probs := assemble(t, refSite)
	wantNoProblems(t, titled(probs))
	want := []string{"/2019/01/01/report/", "/archive/moved-post/#top", "/archive/moved-post/", "/documentation/", "/handbook/", "#x", "/nope/#y"}
	if got := hrefs(pageHTML(t, s, "about")); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("about's links %q\nwant %q", got, want)
	}
	// relative to the referring file first: the branch bundle's setup.md
	it := itemBySlug(t, s, "docs", "guide")
	if got := hrefs(it.Data["body"].(Markdown).HTML()); len(got) != 1 || got[0] != "/docs/guide/setup/" {
		t.Errorf("guide's link %q", got)
	}
	// the tree has the same links
	p := pageBySlug(t, s, "about")
	tr, err := p.Sections[len(p.Sections)-1].Data["html"].(Markdown).Tree()
	if err != nil || !strings.Contains(string(tr), `"/2019/01/01/report/"`) || !strings.Contains(string(tr), `"/archive/moved-post/#top"`) {
		t.Errorf("tree %s %v", tr, err)
	}

	files := parseAll(t, refSite)
	lp := LinkProblems(s, files)
	if len(lp) != 1 || lp[0].Path != "content/about.md" || lp[0].Line != 4 || !strings.Contains(lp[0].Message, `"nope.md#y"`) {
		t.Errorf("link problems %v", lp)
	}
}

func parseAll(t *testing.T, files map[string]string) []File {
	t.Helper()
	var list []File
	for p, src := range files {
		f := File{Path: p, Updated: commitTime}
		f.Doc, f.Err = Parse(p, []byte(src))
		list = append(list, f)
	}
	return list
}

// A target whose path changes: the referring document, unchanged, is
// read again (a new pointer, so its kept JSON goes) and links to the new
// path; one whose links did not change keeps its pointer.
func TestRefLinks_TargetMoves(t *testing.T) {
	docs := map[string]*Doc{}
	files := func(m map[string]string) []File {
		var list []File
		for p, src := range m {
			d, ok := docs[p+"\x00"+src]
			if !ok {
				var err error
				if d, err = Parse(p, []byte(src)); err != nil {
					t.Fatal(err)
				}
				docs[p+"\x00"+src] = d
			}
			list = append(list, File{Path: p, Doc: d, Updated: time.Unix(1, 0)})
		}
		return list
	}
	site := map[string]string{}
	for k, v := range refSite {
		site[k] = v
	}
	site["content/plain.md"] = "---\ntitle: Plain\n---\nNo links.\n"
	var as Assembler
	s1, _ := as.Assemble(files(site))
	if got := hrefs(pageHTML(t, s1, "about"))[0]; got != "/2019/01/01/report/" {
		t.Fatalf("before: %s", got)
	}
	pageHTML(t, s1, "plain")
	site["content/posts/2019-01-01-report.md"] = "---\ntitle: Report\nslug: report\ndate: 2019-02-03\n---\nFirst.\n"
	s2, _ := as.Assemble(files(site))
	if pageBySlug(t, s2, "about") == pageBySlug(t, s1, "about") {
		t.Error("about kept its pointer, and so its JSON, though a link of it moved")
	}
	if pageBySlug(t, s2, "plain") != pageBySlug(t, s1, "plain") {
		t.Error("plain was read again")
	}
	if got := hrefs(pageHTML(t, s2, "about"))[0]; got != "/2019/02/03/report/" {
		t.Errorf("after: %s", got)
	}
	// the missing target appears
	site["content/nope.md"] = "---\ntitle: Nope\nurl: /yes/\n---\n"
	s3, _ := as.Assemble(files(site))
	if got := hrefs(pageHTML(t, s3, "about")); got[len(got)-1] != "/yes/#y" {
		t.Errorf("after the target came: %q", got)
	}
	// a fork (a branch's view) resolves in its own site
	fork := as.Fork()
	site["content/posts/moved.md"] = "---\ntitle: Moved\nurl: /elsewhere/\ndate: 2018-06-01\n---\nMoved.\n"
	s4, _ := fork.Assemble(files(site))
	if got := hrefs(pageHTML(t, s4, "about"))[1]; got != "/elsewhere/#top" {
		t.Errorf("fork: %s", got)
	}
	if got := hrefs(pageHTML(t, s3, "about"))[1]; got != "/archive/moved-post/#top" {
		t.Errorf("the parent after the fork: %s", got)
	}
}
