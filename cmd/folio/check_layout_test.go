package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// layoutRepo commits a copy of fixtures/layouts/<name> in a new
// repository and returns its folder.
func layoutRepo(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "fixtures", "layouts", name)
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, dir, "init", "-q", "-b", "main")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "site")
	return dir
}

// check ends with what it misread or skipped, and fails on it unless
// --allow accepts its kind: a type named for a language of the site,
// .rst files, a shortcode tag it cannot parse (not one it parses), a
// Decap collection folio does not serve. It
// said "no problems" before.
func TestCheckMisreads(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "misread")
	for _, args := range [][]string{{"--worktree", dir}, {"--site", dir, "--cache-dir", t.TempDir()}} {
		out, said, err := runCLI(t, append([]string{"check"}, args...)...)
		var exit exitError
		if !errors.As(err, &exit) || exit != 1 {
			t.Fatalf("%v: err = %v, want exit status 1\n%s%s", args, err, out, said)
		}
		for _, want := range []string{
			`misread: content/en/: served as the content type "en" (1 item), but it is named for a language`,
			"[language-folders]",
			"misread: content/docs/: 1 content file (.rst) not read",
			"misread: content/posts/figure.md: has a Hugo shortcode tag folio cannot parse",
			`misread: static/admin/config.yml:12: collection "news" keeps its entries in site/news/, which folio does not serve`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(said, "no problems") || !strings.Contains(said, "4 sign(s) that folio misread") || !strings.Contains(said, "--allow KIND (language-folders,unread-files,shortcodes,decap-folders)") {
			t.Errorf("%v: summary %q", args, said)
		}
		if _, said, err := runCLI(t, append([]string{"check", "--allow", "language-folders,unread-files,shortcodes"}, args...)...); err == nil {
			t.Errorf("%v: a misread --allow does not name passed: %q", args, said)
		}
		if _, said, err := runCLI(t, append([]string{"check", "--allow", "all"}, args...)...); err != nil || !strings.Contains(said, "(4 allowed)") {
			t.Errorf("%v --allow all: %v %q", args, err, said)
		}
	}
	if _, _, err := runCLI(t, "check", "--worktree", dir, "--allow", "nonsense"); err == nil || !strings.Contains(err.Error(), "not a kind of misread") {
		t.Errorf("--allow nonsense: %v", err)
	}
}

// A Hugo theme's repository keeps its demo site in exampleSite/: check
// names it and the setting that reads it, instead of "no problems … the
// site is empty".
func TestCheckSubfolderSite(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "theme-example")
	out, said, err := runCLI(t, "check", "--worktree", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "misread: exampleSite/: a Hugo site (exampleSite/config/_default/hugo.toml, 4 content files) that folio does not read: it reads the site at the repository's root, which has none; serve it with --root exampleSite (or root: exampleSite in folio.yaml) [subfolder-site]\n"
	if out != want {
		t.Errorf("output %q, want %q", out, want)
	}
}

// --root reads the site below a folder, committed or on disk, as does
// the root: of the repository's folio.yaml (the Decap template's site/).
func TestCheckRoot(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "theme-example")
	for _, args := range [][]string{{"--worktree", dir}, {"--site", dir, "--cache-dir", t.TempDir()}} {
		out, said, err := runCLI(t, append([]string{"check", "--root", "exampleSite"}, args...)...)
		if err != nil || out != "" || !strings.Contains(said, "no problems in ") || !strings.HasSuffix(said, ": 2 pages, 2 items of 1 type (post)\n") {
			t.Errorf("%v: %v %q %q", args, err, out, said)
		}
	}
	decap := layoutRepo(t, "decap-site")
	for _, args := range [][]string{{"--worktree", decap}, {"--site", decap, "--cache-dir", t.TempDir()}} {
		out, said, err := runCLI(t, append([]string{"check"}, args...)...)
		if err != nil || out != "" || !strings.HasSuffix(said, ": 2 pages, 2 items of 1 type (post)\n") {
			t.Errorf("%v: %v %q %q", args, err, out, said)
		}
	}
	if _, _, err := runCLI(t, "check", "--worktree", dir, "--root", "../up"); err == nil || !strings.Contains(err.Error(), "--root") {
		t.Errorf("--root ../up: %v", err)
	}
}

