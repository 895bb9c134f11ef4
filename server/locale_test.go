package server_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/server"
	"github.com/folio-cms/folio/server/notify"
)

// localeSite is laid out folder per locale, with translated slugs, a
// fallback chain and per-locale globals.
var localeSite = map[string]string{
	"folio.yaml": "locales: [en, fr, fr-CA, de]\ndefaultLocale: en\nlayout: folder\nfallback: [fr-CA, fr, en]\n" +
		"types:\n  posts: {public: true}\n",
	"globals.yaml":              "siteName: Acme\nfooter: {copyrightText: (c) Acme}\n",
	"globals.fr.yaml":           "siteName: Acmé\n",
	"content/en/posts/hello.md": "---\ntitle: Hello\ndate: 2026-01-01\nauthor: authors/ann\n---\nHello there.\n",
	"content/fr/posts/hello.md": "---\ntitle: Bonjour\nslug: bonjour\ndate: 2026-01-01\nauthor: authors/ann\n---\nBonjour à tous.\n",
	"content/en/posts/only.md":  "---\ntitle: Only in English\ndate: 2026-01-02\n---\nx\n",
	"content/en/authors/ann.md": "---\ntitle: Ann\nrole: writer\n---\n",
	"content/fr/authors/ann.md": "---\ntitle: Anne\nrole: écrivaine\n---\n",
	"content/en/about.md":       "---\ntitle: About\n---\nAbout us.\n",
}

func getJSON(t *testing.T, ts *testServer, path, key string) (response, map[string]any) {
	t.Helper()
	r := get(t, ts.URL+path, key)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	return r, r.json(t)
}

