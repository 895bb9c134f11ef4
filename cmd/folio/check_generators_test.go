package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// checkMisreads runs check --site on a repository of files and wants it
// to fail (exit status 1) with the lines want, never saying "no
// problems", and to pass with --allow kind.
func checkMisreads(t *testing.T, files map[string]string, kind string, want ...string) {
	t.Helper()
	dir := t.TempDir()
	testkit.CommitSite(t, dir, files)
	out, said, err := runCLI(t, "check", "--site", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "misread: "); n != len(want) {
		t.Errorf("%d misreads, want %d:\n%s", n, len(want), out)
	}
	if strings.Contains(said, "no problems") {
		t.Errorf("said %q", said)
	}
	if _, said, err := runCLI(t, "check", "--site", dir, "--allow", kind); err != nil {
		t.Errorf("--allow %s: %v (%s)", kind, err, said)
	}
}

// TestCheckDocusaurusSite: helm.sh's shape (docusaurus.config.js, docs/,
// blog/, versioned_docs/, i18n/<locale>/…, src/pages/): check said "no
// problems … the site is empty"; it names every folder of documents, and
// leaves out the root's README.md and a partial (_snippet.md).
func TestCheckDocusaurusSite(t *testing.T) {
	t.Parallel()
	const doc = "---\ntitle: Charts\nsidebar_position: 2\n---\nText.\n"
	checkMisreads(t, map[string]string{
		"docusaurus.config.js":              "module.exports = {title: 'Helm'};\n",
		"README.md":                         "# helm-www\n",
		"docs/intro.md":                     doc,
		"docs/topics/charts.mdx":            doc,
		"docs/topics/_snippet.md":           "A partial.\n",
		"blog/2024-01-01-helm-4.md":         "---\ntitle: Helm 4\nauthors: [mattfarina]\n---\nText.\n",
		"versioned_docs/version-3/intro.md": doc,
		"i18n/ko/docusaurus-plugin-content-docs/current/intro.md": doc,
		"src/pages/index.md": "# Helm\n",
	}, "docusaurus-site",
		"misread: blog/: 1 Markdown document of a Docusaurus site (docusaurus.config.js) not read: folio reads content/<type>/ and pages/, not the folders of Docusaurus's docs, blog and pages plugins; move them to content/<type>/, or name the folder in a Decap collection, to serve them [docusaurus-site]\n",
		"misread: docs/: 2 Markdown documents of a Docusaurus site",
		"misread: i18n/ko/: 1 Markdown document of a Docusaurus site",
		"misread: src/pages/: 1 Markdown document of a Docusaurus site",
		"misread: versioned_docs/version-3/: 1 Markdown document of a Docusaurus site",
	)
}

// TestCheckMkDocsSite: knative.dev's shape, an mkdocs.yml whose docs_dir
// (here site/, read from the commit) holds the documents: check said "no
// problems … the site is empty"; it names them, and not the Markdown
// outside docs_dir (docs/notes.md, vendor/).
func TestCheckMkDocsSite(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"mkdocs.yml":               "site_name: Knative\ndocs_dir: 'site'  # the docs\nnav:\n  - Home: index.md\n",
		"README.md":                "# docs\n",
		"site/index.md":            "# Knative\n",
		"site/serving/overview.md": "---\ntitle: Serving\n---\nText.\n",
		"docs/notes.md":            "Not published.\n",
		"vendor/example/README.md": "A module.\n",
	}, "mkdocs-site",
		"misread: site/: 2 Markdown documents of an MkDocs site (mkdocs.yml) not read (site/index.md among them): folio reads content/<type>/ and pages/, not MkDocs's docs_dir; move them to content/<type>/ to serve them [mkdocs-site]\n",
	)
}

// TestCheckHugoDataFiles: etcd.io keeps Grafana dashboards and alert
// rules (grafana.json, etcd3_alert.rules.yml) beside its docs in
// content/: folio served each as a document where Hugo renders no page
// of them, and check said "no problems"; it names them now, not the
// data file of a leaf bundle (a resource folio leaves out already).
func TestCheckHugoDataFiles(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"config.yaml": "baseURL: https://etcd.io\ntitle: etcd\n",
		"content/docs/v3.5/op-guide/monitoring.md":         "---\ntitle: Monitoring\n---\nText.\n",
		"content/docs/v3.5/op-guide/grafana.json":          "{\"id\": 16, \"title\": \"etcd\"}\n",
		"content/docs/v3.5/op-guide/etcd3_alert.rules.yml": "title: rules\ngroups: []\n",
		"content/blog/post/index.md":                       "---\ntitle: Post\n---\nText.\n",
		"content/blog/post/data.yaml":                      "a: 1\n",
	}, "hugo-data-files",
		"misread: content/docs/v3.5/op-guide/etcd3_alert.rules.yml: a data file in a Hugo site's content folder (and 1 data file more), served as a document: Hugo renders no page of a .yaml, .json or .toml file there (it is a resource, copied as it is); move it to data/ or assets/, or delete it [hugo-data-files]\n",
	)
}

