package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

func TestKeyOwnerExpiryLastUsed(t *testing.T) {
	clk := newClock(time.Now())
	repo := newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\n"})
	ts := startServer(t, "file://"+repo.bare, func(_ *engine.Config, sc *server.Config) { sc.Now = clk.Now })
	key := ts.key(t, "ana-laptop", server.ScopeContentRead)
	if err := ts.keys.SetAccount("ana-laptop", "ana@example.com", clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !ts.keys.LastUsed("ana-laptop").IsZero() {
		t.Fatal("used before any request")
	}
	if r := get(t, ts.URL+"/api/v1/content/posts", key); r.Status != http.StatusOK {
		t.Fatalf("before expiry: %d %s", r.Status, r.Body)
	}
	if used := ts.keys.LastUsed("ana-laptop"); clk.Now().Sub(used) > time.Second {
		t.Fatalf("last used %v, want now", used)
	}
	eventually(t, "the usage file", func() bool {
		b, _ := os.ReadFile(ts.keysFile + ".used")
		return strings.Contains(string(b), "ana-laptop:")
	})
	keys, _ := ts.keys.List()
	if keys[0].Owner != "ana@example.com" || keys[0].ExpiresAt == nil {
		t.Fatalf("stored: %+v", keys[0])
	}
	clk.Add(time.Hour)
	r := get(t, ts.URL+"/api/v1/content/posts", key)
	wantError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	if !strings.Contains(string(r.Body), "expired") {
		t.Fatalf("the 401 does not say the key expired: %s", r.Body)
	}
}