// A site served below a root is read (its documents by the site's
// paths) and written: the write API, Decap's proxy backend (with the
// site's own Decap config, whose folders are named from the repository's
// root) and publish commit below the root and nowhere else.
func TestServeRoot(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "theme-example")
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "w", "content:read,content:write,content:draft")
	box := serveBox(t, "--site", dir, "--root", "exampleSite", "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	r := box.do(t, "GET", "/api/v1/pages/about", key, "")
	if r.status != 200 || !strings.Contains(string(r.body), `"title":"About the theme"`) {
		t.Errorf("GET about: %d %s", r.status, r.body)
	}
	if r := box.do(t, "POST", "/api/v1/content/post", key, `{"title": "New", "slug": "new", "body": "Hi."}`); r.status != 201 {
		t.Fatalf("POST below a root: %d %s", r.status, r.body)
	}
	wantCommit(t, dir, "main", "exampleSite/content/post/new.md")
	if r := box.do(t, "GET", "/api/v1/content/post/new", key, ""); r.status != 200 {
		t.Errorf("GET the new item: %d %s", r.status, r.body)
	}
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}
}

// The Decap template's layout (folio.yaml's root: site, the site's own
// Decap config naming site/content/post): Decap's proxy backend lists,
// reads and writes the site's paths, the commits change site/content/…
// only; the draft branch's edits are published below the root too.
func TestServeRootDecap(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "decap-site")
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "w", "content:read,content:write,content:draft")
	box := serveBox(t, "--site", dir, "--draft-branch", "draft", "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	defer box.stop()
	r := box.do(t, "GET", "/admin/content/config.yml", key, "")
	if r.status != 200 || !strings.Contains(string(r.body), "folder: content/post\n") || strings.Contains(string(r.body), "site/content") {
		t.Fatalf("config.yml: %d %s", r.status, r.body)
	}
	rpc := func(body string) string {
		t.Helper()
		r := box.do(t, "POST", "/api/v1/decap", key, body)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", body, r.status, r.body)
		}
		return string(r.body)
	}
	if got := rpc(`{"action":"entriesByFolder","params":{"branch":"draft","folder":"content/post","extension":"md","depth":1}}`); !strings.Contains(got, `"path":"content/post/chemex.md"`) {
		t.Errorf("entriesByFolder: %s", got)
	}
	if got := rpc(`{"action":"getEntry","params":{"branch":"draft","path":"content/post/chemex.md"}}`); !strings.Contains(got, "Chemex") {
		t.Errorf("getEntry: %s", got)
	}
	rpc(`{"action":"persistEntry","params":{"branch":"draft","dataFiles":[{"slug":"idea","path":"content/post/idea.md","raw":"---\ntitle: Idea\ndate: 2026-01-02T00:00:00Z\ndescription: An idea\nimage: /img/a.jpg\n---\nAn idea.\n"}],"assets":[],"options":{"collectionName":"post","commitMessage":"Create idea"}}}`)
	wantCommit(t, dir, "draft", "site/content/post/idea.md")
	if got := rpc(`{"action":"entriesByFolder","params":{"branch":"draft","folder":"content/post","extension":"md","depth":1}}`); !strings.Contains(got, `"path":"content/post/idea.md"`) {
		t.Errorf("entriesByFolder after the write: %s", got)
	}
	if r := box.do(t, "POST", "/api/v1/publish", key, `{}`); r.status != 200 {
		t.Fatalf("publish: %d %s", r.status, r.body)
	}
	out := testkit.Git(t, dir, "diff", "--name-only", "main~1", "main")
	if strings.TrimSpace(out) != "site/content/post/idea.md" {
		t.Errorf("publish changed %q, want site/content/post/idea.md only", out)
	}
	if r := box.do(t, "GET", "/api/v1/content/post/idea", key, ""); r.status != 200 {
		t.Errorf("GET the published item: %d %s", r.status, r.body)
	}

	// The editorial workflow: an entry on its cms/ branch, then merged.
	rpc(`{"action":"persistEntry","params":{"branch":"draft","dataFiles":[{"slug":"flow","path":"content/post/flow.md","raw":"---\ntitle: Flow\ndate: 2026-01-03T00:00:00Z\ndescription: A flow\nimage: /img/a.jpg\n---\nFlow.\n"}],"assets":[],"options":{"collectionName":"post","commitMessage":"Create flow","useWorkflow":true,"status":"draft"}}}`)
	wantCommit(t, dir, "cms/post/flow", "site/content/post/flow.md")
	if got := rpc(`{"action":"unpublishedEntries","params":{"branch":"draft"}}`); !strings.Contains(got, `"post/flow"`) {
		t.Errorf("unpublishedEntries: %s", got)
	}
	if got := rpc(`{"action":"unpublishedEntry","params":{"branch":"draft","collection":"post","slug":"flow"}}`); !strings.Contains(got, `"path":"content/post/flow.md"`) {
		t.Errorf("unpublishedEntry: %s", got)
	}
	rpc(`{"action":"publishUnpublishedEntry","params":{"branch":"draft","collection":"post","slug":"flow"}}`)
	out = testkit.Git(t, dir, "diff", "--name-only", "draft~1", "draft")
	if strings.TrimSpace(out) != "site/content/post/flow.md" {
		t.Errorf("the merge changed %q, want site/content/post/flow.md only", out)
	}
}

