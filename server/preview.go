package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/julienschmidt/httprouter"
)

// Preview links (POST /api/v1/previews, ?preview=<token>): a signed token
// that serves one ref on the GET content routes without an API key, until
// it expires. The token is the JSON claims and their HMAC-SHA256 under
// --preview-secret, both base64url, joined by a dot; rotating the secret
// revokes every token.
const (
	previewDefaultTTL = time.Hour
	previewMaxTTL     = 7 * 24 * time.Hour
	// maxPreviewToken bounds the token read from a query.
	maxPreviewToken = 1024
	// previewDomain separates these signatures from any other use of the
	// secret.
	previewDomain = "folio-preview-v1\x00"
	cachePreview  = cacheNoStore
	previewsPath  = "/api/v1/previews"
)

// previewClaims are what a token says.
type previewClaims struct {
	Ref     string `json:"r"`           // branch or tag (followed), or a full commit hash
	Expires int64  `json:"e"`           // Unix seconds
	Key     string `json:"k,omitempty"` // the id of the key that made it (a person's e-mail when Person)
	// KeyHash is the start of that key's stored hash: a key revoked and
	// made again under the same id does not bring its old links back.
	// "" in a token made before folio wrote it.
	KeyHash string `json:"h,omitempty"`
	// Person: made by a signed-in person, not a key.
	Person bool `json:"p,omitempty"`
	// Scopes are the read scopes the key that made it held (of
	// previewScopes): a token grants no more than its key. nil in a
	// token made before folio wrote them: content:read only.
	Scopes []string `json:"s"`
}

// previewScopes are the scopes a token may carry from its key: reading
// the keyed content routes, and draft=true.
var previewScopes = []string{ScopeContentRead, ScopeContentDraft}

// can tells whether the token grants scope.
func (c *previewClaims) can(scope string) bool {
	if c.Scopes == nil {
		return scope == ScopeContentRead
	}
	return slices.Contains(c.Scopes, scope)
}

// Has is can, for access.missing.
func (c *previewClaims) Has(scope string) bool { return c.can(scope) }

// tokenLacks is the 403 of a token whose key did not hold scope.
func tokenLacks(scope string) error {
	return errorf(fault.Forbidden, "this preview token was made by a key without the %s scope: it grants no more than its key held", scope)
}

type previewCtx struct{}

// previewFrom is the preview a request carries, if any.
func previewFrom(ctx context.Context) *previewClaims {
	p, _ := ctx.Value(previewCtx{}).(*previewClaims)
	return p
}

func (s *contentHandlers) signPreview(c previewClaims) string {
	payload, _ := json.Marshal(c)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.previewMAC(p))
}

