package content

import (
	"testing"
	"time"
)

func TestDocPath(t *testing.T) {
	rules := &urlRules{permalinks: map[string]string{
		"posts": "/:year/:month/:day/:slug/",
		"notes": "/notes/:year-:month-:day/:slugorfilename",
		"log":   "/:section/:yearday/:title/",
	}}
	date := time.Date(2019, 12, 31, 23, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d      docInfo
		prefix string
		want   string
	}{
		{docInfo{typ: "posts", pathSlug: "a", slug: "report", slugSet: true, date: date, dateText: "2020-01-01T01:00:00+02:00"}, "", "/2020/01/01/report/"},
		{docInfo{typ: "posts", pathSlug: "a", slug: "a", title: "January 2020: work - libasr", date: date}, "", "/2019/12/31/january-2020-work-libasr/"},
		{docInfo{typ: "notes", pathSlug: "2019/x", slug: "2019/x", date: date}, "/fr", "/fr/notes/2019-12-31/x"},
		{docInfo{typ: "log", pathSlug: "a", slug: "a", title: "Hello World", date: date}, "", "/log/365/hello-world/"},
		{docInfo{typ: "docs", pathSlug: "Guides/Install-Me", slug: "Guides/Install-Me"}, "", "/docs/guides/install-me/"},
		{docInfo{typ: "docs", pathSlug: "guides/a", slug: "b", slugSet: true}, "", "/docs/guides/b/"},
		{docInfo{typ: "docs", pathSlug: "a", url: "archive/old/"}, "/fr", "/archive/old/"},
		{docInfo{pathSlug: "index", slug: "index"}, "", "/"},
		{docInfo{pathSlug: "about", slug: "about"}, "/de", "/de/about/"},
	} {
		if got := rules.docPath(c.d, c.prefix); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
	keep := &urlRules{keepCase: true}
	if got := keep.docPath(docInfo{typ: "docs", pathSlug: "Guides/Install", slug: "Guides/Install"}, ""); got != "/docs/Guides/Install/" {
		t.Errorf("disablePathToLower: %q", got)
	}
}

func TestReadURLRules(t *testing.T) {
	files := func(m map[string]string) []File {
		var out []File
		for p, src := range m {
			f := File{Path: p}
			f.Doc, f.Err = Parse(p, []byte(src))
			out = append(out, f)
		}
		return out
	}
	r := readURLRules(files(map[string]string{
		"hugo.toml":                         "[permalinks.page]\nposts = '/:year/:slug/'\n",
		"config/_default/permalinks.yaml":   "notes: /n/:slug/\n",
		"content/posts/hugo.toml":           "[permalinks]\nposts = '/nope/'\n",
		"config/_default/hugo.toml":         "disablePathToLower = true\n",
		"config/_default/languages.fr.toml": "",
	}))
	if r.permalinks["posts"] != "/:year/:slug/" || r.permalinks["notes"] != "/n/:slug/" || !r.keepCase {
		t.Errorf("rules %+v", r)
	}
}

func TestTitleFromFile(t *testing.T) {
	for in, want := range map[string]string{
		"getting-started":      "Getting Started",
		"docs/faq-of-the-week": "Faq of the Week",
		"a_tour_of_go":         "A Tour of Go",
		"index":                "",
		"guides/über-uns":      "Über Uns",
	} {
		if got := titleFromFile(in); got != want {
			t.Errorf("titleFromFile(%q) = %q, want %q", in, got, want)
		}
	}
}
