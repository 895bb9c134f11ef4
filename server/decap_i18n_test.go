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
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr, de]\ndefaultLocale: en\nlayout: folder\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nrating: 3\n---\nSalut.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)

	// The config: the i18n block, the collection and its fields marked.
	r := get(t, ts.URL+"/admin/content/config.yml", ts.reader(t))
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
	r = rpcOpened(t, ts.URL, key, map[string]any{
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
	r = rpcOpened(t, ts.URL, key, map[string]any{
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
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: file\n" + decapLocaleModel,
		"content/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	if !strings.Contains(string(get(t, ts.URL+"/admin/content/config.yml", ts.reader(t)).Body), "structure: multiple_files") {
		t.Fatal("no multiple_files structure")
	}
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}))
	if len(es) != 1 || !strings.Contains(es["content/posts/hello.en.md"], "Hello") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	// Decap names the default locale's file hello.en.md: it is hello.md.
	r := rpcOpened(t, ts.URL, key, map[string]any{
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
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\ndefaultLocale: en\nlayout: folder\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nrating: 3\n---\nSalut.\n",
	})
	w := startDecapWriter(t, "file://"+repo.bare, withDecapDir(dist))
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)

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
	// the push lands before the box serves the new commit
	eventually(t, "the French title served", func() bool {
		return strings.Contains(string(get(t, w.URL+"/api/v1/content/posts/hello?locale=fr", key).Body), "Bonjour tout le monde")
	})

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
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\nlayout: folder\ndecap: {publishMode: editorial_workflow}\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "grace", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	wantOK(t, rpcOpened(t, ts.URL, key, map[string]any{
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

// TestDecapI18nSingleFile: Decap's single_file structure on a site with
// the fields layout, its files in Decap's form (en: {…}, fr: {…}, each
// locale's body in its map): getEntry reads the file, persistEntry writes
// it whole, each locale's reading validated by the model, each served
// with its own body.
func TestDecapI18nSingleFile(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: fields\n" + decapLocaleModel,
		"content/posts/hello.md": "---\nen:\n  title: Hello\n  rating: 3\n  body: Hello *there*.\nfr:\n  title: Bonjour\n  rating: 3\n  body: Bonjour à *tous*.\n---\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	if !strings.Contains(string(get(t, ts.URL+"/admin/content/config.yml", ts.reader(t)).Body), "structure: single_file") {
		t.Fatal("no single_file structure")
	}
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}))
	if len(es) != 1 || !strings.Contains(es["content/posts/hello.md"], "body: Bonjour à *tous*.") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/posts/hello.md"})
	if wantOK(t, r); !strings.Contains(string(r.Body), "Hello *there*.") || !strings.Contains(string(r.Body), "Bonjour à *tous*.") {
		t.Fatalf("getEntry: %s", r.Body)
	}
	served := func(slug, loc string) string {
		t.Helper()
		g := get(t, ts.URL+"/api/v1/content/posts/"+slug+"?locale="+loc, reader)
		if g.Status != 200 {
			t.Fatalf("GET %s in %s: %d %s", slug, loc, g.Status, g.Body)
		}
		return string(g.Body)
	}
	// Decap saves the whole file, each locale's body in its map.
	raw := "---\nen:\n  title: Hello!\n  rating: 3\n  body: Hello *again*.\nfr:\n  title: Bonjour !\n  rating: 3\n  body: Re*bonjour*.\n---\n"
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": raw}},
		"options":   map[string]any{"commitMessage": "Update hello"}})
	wantOK(t, r)
	if remoteFile(t, repo.bare, "content/posts/hello.md") != raw {
		t.Fatalf("file: %q", remoteFile(t, repo.bare, "content/posts/hello.md"))
	}
	if fr, en := served("hello", "fr"), served("hello", "en"); !strings.Contains(fr, "<em>bonjour</em>") || !strings.Contains(fr, `"title":"Bonjour !"`) || !strings.Contains(en, "<em>again</em>") || strings.Contains(en, "bonjour") {
		t.Fatalf("served:\nfr %s\nen %s", fr, en)
	}
	// A new entry in both locales.
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "launch", "path": "content/posts/launch.md", "raw": "---\nen:\n  title: Launch\n  body: We launched.\nfr:\n  title: Lancement\n  body: Lancé.\n---\n"}},
		"options":   map[string]any{"commitMessage": "Create launch"}})
	wantOK(t, r)
	if fr := served("launch", "fr"); !strings.Contains(fr, "Lancé.") || !strings.Contains(fr, `"title":"Lancement"`) {
		t.Fatalf("served new fr: %s", fr)
	}
	// The French reading is validated by the model: nothing written.
	head := git(t, repo.bare, "rev-parse", "main")
	bad := strings.Replace(raw, "fr:\n  title: Bonjour !\n  rating: 3", "fr:\n  title: Bonjour !\n  rating: -1", 1)
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": bad}},
		"options":   map[string]any{"commitMessage": "Update hello"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "(in fr)") || git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatalf("invalid fr: %d %s", r.Status, r.Body)
	}
}