// TestCheckDataFilesNotHugo: a site whose root config.yml is no Hugo
// configuration (a Gatsby site's settings), or a site of folio's own,
// serves its content/<type>/*.yml items with no sign.
func TestCheckDataFilesNotHugo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{
		"config.yml":                 "title: Events\nsiteUrl: https://example.org\n",
		"content/events/kubecon.yml": "title: KubeCon\n",
	})
	out, said, err := runCLI(t, "check", "--site", dir)
	if err != nil || strings.Contains(out, "misread") || !strings.Contains(said, "no problems") {
		t.Errorf("err %v, output %q, said %q", err, out, said)
	}
}

// TestCheckGatsbySite: cilium.io's gatsby-config.js sources its blog
// from src/posts/ (gatsby-source-filesystem) and its events from
// content/events/: folio served the events and not one post, and check
// said "no problems"; it names src/posts/ now, and not Markdown in a
// folder no plugin sources (docs/notes.md) nor the served events.
func TestCheckGatsbySite(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"gatsby-config.js":                          "const plugins = [\n  {\n    resolve: `gatsby-source-filesystem`,\n    options: {\n      name: `posts`,\n      path: `${__dirname}/src/posts`,\n    },\n  },\n  {\n    resolve: `gatsby-source-filesystem`,\n    options: { name: `events`, path: `${__dirname}/content/events` },\n  },\n];\nmodule.exports = { plugins };\n",
		"README.md":                                 "# cilium.io\n",
		"src/posts/2017-11-30-kafka/index.md":       "---\npath: '/blog/2017/11/30/kafka'\ndate: '2017-11-30T12:00:00.000Z'\ntitle: 'Cilium now supports Kafka'\n---\nText.\n",
		"src/posts/2018-04-24-cilium-10/index.md":   "---\npath: '/blog/2018/04/24/cilium-10'\ntitle: 'Cilium 1.0'\n---\nText.\n",
		"content/events/2025-04-01-ciliumcon-eu.md": "---\ntitle: CiliumCon Europe\ndate: 2025-04-01\n---\n",
		"docs/notes.md":                             "Not sourced.\n",
	}, "gatsby-site",
		"misread: src/posts/: 2 Markdown documents of a Gatsby site (gatsby-config.js sources them) not read: folio reads content/<type>/, pages/ and the folders of the site's Decap config, not gatsby-source-filesystem's; move them, or name the folder in a Decap collection, to serve them [gatsby-site]\n",
	)
}

// TestCheckHugoMissingContent: thanos.io's website/hugo.yaml reads its
// content from docs-pre-processed/, which a script writes from docs/
// before Hugo runs: folio served an empty site and check said "no
// problems"; it names the missing folder now (read below --root), and
// a contentDir the repository holds is no sign.
func TestCheckHugoMissingContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{
		"docs/getting-started.md":    "---\ntitle: Getting started\n---\nText.\n",
		"website/hugo.yaml":          "title: Thanos\nlanguageCode: en-us\ncontentDir: \"docs-pre-processed\"\npublishDir: public\n",
		"website/layouts/index.html": "<html></html>\n",
		"held/hugo.yaml":             "title: Held\ncontentDir: docs\n",
		"held/docs/posts/a.md":       "---\ntitle: A\n---\n",
	})
	out, said, err := runCLI(t, "check", "--site", dir, "--root", "website")
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "misread: hugo.yaml: the content folder docs-pre-processed/ (contentDir) is not in the repository: a build step makes it, which folio does not run, so it serves nothing of it [hugo-content-missing]\n"
	if out != want || strings.Contains(said, "no problems") {
		t.Errorf("output %q, want %q; said %q", out, want, said)
	}
	out, said, err = runCLI(t, "check", "--site", dir, "--root", "held")
	if err != nil || strings.Contains(out, "misread") {
		t.Errorf("held: err %v, output %q, said %q", err, out, said)
	}
}

