package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// access says what a route needs of the Authorization header.
type access struct {
	// scopes are the scopes required, checked in order (the first
	// missing one is named in the 403); none with required: any valid key.
	scopes   []string
	required bool // false: a key is optional, but if sent it must be valid
}

var (
	noKey    = access{}
	anyKey   = access{required: true}
	needsKey = func(scopes ...string) access { return access{scopes: scopes, required: true} }
)

// missing is the first scope of a that h does not hold; "" when it holds
// them all.
func (a access) missing(h interface{ Has(string) bool }) string {
	for _, sc := range a.scopes {
		if !h.Has(sc) {
			return sc
		}
	}
	return ""
}

type keyCtx struct{}

// keyFrom returns the verified key of the request, nil without one.
func keyFrom(ctx context.Context) *Key {
	k, _ := ctx.Value(keyCtx{}).(*Key)
	return k
}

// bearer extracts the token of "Authorization: Bearer <token>". ok is false
// for a header that is present but malformed.
func bearer(r *http.Request) (token string, present, ok bool) {
	h, present := r.Header["Authorization"]
	if !present {
		return "", false, false
	}
	if len(h) != 1 {
		return "", true, false
	}
	scheme, tok, found := strings.Cut(h[0], " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || len(tok) > 256 || strings.ContainsAny(tok, " \t") {
		return "", true, false
	}
	return tok, true, true
}

// authenticate verifies the request's key against a (or, with sessions,
// an editor's session cookie: signin.go). It returns the request carrying
// the key, or the 401/403 to send.
func (s *Server) authenticate(r *http.Request, a access, sessions bool) (*http.Request, error) {
	if _, sent := r.Header["Authorization"]; !sent && sessions {
		// An editor's session (signin.go); a key, when sent, wins.
		if sr, ok, err := s.sessionAuth(r, a); ok {
			return sr, err
		}
	}
	r, err := s.verifyKey(r, a)
	if err != nil && !s.allowNoKeys && s.keys.Missing() {
		// Said plainly rather than as a bad key: no key can be good.
		return nil, errorf(fault.NoKeys,
			"this box has no keys file (%s does not exist): keyed routes are off until it is created with 'folio keys create' (or folio is started with --allow-missing-keys)", s.keys.Path())
	}
	return r, err
}

func (s *Server) verifyKey(r *http.Request, a access) (*http.Request, error) {
	tok, present, ok := bearer(r)
	if !present {
		if a.required {
			return nil, errorf(fault.Unauthorized, "an API key is required: send Authorization: Bearer <key>")
		}
		return r, nil
	}
	if !ok {
		return nil, errorf(fault.Unauthorized, "malformed Authorization header: expected Bearer <key>")
	}
	k, valid := s.keys.Verify(tok)
	if !valid {
		return nil, errorf(fault.Unauthorized, "invalid API key")
	}
	now := s.now()
	if k.Expired(now) { // keys_account.go
		return nil, errorf(fault.Unauthorized, "this API key expired at %s", k.ExpiresAt.Format(time.RFC3339))
	}
	s.keys.touch(k.Name, now)
	if sc := a.missing(k); sc != "" {
		return nil, forbidden(sc)
	}
	return r.WithContext(context.WithValue(r.Context(), keyCtx{}, k)), nil
}

func forbidden(scope string) *fault.Error {
	return errorf(fault.Forbidden, "this API key lacks the %s scope", scope)
}

// requireScope checks a scope beyond the route's own, e.g. content:draft for
// draft=true: 401 without a key, 403 with a key lacking it.
func requireScope(r *http.Request, scope string) error {
	k := keyFrom(r.Context())
	if k == nil {
		return errorf(fault.Unauthorized, "an API key with the %s scope is required", scope)
	}
	if !k.Has(scope) {
		return forbidden(scope)
	}
	return nil
}
