package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestHTMLContentFiles: Hugo's .html content files are documents: served
// with their HTML body sanitized, searched by its text (not its script),
// and written by the write API into the same file, front matter updated
// and body kept.
func TestHTMLContentFiles(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "language: en\n",
		"content/docs/ct-logs.html": "---\ntitle: CT logs\n---\n<p class=\"lead\">Certificate transparency <a href=\"/docs/faq\" onclick=\"x()\">logs</a></p>\n<script>var secretword = 1</script>\n",
		"pages/about.htm":           "---\ntitle: About\n---\n<h2 id=\"who\">Who we are</h2>\n",
	})
	ts := startServer(t, repo.bare, withSearch)
	reader := ts.reader(t)

	g := get(t, ts.URL+"/api/v1/content/docs/ct-logs", reader)
	if g.Status != http.StatusOK || !strings.Contains(string(g.Body), `"body":"<p class=\"lead\">Certificate transparency <a href=\"/docs/faq\">logs</a></p>\n\n"`) {
		t.Fatalf("GET the HTML item: %d %s", g.Status, g.Body)
	}
	if p := get(t, ts.URL+"/api/v1/pages/about", reader); p.Status != http.StatusOK || !strings.Contains(string(p.Body), `<h2 id=\"who\">Who we are</h2>`) {
		t.Fatalf("GET the HTML page: %d %s", p.Status, p.Body)
	}
	wantSearch(t, ts, "/api/v1/search?q=transparency", reader, "item:docs/ct-logs")
	wantSearch(t, ts, "/api/v1/search?q=secretword", reader)

	// A PATCH of a field keeps the file, its format and its body.
	ws := startWriter(t, "file://"+repo.bare)
	editor := ws.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	r := wr(t, "PATCH", ws.URL+"/api/v1/content/docs/ct-logs", editor, `{"title": "Certificate Transparency logs"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	want := "---\ntitle: Certificate Transparency logs\n---\n<p class=\"lead\">Certificate transparency <a href=\"/docs/faq\" onclick=\"x()\">logs</a></p>\n<script>var secretword = 1</script>\n"
	if got := remoteFile(t, repo.bare, "content/docs/ct-logs.html"); got != want {
		t.Fatalf("file after PATCH:\n%q\nwant\n%q", got, want)
	}
}
