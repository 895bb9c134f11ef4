package server_test

import (
	"context"
	"runtime/metrics"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// heapAllocs is the bytes the process allocated so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestNewLeavesOpenAPIForLater: New does not encode the OpenAPI document
// (its YAML decoded, its JSON encoded: about 5% of the CPU time of a 10k
// restart to its first answer); the first request for it does, and gets
// the same document. Not parallel: it reads what the process allocates.
func TestNewLeavesOpenAPIForLater(t *testing.T) {
	repo := newRepo(t, map[string]string{"folio.yaml": "types:\n  posts: {public: true}\n", "content/posts/a.md": "---\ntitle: A\n---\nBody.\n"})
	eng, err := engine.Open(context.Background(), engine.Config{Site: repo.bare, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	keys, err := server.OpenKeys(t.TempDir() + "/keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.OpenAPI(); err != nil { // the decoders' first use
		t.Fatal(err)
	}
	before := heapAllocs()
	server.OpenAPI()
	encode := heapAllocs() - before
	before = heapAllocs()
	server.New(server.Config{Engine: eng, Keys: keys, AllowMissingKeys: true})
	made := heapAllocs() - before
	if made >= encode {
		t.Errorf("New allocated %d bytes, encoding the OpenAPI document alone %d: New encodes it", made, encode)
	}

	ts := startServer(t, repo.bare)
	want, _ := server.OpenAPI()
	if got := get(t, ts.URL+"/api/v1/openapi.json", ""); got.Status != 200 || string(got.Body) != string(want) {
		t.Errorf("GET /api/v1/openapi.json: %d, %d bytes; want the document, %d bytes", got.Status, len(got.Body), len(want))
	}
}
