package server_test

import (
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// TestKeyStore_InvalidFile: an edit of the keys file that revokes a key
// but leaves a typo is logged with path:line at error level, shown in the
// status and the metrics, and the revoked key stops working while the
// untouched one keeps working; a file that holds no hash refuses every
// key; once the file is valid again, it counts within a second.
func TestKeyStore_InvalidFile(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m := server.NewMetrics()
	ts := startServer(t, newRepo(t, map[string]string{"pages/home.md": "---\ntitle: Home\n---\nHi\n"}).bare,
		withLog(&logs), func(_ *engine.Config, s *server.Config) { s.Metrics = m })
	ms := httptest.NewServer(m.Handler())
	defer ms.Close()
	revoked := ts.key(t, "revoked", server.ScopeContentRead)
	kept := ts.key(t, "kept", server.ScopeContentRead)
	path := ts.keysFile
	valid, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	url := ts.URL + "/api/v1/pages/home"
	eventually(t, "both keys accepted", func() bool {
		return get(t, url, revoked).Status == 200 && get(t, url, kept).Status == 200
	})
	if v := metric(scrape(t, ms.URL+"/metrics"), "folio_keys_file_invalid"); v != 0 {
		t.Fatalf("folio_keys_file_invalid = %v with a valid file", v)
	}

	// Revoke by hand: take the key's entry out, and leave a typo (a tab
	// for indentation) on the line of the other key's scopes.
	var kept1 []string
	entries := strings.Split(string(valid), "\n    - name: ")
	for _, e := range entries {
		if !strings.HasPrefix(e, "revoked\n") {
			kept1 = append(kept1, e)
		}
	}
	broken := strings.Join(kept1, "\n    - name: ")
	broken = strings.Replace(broken, "      scopes:", "\tscopes:", 1)
	if broken == string(valid) || strings.Count(broken, "hash:") != 1 {
		t.Fatalf("the edit did not do what the test wants:\n%s", broken)
	}
	writeKeys(t, path, broken)
	eventually(t, "the revoked key refused", func() bool { return get(t, url, revoked).Status == 401 })
	if r := get(t, url, kept); r.Status != 200 {
		t.Fatalf("the untouched key while the file is invalid: %d %s", r.Status, r.Body)
	}
	st := get(t, ts.URL+"/api/v1/status", kept).json(t)
	kf, _ := st["keysFile"].(map[string]any)
	if kf == nil || kf["path"] != path || kf["line"] == nil || kf["keptKeys"] != float64(1) {
		t.Fatalf("status keysFile = %v", st["keysFile"])
	}
	line := int(kf["line"].(float64))
	if !regexp.MustCompile(`level=ERROR .*keys file ` + regexp.QuoteMeta(path) + `:` + itoa(line) + `: `).MatchString(logs.String()) {
		t.Errorf("no error log naming %s:%d:\n%s", path, line, logs.String())
	}
	if v := metric(scrape(t, ms.URL+"/metrics"), "folio_keys_file_invalid"); v != 1 {
		t.Errorf("folio_keys_file_invalid = %v with an invalid file", v)
	}

	// A file that holds no hash at all refuses every key.
	writeKeys(t, path, "keys: [\n")
	eventually(t, "every key refused", func() bool { return get(t, url, kept).Status == 401 })

	// Valid again, without the revoked key: within a second.
	writeKeys(t, path, strings.Replace(broken, "\tscopes:", "      scopes:", 1))
	start := time.Now()
	eventually(t, "the fixed file's key accepted", func() bool { return get(t, url, kept).Status == 200 })
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the fixed file counted after %v", took)
	}
	if r := get(t, url, revoked); r.Status != 401 {
		t.Fatalf("the revoked key with the file valid again: %d", r.Status)
	}
	if st := get(t, ts.URL+"/api/v1/status", kept).json(t); st["keysFile"] != nil {
		t.Fatalf("status keysFile with a valid file: %v", st["keysFile"])
	}
	if v := metric(scrape(t, ms.URL+"/metrics"), "folio_keys_file_invalid"); v != 0 {
		t.Errorf("folio_keys_file_invalid = %v once valid again", v)
	}
}

// writeKeys replaces the keys file, as an editor saving it would, with
// a modification time the store cannot mistake for the last one.
func writeKeys(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
