package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestURLKeysServedAsWritten: a Zola site's (the Rust blog's) path and
// aliases, and Hugo's url, name URLs of the site, not items, even when
// their first segment is a content type of the site: ?expand=* serves
// them as written (they expanded to the item they seemed to name, or to
// null), the referrers of an item do not list them, and the status has
// no problem for them. A reference under another key still expands.
func TestURLKeysServedAsWritten(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"config.toml": "base_url = \"https://blog.example.com\"\n",
		"content/inside-rust/a.md": "+++\npath = \"inside-rust/2019/12/20/a\"\ntitle = \"A\"\n" +
			"aliases = [\"inside-rust/b\", \"inside-rust/2019/12/20/a.html\"]\nurl = \"inside-rust/b\"\n\n" +
			"[extra]\nsee = \"inside-rust/b\"\n+++\nBody.\n",
		"content/inside-rust/b.md": "+++\npath = \"inside-rust/2019/12/21/b\"\ntitle = \"B\"\n+++\nB.\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	url := func(p string) string { return ts.URL + p }
	data := func(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }

	r := get(t, url("/api/v1/content/inside-rust/a?expand=*"), key)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := data(r.json(t))
	if d["path"] != "inside-rust/2019/12/20/a" || d["url"] != "inside-rust/b" ||
		fmt.Sprint(d["aliases"]) != "[inside-rust/b inside-rust/2019/12/20/a.html]" {
		t.Fatalf("URL keys not as written: path %v url %v aliases %v", d["path"], d["url"], d["aliases"])
	}
	extra, _ := d["extra"].(map[string]any)
	if see, ok := extra["see"].(map[string]any); !ok || see["title"] != "B" {
		t.Fatalf("extra.see not expanded: %v", extra["see"])
	}

	got, _ := referrersOf(t, get(t, url("/api/v1/content/inside-rust/b/referrers"), key))
	if want := "item inside-rust/a A data.extra.see"; got != want {
		t.Fatalf("referrers of b:\n%s\nwant\n%s", got, want)
	}

	st := get(t, url("/api/v1/status"), key).json(t)
	if probs := fmt.Sprint(st["problems"]); strings.Contains(probs, "reference") {
		t.Fatalf("problems = %s", probs)
	}

	// On a Zola site (config.toml with base_url) path is where the
	// document is served: its path, and resolve finds it there. Hugo's
	// url still wins.
	if p := get(t, url("/api/v1/content/inside-rust/b"), key).json(t)["path"]; p != "/inside-rust/2019/12/21/b/" {
		t.Fatalf("b's path = %v, want /inside-rust/2019/12/21/b/", p)
	}
	if r := get(t, url("/api/v1/resolve?path=/inside-rust/2019/12/21/b/"), key); r.Status != 200 || r.json(t)["slug"] != "b" {
		t.Fatalf("resolve: %d %s", r.Status, r.Body)
	}
	if p := get(t, url("/api/v1/content/inside-rust/a"), key).json(t)["path"]; p != "/inside-rust/b" {
		t.Fatalf("a's path = %v, want its url /inside-rust/b", p)
	}
}

// TestSlugOfNameWithURLServed: the Rust blog's posts whose file names are
// no slugs (roadmap@0.md, roadmap@1.md) but whose front matter gives
// their URL (Zola's path) are served, as roadmap-0 and roadmap-1 (they
// were left out with a problem), and a PATCH of one is committed to its
// own file.
func TestSlugOfNameWithURLServed(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"config.toml":                    "base_url = \"https://blog.example.com\"\n",
		"content/inside-rust/_index.md":  "+++\ntitle = \"Inside Rust\"\n+++\n",
		"content/inside-rust/wg@0.md":    "+++\npath = \"inside-rust/2019/12/20/wg\"\ntitle = \"WG 2019\"\n+++\nOld.\n",
		"content/inside-rust/wg@1.md":    "+++\npath = \"inside-rust/2020/01/10/wg\"\ntitle = \"WG 2020\"\n+++\nNew.\n",
		"content/inside-rust/plain@0.md": "+++\ntitle = \"No URL\"\n+++\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)

	for slug, title := range map[string]string{"wg-0": "WG 2019", "wg-1": "WG 2020"} {
		r := get(t, ts.URL+"/api/v1/content/inside-rust/"+slug, reader)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", slug, r.Status, r.Body)
		}
		if m := r.json(t); m["title"] != title || m["slug"] != slug {
			t.Fatalf("%s: %v", slug, m)
		}
	}
	probs := fmt.Sprint(get(t, ts.URL+"/api/v1/status", reader).json(t)["problems"])
	if !strings.Contains(probs, `the file name gives the slug "plain@0"`) || strings.Contains(probs, "wg@") {
		t.Fatalf("problems = %s", probs)
	}

	r := wr(t, "PATCH", ts.URL+"/api/v1/content/inside-rust/wg-1", editor, `{"title": "WG 2020, edited"}`)
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/inside-rust/wg@1.md"); !strings.Contains(got, `title = "WG 2020, edited"`) || !strings.Contains(got, `path = "inside-rust/2020/01/10/wg"`) {
		t.Fatalf("wg@1.md after the patch: %q", got)
	}
	if got := remoteFile(t, repo.bare, "content/inside-rust/wg-1.md"); got != "" {
		t.Fatalf("the patch wrote a new file wg-1.md: %q", got)
	}
}