// wantCommit checks that the last commit of branch changed path and
// nothing else.
func wantCommit(t *testing.T, dir, branch, path string) {
	t.Helper()
	out := testkit.Git(t, dir, "show", "--name-only", "--format=", branch)
	if strings.TrimSpace(out) != path {
		t.Errorf("the commit on %s changed %q, want %s only", branch, out, path)
	}
}

// A Decap collection served where it lives (a Gatsby site's
// src/pages/blog) is no misread; one whose folder holds nothing is.
func TestCheckDecapFoldersServed(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "gatsby-decap")
	out, said, err := runCLI(t, "check", "--worktree", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	if !strings.Contains(out, `collection "news" keeps its entries in src/pages/news/`) || strings.Contains(out, `collection "blog"`) {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(said, "3 pages, 2 items of 1 type (blog)") || !strings.Contains(said, "1 sign(s)") {
		t.Errorf("summary %q", said)
	}
}

// Warnings (documents served with a title made from the file name) are
// printed as such and do not fail check; a problem does.
func TestCheckWarningsDoNotFail(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "docs-untitled")
	out, said, err := runCLI(t, "check", "--worktree", dir)
	if err != nil {
		t.Fatalf("err = %v, want exit status 0\n%s%s", err, out, said)
	}
	if !strings.Contains(out, "warning: content/docs/faq-of-the-week.md: no title") || !strings.Contains(said, "1 warning(s) in ") || strings.Contains(said, "no problems") {
		t.Errorf("output:\n%s\nsaid: %s", out, said)
	}
}

// A ref shortcode that names no document is a problem of check, at its
// line (Hugo fails its build on it); the refs that name one are not.
func TestCheckRefLinks(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, filepath.Join("..", "hugo-refs"))
	for _, args := range [][]string{{"--worktree", dir}, {"--site", dir, "--cache-dir", t.TempDir()}} {
		out, said, err := runCLI(t, append([]string{"check"}, args...)...)
		var exit exitError
		if !errors.As(err, &exit) || exit != 1 {
			t.Fatalf("%v: err = %v, want exit status 1\n%s%s", args, err, out, said)
		}
		want := `content/about.md:7: {{< ref "posts/gone.md" >}} names no document of the site (Hugo fails its build: REF_NOT_FOUND); served as /posts/gone/` + "\n"
		if out != want || !strings.Contains(said, "1 problem(s)") {
			t.Errorf("%v: output %q, want %q; said %q", args, out, want, said)
		}
	}
}

