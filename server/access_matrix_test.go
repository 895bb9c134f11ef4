package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
	"github.com/folio-cms/folio/server/decap"
)

// matrixKeys are the callers of the access matrix: no key, a preview
// token (minted by a key holding every content scope, sent as ?preview=
// with no key), a key of each scope alone, and the combinations an
// editor holds.
var matrixKeys = []struct {
	name   string
	scopes []string
}{
	{"anonymous", nil},
	{"token", nil},
	{"content:read", []string{server.ScopeContentRead}},
	{"content:preview", []string{server.ScopeContentPreview}},
	{"content:draft", []string{server.ScopeContentDraft}},
	{"content:write", []string{server.ScopeContentWrite}},
	{"media:read", []string{server.ScopeMediaRead}},
	{"media:write", []string{server.ScopeMediaWrite}},
	{"media:delete", []string{server.ScopeMediaDelete}},
	{"write+read", []string{server.ScopeContentWrite, server.ScopeContentRead}},
	{"editor", []string{server.ScopeContentWrite, server.ScopeContentRead, server.ScopeContentDraft}},
	{"write+media", []string{server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete}},
}

// holds tells whether a key of scopes holds every scope of need (as the
// rule is documented: content:draft implies content:preview).
func holds(scopes, need []string) bool {
	for _, n := range need {
		if !slices.Contains(scopes, n) && !(n == server.ScopeContentPreview && slices.Contains(scopes, server.ScopeContentDraft)) {
			return false
		}
	}
	return true
}

// matrixRow is one write-side route: a request that the route's
// authorization lets through or not, the scopes it needs (written here,
// not read from the route table: the test checks the table against
// them), and the status a caller holding them gets.
type matrixRow struct {
	method, path string // as the route table has them
	url, body    string // a concrete request; url relative to the box
	need         []string
	none         bool // no key needed (the answer is ok for every caller)
	ok           int
}

var writeRows = []matrixRow{
	{"POST", "/api/v1/hooks/git", "/api/v1/hooks/git", `{}`, nil, true, http.StatusNotFound},
	// Sign-in is off on this box: 404 for everyone (signin_test.go covers
	// sign-out with sessions).
	{"POST", "/api/v1/auth/logout", "/api/v1/auth/logout", ``, nil, true, http.StatusNotFound},
	{"PUT", "/api/v1/globals", "/api/v1/globals", `{"siteName":"Site"}`, []string{server.ScopeContentWrite}, false, http.StatusOK},
	{"PATCH", "/api/v1/globals", "/api/v1/globals", `{"siteName":"Site"}`, []string{server.ScopeContentWrite}, false, http.StatusOK},
	{"POST", "/api/v1/publish", "/api/v1/publish", `{}`, []string{server.ScopeContentWrite, server.ScopeContentDraft}, false, http.StatusConflict},
	{"POST", "/api/v1/pages", "/api/v1/pages", `{}`, []string{server.ScopeContentWrite}, false, http.StatusUnprocessableEntity},
	{"PUT", "/api/v1/pages/*slug", "/api/v1/pages/nope", `{"title":"N"}`, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"PATCH", "/api/v1/pages/*slug", "/api/v1/pages/nope", `{"title":"N"}`, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"DELETE", "/api/v1/pages/*slug", "/api/v1/pages/nope", ``, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"POST", "/api/v1/content/:type", "/api/v1/content/posts", `{}`, []string{server.ScopeContentWrite}, false, http.StatusUnprocessableEntity},
	{"PUT", "/api/v1/content/:type/*slug", "/api/v1/content/posts/nope", `{"title":"N"}`, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"PATCH", "/api/v1/content/:type/*slug", "/api/v1/content/posts/nope", `{"title":"N"}`, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"DELETE", "/api/v1/content/:type/*slug", "/api/v1/content/posts/nope", ``, []string{server.ScopeContentWrite}, false, http.StatusNotFound},
	{"POST", "/api/v1/previews", "/api/v1/previews", `{"ref":"nope"}`, []string{server.ScopeContentPreview}, false, http.StatusNotFound},
	{"POST", "/api/v1/media", "/api/v1/media", `{}`, []string{server.ScopeMediaWrite}, false, http.StatusBadRequest},
	{"POST", "/api/v1/media/folders", "/api/v1/media/folders", `{}`, []string{server.ScopeMediaWrite}, false, http.StatusBadRequest},
	{"DELETE", "/api/v1/media/folders", "/api/v1/media/folders", `{}`, []string{server.ScopeMediaDelete}, false, http.StatusBadRequest},
	{"POST", "/api/v1/media/presign", "/api/v1/media/presign", `{"filename":"a.png","mimeType":"image/png","size":10}`, []string{server.ScopeMediaWrite}, false, http.StatusBadRequest},
	{"POST", "/api/v1/media/confirm", "/api/v1/media/confirm", `{}`, []string{server.ScopeMediaWrite}, false, http.StatusBadRequest},
	{"PATCH", "/api/v1/media/:id", "/api/v1/media/nope", `{"alt":"x"}`, []string{server.ScopeMediaWrite}, false, http.StatusNotFound},
	{"DELETE", "/api/v1/media/:id", "/api/v1/media/nope", ``, []string{server.ScopeMediaDelete}, false, http.StatusNotFound},
	{"POST", "/api/v1/decap", "/api/v1/decap", `{"action":"info","params":{}}`, []string{server.ScopeContentWrite}, false, http.StatusOK},
}