// TestURLKeysDeclaredReferences: a content model that declares a field
// named like a URL key (url, path, aliases) a reference wins over the
// rule that such keys never refer: its references expand, are referrers
// and are checked (a missing one is a problem). Another type's url, not
// declared, stays a URL.
func TestURLKeysDeclaredReferences(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml": "types:\n  links:\n    fields:\n      title: string\n      url: {kind: reference, to: team}\n" +
			"      aliases: {kind: list, of: {kind: reference, to: team}}\n",
		"content/team/ann.md":   "---\ntitle: Ann\n---\n",
		"content/team/bob.md":   "---\ntitle: Bob\n---\n",
		"content/links/a.md":    "---\ntitle: A\nurl: team/ann\naliases: [team/bob, team/gone]\n---\n",
		"content/posts/post.md": "---\ntitle: P\nurl: team/ann\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	url := func(p string) string { return ts.URL + p }

	r := get(t, url("/api/v1/content/links/a?expand=*"), key)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d, _ := r.json(t)["data"].(map[string]any)
	if u, ok := d["url"].(map[string]any); !ok || u["title"] != "Ann" {
		t.Fatalf("declared url not expanded: %v", d["url"])
	}
	if as, ok := d["aliases"].([]any); !ok || len(as) != 2 || as[1] != nil {
		t.Fatalf("declared aliases not expanded: %v", d["aliases"])
	} else if b, ok := as[0].(map[string]any); !ok || b["title"] != "Bob" {
		t.Fatalf("declared aliases not expanded: %v", d["aliases"])
	}
	r = get(t, url("/api/v1/content/posts/post?expand=*"), key)
	if d, _ := r.json(t)["data"].(map[string]any); d["url"] != "team/ann" {
		t.Fatalf("undeclared url expanded: %v", d["url"])
	}

	got, _ := referrersOf(t, get(t, url("/api/v1/content/team/ann/referrers"), key))
	if want := "item links/a A data.url"; got != want {
		t.Fatalf("referrers of ann:\n%s\nwant\n%s", got, want)
	}

	probs := fmt.Sprint(get(t, url("/api/v1/status"), key).json(t)["problems"])
	if !strings.Contains(probs, "reference to a missing item team/gone") || strings.Contains(probs, "posts/post") {
		t.Fatalf("problems = %s", probs)
	}
}

// TestZolaDatedNameServedAndWritten: a Zola post named with its date
// (content/blog/2018-08-10-mastodon.md) is served as Zola serves it, the
// item mastodon at /blog/mastodon/ of 2018-08-10; a PATCH of it commits
// to its own file, adding neither a slug nor a date.
func TestZolaDatedNameServedAndWritten(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"config.toml":                         "base_url = \"https://blog.example.com\"\n",
		"content/blog/_index.md":              "+++\ntitle = \"Blog\"\n+++\n",
		"content/blog/2018-08-10-mastodon.md": "+++\ntitle = \"Mastodon\"\n+++\nToot.\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	r := get(t, ts.URL+"/api/v1/content/blog/mastodon", ts.reader(t))
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if m := r.json(t); m["path"] != "/blog/mastodon/" || m["publishedAt"] != "2018-08-10T00:00:00Z" {
		t.Fatalf("served %v %v", m["path"], m["publishedAt"])
	}
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/blog/mastodon", editor, `{"title": "Mastodon, edited"}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	got := remoteFile(t, repo.bare, "content/blog/2018-08-10-mastodon.md")
	if !strings.Contains(got, `title = "Mastodon, edited"`) || strings.Contains(got, "slug") || strings.Contains(got, "date") {
		t.Fatalf("file after the patch: %q", got)
	}
	if got := remoteFile(t, repo.bare, "content/blog/mastodon.md"); got != "" {
		t.Fatalf("the patch wrote a new file: %q", got)
	}
}