// TestCheckVitePressSite: vuejs.org's docs (.vitepress/config.ts, its
// pages in src/guide/, src/api/): check said "no problems … the site is
// empty"; it names them by first folder, and not the root's README.md
// nor the theme's .vitepress/ files.
func TestCheckVitePressSite(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		".vitepress/config.ts":      "export default { srcDir: 'src' }\n",
		".vitepress/theme/notes.md": "Theme notes.\n",
		"README.md":                 "# vuejs.org\n",
		"src/index.md":              "---\npage: true\n---\n",
		"src/guide/introduction.md": "# Introduction\n",
		"src/api/application.md":    "# Application API\n",
	}, "vitepress-site",
		"misread: src/: 3 Markdown pages of a VitePress site (.vitepress/config.ts) not read: folio reads content/<type>/ and pages/, not VitePress's srcDir; move them to content/<type>/ to serve them [vitepress-site]\n",
	)
}

// TestCheckMdBookSite: the Rust book (book.toml, chapters in src/; here
// its src named in book.toml, read from the commit): check said "no
// problems … the site is empty"; it names the chapters, not the
// repository's other Markdown.
func TestCheckMdBookSite(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"book.toml":                        "[book]\ntitle = \"The Rust Programming Language\"\nsrc = \"chapters\"\n",
		"README.md":                        "# The book\n",
		"style-guide.md":                   "Style.\n",
		"chapters/SUMMARY.md":              "- [Intro](ch00-00-introduction.md)\n",
		"chapters/ch00-00-introduction.md": "# Introduction\n",
		"src/old.md":                       "Not the book's src.\n",
	}, "mdbook-site",
		"misread: chapters/: 2 Markdown chapters of an mdBook (book.toml) not read (chapters/SUMMARY.md among them): folio reads content/<type>/ and pages/, not an mdBook's chapters; move them to content/<type>/ to serve them [mdbook-site]\n",
	)
}

// TestCheckHugoOutsideContent: goharbor.io keeps its docs in docs/ (a
// Hugo section tree, docs/_index.md its page), which load-docs.sh copies
// into content/docs/<release>/ before Hugo runs: folio served the blog
// only and check said "no problems"; it names docs/ now, and not a
// folder of notes without its own _index.md (opentelemetry.io's
// projects/, whose sub-folders have one), nor a theme's.
func TestCheckHugoOutsideContent(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"config.toml":                          "baseURL = \"https://goharbor.io\"\ntitle = \"Harbor\"\n",
		"load-docs.sh":                         "cp -r docs/* generated/docs/\n",
		"content/blog/harbor-2.0.md":           "---\ntitle: Harbor 2.0\n---\nText.\n",
		"docs/_index.md":                       "---\ntitle: Harbor docs\n---\n",
		"docs/install-config/_index.md":        "---\ntitle: Installation\n---\n",
		"docs/install-config/run-installer.md": "---\ntitle: Run the installer\n---\n",
		"projects/README.md":                   "Plans.\n",
		"projects/2026/redesign/_index.md":     "---\ntitle: Redesign\n---\n",
		"themes/docsy/docs/_index.md":          "---\ntitle: Theme docs\n---\n",
	}, "hugo-outside-content",
		"misread: docs/: 3 Markdown documents laid out as Hugo content (docs/_index.md its section page) outside the site's content folder, not read: a build step copies or mounts them into content/, which folio does not run; move them into content/ to serve them [hugo-outside-content]\n",
	)
}

// TestCheckUnreadMarkdown: prometheus.io's docs are a Next.js app
// rendering docs/ and blog/, a generator folio does not know: check
// said "no problems … the site is empty"; it names the folders of
// Markdown when no other sign says why the site is empty, and never the
// root's README.md or .github/; a repository with no Markdown there
// stays "no problems".
func TestCheckUnreadMarkdown(t *testing.T) {
	t.Parallel()
	checkMisreads(t, map[string]string{
		"next.config.ts":                    "export default {};\n",
		"README.md":                         "# docs\n",
		".github/PULL_REQUEST_TEMPLATE.md":  "Describe.\n",
		"docs/introduction/overview.md":     "---\ntitle: Overview\n---\n",
		"docs/concepts/data_model.md":       "---\ntitle: Data model\n---\n",
		"blog/2016-07-18-prometheus-1-0.md": "---\ntitle: Prometheus 1.0\n---\n",
	}, "unread-markdown",
		"misread: blog/: 1 Markdown document not read, and the site is empty: folio reads pages/, content/<type>/ and the folders a Hugo, Decap or folio configuration names; another generator reads these, which folio does not know [unread-markdown]\n",
		"misread: docs/: 2 Markdown documents not read, and the site is empty",
	)
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{
		"next.config.js": "module.exports = {};\n",
		"README.md":      "# starter\n",
		"pages/index.js": "export default function Home() {}\n",
	})
	if out, said, err := runCLI(t, "check", "--site", dir); err != nil || out != "" || !strings.Contains(said, "no problems") {
		t.Errorf("no Markdown: err %v, output %q, said %q", err, out, said)
	}
}

