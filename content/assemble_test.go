package content

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var commitTime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600))

// assemble parses files (path -> text) as a source would and assembles
// them; every file gets commitTime as its last commit.
func assemble(t testing.TB, files map[string]string) (*Site, []Problem) {
	t.Helper()
	list := make([]File, 0, len(files))
	for p, src := range files {
		f := File{Path: p, Updated: commitTime}
		f.Doc, f.Err = Parse(p, []byte(src))
		list = append(list, f)
	}
	return Assemble(list)
}

// titled leaves out the problem for documents without a title (the test
// files leave titles out for brevity; TestUntitled checks it).
func titled(probs []Problem) []Problem {
	return slices.DeleteFunc(slices.Clone(probs), func(p Problem) bool { return strings.HasPrefix(p.Message, "no title:") })
}

func wantNoProblems(t testing.TB, probs []Problem) {
	t.Helper()
	for _, p := range titled(probs) {
		t.Errorf("unexpected problem: %s", p)
	}
}

// wantProblems checks that the problems are exactly one per path in want,
// each containing its message (and at its line when want has "path:line").
func wantProblems(t testing.TB, probs []Problem, want map[string]string) {
	t.Helper()
	got := map[string]Problem{}
	for _, p := range titled(probs) {
		key := p.Path
		if _, dup := got[key]; dup {
			t.Errorf("two problems for %s: %s and %s", key, got[key], p)
		}
		got[key] = p
	}
	for path, msg := range want {
		p, ok := got[path]
		if !ok {
			t.Errorf("no problem for %s (want %q)", path, msg)
			continue
		}
		if !strings.Contains(p.String(), msg) {
			t.Errorf("problem %q, want it to contain %q", p.String(), msg)
		}
		delete(got, path)
	}
	for _, p := range got {
		t.Errorf("unexpected problem: %s", p)
	}
}

func itemBySlug(t testing.TB, s *Site, typ, slug string) *Item {
	t.Helper()
	for _, it := range s.Items[typ] {
		if it.Slug == slug {
			return it
		}
	}
	t.Fatalf("no %s item %q; have %v", typ, slug, slugs(s.Items[typ]))
	return nil
}

func pageBySlug(t testing.TB, s *Site, slug string) *Page {
	t.Helper()
	for _, p := range s.Pages {
		if p.Slug == slug {
			return p
		}
	}
	t.Fatalf("no page %q", slug)
	return nil
}

func slugs(items []*Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Slug
	}
	return out
}

