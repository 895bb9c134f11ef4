package server_test

import (
	"encoding/json"
	"github.com/chromedp/chromedp"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
	"go.yaml.in/yaml/v3"
)

// Decap CMS's i18n through the RPC: the generated config says the
// site's locales and layout, and Decap's paths of each locale's file are
// the site's own files.

const decapLocaleModel = "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n      rating: {kind: integer, min: 0}\n"

type decapEntry struct {
	Data *string `json:"data"`
	File struct {
		Path string `json:"path"`
	} `json:"file"`
}

func decapEntries(t *testing.T, r response) map[string]string {
	t.Helper()
	wantOK(t, r)
	var es []decapEntry
	if err := json.Unmarshal(r.Body, &es); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		if e.Data != nil {
			out[e.File.Path] = *e.Data
		}
	}
	return out
}

func TestDecapI18nFolderLayout(t *testing.T) {
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr, de]\ndefaultLocale: en\nlayout: folder\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nrating: 3\n---\nSalut.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)

	// The config: the i18n block, the collection and its fields marked.
	r := get(t, ts.URL+"/admin/content/config.yml", "")
	var cfg struct {
		I18n struct {
			Structure     string   `yaml:"structure"`
			Locales       []string `yaml:"locales"`
			DefaultLocale string   `yaml:"default_locale"`
		} `yaml:"i18n"`
		Collections []struct {
			Name   string
			I18n   bool `yaml:"i18n"`
			Fields []map[string]any
		}
	}
	if err := yaml.Unmarshal(r.Body, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.I18n.Structure != "multiple_folders" || !slices.Equal(cfg.I18n.Locales, []string{"en", "fr", "de"}) || cfg.I18n.DefaultLocale != "en" {
		t.Fatalf("i18n block:\n%s", r.Body)
	}
	marks := map[string]any{}
	for _, c := range cfg.Collections {
		if c.Name == "posts" {
			if !c.I18n {
				t.Fatalf("posts not i18n:\n%s", r.Body)
			}
			for _, f := range c.Fields {
				marks[f["name"].(string)] = f["i18n"]
			}
		}
	}
	if marks["title"] != true || marks["body"] != true || marks["rating"] != "duplicate" || marks["publishedAt"] != "duplicate" {
		t.Fatalf("field marks %v", marks)
	}

	// Decap lists the collection one level deeper, its paths per locale.
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 2}))
	if len(es) != 2 || !strings.Contains(es["content/posts/en/hello.md"], "Hello") || !strings.Contains(es["content/posts/fr/hello.md"], "Bonjour") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	r = rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/posts/fr/hello.md"})
	wantOK(t, r)
	if !strings.Contains(string(r.Body), "Bonjour") || !strings.Contains(string(r.Body), `"path":"content/posts/fr/hello.md"`) {
		t.Fatalf("getEntry: %s", r.Body)
	}

	// A new entry in en and fr; de holds only the fields Decap duplicates:
	// no de file.
	r = rpc(t, ts.URL, key, "persistEntry", map[string]any{
		"branch": "main",
		"dataFiles": []map[string]any{
			{"slug": "launch", "path": "content/posts/en/launch.md", "raw": "---\ntitle: Launch\nrating: 4\n---\nWe launched.\n"},
			{"slug": "launch", "path": "content/posts/fr/launch.md", "raw": "---\ntitle: Lancement\nrating: 4\n---\nLancé.\n"},
			{"slug": "launch", "path": "content/posts/de/launch.md", "raw": "---\nrating: 4\n---\n"},
		},
		"options": map[string]any{"commitMessage": "Create launch"},
	})
	wantOK(t, r)
	if remoteFile(t, repo.bare, "content/en/posts/launch.md") == "" || !strings.Contains(remoteFile(t, repo.bare, "content/fr/posts/launch.md"), "Lancement") {
		t.Fatal("the locales' files are not where the site keeps them")
	}
	if remoteFile(t, repo.bare, "content/de/posts/launch.md") != "" || remoteFile(t, repo.bare, "content/posts/fr/launch.md") != "" {
		t.Fatal("a file in Decap's layout, or an untranslated one, was written")
	}
	g := get(t, ts.URL+"/api/v1/content/posts/launch?locale=fr", reader)
	if g.Status != 200 || !strings.Contains(string(g.Body), `"title":"Lancement"`) || !strings.Contains(string(g.Body), `"en":{"slug":"launch"`) {
		t.Fatalf("served fr: %d %s", g.Status, g.Body)
	}
	// The model validates each locale's file: nothing written.
	head := git(t, repo.bare, "rev-parse", "main")
	r = rpc(t, ts.URL, key, "persistEntry", map[string]any{
		"branch":    "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/fr/hello.md", "raw": "---\ntitle: Bonjour\nrating: -1\n---\n"}},
		"options":   map[string]any{"commitMessage": "Update hello"},
	})
	if r.Status != http.StatusUnprocessableEntity || git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatalf("invalid fr: %d %s", r.Status, r.Body)
	}
	// Deleting by every locale's path removes the files there are.
	r = rpc(t, ts.URL, key, "deleteFiles", map[string]any{"branch": "main",
		"paths": []string{"content/posts/en/launch.md", "content/posts/fr/launch.md", "content/posts/de/launch.md"}})
	wantOK(t, r)
	if remoteFile(t, repo.bare, "content/en/posts/launch.md") != "" || remoteFile(t, repo.bare, "content/fr/posts/launch.md") != "" {
		t.Fatal("delete left a locale's file")
	}
}

