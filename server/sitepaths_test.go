package server_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureFiles is fixtures/<name> as a map of files, for newRepo.
func fixtureFiles(tb testing.TB, name string) map[string]string {
	tb.Helper()
	root := filepath.Join("..", "fixtures", name)
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func resolvePath(t *testing.T, ts *testServer, key, p string) response {
	t.Helper()
	return get(t, ts.URL+"/api/v1/resolve?path="+url.QueryEscape(p), key)
}

// A Hugo blog whose permalinks put the date in the path reuses slugs:
// every post is served, listed, and found by its path.
func TestSitePaths_HugoDatePermalinks(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, fixtureFiles(t, "hugo-permalinks")).bare)
	key := ts.reader(t)

	_, list := getJSON(t, ts, "/api/v1/content/posts?sort=publishedAt", key)
	var paths, slugs []string
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		paths = append(paths, m["path"].(string))
		slugs = append(slugs, m["slug"].(string))
	}
	wantPaths := []string{"/archive/moved-post/", "/2019/01/01/report/", "/2020/01/01/report/", "/2021/03/05/report/"}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("paths %q, want %q", paths, wantPaths)
	}
	// The smallest file path keeps the slug; the others are served under
	// their path.
	if want := []string{"moved", "report", "2020/01/01/report", "2021/03/05/report"}; !slices.Equal(slugs, want) {
		t.Errorf("slugs %q, want %q", slugs, want)
	}
	_, one := getJSON(t, ts, "/api/v1/content/posts/report", key)
	if one["path"] != "/2019/01/01/report/" {
		t.Errorf("the slug report answers %v, want the post at /2019/01/01/report/", one["path"])
	}

	for _, p := range wantPaths {
		r := resolvePath(t, ts, key, p)
		if r.Status != http.StatusOK {
			t.Fatalf("resolve %s: %d %s", p, r.Status, r.Body)
		}
		if m := r.json(t); m["path"] != p || m["type"] != "posts" {
			t.Errorf("resolve %s: %v %v", p, m["type"], m["path"])
		}
	}
	// without the trailing slash, as a front end's router may pass it
	if r := resolvePath(t, ts, key, "/2020/01/01/report"); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "The second report") {
		t.Errorf("resolve without the slash: %d %s", r.Status, r.Body)
	}
	for p, want := range map[string]int{"/2022/01/01/report/": 404, "report": 400, "": 400, "/a?b": 400} {
		if r := resolvePath(t, ts, key, p); r.Status != want {
			t.Errorf("resolve %q: %d, want %d", p, r.Status, want)
		}
	}
	if r := get(t, ts.URL+"/api/v1/resolve?path=/2019/01/01/report/", ""); r.Status != http.StatusUnauthorized {
		t.Errorf("resolve without a key: %d", r.Status)
	}
	// the taken slugs are signs for check: problems
	_, st := getJSON(t, ts, "/api/v1/status", key)
	n := 0
	for _, p := range st["problems"].([]any) {
		if m := p.(map[string]any); strings.Contains(m["message"].(string), `is served with slug`) && m["level"] == "warn" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d problems for the shared slugs, want 2: %v", n, st["problems"])
	}
}

// Documents without a title get one from their file name, marked.
func TestSitePaths_UntitledDocs(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, fixtureFiles(t, "docs-untitled")).bare)
	key := ts.reader(t)
	_, list := getJSON(t, ts, "/api/v1/content/docs?sort=title", key)
	got := map[string]any{}
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		got[m["title"].(string)] = m["titleFromFile"]
	}
	want := map[string]any{"Configuring it": nil, "Faq of the Week": true, "Getting Started": true}
	if len(got) != len(want) {
		t.Fatalf("titles %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("title %q: titleFromFile %v (present %v), want %v", k, g, ok, v)
		}
	}
	_, doc := getJSON(t, ts, "/api/v1/resolve?path=/docs/getting-started/", key)
	if doc["title"] != "Getting Started" {
		t.Errorf("resolve /docs/getting-started/: %v", doc["title"])
	}
	_, st := getJSON(t, ts, "/api/v1/status", key)
	probs := st["problems"].([]any)
	if len(probs) != 1 || !strings.Contains(probs[0].(map[string]any)["message"].(string), "no title") {
		t.Errorf("problems %v, want one for the documents without a title", probs)
	}
}