// A Jekyll blog (_config.yml, _posts/, a collection, root pages) has
// nothing folio reads: check says so per folder, as a misread, instead of
// "no problems … the site is empty".
func TestCheckJekyllSite(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "jekyll")
	out, said, err := runCLI(t, "check", "--worktree", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "misread: _config.yml: 1 Markdown page at the root of a Jekyll site (about.md) not read: folio reads pages in pages/ or content/ [jekyll-site]\n" +
		"misread: _posts/: 2 content files of a Jekyll site (_config.yml) not read: folio reads Hugo's content/ and pages/, not Jekyll's posts and collections; move them to content/<type>/ to serve them [jekyll-site]\n" +
		"misread: _recipes/: 1 content file of a Jekyll site (_config.yml) not read: folio reads Hugo's content/ and pages/, not Jekyll's posts and collections; move them to content/<type>/ to serve them [jekyll-site]\n"
	if out != want || strings.Contains(said, "no problems") {
		t.Errorf("output %q, want %q; said %q", out, want, said)
	}
}

// TestCheckAstroGlobSite: an Astro site whose collection's glob() loader
// reads src/data/post/ (AstroWind's shape) and whose Markdown pages are
// in src/pages/: check names the pages, where it said "no problems … the
// site is empty" (the glob() folder was named too; it is served now:
// TestServeAstroGlobCollections); the collection in src/content/blog/ is
// served, and its entry
// without published:, which its schema defaults to false
// (greensoftware.foundation's articles), is named too, read from the
// commit (--site) and from the disk (--worktree), and so is the root's
// content/ no collection loads from (kyverno.io's leftover
// content/en/community/code-of-conduct.md).
func TestCheckAstroGlobSite(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "astro-glob")
	for _, args := range [][]string{{"--site", dir}, {"--worktree", dir}} {
		out, said, err := runCLI(t, append([]string{"check"}, args...)...)
		var exit exitError
		if !errors.As(err, &exit) || exit != 1 {
			t.Fatalf("%s: err = %v, want exit status 1\n%s%s", args[0], err, out, said)
		}
		want := "misread: src/content/blog/kept.md: has no published: key, which the schema of src/content/blog/ (src/content.config.ts) defaults to false, so the site does not publish it; folio runs no schema and serves it as published: set published: false (or true) [astro-site]\n" +
			"misread: content/: 1 document served from content/ (content/en/community/code-of-conduct.md) that the Astro site does not read: no collection of src/content.config.ts loads from it; move them to a collection's folder, or delete them [astro-site]\n" +
			"misread: src/pages/: 1 Markdown page of an Astro site (astro.config.ts) not read: Astro's Markdown pages (src/pages/) are not read; folio reads pages in pages/ or content/ [astro-site]\n"
		if out != want || strings.Contains(said, "no problems") || !strings.Contains(said, "5 items of 3 types (blog, en, post)") {
			t.Errorf("%s: output %q, want %q; said %q", args[0], out, want, said)
		}
	}
	if _, said, err := runCLI(t, "check", "--site", dir, "--allow", "astro-site"); err != nil {
		t.Errorf("--allow astro-site: %v (%s)", err, said)
	}
}