func day(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

func TestAssemble_Items(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"content/posts/hello.md":            "---\ntitle: Hello\ndate: 2024-03-01\nauthor: Ann\ntags: [a, b]\n---\nHi *there*.\n",
		"content/posts/2024/nested.md":      "---\ntitle: Nested\n---\n",
		"content/posts/bundle/index.md":     "---\ntitle: Bundle\n---\nB\n",
		"content/posts/branch/_index.md":    "---\ntitle: Branch bundle\n---\n",
		"content/posts/renamed.md":          "---\ntitle: Renamed\nslug: /custom/slug/\nid: 42\n---\n",
		"content/products/tent.yaml":        "title: Tent\nprice: 100\npublishedAt: 2024-01-02T10:00:00+02:00\n",
		"content/products/stove.json":       `{"title": "Stove", "price": 20.5, "status": "in-stock"}`,
		"content/products/lamp.toml":        "title = \"Lamp\"\npublishDate = 2024-02-03T04:05:06Z\n",
		"content/posts/README.txt":          "ignored",
		"content/posts/_index.md":           "---\ntitle: list page\n---\n",
		"content/_index.md":                 "---\ntitle: Home\n---\n",
		"content/posts/.draft.md":           "---\ntitle: dotfile\n---\n",
		"content/posts/body-in-fm.md":       "---\nbody: from front matter\n---\nfrom **Markdown**\n",
		"content/posts/fm-body.yaml":        "body: kept as is\n",
		"content/events/meetup.md":          "---\nTitle: Meetup\nDate: 2024-05-05 18:30:00 -0500\nLastMod: 2024-05-06\nExpiryDate: 2024-06-01\n---\n",
		"content/posts/published-false.md":  "---\npublished: false\n---\n",
		"content/posts/status-draft.md":     "---\nstatus: Draft\n---\n",
		"content/posts/status-published.md": "---\nstatus: published\n---\n",
	})
	wantNoProblems(t, probs)

	// Hugo's home page and a section's own page are pages, as Hugo
	// serves them at / and /posts/, with or without locales.
	if len(site.Pages) != 2 || pageBySlug(t, site, "index").Title != "Home" || pageBySlug(t, site, "posts").Title != "list page" {
		t.Errorf("pages %+v: want index and posts", site.Pages)
	}
	if p := pageBySlug(t, site, "index"); p.Meta.Path != "content/_index.md" || !p.IsHomepage {
		t.Errorf("home page %+v: its path is content/_index.md, and it is the homepage", p.Meta)
	}
	if b := itemBySlug(t, site, "posts", "branch"); b.Title != "Branch bundle" {
		t.Errorf("branch bundle = %+v", b)
	}
	hello := itemBySlug(t, site, "posts", "hello")
	if hello.Type != "posts" || hello.Title != "Hello" || hello.ID != stableID("item\x00posts", "hello") {
		t.Errorf("hello = %+v", hello)
	}
	wantData := map[string]any{"author": "Ann", "tags": []any{"a", "b"}, "body": "<p>Hi <em>there</em>.</p>\n"}
	gotData := maps.Clone(hello.Data)
	gotData["body"] = servedBody(gotData["body"])
	if !reflect.DeepEqual(gotData, wantData) {
		t.Errorf("hello.Data = %#v, want %#v", hello.Data, wantData)
	}
	if want := day(2024, 3, 1, 0, 0); !hello.PublishedAt.Equal(want) || !hello.Meta.PublishedSet || hello.PublishedAt.Location() != time.UTC {
		t.Errorf("hello.PublishedAt = %v (set %v), want %v UTC", hello.PublishedAt, hello.Meta.PublishedSet, want)
	}
	if !hello.UpdatedAt.Equal(commitTime) || hello.UpdatedAt.Location() != time.UTC {
		t.Errorf("hello.UpdatedAt = %v, want the commit time %v in UTC", hello.UpdatedAt, commitTime)
	}
	if hello.Meta.Path != "content/posts/hello.md" || hello.Meta.Draft {
		t.Errorf("hello.Meta = %+v", hello.Meta)
	}

	nested := itemBySlug(t, site, "posts", "2024/nested")
	if !nested.PublishedAt.Equal(commitTime) || nested.Meta.PublishedSet {
		t.Errorf("nested: publishedAt %v set %v, want the commit time, not set", nested.PublishedAt, nested.Meta.PublishedSet)
	}
	if len(nested.Data) != 0 {
		t.Errorf("nested.Data = %v, want empty", nested.Data)
	}
	itemBySlug(t, site, "posts", "bundle")
	if r := itemBySlug(t, site, "posts", "custom/slug"); r.ID != "42" || r.Title != "Renamed" {
		t.Errorf("renamed = %+v", r)
	}
	if b := itemBySlug(t, site, "posts", "body-in-fm"); servedBody(b.Data["body"]) != "<p>from <strong>Markdown</strong></p>\n" {
		t.Errorf("Markdown body does not win: %v", b.Data["body"])
	}
	if b := itemBySlug(t, site, "posts", "fm-body"); b.Data["body"] != "kept as is" {
		t.Errorf("YAML body = %v", b.Data["body"])
	}

	tent := itemBySlug(t, site, "products", "tent")
	if !tent.PublishedAt.Equal(day(2024, 1, 2, 8, 0)) || tent.Data["price"] != int64(100) {
		t.Errorf("tent = %+v", tent)
	}
	stove := itemBySlug(t, site, "products", "stove")
	if stove.Data["price"] != 20.5 || stove.Data["status"] != "in-stock" || stove.Meta.Draft {
		t.Errorf("stove = %+v (a status other than draft/published is data)", stove)
	}
	if lamp := itemBySlug(t, site, "products", "lamp"); !lamp.PublishedAt.Equal(time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Errorf("lamp.PublishedAt = %v", lamp.PublishedAt)
	}

	meetup := itemBySlug(t, site, "events", "meetup")
	if meetup.Title != "Meetup" || !meetup.PublishedAt.Equal(day(2024, 5, 5, 23, 30)) ||
		!meetup.UpdatedAt.Equal(day(2024, 5, 6, 0, 0)) || !meetup.Meta.ExpiresAt.Equal(day(2024, 6, 1, 0, 0)) || len(meetup.Data) != 0 {
		t.Errorf("meetup (keys matched case-insensitively) = %+v", meetup)
	}

	for slug, draft := range map[string]bool{"published-false": true, "status-draft": true, "status-published": false, "hello": false} {
		it := itemBySlug(t, site, "posts", slug)
		if it.Meta.Draft != draft {
			t.Errorf("%s: Draft = %v, want %v", slug, it.Meta.Draft, draft)
		}
		if _, ok := it.Data["status"]; ok {
			t.Errorf("%s: status kept in data", slug)
		}
	}

	if got, want := slugs(site.Items["posts"]), []string{"2024/nested", "body-in-fm", "branch", "bundle", "custom/slug", "fm-body", "hello", "published-false", "status-draft", "status-published"}; !reflect.DeepEqual(got, want) {
		t.Errorf("posts = %v, want sorted %v", got, want)
	}
	if len(site.Items) != 3 {
		t.Errorf("types = %v", site.Items)
	}
	if site.Globals != nil {
		t.Errorf("globals %v: want none", site.Globals)
	}
	if _, err := json.Marshal(site.Items); err != nil {
		t.Errorf("items do not encode: %v", err)
	}
}