// decapRows are the RPC's actions: the scopes each needs on top of the
// route's content:write, a request, and the answer of a caller holding
// them.
var decapRows = map[string]struct {
	need   []string
	params string
	ok     int
}{
	"info":                         {nil, `{}`, 200},
	"entriesByFolder":              {readEntries, `{"branch":"main","folder":"content/posts","extension":"md","depth":1}`, 200},
	"entriesByFiles":               {readEntries, `{"branch":"main","files":[{"path":"content/posts/hello.md"}]}`, 200},
	"getEntry":                     {readEntries, `{"branch":"main","path":"content/posts/hello.md"}`, 200},
	"persistEntry":                 {nil, `{"branch":"main","dataFiles":[{"slug":"x","path":"folio.yaml","raw":"x"}],"assets":[],"options":{}}`, 400},
	"deleteFiles":                  {nil, `{"branch":"main","paths":["content/posts/nope.md"]}`, 404},
	"deleteFile":                   {nil, `{"branch":"main","path":"content/posts/nope.md"}`, 404},
	"getMedia":                     {[]string{server.ScopeMediaRead}, `{"branch":"main"}`, 200},
	"getMediaFile":                 {[]string{server.ScopeMediaRead}, `{"branch":"main","path":"/uploads/nope.png"}`, 404},
	"persistMedia":                 {[]string{server.ScopeMediaWrite}, `{"branch":"main","asset":{"path":"uploads/a.png","content":"!!","encoding":"base64"}}`, 400},
	"unpublishedEntries":           {readEntries, `{"branch":"main"}`, 200},
	"unpublishedEntry":             {readEntries, `{"branch":"main","id":"posts/nope"}`, 404},
	"unpublishedEntryDataFile":     {readEntries, `{"branch":"main","collection":"posts","slug":"nope","path":"content/posts/nope.md"}`, 404},
	"unpublishedEntryMediaFile":    {[]string{server.ScopeMediaRead}, `{"branch":"main","collection":"posts","slug":"nope","path":"/uploads/nope.png"}`, 404},
	"deleteUnpublishedEntry":       {nil, `{"branch":"main","collection":"posts","slug":"nope"}`, 404},
	"updateUnpublishedEntryStatus": {nil, `{"branch":"main","collection":"posts","slug":"nope","newStatus":"draft"}`, 404},
	"publishUnpublishedEntry":      {nil, `{"branch":"main","collection":"posts","slug":"nope"}`, 404},
	"getNotes":                     {readEntries, `{"branch":"main","collection":"posts","slug":"nope"}`, 200},
	"addNote":                      {readEntries, `{"branch":"main","collection":"posts","slug":"nope","note":{"content":"x"}}`, 404},
	"updateNote":                   {readEntries, `{"branch":"main","collection":"posts","slug":"nope","noteId":"n","updates":{"resolved":true}}`, 404},
	"deleteNote":                   {readEntries, `{"branch":"main","collection":"posts","slug":"nope","noteId":"n"}`, 404},
	"toggleNoteResolution":         {readEntries, `{"branch":"main","collection":"posts","slug":"nope","noteId":"n"}`, 404},
	"getPRMetadata":                {nil, `{"branch":"main","collection":"posts","slug":"nope"}`, 200},
	"getDeployPreview":             {nil, `{"branch":"main","collection":"posts","slug":"nope"}`, 200},
}

