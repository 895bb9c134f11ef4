package server

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/folio-cms/folio/engine"
	"github.com/julienschmidt/httprouter"
	"go.yaml.in/yaml/v3"
)

// openapiYAML is the OpenAPI 3.1 document of the API. It is written by
// hand in YAML (easier to read and review than the JSON it becomes) beside
// the route table; the tests keep the two in step (every route documented,
// scopes as the table has them) and validate every response the server
// tests receive against it.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPI returns the OpenAPI document as JSON, as GET
// /api/v1/openapi.json serves it.
func OpenAPI() ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(openapiYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// openapiBody is the document encoded once, with its ETag. A server
// encodes it on the first request that needs it, not in New: decoding
// the YAML and encoding the JSON was about 5% of the CPU time of a 10k
// restart to its first answer.
type openapiBody struct {
	body []byte
	etag string
}

func newOpenAPIBody() openapiBody {
	b, err := OpenAPI()
	if err != nil {
		// The file is embedded and checked by the tests: this is a build
		// that was never tested.
		panic(err)
	}
	return openapiBody{body: b, etag: engine.ETag(b)}
}

// openapi serves the document; when the site has a content model, with a
// component schema per type (see buildTyped): the public types' for
// anyone, every type's for a key with content:read.
func (s *contentHandlers) openapi(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if k := keyFrom(r.Context()); k != nil && k.Has(ScopeContentRead) {
		d := s.openapiFor(true)
		return serveBody(w, r, d.body, d.etag, cachePrivate, keyHdr{})
	}
	d := s.openapiFor(false)
	return serveBody(w, r, d.body, d.etag, cachePublicShort, keyHdr{})
}