// A landing page's own fields are served in its data.
func TestSitePaths_PageData(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, fixtureFiles(t, "landing-page")).bare)
	key := ts.reader(t)
	_, home := getJSON(t, ts, "/api/v1/pages/index", key)
	data, _ := home["data"].(map[string]any)
	if data["heading"] != "Great coffee with a conscience" || data["templateKey"] != "index-page" {
		t.Fatalf("page data %v", home["data"])
	}
	intro, _ := data["intro"].(map[string]any)
	if blurbs, _ := intro["blurbs"].([]any); len(blurbs) != 2 {
		t.Errorf("intro %v", data["intro"])
	}
	if mp, _ := data["mainpitch"].(map[string]any); mp["title"] != "Why Kaldi" {
		t.Errorf("mainpitch %v", data["mainpitch"])
	}
	if _, ok := data["title"]; ok {
		t.Errorf("title is in data: %v", data)
	}
	if home["path"] != "/" {
		t.Errorf("homepage path %v", home["path"])
	}
	_, about := getJSON(t, ts, "/api/v1/resolve?path=/about/", key)
	if about["slug"] != "about" || about["data"].(map[string]any)["templateKey"] != "about-page" {
		t.Errorf("resolve /about/: %v", about)
	}
	_, list := getJSON(t, ts, "/api/v1/pages", key)
	if p := list["items"].([]any)[0].(map[string]any)["path"]; p != "/" {
		t.Errorf("page summary path %v", p)
	}
}

// A Gatsby site edited with Decap: its config says where the collections
// live, and folio serves them there: the folder collection as a type,
// the files collection's files as pages with their own fields.
func TestSitePaths_DecapCollectionsWhereTheyAre(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, fixtureFiles(t, "gatsby-decap")).bare)
	key := ts.reader(t)

	_, blog := getJSON(t, ts, "/api/v1/content/blog?sort=slug", key)
	var slugs []string
	for _, it := range blog["items"].([]any) {
		slugs = append(slugs, it.(map[string]any)["slug"].(string))
	}
	if want := []string{"2016-12-17-flavor-wheel", "2017-01-04-chemex"}; !slices.Equal(slugs, want) {
		t.Errorf("blog %q, want %q", slugs, want)
	}
	_, pages := getJSON(t, ts, "/api/v1/pages", key)
	got := map[string]bool{}
	for _, p := range pages["items"].([]any) {
		m := p.(map[string]any)
		got[m["slug"].(string)] = m["isHomepage"].(bool)
	}
	if len(got) != 3 || !got["index"] || got["about"] || got["products"] {
		t.Errorf("pages %v, want index (the homepage), about and products", got)
	}
	_, home := getJSON(t, ts, "/api/v1/pages/index", key)
	data, _ := home["data"].(map[string]any)
	if mp, _ := data["mainpitch"].(map[string]any); data["heading"] != "Great coffee with a conscience" || mp["title"] != "Why Kaldi" {
		t.Errorf("landing page data %v", home["data"])
	}
	_, products := getJSON(t, ts, "/api/v1/pages/products", key)
	if tm, _ := products["data"].(map[string]any)["testimonials"].([]any); len(tm) != 1 {
		t.Errorf("products data %v", products["data"])
	}
	for p, slug := range map[string]string{"/": "index", "/about/": "about", "/blog/2017-01-04-chemex/": "2017-01-04-chemex"} {
		_, doc := getJSON(t, ts, "/api/v1/resolve?path="+url.QueryEscape(p), key)
		if doc["slug"] != slug {
			t.Errorf("resolve %s: slug %v, want %s", p, doc["slug"], slug)
		}
	}
	// the news collection's folder holds nothing: folio check's sign
	// (decap-folders), not a problem of the served site
	_, st := getJSON(t, ts, "/api/v1/status", key)
	if probs := st["problems"].([]any); len(probs) != 0 {
		t.Errorf("problems %v", probs)
	}
}

