package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// Folder names may not carry bidirectional overrides or other invisible
// formatting characters ("/\u202eevil" shows as "live"), nor be longer
// than 100 characters; other Unicode names are fine. Before, both were
// created.
func TestFolderNamesRefused(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	post := func(path string) response {
		return do(t, http.MethodPost, ms.URL+"/api/v1/media/folders", ms.write, strings.NewReader(`{"path":`+jsonString(path)+`}`), "Content-Type", "application/json")
	}
	for _, bad := range []string{"/\u202eevil", "/a/b\u2066c", "/x\u200by", "/\u200fz", "/" + strings.Repeat("a", 300), "/ok/" + strings.Repeat("é", 101)} {
		wantError(t, post(bad), http.StatusBadRequest, "BAD_REQUEST")
	}
	for _, good := range []string{"/" + strings.Repeat("a", 100), "/é/ü", "/family-\U0001F468\u200d\U0001F469", "/日本"} {
		if r := post(good); r.Status != http.StatusCreated {
			t.Errorf("create %q: %d %s", good, r.Status, r.Body)
		}
	}
	r := get(t, ms.URL+"/api/v1/media/folders", ms.read)
	if strings.Contains(string(r.Body), "evil") || strings.Contains(string(r.Body), strings.Repeat("a", 101)) {
		t.Fatalf("a refused folder was created: %s", r.Body)
	}
}