// TestCheckEleventySite: an Eleventy site (eleventy-base-blog's and
// eleventy-netlify-boilerplate's shapes): its directory data file
// pages/pages.json is served as a page, and its root 404.md and posts/
// are not read: check says so, and leaves out README.md and _includes/.
// (fourthpost/fourthpost.md is served at /blog/fourthpost/, as Eleventy
// writes it: TestServeEleventyFolderNamed.)
func TestCheckEleventySite(t *testing.T) {
	t.Parallel()
	dir := layoutRepo(t, "eleventy")
	out, said, err := runCLI(t, "check", "--site", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "warning: pages/pages.json: no title: served with the title \"Pages\" made from the file name (titleFromFile: true)\n" +
		"misread: pages/pages.json: Eleventy's directory data file of pages/ (data every template in it has: its layout, tags, permalink), served as a document of its own (eleventy.config.js) [eleventy-site]\n" +
		"misread: eleventy.config.js: 1 Markdown template at the root of an Eleventy site (eleventy.config.js) not read: folio reads content/<type>/, pages/ and the folders of the site's Decap config, not Eleventy's input folders; move them, or name the folder in a Decap collection, to serve them [eleventy-site]\n" +
		"misread: posts/: 1 Markdown template of an Eleventy site (eleventy.config.js) not read: folio reads content/<type>/, pages/ and the folders of the site's Decap config, not Eleventy's input folders; move them, or name the folder in a Decap collection, to serve them [eleventy-site]\n"
	if out != want || strings.Contains(said, "no problems") {
		t.Errorf("output %q, want %q; said %q", out, want, said)
	}
}

// TestCheckHugoSubMounts: jaegertracing.io's hugo.yaml mounts
// content/docs/v2 onto content/docs (its 2.9 docs at /docs/2.9/…) and
// content/docs/v2/_dev onto content/docs/2.dev; folio served the first
// at /docs/v2/2.9/… and not the second at all, and check reported both.
// Now both are read as Hugo reads them, as is a mount of another folder
// of the repository (guides-src onto content/guides), through each
// mount's files filter; a mount of a file outside the site
// (../README.md) cannot be followed and is still reported.
func TestCheckHugoSubMounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"hugo.yaml": `baseURL: https://www.jaegertracing.io
title: Jaeger
defaultContentLanguage: en
languages:
  en:
    languageName: English
module:
  mounts:
    - files:
        - '! docs/v?'
      source: content
      target: content
    - files: '! _*'
      source: content/docs/v2
      target: content/docs
    - source: content/docs/v2/_dev
      target: content/docs/2.dev
    - source: guides-src
      target: content/guides
      files: '! drafts/**'
    - source: ../README.md
      target: content/project/readme.md
    - source: static/img/hero-background.jpg
      target: content/hero-background.jpg
`,
		"content/_index.md":                      "---\ntitle: Jaeger\n---\n",
		"content/docs/_index.md":                 "---\ntitle: Documentation\n---\n",
		"content/docs/latest.md":                 "---\ntitle: Latest\n---\n",
		"content/docs/v2/_index.md":              "---\ntitle: Version 2\n---\n",
		"content/docs/v2/2.9/getting-started.md": "---\ntitle: Getting Started\n---\nRun it.\n",
		"content/docs/v2/_dev/faq.md":            "---\ntitle: FAQ\n---\nAsk.\n",
		"guides-src/intro.md":                    "---\ntitle: Intro\n---\nHi.\n",
		"guides-src/drafts/wip.md":               "---\ntitle: WIP\n---\nLater.\n",
		"README.md":                              "# Jaeger docs\n",
	}
	commitFiles(t, dir, files)
	out, said, err := runCLI(t, "check", "--site", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "misread: hugo.yaml:21: a module mount of ../README.md, outside the site's folder, onto content/project/readme.md: Hugo reads it there, folio reads no file outside the site [hugo-mounts]\n"
	if out != want || !strings.Contains(said, "4 items of 2 types (docs, guides)") {
		t.Errorf("output %q, want %q; said %q", out, want, said)
	}

	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "r", "content:read")
	box := serveBox(t, "--site", dir, "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	for path, title := range map[string]string{
		"/docs/2.9/getting-started/": "Getting Started",
		"/docs/2.dev/faq/":           "FAQ",
		"/docs/latest/":              "Latest",
		"/guides/intro/":             "Intro",
	} {
		r := box.do(t, "GET", "/api/v1/resolve?path="+path, key, "")
		if r.status != 200 || !strings.Contains(string(r.body), `"title":"`+title+`"`) {
			t.Errorf("resolve %s: %d %s", path, r.status, r.body)
		}
	}
	for _, path := range []string{"/docs/v2/2.9/getting-started/", "/guides/drafts/wip/", "/docs/v2/"} {
		if r := box.do(t, "GET", "/api/v1/resolve?path="+path, key, ""); r.status != 404 {
			t.Errorf("resolve %s: %d %s, want 404", path, r.status, r.body)
		}
	}
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}
}