func (s *contentHandlers) previewMAC(payload string) []byte {
	m := hmac.New(sha256.New, []byte(s.previewSecret))
	m.Write([]byte(previewDomain))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// errBadPreview is the one answer to any token that does not hold: a
// client learns nothing of why.
var errBadPreview = errorf(fault.Unauthorized, "invalid or expired preview token")

// verifyPreview checks a token's signature and expiry.
func (s *contentHandlers) verifyPreview(tok string) (*previewClaims, error) {
	if s.previewSecret == "" || len(tok) > maxPreviewToken {
		return nil, errBadPreview
	}
	payload, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return nil, errBadPreview
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.previewMAC(payload)) {
		return nil, errBadPreview
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(payload)
	if err != nil {
		return nil, errBadPreview
	}
	var c previewClaims
	if err := json.Unmarshal(raw, &c); err != nil || c.Ref == "" {
		return nil, errBadPreview
	}
	if !s.now().Before(time.Unix(c.Expires, 0)) {
		return nil, errBadPreview
	}
	return &c, nil
}

// previewable tells whether a route serves ?preview=: the GET routes of
// pages, items and globals, keyed and public.
func (rte route) previewable() bool {
	if rte.method != http.MethodGet {
		return false
	}
	p := rte.path
	return strings.HasPrefix(p, "/api/v1/pages") || strings.HasPrefix(p, "/api/v1/content/") ||
		p == "/api/v1/globals" || strings.HasPrefix(p, "/api/v1/public/collections/")
}

// withPreview checks ?preview= on a previewable route: a valid token
// stands in for the API key (the route then needs none). A request
// without the parameter is returned as it is.
func (s *Server) withPreview(r *http.Request, rte route) (*http.Request, access, error) {
	if !rte.previewable() || !strings.Contains(r.URL.RawQuery, "preview=") {
		return r, rte.access, nil
	}
	q := query(r)
	if _, ok := q["preview"]; !ok {
		return r, rte.access, nil
	}
	c, err := s.content.verifyPreview(q.Get("preview"))
	if err != nil {
		return nil, rte.access, err
	}
	if c, err = s.previewKeyHolds(c); err != nil {
		return nil, rte.access, err
	}
	if sc := rte.access.missing(c); sc != "" {
		return nil, rte.access, tokenLacks(sc)
	}
	a := rte.access
	a.required, a.scopes = false, nil
	return r.WithContext(context.WithValue(r.Context(), previewCtx{}, c)), a, nil
}

// previewView is the view a preview token names: its ref, published view
// (draft=true adds drafts: a preview link is for people who may see the
// branch's drafts).
func (s *contentHandlers) previewView(w http.ResponseWriter, r *http.Request, c *previewClaims) (*engine.View, string, error) {
	q := query(r)
	if _, ok := q["ref"]; ok {
		return nil, "", badRequest("a preview token names its ref: drop ref=")
	}
	draft, err := parseBool(q, "draft")
	if err != nil {
		return nil, "", err
	}
	if draft && !c.can(ScopeContentDraft) {
		return nil, "", tokenLacks(ScopeContentDraft)
	}
	v, _, err := s.viewAt(w, r.Context(), c.Ref, draft)
	if err != nil {
		return nil, "", err
	}
	w.Header().Set("X-Robots-Tag", "noindex")
	return v, cachePreview, nil
}

// previewRequest is the body of POST /api/v1/previews.
type previewRequest struct {
	Ref       string `json:"ref"`
	ExpiresIn int64  `json:"expiresIn"` // seconds; default an hour, at most 7 days
}

// previewResponse is its answer.
type previewResponse struct {
	Token     string    `json:"token"`
	Ref       string    `json:"ref"`
	Kind      string    `json:"kind"`
	Commit    string    `json:"commit"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// createPreview makes a preview token for a ref: a branch or tag token
// follows the ref; a commit hash (short ones resolved now) stays on it.
func (s *contentHandlers) createPreview(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.previewSecret == "" {
		return errorf(fault.NotFound, "preview links are off: start folio with --preview-secret")
	}
	var req previewRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errorf(fault.TooLarge, "body over 4 KiB")
		}
		return badRequest("body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("body: one JSON object expected")
	}
	if req.Ref == "" {
		return badRequest("ref is required")
	}
	ttl := previewDefaultTTL
	if req.ExpiresIn != 0 {
		if req.ExpiresIn < 1 || req.ExpiresIn > int64(previewMaxTTL/time.Second) {
			return badRequest("expiresIn: 1 to %d seconds", int64(previewMaxTTL/time.Second))
		}
		ttl = time.Duration(req.ExpiresIn) * time.Second
	}
	ref, err := s.engine.ResolveRef(r.Context(), req.Ref)
	if err != nil {
		return err
	}
	name := ref.Name
	if ref.Kind == "commit" {
		name = ref.Commit
	}
	exp := s.now().Add(ttl).Truncate(time.Second)
	c := previewClaims{Ref: name, Expires: exp.Unix(), Scopes: []string{}}
	if k := keyFrom(r.Context()); k != nil {
		c.Key = k.Name
		if principalFrom(r.Context()) != nil {
			c.Person = true
		} else if len(k.Hash) >= previewKeyHash {
			c.KeyHash = k.Hash[:previewKeyHash]
		}
		for _, sc := range previewScopes {
			if k.Has(sc) {
				c.Scopes = append(c.Scopes, sc)
			}
		}
	}
	w.Header().Set("Cache-Control", cacheNoStore)
	return writeJSON(w, http.StatusCreated, previewResponse{
		Token: s.signPreview(c), Ref: name, Kind: string(ref.Kind), Commit: ref.Commit, ExpiresAt: exp.UTC(),
	})
}

// previewKeyHash is how many hex digits of its key's hash a token holds.
const previewKeyHash = 16

// previewKeyHolds is a key-made token as its key stands now: a token of a
// key revoked (or made again under its id) or expired is refused as a bad
// token, and it grants no scope its key no longer holds (a key stripped of
// content:draft stops showing drafts through its links). A box without a
// keys file (a public box given none) takes the token as signed. A
// person's token is the signature's: their sessions end by the editors
// file, their links by expiry or a new --preview-secret.
func (s *Server) previewKeyHolds(c *previewClaims) (*previewClaims, error) {
	if c.Key == "" || c.Person || s.keys == nil || s.keys.Missing() {
		return c, nil
	}
	k := s.keys.ByName(c.Key)
	if k == nil || k.Expired(s.now()) || c.KeyHash != "" && !strings.HasPrefix(k.Hash, c.KeyHash) {
		return nil, errBadPreview
	}
	held := *c
	held.Scopes = []string{}
	for _, sc := range previewScopes {
		if c.can(sc) && k.Has(sc) {
			held.Scopes = append(held.Scopes, sc)
		}
	}
	return &held, nil
}