// TestDecapI18nSingleFileOtherForms: with single_file, a file in another
// form than Decap's (per-key maps, values shared by every locale, the
// body after the front matter, a plain file) is given to Decap as its
// form, each locale's map as that locale reads it; Decap's save of that
// form keeps every locale's reading.
func TestDecapI18nSingleFileOtherForms(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"content/posts/keys.md":  "---\ntitle: {en: Hello, fr: Bonjour}\nrating: 3\n---\nHello *there*.\n",
		"content/posts/plain.md": "---\ntitle: Plain\nrating: 1\n---\nJust text.\n",
		"content/posts/decap.md": "---\nen:\n  title: Hi\n  body: Hi.\nfr:\n  title: Salut\n  body: Salut.\n---\n",
	}
	repo := newRepo(t, map[string]string{"folio.yaml": "locales: [en, fr]\nlayout: fields\n" + decapLocaleModel,
		"content/posts/keys.md": files["content/posts/keys.md"], "content/posts/plain.md": files["content/posts/plain.md"], "content/posts/decap.md": files["content/posts/decap.md"]})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	served := func(slug, loc string) string {
		t.Helper()
		g := get(t, ts.URL+"/api/v1/content/posts/"+slug+"?locale="+loc, reader)
		if g.Status != 200 {
			t.Fatalf("GET %s in %s: %d %s", slug, loc, g.Status, g.Body)
		}
		var m map[string]any
		if err := json.Unmarshal(g.Body, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"updatedAt", "publishedAt", "id", "translations"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}))
	if es["content/posts/decap.md"] != files["content/posts/decap.md"] {
		t.Fatalf("a file in Decap's form changed: %q", es["content/posts/decap.md"])
	}
	for _, slug := range []string{"keys", "plain"} {
		p := "content/posts/" + slug + ".md"
		r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": p})
		wantOK(t, r)
		var e decapEntry
		if err := json.Unmarshal(r.Body, &e); err != nil || e.Data == nil || *e.Data != es[p] {
			t.Fatalf("getEntry %s: %s (listed %q)", p, r.Body, es[p])
		}
		raw := *e.Data
		var form map[string]map[string]any
		if err := yaml.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(raw, "---\n"), "---\n")), &form); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, raw)
		}
		if form["en"]["title"] == nil || form["en"]["body"] == nil || form["fr"]["rating"] == nil || len(form) != 2 {
			t.Fatalf("%s as Decap's form: %v", p, form)
		}
		before := map[string]string{"en": served(slug, "en"), "fr": served(slug, "fr")}
		// Decap saves the form it was given.
		r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
			"dataFiles": []map[string]any{{"slug": slug, "path": p, "raw": raw}},
			"options":   map[string]any{"commitMessage": "Update " + slug}})
		wantOK(t, r)
		if remoteFile(t, repo.bare, p) != raw {
			t.Fatalf("%s saved: %q", p, remoteFile(t, repo.bare, p))
		}
		for loc, want := range before {
			if got := served(slug, loc); got != want {
				t.Fatalf("%s in %s after Decap's save:\n%s\nwant\n%s", slug, loc, got, want)
			}
		}
	}
	if !strings.Contains(served("keys", "fr"), `"title":"Bonjour"`) {
		t.Fatal("keys fr")
	}
}