// commitFiles writes files (path -> text) into dir and commits them on a
// new branch main, with the git CLI.
func commitFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, dir, "init", "-q", "-b", "main")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "site")
}

// TestServeHugoRenderNever: Hugo writes no page for a document whose
// front matter says build: {render: never} (2i2c.org's
// content/blog/README.md says it as _build, with list: 'never'; TOML's
// [build] render = "never" too): folio serves it by slug and in its list,
// with an empty path, which resolve does not find; render: always, and
// a document without build, keep their paths.
func TestServeHugoRenderNever(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	commitFiles(t, dir, map[string]string{
		"hugo.toml":               "baseURL = 'https://2i2c.org'\ntitle = '2i2c'\n",
		"content/blog/README.md":  "---\n# Ensure this never gets built\n_build:\n  list: 'never'\n  render: 'never'\n---\n\nSee the guide.\n",
		"content/blog/hello.md":   "---\ntitle: Hello\nbuild:\n  render: always\n---\nHi.\n",
		"content/blog/snippet.md": "+++\ntitle = 'Snippet'\n[build]\nrender = 'never'\nlist = 'always'\n+++\nA part.\n",
		"content/blog/plain.md":   "---\ntitle: Plain\n---\nText.\n",
	})
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "r", "content:read")
	box := serveBox(t, "--site", dir, "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	for slug, path := range map[string]string{"README": "", "snippet": "", "hello": "/blog/hello/", "plain": "/blog/plain/"} {
		r := box.do(t, "GET", "/api/v1/content/blog/"+slug, key, "")
		if r.status != 200 || !strings.Contains(string(r.body), `"path":"`+path+`"`) {
			t.Errorf("GET %s: %d %s, want path %q", slug, r.status, r.body, path)
		}
	}
	if r := box.do(t, "GET", "/api/v1/content/blog?limit=100", key, ""); r.status != 200 || !strings.Contains(string(r.body), `"total":4`) {
		t.Errorf("list: %d %s, want the 4 items", r.status, r.body)
	}
	for path, want := range map[string]int{"/blog/readme/": 404, "/blog/snippet/": 404, "/blog/hello/": 200, "/blog/plain/": 200} {
		if r := box.do(t, "GET", "/api/v1/resolve?path="+path, key, ""); r.status != want {
			t.Errorf("resolve %s: %d %s, want %d", path, r.status, r.body, want)
		}
	}
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestServeEleventyFolderNamed: Eleventy writes a template named for its
// folder at the folder's URL (eleventy-base-blog's
// content/blog/fourthpost/fourthpost.md is /blog/fourthpost/); folio
// served it at /blog/fourthpost/fourthpost/ and check reported it. Now
// its path is Eleventy's, on a site with eleventy.config.js or
// .eleventy.js (danurbanowicz's boilerplate), and check has nothing to
// say; a Hugo site keeps Hugo's path for the same file.
func TestServeEleventyFolderNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ config, text, want, other string }{
		{"eleventy.config.js", "export default function (eleventyConfig) {}\n", "/blog/fourthpost/", "/blog/fourthpost/fourthpost/"},
		{".eleventy.js", "module.exports = function (eleventyConfig) {};\n", "/blog/fourthpost/", "/blog/fourthpost/fourthpost/"},
		{"hugo.toml", "title = 'A Hugo site'\n", "/blog/fourthpost/fourthpost/", "/blog/fourthpost/"},
	} {
		dir := t.TempDir()
		commitFiles(t, dir, map[string]string{
			c.config:                                c.text,
			"content/blog/fourthpost/fourthpost.md": "---\ntitle: This is my fourth post.\n---\nA possum.\n",
			"content/blog/firstpost.md":             "---\ntitle: This is my first post.\n---\nHi.\n",
			"pages/about/about.md":                  "---\ntitle: About\n---\nMe.\n",
		})
		if c.config == "hugo.toml" {
			testkit.Git(t, dir, "rm", "-q", "pages/about/about.md")
			testkit.Git(t, dir, "commit", "-qm", "no page")
		}
		out, said, err := runCLI(t, "check", "--site", dir)
		if err != nil || out != "" {
			t.Errorf("%s: check: %v\n%s%s", c.config, err, out, said)
		}
		keys := filepath.Join(t.TempDir(), "keys.yaml")
		key := newKey(t, keys, "r", "content:read")
		box := serveBox(t, "--site", dir, "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
		r := box.do(t, "GET", "/api/v1/content/blog/fourthpost/fourthpost", key, "")
		if r.status != 200 || !strings.Contains(string(r.body), `"path":"`+c.want+`"`) {
			t.Errorf("%s: GET fourthpost: %d %s, want path %s", c.config, r.status, r.body, c.want)
		}
		if r := box.do(t, "GET", "/api/v1/resolve?path="+c.other, key, ""); r.status != 404 {
			t.Errorf("%s: resolve %s: %d, want 404", c.config, c.other, r.status)
		}
		if r := box.do(t, "GET", "/api/v1/resolve?path=/blog/firstpost/", key, ""); r.status != 200 {
			t.Errorf("%s: resolve firstpost: %d", c.config, r.status)
		}
		if c.config != "hugo.toml" {
			if r := box.do(t, "GET", "/api/v1/pages/about/about", key, ""); r.status != 200 || !strings.Contains(string(r.body), `"path":"/about/"`) {
				t.Errorf("%s: GET page about/about: %d %s", c.config, r.status, r.body)
			}
		}
		if err := box.stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeAstroGlobCollections: AstroWind's content config loads its
// post collection with glob({ pattern: ['*.md', '*.mdx'], base:
// 'src/data/post' }): folio served none of it (check said so). Now a
// collection's glob() folder is read as its type, the pattern's depth
// kept (post reads its folder's own files, guides every level), through
// a const or in place; a collection whose base folio cannot read (a
// variable) is still named by check.
func TestServeAstroGlobCollections(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	commitFiles(t, dir, map[string]string{
		"astro.config.ts": "import { defineConfig } from 'astro/config';\nexport default defineConfig({});\n",
		"src/content/config.ts": `import { z, defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';

const where = 'src/data/notes';
const postCollection = defineCollection({
  loader: glob({ pattern: ['*.md', '*.mdx'], base: 'src/data/post' }),
  schema: z.object({ title: z.string(), draft: z.boolean().optional() }),
});
const notes = defineCollection({ loader: glob({ pattern: '**/*.md', base: where }) });

export const collections = {
  post: postCollection,
  guides: defineCollection({ loader: glob({ base: "./src/data/guides", pattern: "**/*.{md,mdx}" }) }),
  notes,
};
`,
		"src/data/post/landing.md":         "---\ntitle: Landing\n---\nHello.\n",
		"src/data/post/old/nested.md":      "---\ntitle: Nested\n---\nNot loaded by '*.md'.\n",
		"src/data/guides/start/install.md": "---\ntitle: Install\n---\nRun it.\n",
		"src/data/notes/a.md":              "---\ntitle: A note\n---\nA.\n",
	})
	out, said, err := runCLI(t, "check", "--site", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	if strings.Contains(out, "src/data/post") || strings.Contains(out, "src/data/guides") || !strings.Contains(out, "misread: src/data/: 1 content file ") || !strings.Contains(said, "2 items of 2 types (guides, post)") {
		t.Errorf("check: %s%s", out, said)
	}
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "r", "content:read")
	box := serveBox(t, "--site", dir, "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	for url, title := range map[string]string{"/api/v1/content/post/landing": "Landing", "/api/v1/content/guides/start/install": "Install"} {
		if r := box.do(t, "GET", url, key, ""); r.status != 200 || !strings.Contains(string(r.body), `"title":"`+title+`"`) {
			t.Errorf("GET %s: %d %s", url, r.status, r.body)
		}
	}
	if r := box.do(t, "GET", "/api/v1/content/post/old/nested", key, ""); r.status != 404 {
		t.Errorf("GET nested: %d %s, want 404", r.status, r.body)
	}
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}
}