func TestAssemble_DateAliasPrecedence(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"content/posts/a.md": "---\ndate: 2020-01-01\npublishDate: 2021-01-01\npublishedAt: 2022-01-01\nlastmod: 2020-02-02\nupdatedAt: 2023-03-03\nexpiryDate: 2030-01-01\nexpiresAt: 2031-01-01\n---\n",
		"content/posts/b.md": "---\ndate: 2020-01-01\npublishDate: 2021-01-01\n---\n",
		// Only lastmod (Hugo dates such a page by it): published by then,
		// not at the later commit; a lastmod after the commit changes
		// nothing (no page is scheduled by its lastmod).
		"content/posts/c.md": "---\nlastmod: 2020-02-02\n---\n",
		"content/posts/d.md": "---\nlastmod: 2099-02-02\n---\n",
	})
	wantNoProblems(t, probs)
	if c := itemBySlug(t, site, "posts", "c"); !c.PublishedAt.Equal(day(2020, 2, 2, 0, 0)) || !c.UpdatedAt.Equal(day(2020, 2, 2, 0, 0)) {
		t.Errorf("c = %v %v, want both the lastmod", c.PublishedAt, c.UpdatedAt)
	}
	if d := itemBySlug(t, site, "posts", "d"); !d.PublishedAt.Equal(commitTime) {
		t.Errorf("d.PublishedAt = %v, want the commit time %v", d.PublishedAt, commitTime)
	}
	a := itemBySlug(t, site, "posts", "a")
	if !a.PublishedAt.Equal(day(2022, 1, 1, 0, 0)) || !a.UpdatedAt.Equal(day(2023, 3, 3, 0, 0)) || !a.Meta.ExpiresAt.Equal(day(2031, 1, 1, 0, 0)) {
		t.Errorf("a = %v %v %v", a.PublishedAt, a.UpdatedAt, a.Meta.ExpiresAt)
	}
	if b := itemBySlug(t, site, "posts", "b"); !b.PublishedAt.Equal(day(2021, 1, 1, 0, 0)) {
		t.Errorf("b.PublishedAt = %v, want publishDate over date", b.PublishedAt)
	}
	if len(a.Data) != 0 {
		t.Errorf("aliases left in data: %v", a.Data)
	}
}