var readEntries = []string{server.ScopeContentRead, server.ScopeContentDraft}

// TestAccessMatrix calls every write-side route of the route table and
// every action of the Decap RPC as each caller of matrixKeys and asserts
// the status: 401 without a key, 403 for a key lacking a scope the row
// names, the row's answer otherwise. A route or an action without a row
// fails the test.
func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	ts := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()),
		func(_ *engine.Config, c *server.Config) { c.PreviewSecret = "s3cret" })
	keys := map[string]string{}
	for _, k := range matrixKeys {
		if k.scopes != nil {
			keys[k.name] = ts.key(t, "m-"+strings.NewReplacer(":", "-", "+", "-").Replace(k.name), k.scopes...)
		}
	}
	all := ts.key(t, "minter", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentPreview)
	r := do(t, http.MethodPost, ts.URL+"/api/v1/previews", all, strings.NewReader(`{"ref":"main"}`), "Content-Type", "application/json")
	var tok struct{ Token string }
	if json.Unmarshal(r.Body, &tok); tok.Token == "" {
		t.Fatalf("minting a token: %d %s", r.Status, r.Body)
	}

	call := func(method, url, body, caller string) response {
		t.Helper()
		if caller == "token" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			url += sep + "preview=" + tok.Token
		}
		var h []string
		if body != "" {
			h = []string{"Content-Type", "application/json"}
		}
		return do(t, method, ts.URL+url, keys[caller], strings.NewReader(body), h...)
	}
	want := func(need []string, none bool, ok int, caller string, scopes []string) int {
		switch {
		case none:
			return ok
		case caller == "anonymous" || caller == "token":
			return http.StatusUnauthorized
		case !holds(scopes, need):
			return http.StatusForbidden
		}
		return ok
	}

	// Every write-side route of the table has a row, and no row is stale.
	srv := ts.Handler.(*server.Server)
	rows := map[string]matrixRow{}
	for _, row := range writeRows {
		rows[row.method+" "+row.path] = row
	}
	seen := map[string]bool{}
	for _, rte := range srv.Table() {
		if rte.Method == http.MethodGet {
			continue
		}
		id := rte.Method + " " + rte.Path
		seen[id] = true
		row, ok := rows[id]
		if !ok {
			t.Errorf("%s has no row in the access matrix: add one (writeRows)", id)
			continue
		}
		if !row.none && (!rte.KeyRequired || !holds(row.need, rte.Scopes)) {
			t.Errorf("%s: the table says scopes %v (key required %v), the matrix %v", id, rte.Scopes, rte.KeyRequired, row.need)
		}
	}
	for id := range rows {
		if !seen[id] {
			t.Errorf("the matrix row %s names no route of the table", id)
		}
	}
	for _, row := range writeRows {
		for _, k := range matrixKeys {
			got := call(row.method, row.url, row.body, k.name)
			if w := want(row.need, row.none, row.ok, k.name, k.scopes); got.Status != w {
				t.Errorf("%s %s as %s: %d, want %d: %s", row.method, row.url, k.name, got.Status, w, got.Body)
			}
		}
	}

	// Every action of the RPC has a row.
	actions := decap.Actions()
	var rowNames []string
	for a := range decapRows {
		rowNames = append(rowNames, a)
	}
	sort.Strings(rowNames)
	if !slices.Equal(actions, rowNames) {
		t.Errorf("the RPC's actions %v, the matrix's %v", actions, rowNames)
	}
	for _, a := range actions {
		row := decapRows[a]
		if !slices.Equal(decap.ActionScopes(a), row.need) {
			t.Errorf("%s: the RPC asks for %v, the matrix %v", a, decap.ActionScopes(a), row.need)
		}
		for _, k := range matrixKeys {
			got := call(http.MethodPost, "/api/v1/decap", `{"action":"`+a+`","params":`+row.params+`}`, k.name)
			w := want(append([]string{server.ScopeContentWrite}, row.need...), false, row.ok, k.name, k.scopes)
			if got.Status != w {
				t.Errorf("decap %s as %s: %d, want %d: %s", a, k.name, got.Status, w, got.Body)
			}
		}
	}
}