// A Decap files collection's files under content/ are pages, not a type
// with one item named index each.
func TestSitePaths_DecapFilesUnderContent(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, fixtureFiles(t, "hugo-decap-files")).bare)
	key := ts.reader(t)
	_, products := getJSON(t, ts, "/api/v1/pages/products", key)
	if products["data"].(map[string]any)["heading"] != "What we sell" || products["path"] != "/products/" {
		t.Errorf("products: %v", products)
	}
	_, about := getJSON(t, ts, "/api/v1/resolve?path=/about/", key)
	if about["slug"] != "about" || about["title"] != "About us" {
		t.Errorf("resolve /about/: %v", about)
	}
	for _, typ := range []string{"about", "products"} {
		if r := get(t, ts.URL+"/api/v1/content/"+typ, key); r.Status != http.StatusNotFound {
			t.Errorf("type %s: %d %s", typ, r.Status, r.Body)
		}
	}
	if _, post := getJSON(t, ts, "/api/v1/content/posts/hello", key); post["path"] != "/posts/hello/" {
		t.Errorf("post path %v", post["path"])
	}
}

// A push into a Decap collection's folder, and one that reuses a slug,
// are served after the reload as at a start.
func TestSitePaths_Push(t *testing.T) {
	t.Parallel()
	files := fixtureFiles(t, "gatsby-decap")
	for p, src := range fixtureFiles(t, "hugo-permalinks") {
		if p == "hugo.toml" || strings.HasPrefix(p, "content/") {
			files[p] = src
		}
	}
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	repo.commit("more", map[string]string{
		"src/pages/blog/2018-02-01-espresso.md": "---\ntitle: Espresso\ndate: 2018-02-01\ndescription: Short.\ntags: [x]\n---\nShort and strong.\n",
		"content/posts/2022-report.md":          "---\ntitle: Report\nslug: report\ndate: 2022-07-01\n---\nThe fourth one.\n",
	})
	if err := ts.Engine.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"/blog/2018-02-01-espresso/": "Espresso", "/2022/07/01/report/": "Report", "/2019/01/01/report/": "Report"} {
		_, doc := getJSON(t, ts, "/api/v1/resolve?path="+url.QueryEscape(p), key)
		if doc["title"] != want {
			t.Errorf("resolve %s: %v", p, doc["title"])
		}
	}
	_, list := getJSON(t, ts, "/api/v1/content/posts?limit=100", key)
	if list["total"].(float64) != 5 {
		t.Errorf("%v posts, want 5", list["total"])
	}
}

// Hugo's ref shortcodes link to the path the site serves their target
// at (its permalinks, its url:), in the HTML and in the tree; when a
// push moves the target, the page that links to it, unchanged, links to
// the new path.
func TestSitePaths_RefLinks(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, fixtureFiles(t, "hugo-refs"))
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	links := func(q string) string {
		t.Helper()
		_, page := getJSON(t, ts, "/api/v1/pages/about"+q, key)
		j, _ := json.Marshal(page["sections"])
		return string(j)
	}
	for _, q := range []string{"", "?body=tree"} {
		got := links(q)
		for _, want := range []string{`/2019/01/01/report/`, `/archive/moved-post/#top`, `/posts/gone/`} {
			if !strings.Contains(got, want) {
				t.Errorf("%q: no link to %s in %s", q, want, got)
			}
		}
	}
	repo.commit("the report moves", map[string]string{
		"content/posts/2019-01-01-report.md": "---\ntitle: Report\nslug: report\ndate: 2019-03-04\n---\nThe first report.\n",
	})
	if err := ts.Engine.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "?body=tree"} {
		if got := links(q); !strings.Contains(got, `/2019/03/04/report/`) || strings.Contains(got, `/2019/01/01/report/`) {
			t.Errorf("%q after the move: %s", q, got)
		}
	}
}