func TestLocales_API(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, localeSite)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	// default locale, translations
	r, m := getJSON(t, ts, "/api/v1/content/posts/hello", key)
	tr, _ := m["translations"].(map[string]any)
	if m["locale"] != "en" || tr["fr"] == nil || r.Header.Get("Content-Language") != "en" {
		t.Fatalf("hello: %s (Content-Language %q)", r.Body, r.Header.Get("Content-Language"))
	}
	if fr := tr["fr"].(map[string]any); fr["slug"] != "bonjour" || fr["url"] != "/api/v1/content/posts/bonjour?locale=fr" {
		t.Errorf("translations.fr = %v", fr)
	}
	enTag := r.Header.Get("ETag")

	// French, translated slug; the English slug finds the translation too
	r, m = getJSON(t, ts, "/api/v1/content/posts/bonjour?locale=fr", key)
	if m["title"] != "Bonjour" || m["locale"] != "fr" || m["fallback"] != nil || r.Header.Get("ETag") == enTag {
		t.Errorf("bonjour: %s", r.Body)
	}
	if !strings.Contains(r.Header.Get("Surrogate-Key"), "@fr") {
		t.Errorf("Surrogate-Key %q names no locale", r.Header.Get("Surrogate-Key"))
	}
	if _, m = getJSON(t, ts, "/api/v1/content/posts/hello?locale=fr", key); m["title"] != "Bonjour" {
		t.Errorf("hello in fr: %v", m["title"])
	}

	// fallback: fr-CA → fr → en
	r, m = getJSON(t, ts, "/api/v1/content/posts/only?locale=fr-CA", key)
	if m["locale"] != "en" || m["fallback"] != true || r.Header.Get("Content-Language") != "en" {
		t.Errorf("only in fr-CA: %s (%s)", r.Body, r.Header.Get("Content-Language"))
	}
	if _, m = getJSON(t, ts, "/api/v1/content/posts/hello?locale=fr-CA", key); m["locale"] != "fr" || m["fallback"] != true {
		t.Errorf("hello in fr-CA: %v %v", m["locale"], m["fallback"])
	}
	if r := get(t, ts.URL+"/api/v1/content/posts/only?locale=fr&fallback=false", key); r.Status != 404 {
		t.Errorf("fallback=false: %d %s", r.Status, r.Body)
	}

	// lists: with fallbacks unless fallback=false; total exact
	_, m = getJSON(t, ts, "/api/v1/content/posts?locale=fr", key)
	if m["total"].(float64) != 2 {
		t.Errorf("fr posts: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/posts?locale=fr&fallback=false", key)
	if m["total"].(float64) != 1 {
		t.Errorf("fr posts without fallback: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/public/collections/posts?locale=de", key)
	if m["total"].(float64) != 2 {
		t.Errorf("de public posts: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/pages?locale=fr", key)
	if m["total"].(float64) != 1 {
		t.Errorf("fr pages: %v", m)
	}

	// globals, key by key
	_, m = getJSON(t, ts, "/api/v1/globals?locale=fr", key)
	if m["siteName"] != "Acmé" || m["footer"].(map[string]any)["copyrightText"] != "(c) Acme" {
		t.Errorf("fr globals: %v", m)
	}

	// references in the same locale
	_, m = getJSON(t, ts, "/api/v1/content/posts/bonjour?locale=fr&expand=authors", key)
	if a, _ := m["data"].(map[string]any)["author"].(map[string]any); a == nil || a["title"] != "Anne" {
		t.Errorf("fr author: %v", m["data"])
	}

	// bad locale
	bad := get(t, ts.URL+"/api/v1/content/posts?locale=xx", key)
	wantError(t, bad, 400, "BAD_REQUEST")
	if !strings.Contains(string(bad.Body), "en, fr, fr-CA, de") {
		t.Errorf("400 does not list the locales: %s", bad.Body)
	}

	// /locales
	_, m = getJSON(t, ts, "/api/v1/locales", key)
	items := m["items"].([]any)
	if len(items) != 4 {
		t.Fatalf("locales: %v", m)
	}
	frCA := items[2].(map[string]any)
	if frCA["code"] != "fr-CA" || strings.Join(toStrings(frCA["fallback"]), ",") != "fr,en" || items[0].(map[string]any)["default"] != true {
		t.Errorf("locales: %v", items)
	}
	if items[1].(map[string]any)["documents"].(float64) != 2 {
		t.Errorf("fr documents: %v", items[1])
	}

	// a push adding the French "only" links it and serves it
	repo.commit("fr only", map[string]string{"content/fr/posts/only.md": "---\ntitle: Seulement\ndate: 2026-01-02\n---\nx\n"})
	eventually(t, "the French only", func() bool {
		r := get(t, ts.URL+"/api/v1/content/posts/only?locale=fr", key)
		return r.Status == 200 && strings.Contains(string(r.Body), "Seulement")
	})
	_, m = getJSON(t, ts, "/api/v1/content/posts/only", key)
	if tr, _ := m["translations"].(map[string]any); tr["fr"] == nil {
		t.Errorf("en only after the push: %v", m["translations"])
	}
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestLocales_Layouts: the file and fields layouts over real pushes.
func TestLocales_Layouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		push  map[string]string
	}{
		{"file", map[string]string{
			"folio.yaml":                    "locales: [en, fr]\nlayout: file\n",
			"content/posts/hello.md":        "---\ntitle: Hello\n---\n",
			"content/posts/hello.fr.md":     "---\ntitle: Bonjour\nslug: bonjour\n---\n",
			"content/posts/bundle/index.md": "---\ntitle: Bundle\n---\n",
		}, map[string]string{"content/posts/bundle/index.fr.md": "---\ntitle: Paquet\n---\n"}},
		{"fields", map[string]string{
			"folio.yaml":              "locales: [en, fr]\nlayout: fields\n",
			"content/posts/hello.md":  "---\ntitle: {en: Hello, fr: Bonjour}\nslug: {en: hello, fr: bonjour}\n---\n",
			"content/posts/bundle.md": "---\ntitle: {en: Bundle}\n---\n",
		}, map[string]string{"content/posts/bundle.md": "---\ntitle: {en: Bundle, fr: Paquet}\n---\n"}},
		{"decap-multiple-folders", map[string]string{
			"admin/config.yml":            "backend: {name: git-gateway}\ni18n: {structure: multiple_folders, locales: [en, fr], default_locale: en}\ncollections: []\n",
			"content/posts/en/hello.md":   "---\ntitle: Hello\n---\n",
			"content/posts/fr/bonjour.md": "---\ntitle: Bonjour\ntranslationKey: hello\n---\n",
			"content/posts/en/bundle.md":  "---\ntitle: Bundle\n---\n",
		}, map[string]string{"content/posts/fr/bundle.md": "---\ntitle: Paquet\n---\n",
			"content/posts/en/hello.md": "---\ntitle: Hello\ntranslationKey: hello\n---\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, tc.files)
			ts := startServer(t, repo.bare)
			key := ts.reader(t)
			_, m := getJSON(t, ts, "/api/v1/content/posts/bonjour?locale=fr", key)
			if m["title"] != "Bonjour" || m["locale"] != "fr" {
				t.Errorf("bonjour: %v", m)
			}
			_, m = getJSON(t, ts, "/api/v1/content/posts/bundle?locale=fr", key)
			if m["fallback"] != true || m["title"] != "Bundle" {
				t.Errorf("bundle before the push: %v", m)
			}
			repo.commit("translate bundle", tc.push)
			eventually(t, "Paquet", func() bool {
				_, m := getJSON(t, ts, "/api/v1/content/posts/bundle?locale=fr", key)
				return m["title"] == "Paquet" && m["fallback"] == nil
			})
			_, m = getJSON(t, ts, "/api/v1/content/posts/hello", key)
			if tr, _ := m["translations"].(map[string]any); tr["fr"] == nil || tr["fr"].(map[string]any)["slug"] != "bonjour" {
				t.Errorf("hello translations: %v", m["translations"])
			}
		})
	}
}

// hugoSite is laid out as Hugo's multilingual documentation describes:
// a content folder per language (contentDir), config/_default with one
// file per language, no folio.yaml.
var hugoSite = map[string]string{
	"hugo.toml": "baseURL = 'https://example.org/'\ntitle = 'Docs'\ndefaultContentLanguage = 'de'\n" +
		"defaultContentLanguageInSubdir = true\n",
	"config/_default/languages.de.toml": "contentDir = 'content/de'\nlanguageName = 'Deutsch'\nweight = 1\n[params]\nsubtitle = 'Referenz'\n",
	"config/_default/languages.en.toml": "contentDir = 'content/en'\nlanguageName = 'English'\nweight = 2\n",
	"config/_default/languages.fr.toml": "contentDir = 'content/fr'\nlanguageName = 'Français'\nweight = 3\ndisabled = true\n",
	"content/de/_index.md":              "---\ntitle: Start\n---\n",
	"content/de/impressum.md":           "---\ntitle: Impressum\n---\nAngaben.\n",
	"content/de/docs/_index.md":         "---\ntitle: Doku\n---\n",
	"content/de/docs/katzen.md":         "---\ntitle: Über Katzen\ntranslationKey: cats\ndate: 2026-01-01\n---\nDie Katzen schlafen im Garten.\n",
	"content/en/docs/cats.md":           "---\ntitle: About cats\ntranslationKey: cats\ndate: 2026-01-01\n---\nThe cats are sleeping in the garden.\n",
	"content/en/docs/install/index.md":  "---\ntitle: Install\ndate: 2026-01-01\n---\nRun the installer.\n",
	"content/fr/docs/chats.md":          "---\ntitle: Chats\n---\n",
}

func TestLocales_HugoSite(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, hugoSite)
	ts := startServer(t, repo.bare, withSearch)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/locales", key)
	items := m["items"].([]any)
	if m["default"] != "de" || len(items) != 2 || items[0].(map[string]any)["name"] != "Deutsch" {
		t.Fatalf("locales: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/docs/katzen", key)
	if m["locale"] != "de" || m["translations"].(map[string]any)["en"].(map[string]any)["slug"] != "cats" {
		t.Errorf("katzen: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/pages/impressum", key)
	if m["title"] != "Impressum" {
		t.Errorf("impressum: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/docs?locale=en&fallback=false", key)
	if m["total"].(float64) != 2 {
		t.Errorf("en docs: %v", m)
	}
	if r := get(t, ts.URL+"/api/v1/content/docs?locale=fr", key); r.Status != 400 {
		t.Errorf("disabled fr: %d", r.Status)
	}

	// search per locale, each with its language's stemming
	wantSearch(t, ts, "/api/v1/search?q=Katze&locale=de", key, "item:docs/katzen")
	wantSearch(t, ts, "/api/v1/search?q=sleep&locale=en", key, "item:docs/cats")
	wantSearch(t, ts, "/api/v1/search?q=sleep&locale=de", key)
	wantSearch(t, ts, "/api/v1/search?q=Garten", key, "item:docs/katzen")

	// a push touching one locale's file
	repo.commit("en cats", map[string]string{"content/en/docs/cats.md": "---\ntitle: About cats\ntranslationKey: cats\ndate: 2026-01-01\n---\nThe cats are running in the garden.\n"})
	eventually(t, "the new English text", func() bool {
		b := searchFor(t, ts, "/api/v1/search?q=run&locale=en", key)
		return len(b.hits()) == 2
	})
	wantSearch(t, ts, "/api/v1/search?q=Katze&locale=de", key, "item:docs/katzen")
}

// TestLocales_Notify: a push touching a French file names the French
// keys (and lists of every locale, which show it as a fallback or not),
// and the event says the locales.
func TestLocales_Notify(t *testing.T) {
	t.Parallel()
	const secret = "s"
	rc := newHookReceiver(t, secret)
	repo := newRepo(t, localeSite)
	ts := startServer(t, repo.bare, withNotify(t, secret, rc.URL))
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/posts/bonjour?locale=fr", key)
	id := m["id"].(string)
	repo.commit("fr edit", map[string]string{"content/fr/posts/hello.md": "---\ntitle: Bonjour 2\nslug: bonjour\ndate: 2026-01-01\n---\nx\n"})
	ev := rc.next(t)
	want := "item:posts/" + id + "@fr"
	if !slices.Contains(ev.Keys, want) || !slices.Contains(ev.Keys, "type:posts@fr") || !slices.Contains(ev.Locales, "fr") {
		t.Errorf("event %+v: want %s, type:posts@fr and locale fr", ev, want)
	}
	for _, k := range ev.Keys {
		if strings.HasPrefix(k, "item:") && !strings.HasSuffix(k, "@fr") {
			t.Errorf("an item of another locale is named: %s", k)
		}
	}
}

// TestLocales_Fields: fields= keeps the locale fields, and a type with
// listBody: false keeps them in its lists.
func TestLocales_Fields(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for k, v := range localeSite {
		files[k] = v
	}
	files["folio.yaml"] = strings.Replace(files["folio.yaml"], "posts: {public: true}", "posts: {public: true, listBody: false}", 1)
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/posts?locale=fr", key)
	for _, it := range m["items"].([]any) {
		it := it.(map[string]any)
		if it["locale"] == nil || it["translations"] == nil {
			t.Errorf("list item without its locale fields: %v", it)
		}
	}
	_, m = getJSON(t, ts, "/api/v1/content/posts/only?locale=fr&fields=slug,locale,fallback,translations", key)
	if len(m) != 4 || m["fallback"] != true {
		t.Errorf("fields: %v", m)
	}
}

// TestLocales_Draft: the draft view of a locale shows its drafts with
// their status; the published one does not; ?ref= serves locales too.
func TestLocales_Draft(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for k, v := range localeSite {
		files[k] = v
	}
	files["content/fr/posts/brouillon.md"] = "---\ntitle: Brouillon\ndraft: true\n---\n"
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	dk := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	if r := get(t, ts.URL+"/api/v1/content/posts/brouillon?locale=fr", key); r.Status != 404 {
		t.Errorf("published: %d", r.Status)
	}
	_, m := getJSON(t, ts, "/api/v1/content/posts/brouillon?locale=fr&draft=true", dk)
	if m["status"] != "draft" || m["locale"] != "fr" {
		t.Errorf("draft: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/posts?locale=fr&draft=true", dk)
	if m["total"].(float64) != 3 {
		t.Errorf("draft fr list: %v", m["total"])
	}
	pk := ts.key(t, "previewer", server.ScopeContentRead, server.ScopeContentPreview)
	_, m = getJSON(t, ts, "/api/v1/content/posts/bonjour?locale=fr&ref=main", pk)
	if m["title"] != "Bonjour" {
		t.Errorf("ref=main in fr: %v", m)
	}
}

// TestLocales_ScheduledInLocale: a French post scheduled for later is
// published at its instant, with a schedule event naming French keys.
func TestLocales_ScheduledInLocale(t *testing.T) {
	t.Parallel()
	const secret = "s"
	rc := newHookReceiver(t, secret)
	// On a clock the test moves: the instant comes after the first
	// request however slow the start.
	at := time.Now().UTC().Truncate(time.Second).Add(time.Hour)
	clk := newClock(at.Add(-time.Minute))
	files := map[string]string{}
	for k, v := range localeSite {
		files[k] = v
	}
	files["content/fr/posts/bientot.md"] = "---\ntitle: Bientôt\npublishedAt: " + at.Format(time.RFC3339) + "\n---\n"
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare, withNotify(t, secret, rc.URL), withClock(clk))
	key := ts.reader(t)
	if r := get(t, ts.URL+"/api/v1/content/posts/bientot?locale=fr", key); r.Status != 404 {
		t.Fatalf("before: %d", r.Status)
	}
	eventually(t, "the scheduler to wait for the instant", func() bool { return slices.Contains(clk.timersAt(), at) })
	clk.Set(at)
	var ev notify.Event
	for {
		ev = rc.next(t)
		if ev.Event == notify.Schedule {
			break
		}
	}
	_, m := getJSON(t, ts, "/api/v1/content/posts/bientot?locale=fr", key)
	want := "item:posts/" + m["id"].(string) + "@fr"
	if !slices.Contains(ev.Keys, want) || !slices.Contains(ev.Keys, "type:posts@fr") || !slices.Contains(ev.Locales, "fr") {
		t.Errorf("schedule event %+v: want %s", ev, want)
	}
}

// TestLocales_Model: the content model checks every locale's files of a
// type (folder layout); a unique value is unique within a locale (a
// translation may share its sku).
func TestLocales_Model(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                   "locales: [en, fr]\ntypes:\n  products:\n    fields:\n      sku: {kind: string, unique: true}\n      price: {kind: number, required: true}\n",
		"content/en/products/tent.md":  "---\ntitle: Tent\nsku: TEN-0001\nprice: 10\n---\n",
		"content/fr/products/tente.md": "---\ntitle: Tente\nsku: TEN-0001\nprice: 10\ntranslationKey: tent\n---\n",
		"content/fr/products/sac.md":   "---\ntitle: Sac\nsku: SAC-0001\n---\n",
	})
	ts := startServer(t, repo.bare)
	st := get(t, ts.URL+"/api/v1/status", ts.reader(t))
	body := string(st.Body)
	if !strings.Contains(body, "content/fr/products/sac.md") || !strings.Contains(body, "price") {
		t.Errorf("no problem for the French product without a price: %s", body)
	}
	if strings.Contains(body, "unique") {
		t.Errorf("a translation's sku is reported as not unique: %s", body)
	}
	// a declared field sorts in every locale
	for _, loc := range []string{"en", "fr"} {
		if r := get(t, ts.URL+"/api/v1/content/products?sort=-price&locale="+loc, ts.reader(t)); r.Status != 200 {
			t.Errorf("sort=-price in %s: %d %s", loc, r.Status, r.Body)
		}
	}
}

// TestLocales_Filter: filter[...] on a locale's list counts the
// fallbacks too.
func TestLocales_Filter(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, localeSite)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/posts?locale=fr&filter[title][eq]=Bonjour", key)
	if m["total"].(float64) != 1 {
		t.Errorf("fr filter: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/posts?locale=fr&filter[title][eq]=Only%20in%20English", key)
	if m["total"].(float64) != 1 || m["items"].([]any)[0].(map[string]any)["fallback"] != true {
		t.Errorf("fr filter on a fallback: %v", m)
	}
}

// TestLocales_ModelReject: onInvalid: reject holds back a bad French
// edit (its last valid French version served), the status names it with
// its locale, and a default fills in a French document.
func TestLocales_ModelReject(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml": "locales: [en, fr]\ntypes:\n  products:\n    onInvalid: reject\n    fields:\n" +
			"      price: {kind: number, required: true}\n      stock: {kind: integer, default: 0}\n",
		"content/en/products/tent.md": "---\ntitle: Tent\nprice: 10\n---\n",
		"content/fr/products/tent.md": "---\ntitle: Tente\nslug: tente\nprice: 10\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/products/tente?locale=fr", key)
	if m["data"].(map[string]any)["stock"] != float64(0) {
		t.Fatalf("tente: %v, want the default stock 0", m)
	}
	repo.commit("bad fr edit", map[string]string{"content/fr/products/tent.md": "---\ntitle: Tente 2\nslug: tente\nprice: dix\n---\n"})
	eventually(t, "the French tent held back", func() bool {
		return strings.Contains(string(get(t, ts.URL+"/api/v1/status", key).Body), `"held"`)
	})
	_, st := getJSON(t, ts, "/api/v1/status", key)
	held := st["held"].([]any)
	if h := held[0].(map[string]any); len(held) != 1 || h["path"] != "content/fr/products/tent.md" || h["locale"] != "fr" || h["served"] != true {
		t.Errorf("held: %v", held)
	}
	_, m = getJSON(t, ts, "/api/v1/content/products/tente?locale=fr", key)
	if m["title"] != "Tente" || m["locale"] != "fr" {
		t.Errorf("tente after a bad edit: %v", m)
	}
}

