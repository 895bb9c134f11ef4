package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// TestServeMediaSearchRightAfterStart starts `folio serve` on a library
// of many items and searches at once, before the media search index's
// first build (which waits until a second after the box serves): the
// search answers with every match, never a part of the library.
func TestServeMediaSearchRightAfterStart(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	os.MkdirAll(filepath.Join(site, "pages"), 0o755)
	os.WriteFile(filepath.Join(site, "pages", "home.md"), []byte("---\ntitle: Home\nisHomepage: true\n---\nHi.\n"), 0o644)
	testkit.Git(t, site, "init", "-q")
	testkit.Git(t, site, "add", "-A")
	testkit.Git(t, site, "commit", "-qm", "one")

	const n = 3000
	mediaDir := t.TempDir()
	items := filepath.Join(mediaDir, local.StateDir, "items")
	if err := os.MkdirAll(items, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id := []byte(fmt.Sprintf("%016d", i)) // ValidID wants base32 letters
		for j, c := range id {
			id[j] = "abcdefghij"[c-'0']
		}
		name := fmt.Sprintf("harbour-%06d.jpg", i)
		it := media.Item{ID: string(id), Filename: name, MimeType: "image/jpeg", Size: 1234, Width: 40, Height: 30,
			Alt: "boats in the harbour", Folder: "/", Key: "2026/11/" + name, Version: 1,
			CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
		data, err := yaml.Marshal(&it)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(items, it.ID+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	stdout, _, err := runCLI(t, "keys", "create", "--keys", keysFile, "--name", "k", "--scopes", "media:read")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	key := lines[len(lines)-1]

	box := serveBox(t, "--site", site, "--cache-dir", t.TempDir(), "--keys", keysFile, "--media", mediaDir, "--log-level", "error")
	for _, q := range []string{"search=harbour", "search=boats+harbour&limit=1", "search=harbour+000007"} {
		req, _ := http.NewRequest("GET", box.URL+"/api/v1/media?"+q, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Total int }
		err = json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET ?%s: %d %v", q, res.StatusCode, err)
		}
		want := n
		if strings.Contains(q, "000007") {
			want = 1
		}
		if list.Total != want {
			t.Errorf("GET ?%s right after the start: total %d, want %d", q, list.Total, want)
		}
	}
}