func TestAssemble_ItemProblems(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"content/posts/good.md":       "---\ntitle: Good\n---\n",
		"content/posts/dup-a.md":      "---\nslug: same\n---\n",
		"content/posts/dup-b.md":      "---\nslug: same\n---\n",
		"content/posts/id-a.md":       "---\nid: x1\n---\n",
		"content/posts/id-b.md":       "---\nid: x1\n---\n",
		"content/products/id-c.md":    "---\nid: x1\n---\n", // ids are per type
		"content/posts/dotdot.md":     "---\nslug: ../../etc\n---\n",
		"content/posts/My?Post.md":    "---\ntitle: a question mark in the file name\n---\n",
		"content/posts/long.md":       "---\nslug: " + strings.Repeat("a", 201) + "\n---\n",
		"content/posts/baddate.md":    "---\ntitle: x\ndate: yesterday\n---\n",
		"content/posts/baddate2.md":   "---\nlastmod: 2024-13-01\n---\n",
		"content/posts/baddate3.md":   "---\nexpiresAt: 1700000000\n---\n",
		"content/posts/baddraft.md":   "---\ndraft: yes please\n---\n",
		"content/posts/badtitle.md":   "---\ntitle: [a, b]\n---\n",
		"content/posts/badid.md":      "---\nid: has space\n---\n",
		"content/posts/twice.md":      "---\ndate: 2024-01-01\nDate: 2024-01-02\n---\n",
		"content/Bad Type/x.md":       "---\ntitle: X\n---\n",
		"content/Posts/x.md":          "---\ntitle: X\n---\n",
		"content/-x/x.md":             "---\ntitle: X\n---\n",
		"content/posts/broken.md":     "---\ntitle: [unclosed\n---\nx\n",
		"content/posts/bomb.md":       "---\n" + aliasBomb + "---\n",
		"content/posts/latin1.md":     "---\ntitle: caf\xe9\n---\n",
		"content/posts/binary.md":     "\x00\x01",
		"content/posts/huge.md":       "---\npad: " + strings.Repeat("x", 5<<20) + "\n---\n",
		"content/posts/list.yaml":     "- a\n",
		"content/posts/slug-dup-x.md": "---\nslug: good\n---\n",
	})
	wantProblems(t, probs, map[string]string{
		"content/posts/dup-b.md":      `posts slug "same" is used by content/posts/dup-a.md`,
		"content/posts/id-b.md":       `content/posts/id-b.md:2: posts id "x1" is used by content/posts/id-a.md`,
		"content/posts/dotdot.md":     `dotdot.md:2: slug: "../../etc" is not a valid slug`,
		"content/posts/My?Post.md":    `the file name gives the slug "My?Post"`,
		"content/posts/long.md":       "is not a valid slug",
		"content/posts/baddate.md":    `baddate.md:3: date: bad date "yesterday"`,
		"content/posts/baddate2.md":   `baddate2.md:2: lastmod: bad date "2024-13-01"`,
		"content/posts/baddate3.md":   "baddate3.md:2: expiresAt: bad date 1700000000",
		"content/posts/baddraft.md":   "baddraft.md:2: draft: want true or false",
		"content/posts/badtitle.md":   "badtitle.md:2: title: want a single value, found a list",
		"content/posts/badid.md":      `badid.md:2: id: has space is not a valid id`,
		"content/posts/twice.md":      `keys "Date" and "date" are the same key`,
		"content/Bad Type/x.md":       `content type folder "Bad Type" is not a valid type name`,
		"content/Posts/x.md":          `content type folder "Posts"`,
		"content/-x/x.md":             `content type folder "-x"`,
		"content/posts/broken.md":     "broken.md:3: invalid YAML",
		"content/posts/bomb.md":       "aliases expand",
		"content/posts/latin1.md":     "latin1.md:2: not valid UTF-8",
		"content/posts/binary.md":     "NUL",
		"content/posts/huge.md":       "over the limit",
		"content/posts/list.yaml":     "expected a map",
		"content/posts/slug-dup-x.md": `posts slug "good" is used by content/posts/good.md`,
	})
	if got, want := slugs(site.Items["posts"]), []string{"good", "id-a", "same"}; !reflect.DeepEqual(got, want) {
		t.Errorf("posts = %v, want %v", got, want)
	}
	if same := itemBySlug(t, site, "posts", "same"); same.Meta.Path != "content/posts/dup-a.md" {
		t.Errorf("duplicate slug winner = %s, want the smallest path", same.Meta.Path)
	}
	if len(site.Items["products"]) != 1 {
		t.Errorf("products = %v", site.Items["products"])
	}
}

func TestAssemble_FileErrors(t *testing.T) {
	_, probs := Assemble([]File{
		{Path: "content/posts/a.md", Err: Problem{Path: "elsewhere", Line: 3, Message: "cached problem"}},
		{Path: "content/posts/b.md", Err: fmt.Errorf("read failed")},
		{Path: "content/posts/c.md"},
		{Path: "static/x.md", Err: fmt.Errorf("ignored: not content")},
	})
	want := []Problem{
		{Path: "content/posts/a.md", Line: 3, Message: "cached problem"},
		{Path: "content/posts/b.md", Message: "read failed"},
		{Path: "content/posts/c.md", Message: "file was not parsed"},
	}
	if !reflect.DeepEqual(probs, want) {
		t.Errorf("problems = %v, want %v", probs, want)
	}
}

// The winner of a conflict must not depend on the order of the files.
func TestAssemble_Deterministic(t *testing.T) {
	files := map[string]string{
		"content/posts/b.md": "---\nslug: same\ntitle: B\n---\n", "content/posts/a.md": "---\nslug: same\ntitle: A\n---\n",
		"pages/z.md": "---\nisHomepage: true\n---\n", "pages/y.md": "---\nisHomepage: true\n---\n",
	}
	var list []File
	for p, src := range files {
		doc, err := Parse(p, []byte(src))
		list = append(list, File{Path: p, Doc: doc, Err: err})
	}
	first, firstProbs := Assemble(list)
	for i := range 10 {
		rev := append([]File(nil), list...)
		for j := range rev {
			k := (j*7 + i) % len(rev)
			rev[j], rev[k] = rev[k], rev[j]
		}
		s, probs := Assemble(rev)
		if !reflect.DeepEqual(s, first) || !reflect.DeepEqual(probs, firstProbs) {
			t.Fatalf("order %d: result differs", i)
		}
	}
	if first.Items["posts"][0].Title != "A" {
		t.Errorf("winner = %s", first.Items["posts"][0].Title)
	}
}

// servedBody is a body value as the API serves it: a Markdown body as its
// HTML (checked to encode exactly as that string would).
func servedBody(v any) any {
	md, ok := v.(Markdown)
	if !ok {
		return v
	}
	got, err := json.Marshal(md)
	want, _ := json.Marshal(md.HTML())
	if err != nil || string(got) != string(want) {
		return fmt.Sprintf("Markdown encodes as %s (%v), its HTML as %s", got, err, want)
	}
	return md.HTML()
}