// TestLocales_ContentDirOutside: a Hugo site whose languages read their
// content from folders outside content/ (content_fr, i18n/de/content) is
// served from there, over pushes that edit those files and that add a
// language with a new folder; a contentDir outside the repository is a
// problem with its line, never read.
func TestLocales_ContentDirOutside(t *testing.T) {
	t.Parallel()
	hugo := "defaultContentLanguage = 'en'\n" +
		"[languages.en]\ncontentDir = 'content'\nweight = 1\n" +
		"[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n"
	repo := newRepo(t, map[string]string{
		"hugo.toml":               hugo,
		"content/docs/cats.md":    "---\ntitle: Cats\n---\nThe cats.\n",
		"content/about.md":        "---\ntitle: About\ntranslationKey: about\n---\n",
		"content_fr/docs/cats.md": "---\ntitle: Chats\nslug: chats\n---\nLes chats.\n",
		"content_fr/a-propos.md":  "---\ntitle: À propos\ntranslationKey: about\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/docs/chats?locale=fr", key)
	if m["title"] != "Chats" || m["locale"] != "fr" {
		t.Fatalf("chats: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/pages/about", key)
	if tr, _ := m["translations"].(map[string]any); tr["fr"] == nil {
		t.Errorf("about: %v", m)
	}

	// a push editing a file of content_fr
	repo.commit("fr edit", map[string]string{"content_fr/docs/cats.md": "---\ntitle: Les chats\nslug: chats\n---\nx\n"})
	eventually(t, "the French edit", func() bool {
		_, m := getJSON(t, ts, "/api/v1/content/docs/chats?locale=fr", key)
		return m["title"] == "Les chats"
	})

	// a push adding a language with its own folder, and one reading
	// outside the repository
	repo.commit("de", map[string]string{
		"hugo.toml": hugo + "[languages.de]\ncontentDir = 'i18n/de/content'\nweight = 3\n" +
			"[languages.it]\ncontentDir = '../it'\nweight = 4\n",
		"i18n/de/content/docs/cats.md": "---\ntitle: Katzen\nslug: katzen\n---\n",
	})
	eventually(t, "the German docs", func() bool {
		r := get(t, ts.URL+"/api/v1/content/docs/katzen?locale=de", key)
		return r.Status == 200 && r.json(t)["title"] == "Katzen"
	})
	_, st := getJSON(t, ts, "/api/v1/status", key)
	found := false
	for _, p := range st["problems"].([]any) {
		p := p.(map[string]any)
		if p["path"] == "hugo.toml" && p["line"] == float64(12) && strings.Contains(p["message"].(string), "outside the repository") {
			found = true
		}
	}
	if !found {
		t.Errorf("no problem at hugo.toml:12 for ../it: %v", st["problems"])
	}
	// an edit of the new folder's file is served too
	repo.commit("de edit", map[string]string{"i18n/de/content/docs/cats.md": "---\ntitle: Die Katzen\nslug: katzen\n---\n"})
	eventually(t, "the German edit", func() bool {
		_, m := getJSON(t, ts, "/api/v1/content/docs/katzen?locale=de", key)
		return m["title"] == "Die Katzen"
	})
}

// TestLocales_FieldsModel: with the fields layout each locale's reading
// of a file is checked against the model, a French problem at its line
// and saying its locale; onInvalid: reject holds back the French reading
// only; defaults fill in every locale.
func TestLocales_FieldsModel(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml": "locales: [en, fr]\nlayout: fields\ntypes:\n  products:\n    onInvalid: reject\n    fields:\n" +
			"      price: {kind: number, required: true}\n      stock: {kind: integer, default: 0}\n",
		"content/products/tent.md": "---\ntitle: {en: Tent, fr: Tente}\nslug: {en: tent, fr: tente}\nprice: {en: 10, fr: 11}\n---\n",
		"content/products/bag.md":  "---\nen:\n  title: Bag\n  price: 5\n  body: A *bag*.\nfr:\n  title: Sac\n  slug: sac\n  body: Un *sac*.\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/products/tente?locale=fr", key)
	if d := m["data"].(map[string]any); d["price"] != float64(11) || d["stock"] != float64(0) {
		t.Fatalf("tente: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/products/sac?locale=fr", key)
	if d := m["data"].(map[string]any); d["body"] != "<p>Un <em>sac</em>.</p>\n" || d["price"] != float64(5) {
		t.Fatalf("sac: %v", m)
	}
	if _, st := getJSON(t, ts, "/api/v1/status", key); len(st["problems"].([]any)) != 0 {
		t.Fatalf("problems: %v", st["problems"])
	}

	repo.commit("bad fr price", map[string]string{
		"content/products/tent.md": "---\ntitle: {en: Tent 2, fr: Tente 2}\nslug: {en: tent, fr: tente}\nprice: {en: 12, fr: douze}\n---\n",
		"content/products/bag.md":  "---\nen:\n  title: Bag\n  price: 5\nfr:\n  title: Sac\n  slug: sac\n  price: cinq\n---\n",
	})
	eventually(t, "the French tent held back", func() bool {
		return strings.Contains(string(get(t, ts.URL+"/api/v1/status", key).Body), `"held"`)
	})
	_, st := getJSON(t, ts, "/api/v1/status", key)
	var got []string
	for _, p := range st["problems"].([]any) {
		p := p.(map[string]any)
		got = append(got, p["path"].(string)+":"+strconv.Itoa(int(p["line"].(float64)))+": "+p["message"].(string))
	}
	want := []string{
		"content/products/bag.md:8: price: got string, want number (in fr)",
		"content/products/tent.md:4: price: got string, want number (in fr)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if held := st["held"].([]any); len(held) != 2 || held[0].(map[string]any)["locale"] != "fr" {
		t.Errorf("held: %v", held)
	}
	_, m = getJSON(t, ts, "/api/v1/content/products/tente?locale=fr", key)
	if m["title"] != "Tente" || m["data"].(map[string]any)["price"] != float64(11) {
		t.Errorf("tente after a bad edit: %v", m)
	}
	_, m = getJSON(t, ts, "/api/v1/content/products/tent", key)
	if m["title"] != "Tent 2" {
		t.Errorf("tent: %v", m)
	}
}

// TestLocales_Changes: /changes names a French file's document with its
// locale's keys, a file of a contentDir outside content/ included.
func TestLocales_Changes(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":               "[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n",
		"content/docs/cats.md":    "---\ntitle: Cats\n---\n",
		"content_fr/docs/cats.md": "---\ntitle: Chats\nslug: chats\n---\n",
	})
	first := git(t, repo.work, "rev-parse", "HEAD")
	repo.commit("fr edit", map[string]string{"content_fr/docs/cats.md": "---\ntitle: Les chats\nslug: chats\n---\n"})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	_, m := getJSON(t, ts, "/api/v1/content/docs/chats?locale=fr", key)
	id := m["id"].(string)
	var r response
	eventually(t, "changes", func() bool {
		r = get(t, ts.URL+"/api/v1/changes?since="+first, key)
		return r.Status != http.StatusServiceUnavailable
	})
	cs := r.json(t)
	items := cs["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("changes: %s", r.Body)
	}
	it := items[0].(map[string]any)
	keys := toStrings(cs["keys"])
	if it["path"] != "content_fr/docs/cats.md" || it["slug"] != "chats" || it["kind"] != "item" ||
		!slices.Contains(toStrings(it["keys"]), "item:docs/"+id+"@fr") || !slices.Contains(keys, "type:docs@en") {
		t.Errorf("changes: %s", r.Body)
	}
}
