package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/server"
)

// The Decap RPC checks the action's scope before it reads the params
// (issue 29): a persistMedia by a key without media:write is answered
// 403 while its body is still being sent, and the rest is never read.
func TestDecapScopeBeforeBody(t *testing.T) {
	t.Parallel()
	repo, w, _ := decapBoxes(t)
	key := w.key(t, "ada", server.ScopeContentRead, server.ScopeContentWrite)
	before := git(t, repo.bare, "rev-parse", "main")

	pr, pw := io.Pipe()
	sent := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		// The action, the start of params, 1 MB of base64; then the
		// body stays open until the answer has come.
		_, err := io.WriteString(pw, `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/a.png","encoding":"base64","content":"`)
		if err == nil {
			_, err = io.Copy(pw, io.LimitReader(aReader{}, 1<<20))
		}
		sent <- err
		<-release
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	req, _ := http.NewRequest("POST", w.URL+"/api/v1/decap", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	type answer struct {
		r   response
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		answered <- answer{r: response{Status: res.StatusCode, Header: res.Header, Body: b}}
	}()
	select {
	case a := <-answered:
		close(release)
		if a.err != nil {
			t.Fatal(a.err)
		}
		wantError(t, a.r, http.StatusForbidden, "FORBIDDEN")
	case <-time.After(20 * time.Second):
		close(release)
		t.Fatal("no answer while the body was open: the server waits for the whole body before it checks the scope")
	}
	if git(t, repo.bare, "rev-parse", "main") != before {
		t.Fatal("a refused call committed")
	}
}

// An asset's base64 is streamed to the library (spooled, decoded as a
// stream): a persistMedia and a persistEntry with assets far over the
// spool threshold store the exact bytes, escapes ("\/") and all.
func TestDecapStreamsAssets(t *testing.T) {
	t.Parallel()
	_, w, _ := decapBoxes(t)
	key := w.key(t, "mel", server.ScopeContentRead, server.ScopeContentWrite, server.ScopeMediaWrite)
	img := noisePNG(t, 320, 320)
	b64 := base64.StdEncoding.EncodeToString(img)
	if len(b64) < 256<<10 {
		t.Fatalf("the test image is %d bytes of base64: too small to be spooled", len(b64))
	}
	// As some encoders write it: every '/' escaped, lines broken by \n.
	escaped := strings.ReplaceAll(b64, "/", `\/`)
	escaped = escaped[:1000] + `\n` + escaped[1000:]
	body := `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/big.png","content":"` + escaped + `","encoding":"base64"}}}`
	r := do(t, "POST", w.URL+"/api/v1/decap", key, strings.NewReader(body), "Content-Type", "application/json")
	wantOK(t, r)
	var pm struct{ Path string }
	json.Unmarshal(r.Body, &pm)
	if got := get(t, w.URL+pm.Path, ""); got.Status != 200 || !bytes.Equal(got.Body, img) {
		t.Fatalf("stored: %d, %d bytes, want the %d of the original", got.Status, len(got.Body), len(img))
	}

	// persistEntry with the asset before the entry.
	body = `{"action":"persistEntry","params":{"branch":"main","assets":[{"path":"uploads/cover.png","content":"` + b64 + `","encoding":"base64"}],` +
		`"dataFiles":[{"slug":"big","path":"content/posts/big.md","raw":"---\ntitle: Big\ncover: /uploads/cover.png\n---\nBody.\n"}],` +
		`"options":{"commitMessage":"Create big"}}}`
	r = do(t, "POST", w.URL+"/api/v1/decap", key, strings.NewReader(body), "Content-Type", "application/json")
	wantOK(t, r)
	g := get(t, w.URL+"/api/v1/content/posts/big", key)
	var doc struct{ Data struct{ Cover string } }
	json.Unmarshal(g.Body, &doc)
	if got := get(t, w.URL+doc.Data.Cover, ""); got.Status != 200 || !bytes.Equal(got.Body, img) {
		t.Fatalf("entry's asset %q: %d, %d bytes", doc.Data.Cover, got.Status, len(got.Body))
	}

	// Not base64: 400, nothing stored.
	bad := `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/bad.png","content":"` + strings.Repeat("!", 300<<10) + `","encoding":"base64"}}}`
	wantError(t, do(t, "POST", w.URL+"/api/v1/decap", key, strings.NewReader(bad), "Content-Type", "application/json"), 400, "BAD_REQUEST")
	// A long content in another action is not an asset: 400.
	notes := `{"action":"addNote","params":{"branch":"main","collection":"posts","slug":"big","note":{"content":"` + strings.Repeat("x", 300<<10) + `"}}}`
	r = do(t, "POST", w.URL+"/api/v1/decap", key, strings.NewReader(notes), "Content-Type", "application/json")
	if r.Status < 400 || r.Status >= 500 {
		t.Fatalf("a long note: %d %.200s", r.Status, r.Body)
	}
}

// noisePNG is a w×h PNG of random pixels: it does not compress.
func noisePNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
