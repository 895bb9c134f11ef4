package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// The hostile pass of issue 29 on a site below a root (folio.yaml's
// root: site): paths that climb out of the root, name the repository's
// own files or the editors file, through Decap's proxy backend and the
// write API, are 4xx; two editors saving one entry with the base each
// opened merge or are refused; nothing outside site/ changes.
func TestHostileServeRoot(t *testing.T) {
	dir := layoutRepo(t, "decap-site")
	keys := t.TempDir() + "/keys.yaml"
	key := newKey(t, keys, "w", "content:read,content:write,content:draft,media:read,media:write,media:delete")
	box := serveBox(t, "--site", dir, "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir())
	defer box.stop()
	start := strings.TrimSpace(testkit.Git(t, dir, "rev-parse", "main"))

	hostile := []string{
		`{"action":"getEntry","params":{"branch":"main","path":"../folio.yaml"}}`,
		`{"action":"getEntry","params":{"branch":"main","path":"content/post/../../../folio.yaml"}}`,
		`{"action":"getEntry","params":{"branch":"main","path":".folio/editors.yaml"}}`,
		`{"action":"entriesByFolder","params":{"branch":"main","folder":"..","extension":"json","depth":3}}`,
		`{"action":"entriesByFolder","params":{"branch":"main","folder":"content/../..","extension":"md","depth":3}}`,
		`{"action":"entriesByFiles","params":{"branch":"main","files":[{"path":"../package.json"}]}}`,
		`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"x","path":"../README.md","raw":"pwned"}],"assets":[],"options":{"collectionName":"post","commitMessage":"x"}}}`,
		`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"x","path":"content/post/../../../src/x.md","raw":"---\ntitle: x\n---\n"}],"assets":[],"options":{"collectionName":"post","commitMessage":"x"}}}`,
		`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"x","path":".folio/editors.yaml","raw":"people: []\n"}],"assets":[],"options":{"collectionName":"post","commitMessage":"x"}}}`,
		`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"x","path":"content/post/x.md","newPath":"../x.md","raw":"---\ntitle: x\n---\n"}],"assets":[],"options":{"collectionName":"post","commitMessage":"x"}}}`,
		`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"x","path":"content/post/x.md","raw":"---\ntitle: x\n---\n"}],"assets":[{"path":"../src/x.png","content":"aGVsbG8=","encoding":"base64"}],"options":{"collectionName":"post","commitMessage":"x"}}}`,
		`{"action":"deleteFiles","params":{"branch":"main","paths":["../folio.yaml"]}}`,
		`{"action":"deleteFiles","params":{"branch":"main","paths":["content/../../package.json"]}}`,
		`{"action":"persistMedia","params":{"branch":"main","asset":{"path":"../../x.png","content":"aGVsbG8=","encoding":"base64"}}}`,
		`{"action":"publishUnpublishedEntry","params":{"branch":"main","collection":"..","slug":"main"}}`,
		`{"action":"deleteUnpublishedEntry","params":{"branch":"main","collection":"post","slug":"../../heads/main"}}`,
		`{"action":"getMediaFile","params":{"branch":"main","path":"../folio.yaml"}}`,
	}
	for _, body := range hostile {
		r := box.do(t, "POST", "/api/v1/decap", key, body)
		t.Logf("%d %s <- %s", r.status, strings.TrimSpace(string(r.body)), body)
		if r.status < 400 || r.status >= 500 {
			t.Errorf("%s: %d %s, want a 4xx", body, r.status, r.body)
		}
		if strings.Contains(body, `"newPath":"../x.md"`) && !strings.Contains(string(r.body), `newPath \"../x.md\"`) {
			t.Errorf("the refusal of a bad newPath does not name it: %s", r.body)
		}
		if strings.Contains(string(r.body), "root: site") || strings.Contains(string(r.body), `"name"`) && strings.Contains(string(r.body), "package") {
			t.Errorf("%s read a file outside the root: %s", body, r.body)
		}
	}
	for _, c := range [][3]string{
		{"POST", "/api/v1/pages", `{"slug": "../x", "title": "x"}`},
		{"POST", "/api/v1/pages", `{"slug": "../../folio", "title": "x"}`},
		{"POST", "/api/v1/content/post", `{"slug": "../../../README", "title": "x"}`},
		{"PUT", "/api/v1/pages/..%2F..%2Ffolio", `{"title": "x"}`},
		{"PUT", "/api/v1/content/post/..%2F..%2F..%2Fx", `{"title": "x"}`},
		{"DELETE", "/api/v1/content/..%2F..%2Fsrc/css", ``},
		{"POST", "/api/v1/content/..", `{"slug": "x", "title": "x"}`},
	} {
		r := box.do(t, c[0], c[1], key, c[2])
		t.Logf("%s %s: %d %s", c[0], c[1], r.status, strings.TrimSpace(string(r.body)))
		if r.status < 400 || r.status >= 500 {
			t.Errorf("%s %s: %d %s, want a 4xx", c[0], c[1], r.status, r.body)
		}
	}
	if now := strings.TrimSpace(testkit.Git(t, dir, "rev-parse", "main")); now != start {
		t.Fatalf("a refused write committed: %s", testkit.Git(t, dir, "log", "--stat", start+"..main"))
	}

	// Two editors open chemex; each saves with the base it opened.
	var entry struct {
		Data string
		File struct{ ID string }
	}
	r := box.do(t, "POST", "/api/v1/decap", key, `{"action":"getEntry","params":{"branch":"main","path":"content/post/chemex.md"}}`)
	if err := json.Unmarshal(r.body, &entry); err != nil || entry.File.ID == "" {
		t.Fatalf("getEntry: %d %s", r.status, r.body)
	}
	save := func(raw string) httpResult {
		b, _ := json.Marshal(map[string]any{"action": "persistEntry", "params": map[string]any{"branch": "main",
			"dataFiles": []map[string]any{{"slug": "chemex", "path": "content/post/chemex.md", "raw": raw, "base": entry.File.ID}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "post", "commitMessage": "Update chemex"}}})
		return box.do(t, "POST", "/api/v1/decap", key, string(b))
	}
	a := strings.Replace(entry.Data, "title:", "title: A says", 1)
	if r := save(a); r.status != 200 {
		t.Fatalf("editor A: %d %s", r.status, r.body)
	}
	b := strings.Replace(entry.Data, "title:", "title: B says", 1)
	r = save(b)
	t.Logf("editor B on the same field with A's base: %d %s", r.status, r.body)
	if r.status != 409 && r.status != 412 {
		t.Errorf("editor B overwrote A: %d %s", r.status, r.body)
	}
	if got := testkit.Git(t, dir, "show", "main:site/content/post/chemex.md"); !strings.Contains(got, "A says") || strings.Contains(got, "B says") {
		t.Errorf("chemex after two editors:\n%s", got)
	}
	if out := strings.TrimSpace(testkit.Git(t, dir, "diff", "--name-only", start, "main")); out != "site/content/post/chemex.md" {
		t.Errorf("the writes changed %q, want site/content/post/chemex.md only", out)
	}
}