func TestDecapI18nFileLayout(t *testing.T) {
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: file\n" + decapLocaleModel,
		"content/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentWrite)
	if !strings.Contains(string(get(t, ts.URL+"/admin/content/config.yml", "").Body), "structure: multiple_files") {
		t.Fatal("no multiple_files structure")
	}
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}))
	if len(es) != 1 || !strings.Contains(es["content/posts/hello.en.md"], "Hello") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	// Decap names the default locale's file hello.en.md: it is hello.md.
	r := rpc(t, ts.URL, key, "persistEntry", map[string]any{
		"branch": "main",
		"dataFiles": []map[string]any{
			{"slug": "hello", "path": "content/posts/hello.en.md", "raw": "---\ntitle: Hello!\n---\nHello.\n"},
			{"slug": "hello", "path": "content/posts/hello.fr.md", "raw": "---\ntitle: Bonjour\n---\nSalut.\n"},
		},
		"options": map[string]any{"commitMessage": "Update hello"},
	})
	wantOK(t, r)
	if remoteFile(t, repo.bare, "content/posts/hello.md") != "---\ntitle: Hello!\n---\nHello.\n" || remoteFile(t, repo.bare, "content/posts/hello.en.md") != "" ||
		remoteFile(t, repo.bare, "content/posts/hello.fr.md") == "" {
		t.Fatal("files not where the site keeps them")
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/hello?locale=fr", ts.reader(t)); !strings.Contains(string(g.Body), `"title":"Bonjour"`) {
		t.Fatalf("served fr: %s", g.Body)
	}
}