// TestCheckGitSubmodules: containerd.io's docs are copied out of its
// submodules (containerd-main/docs/ …) by refresh-docs.sh before Hugo
// runs: folio served 8 pages and check said "no problems"; it names the
// submodules now, and not a theme's (themes/docsy, a …-theme).
func TestCheckGitSubmodules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{
		"config.toml":      "baseURL = \"https://containerd.io\"\ntheme = \"containerd\"\n",
		"content/scope.md": "---\ntitle: Scope\n---\nText.\n",
		".gitmodules": "[submodule \"containerd-main\"]\n\tpath = containerd-main\n\turl = https://example.org/containerd.git\n" +
			"[submodule \"docsy\"]\n\tpath = themes/docsy\n\turl = https://example.org/docsy.git\n" +
			"[submodule \"hugo-theme-x\"]\n\tpath = vendor/hugo-theme-x\n\turl = https://example.org/x.git\n",
	})
	head := testkit.Git(t, dir, "rev-parse", "HEAD")
	for _, p := range []string{"containerd-main", "themes/docsy", "vendor/hugo-theme-x"} {
		testkit.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+","+p)
	}
	testkit.Git(t, dir, "commit", "-qm", "submodules")
	out, said, err := runCLI(t, "check", "--site", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s%s", err, out, said)
	}
	want := "misread: .gitmodules: 1 Git submodule (containerd-main) not read: folio serves no file of a submodule; documents a build step copies out of one, or a Hugo mount reads from one, are not served [git-submodules]\n"
	if out != want || strings.Contains(said, "no problems") {
		t.Errorf("output %q, want %q; said %q", out, want, said)
	}
}

// TestCheckShortcodesInCode: kind.sigs.k8s.io writes `go install
// sigs.k8s.io/kind@{{< stableVersion >}}` and grpc.io `cmake version
// {{< param cmake-version >}}` in a code block: Hugo runs a shortcode
// in code too, folio shows it as written, and check said "no problems";
// it names them now, and not a comment shown in code ({{</* katex >}} …
// {{< /katex */>}} over lines, hugo-book's), nor a non-Hugo site's code.
func TestCheckShortcodesInCode(t *testing.T) {
	t.Parallel()
	body := "---\ntitle: Quick start\n---\nRun `go install sigs.k8s.io/kind@{{< stableVersion >}}`.\n"
	checkMisreads(t, map[string]string{
		"config.toml":                 "baseURL = \"https://kind.sigs.k8s.io\"\n",
		"content/docs/quick-start.md": body,
		"content/docs/cpp.md":         "---\ntitle: C++\n---\n```sh\ncmake version {{< param cmake-version >}}\n```\n",
		"content/docs/katex.md":       "---\ntitle: KaTeX\n---\n- **Shortcode**\n  ```tpl\n  {{</* katex display=true >}}\n  f(x)\n  {{< /katex */>}}\n  ```\n\nForce it with `{{</* katex /*/>}}`.\n",
		"content/docs/plain.md":       "---\ntitle: Plain\n---\n{{< alert >}}Outside code.{{< /alert >}}\n",
	}, "shortcodes",
		"misread: content/docs/cpp.md: has a Hugo shortcode tag inside code (and 1 document more) ({{< … >}} in a code block or `span`): Hugo runs it there, folio shows it as written; write {{</* … */>}} to show the tag [shortcodes]\n",
	)
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{
		"config.toml":                 "base_url = \"https://example.org\"\n",
		"content/docs/quick-start.md": "+++\ntitle = \"Quick start\"\n+++\nRun `go install x@{{< stableVersion >}}`.\n",
	})
	if out, said, err := runCLI(t, "check", "--site", dir); err != nil || strings.Contains(out, "misread") {
		t.Errorf("Zola: err %v, output %q, said %q", err, out, said)
	}
}
