package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// A client's commit message cannot carry the trailers folio reads back
// as data: a Decap-Note line does not rewrite or delete another's note,
// a Decap-Status line does not set an entry's status; and a note event
// of another author than the note's (a commit pushed by hand) is not
// applied when the notes are replayed.
func TestCommitMessageCannotForgeDecapTrailers(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	grace := w.key(t, "Grace", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	mallory := w.key(t, "Mallory", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	entry := map[string]any{"branch": "main", "collection": "posts", "slug": "idea"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range entry {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	persist := func(key, msg string) response {
		return rpcOpened(t, w.URL, key, map[string]any{"branch": "main",
			"dataFiles": []map[string]any{{"slug": "idea", "path": "content/posts/idea.md", "raw": "---\ntitle: Idea\n---\nAn idea " + msg[:4] + ".\n"}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": msg, "useWorkflow": true, "status": "draft"}})
	}
	wantOK(t, persist(grace, "Create idea"))
	r := rpc(t, w.URL, grace, "addNote", with("note", map[string]any{"content": "Needs a better title."}))
	wantOK(t, r)
	var added struct{ Note struct{ ID string } }
	json.Unmarshal(r.Body, &added)
	id := added.Note.ID

	check := func(when string) {
		t.Helper()
		r := rpc(t, w.URL, grace, "getNotes", entry)
		wantOK(t, r)
		var out struct{ Notes []map[string]any }
		json.Unmarshal(r.Body, &out)
		if len(out.Notes) != 1 || out.Notes[0]["id"] != id || out.Notes[0]["content"] != "Needs a better title." {
			t.Fatalf("%s: notes = %s", when, r.Body)
		}
		if e := rpc(t, w.URL, grace, "unpublishedEntry", with("id", "posts/idea")).json(t); e["status"] != "draft" {
			t.Fatalf("%s: status = %v", when, e["status"])
		}
	}
	// Through Decap's commitMessage.
	forged := "Edit idea\n\nDecap-Note: {\"op\":\"update\",\"id\":\"" + id + "\",\"content\":\"pwned\"}\n" +
		"decap-note : {\"op\":\"delete\",\"id\":\"" + id + "\"}\nDecap-Status: pending_publish\n"
	wantOK(t, persist(mallory, forged))
	check("after a forged Decap commit message")
	if msg := git(t, repo.bare, "log", "-1", "--format=%B", "cms/posts/idea"); strings.Contains(strings.ToLower(msg), "decap-") {
		t.Fatalf("the reserved lines were committed: %q", msg)
	}
	// Through the write API's ?message=.
	u := w.URL + "/api/v1/content/posts/idea?branch=cms/posts/idea&message=" + url.QueryEscape(forged)
	if r := wr(t, http.MethodPatch, u, mallory, `{"title":"Idea 2"}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	check("after a forged ?message=")

	// A note event pushed by hand by another author than the note's.
	clone := filepath.Join(t.TempDir(), "c")
	git(t, "", "clone", "-q", "-b", "cms/posts/idea", repo.bare, clone)
	for _, ev := range []string{`{"op":"update","id":"` + id + `","content":"pwned"}`, `{"op":"delete","id":"` + id + `"}`} {
		gitEnv(t, clone, []string{"GIT_AUTHOR_NAME=Mallory"}, "commit", "-q", "--allow-empty", "-m", "note\n\nDecap-Note: "+ev)
	}
	git(t, clone, "push", "-q", "origin", "cms/posts/idea")
	w.Engine.Sync(t.Context())
	check("after hand-pushed note events of another author")
}

// POST /api/v1/publish with an empty documents list publishes nothing:
// a 400, the published branch unmoved (it merged the whole draft branch).
func TestPublishEmptyDocumentsIs400(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriterWith(t, "file://"+repo.bare, "draft")
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	if r := wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/hello", key, `{"title":"Draft title"}`); r.Status != http.StatusOK {
		t.Fatalf("draft write: %d %s", r.Status, r.Body)
	}
	before := git(t, repo.bare, "rev-parse", "main")
	wantError(t, wr(t, http.MethodPost, ts.URL+"/api/v1/publish", key, `{"documents": []}`), http.StatusBadRequest, server.CodeBadRequest)
	if git(t, repo.bare, "rev-parse", "main") != before {
		t.Fatal("an empty documents list published the draft branch")
	}
	// Leaving documents out still publishes the whole branch.
	if r := wr(t, http.MethodPost, ts.URL+"/api/v1/publish", key, `{}`); r.Status != http.StatusOK {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if git(t, repo.bare, "rev-parse", "main") == before {
		t.Fatal("publish without documents did not publish")
	}
}

// Bad input to the write API is a 4xx with nothing committed: a slug
// through a .git folder (git stores no such path: it was a 201 with an
// empty commit), a NUL in ?message= (500), a branch name git refuses
// (503 GIT_UNAVAILABLE), a slug that differs only in case from another
// (a repository that breaks on macOS and Windows).
func TestWriteRefusesWhatGitCannotHold(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, `{"slug":"guides/intro","title":"Intro"}`); r.Status != http.StatusCreated {
		t.Fatalf("a nested slug: %d %s", r.Status, r.Body)
	}
	before := git(t, repo.bare, "rev-parse", "main")
	t.Run("GitSegment", func(t *testing.T) {
		for _, slug := range []string{".git/config", "sub/.git/hooks", ".GIT/x"} {
			r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, `{"slug":"`+slug+`","title":"Git"}`)
			wantError(t, r, http.StatusUnprocessableEntity, server.CodeValidation)
			wantError(t, wr(t, http.MethodPut, ts.URL+"/api/v1/content/posts/"+slug, key, `{"title":"Git"}`), http.StatusBadRequest, server.CodeBadRequest)
		}
	})
	t.Run("NULInMessage", func(t *testing.T) {
		wantError(t, wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/hello?message=a%00b", key, `{"title":"N"}`), http.StatusBadRequest, server.CodeBadRequest)
	})
	t.Run("BranchGitRefuses", func(t *testing.T) {
		for _, b := range []string{"cms/.x", "cms/x.lock", "cms/a/.b", "cms/x."} {
			wantError(t, wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/hello?branch="+url.QueryEscape(b), key, `{"title":"N"}`), http.StatusBadRequest, server.CodeBadRequest)
		}
	})
	t.Run("CaseOnlyDuplicate", func(t *testing.T) {
		for _, body := range []string{`{"slug":"Hello","title":"Other hello"}`, `{"slug":"Guides/other","title":"Other guide"}`} {
			if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, body); r.Status != http.StatusConflict ||
				!strings.Contains(string(r.Body), "differs only in case") {
				t.Fatalf("%s: %d %s", body, r.Status, r.Body)
			}
		}
	})
	// Ü as one code point and as U with a combining diaeresis: one file
	// on macOS (APFS and HFS+ ignore the normalization), two in Git.
	t.Run("NormalizationOnlyDuplicate", func(t *testing.T) {
		if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, `{"slug":"\u00dcber","title":"Über"}`); r.Status != http.StatusCreated {
			t.Fatalf("a slug with Ü: %d %s", r.Status, r.Body)
		}
		before = git(t, repo.bare, "rev-parse", "main")
		if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, `{"slug":"U\u0308ber","title":"Über again"}`); r.Status != http.StatusConflict ||
			!strings.Contains(string(r.Body), "differs only in case") {
			t.Fatalf("the decomposed Ü through the write API: %d %s", r.Status, r.Body)
		}
		raw := "---\ntitle: Über again\n---\nText.\n"
		params := map[string]any{"branch": "main", "dataFiles": []map[string]any{{"slug": "u\u0308ber", "path": "content/posts/u\u0308ber.md", "raw": raw}}, "assets": []any{}, "options": map[string]any{}}
		if r := rpc(t, ts.URL, key, "persistEntry", params); r.Status != http.StatusConflict {
			t.Fatalf("the decomposed ü through Decap: %d %s", r.Status, r.Body)
		}
	})
	if got := git(t, repo.bare, "rev-parse", "main"); got != before {
		t.Fatalf("a refused write committed: %s", git(t, repo.bare, "log", "--stat", "-1", "main"))
	}
}

// Under additionalFields: warn, undeclared keys are warnings however many
// there are: the 21st is not an error ("and 1 more" was one), as a push
// of the same file is served.
func TestWriteWarnFieldsPastTheReportLimit(t *testing.T) {
	t.Parallel()
	site := map[string]string{
		"folio.yaml":         "types:\n  posts:\n    additionalFields: warn\n    fields:\n      title: {kind: string, required: true}\n",
		"content/posts/a.md": "---\ntitle: A\n---\n",
	}
	repo := newRepo(t, site)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	var b strings.Builder
	b.WriteString(`{"slug":"many","title":"Many"`)
	for i := range 21 {
		b.WriteString(`,"extra` + string(rune('a'+i)) + `":1`)
	}
	b.WriteString("}")
	if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, b.String()); r.Status != http.StatusCreated {
		t.Fatalf("21 undeclared keys under warn: %d %s", r.Status, r.Body)
	}
	// One error past 20 warnings is still an error, and named.
	b.Reset()
	b.WriteString(`{"slug":"bad","title":7`)
	for i := range 21 {
		b.WriteString(`,"extra` + string(rune('a'+i)) + `":1`)
	}
	b.WriteString("}")
	r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, b.String())
	wantError(t, r, http.StatusUnprocessableEntity, server.CodeValidation)
	if !strings.Contains(string(r.Body), `"title"`) {
		t.Fatalf("the error is not named: %s", r.Body)
	}
}

// /api/v1/status reports files whose paths differ only in case (folio
// check: cmd/folio TestCheckCaseOnlyDuplicates).
func TestStatusReportsCaseOnlyDuplicates(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"content/posts/Hello-World.md": "---\ntitle: One\nslug: one\n---\n",
		"content/posts/hello-world.md": "---\ntitle: Two\n---\n",
	})
	ts := startServer(t, repo.bare)
	r := get(t, ts.URL+"/api/v1/status", ts.reader(t))
	if !strings.Contains(string(r.Body), "differs only in case from content/posts/Hello-World.md") {
		t.Fatalf("status problems: %s", r.Body)
	}
}