// TestDecapI18nBrowser drives Decap CMS in Chromium on a site with its
// locales in Hugo's folders: the entry opens with its French translation
// beside it (read from content/fr/posts/), and a save of both locales
// writes each to the site's own file.
func TestDecapI18nBrowser(t *testing.T) {
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\ndefaultLocale: en\nlayout: folder\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nrating: 3\n---\nSalut.\n",
	})
	w := startDecapWriter(t, "file://"+repo.bare, withDecapDir(dist))
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentWrite, server.ScopeMediaRead)

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	clickText(t, b, "Login")
	b.waitJS(t, "the collection", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.shot(t, "i18n-collection")
	b.run(t, "open the entry", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/entries/hello"))
	b.waitJS(t, "both locales", `[...document.querySelectorAll('input')].some(e => e.value === "Hello") && [...document.querySelectorAll('input')].some(e => e.value === "Bonjour")`)
	b.shot(t, "i18n-entry")
	// The French title, edited in its pane.
	evalAs[bool](t, b, `(() => {
		const el = [...document.querySelectorAll('input')].find(e => e.value === "Bonjour");
		const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
		set.call(el, "Bonjour tout le monde");
		el.dispatchEvent(new Event("input", {bubbles: true}));
		return true; })()`)
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	eventually(t, "the French file saved", func() bool {
		return strings.Contains(remoteFile(t, repo.bare, "content/fr/posts/hello.md"), "title: Bonjour tout le monde")
	})
	b.shot(t, "i18n-saved")
	b.check(t)
	if remoteFile(t, repo.bare, "content/posts/fr/hello.md") != "" || remoteFile(t, repo.bare, "content/posts/en/hello.md") != "" {
		t.Fatal("Decap's own paths were written")
	}
	if !strings.Contains(remoteFile(t, repo.bare, "content/en/posts/hello.md"), "title: Hello") {
		t.Fatal("the English file changed")
	}
	if g := get(t, w.URL+"/api/v1/content/posts/hello?locale=fr", key); !strings.Contains(string(g.Body), "Bonjour tout le monde") {
		t.Fatalf("served fr: %s", g.Body)
	}

	// A new entry written in English only: its English file, no French one.
	b.run(t, "open a new post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/new"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null`)
	b.run(t, "write the title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), "Spring news"))
	b.run(t, "write the body", chromedp.Click(chromedp.CSS(`[data-slate-editor]`)), chromedp.KeyEvent("News of the spring."))
	b.shot(t, "i18n-new")
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	eventually(t, "the English file saved", func() bool {
		return strings.Contains(remoteFile(t, repo.bare, "content/en/posts/spring-news.md"), "title: Spring news")
	})
	b.shot(t, "i18n-new-saved")
	b.check(t)
	if got := remoteFile(t, repo.bare, "content/fr/posts/spring-news.md"); got != "" {
		t.Fatalf("an untranslated French file was written: %q", got)
	}
}

// TestDecapI18nWorkflow: an entry of two locales under the editorial
// workflow: its branch holds the site's files, its diffs and data files
// are named by Decap's paths, and publishing brings both files to main.
func TestDecapI18nWorkflow(t *testing.T) {
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\nlayout: folder\ndecap: {publishMode: editorial_workflow}\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "grace", server.ScopeContentRead, server.ScopeContentWrite)
	wantOK(t, rpc(t, ts.URL, key, "persistEntry", map[string]any{
		"branch": "main",
		"dataFiles": []map[string]any{
			{"slug": "launch", "path": "content/posts/en/launch.md", "raw": "---\ntitle: Launch\n---\nWe launched.\n"},
			{"slug": "launch", "path": "content/posts/fr/launch.md", "raw": "---\ntitle: Lancement\n---\nLancé.\n"},
		},
		"options": map[string]any{"collectionName": "posts", "commitMessage": "Create launch", "useWorkflow": true, "status": "draft"},
	}))
	for _, p := range []string{"content/en/posts/launch.md", "content/fr/posts/launch.md"} {
		if _, err := gitOut(repo.bare, "show", "cms/posts/launch:"+p); err != nil {
			t.Fatalf("%s not on the entry's branch", p)
		}
	}
	r := rpc(t, ts.URL, key, "unpublishedEntry", map[string]any{"branch": "main", "id": "posts/launch"})
	wantOK(t, r)
	var paths []string
	for _, d := range r.json(t)["diffs"].([]any) {
		paths = append(paths, d.(map[string]any)["path"].(string))
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"content/posts/en/launch.md", "content/posts/fr/launch.md"}) {
		t.Fatalf("diffs: %s", r.Body)
	}
	r = rpc(t, ts.URL, key, "unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": "launch", "id": "x", "path": "content/posts/fr/launch.md"})
	wantOK(t, r)
	if !strings.Contains(r.json(t)["data"].(string), "Lancement") {
		t.Fatalf("data file: %s", r.Body)
	}
	wantOK(t, rpc(t, ts.URL, key, "publishUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "launch"}))
	if !strings.Contains(remoteFile(t, repo.bare, "content/fr/posts/launch.md"), "Lancement") || remoteFile(t, repo.bare, "content/en/posts/launch.md") == "" {
		t.Fatal("published files not on main")
	}
}