// TestDecapI18nSingleFileBrowser drives Decap CMS in Chromium on a site
// with the fields layout: a file in the per-key form opens with both
// locales' values and bodies, and a save of the French title writes the
// file in Decap's form, each locale reading as before but for that title.
func TestDecapI18nSingleFileBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\ndefaultLocale: en\nlayout: fields\n" + decapLocaleModel,
		"content/posts/hello.md": "---\ntitle: {en: Hello, fr: Bonjour}\nrating: 3\nbody: {fr: Salut à tous.}\n---\nHello there.\n",
	})
	w := startDecapWriter(t, "file://"+repo.bare, withDecapDir(dist))
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	clickText(t, b, "Login")
	b.waitJS(t, "the collection", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.run(t, "open the entry", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/entries/hello"))
	b.waitJS(t, "both locales", `[...document.querySelectorAll('input')].some(e => e.value === "Hello") && [...document.querySelectorAll('input')].some(e => e.value === "Bonjour") && document.body.textContent.includes("Hello there.") && document.body.textContent.includes("Salut à tous.")`)
	b.shot(t, "i18n-single-entry")
	evalAs[bool](t, b, `(() => {
		const el = [...document.querySelectorAll('input')].find(e => e.value === "Bonjour");
		const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
		set.call(el, "Bonjour tout le monde");
		el.dispatchEvent(new Event("input", {bubbles: true}));
		return true; })()`)
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	eventually(t, "the file saved", func() bool {
		return strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "title: Bonjour tout le monde")
	})
	b.shot(t, "i18n-single-saved")
	b.check(t)
	// the push lands before the box serves the new commit
	eventually(t, "the French title served", func() bool {
		return strings.Contains(string(get(t, w.URL+"/api/v1/content/posts/hello?locale=fr", key).Body), "Bonjour tout le monde")
	})
	fr := string(get(t, w.URL+"/api/v1/content/posts/hello?locale=fr", key).Body)
	en := string(get(t, w.URL+"/api/v1/content/posts/hello?locale=en", key).Body)
	if !strings.Contains(fr, `"title":"Bonjour tout le monde"`) || !strings.Contains(fr, "Salut à tous.") || !strings.Contains(fr, `"rating":3`) ||
		!strings.Contains(en, `"title":"Hello"`) || !strings.Contains(en, "Hello there.") || !strings.Contains(en, `"rating":3`) {
		t.Fatalf("served:\nfr %s\nen %s\nfile %q", fr, en, remoteFile(t, repo.bare, "content/posts/hello.md"))
	}
}

// TestDecapI18nSingleFileUnique: a save from Decap's single_file is
// refused when a locale's reading other than the default's takes a
// unique value another document of that locale has.
func TestDecapI18nSingleFileUnique(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "locales: [en, fr]\nlayout: fields\ntypes:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n",
		"content/products/a.md": "---\nen:\n  title: A\n  sku: A-1\nfr:\n  title: A fr\n  sku: A-FR\n---\n",
		"content/products/b.md": "---\nen:\n  title: B\n  sku: B-1\nfr:\n  title: B fr\n  sku: B-FR\n---\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	r := rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "b", "path": "content/products/b.md", "raw": "---\nen:\n  title: B\n  sku: B-1\nfr:\n  title: B fr\n  sku: A-FR\n---\n"}},
		"options":   map[string]any{"commitMessage": "Update b"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "(in fr)") || git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatalf("a French sku taken: %d %s", r.Status, r.Body)
	}
	// Translations share their document's value; another value is free.
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "b", "path": "content/products/b.md", "raw": "---\nen:\n  title: B\n  sku: B-1\nfr:\n  title: B fr\n  sku: B-1\n---\n"}},
		"options":   map[string]any{"commitMessage": "Update b"}})
	wantOK(t, r)
}

// TestDecapI18nSingleFileNoModel: without a content model, a locale's
// reading that breaks the content rules (a slug that is none) is refused
// all the same.
func TestDecapI18nSingleFileNoModel(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":         "locales: [en, fr]\nlayout: fields\n",
		"content/posts/a.md": "---\nen:\n  title: A\nfr:\n  title: A fr\n---\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	r := rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "a", "path": "content/posts/a.md", "raw": "---\nen:\n  title: A\nfr:\n  title: A fr\n  slug: Pas un slug !\n---\n"}},
		"options":   map[string]any{"commitMessage": "Update a"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "(in fr)") || git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatalf("a bad French slug: %d %s", r.Status, r.Body)
	}
}

// TestDecapFolderWithBigFile: a file over the content-file limit in a
// collection's folder is left out of the folder's entries (folio never
// reads it; check reports it), not a 413 for the whole collection; the
// file itself is a 413.
func TestDecapFolderWithBigFile(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"content/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
		"content/posts/big.md":   "---\ntitle: Big\n---\n" + strings.Repeat("x", 5<<20),
	})
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}))
	if len(es) != 1 || !strings.Contains(es["content/posts/hello.md"], "Hello") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	if r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/posts/big.md"}); r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("getEntry of the big file: %d %s", r.Status, r.Body)
	}
}
