package signin

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/folio-cms/folio/content/fault"
	"golang.org/x/oauth2"
)

// pending is a sign-in under way, in the login cookie between the
// redirect to the provider and its callback.
type pending struct {
	Provider string `json:"p"`
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"` // PKCE
	Return   string `json:"r"`
	Expires  int64  `json:"e"`
}

// DefaultReturn is where a sign-in lands without a return parameter.
const DefaultReturn = "/admin/content/"

// safeReturn accepts a path of this site only: no scheme, no host, no
// "//" or "\" a browser would read as another host.
func safeReturn(v string) (string, bool) {
	if v == "" {
		return DefaultReturn, true
	}
	if len(v) > 2048 || !strings.HasPrefix(v, "/") || strings.HasPrefix(v, "//") || strings.ContainsAny(v, "\\\x00\r\n\t") {
		return "", false
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(u.Path, "//") {
		return "", false
	}
	return v, true
}

func (s *Service) redirectURL(r *http.Request) string {
	scheme := "https"
	if s.Dev {
		scheme = "http"
	}
	return scheme + "://" + r.Host + CallbackPath
}

func (s *Service) oidcProvider(ctx context.Context, p *Provider) (*oidc.Provider, error) {
	s.mu.Lock()
	op := s.providers[p.Issuer]
	s.mu.Unlock()
	if op != nil {
		return op, nil
	}
	dctx, cancel := context.WithTimeout(s.ctx(ctx), 10*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(dctx, p.Issuer)
	if err != nil {
		s.log().Warn("signin: the provider's discovery failed", "provider", p.ID, "issuer", p.Issuer, "err", err)
		return nil, fault.New(fault.Unavailable, "the sign-in provider %s does not answer", p.ID)
	}
	s.mu.Lock()
	if s.providers == nil {
		s.providers = map[string]*oidc.Provider{}
	}
	s.providers[p.Issuer] = op
	s.mu.Unlock()
	return op, nil
}

func (s *Service) oauthConfig(r *http.Request, p *Provider, ep oauth2.Endpoint, scopes []string) *oauth2.Config {
	secret := ""
	if s.ClientSecret != nil {
		secret = s.ClientSecret(p.ID)
	}
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: secret, Endpoint: ep,
		RedirectURL: s.redirectURL(r), Scopes: append(scopes, p.Scopes...)}
}

// Login answers GET /api/v1/auth/login?provider=<id>&return=<path>: it
// redirects to the provider with a fresh state, nonce and PKCE challenge,
// kept in a signed cookie for the callback.
func (s *Service) Login(w http.ResponseWriter, r *http.Request) error {
	e, err := s.editors(r.Context())
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ret, ok := safeReturn(q.Get("return"))
	if !ok {
		return s.refuse(r, fault.New(fault.Invalid, "return: %q is not a path of this site", q.Get("return")))
	}
	id := q.Get("provider")
	if id == "" && len(e.Providers) == 1 {
		id = e.Providers[0].ID
	}
	p, ok := e.Provider(id)
	if !ok {
		return fault.New(fault.Invalid, "provider: %q is not a provider of %s", id, EditorsPath)
	}
	pd := pending{Provider: p.ID, State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(),
		Return: ret, Expires: s.now().Add(loginTTL).Unix()}
	var target string
	if p.Type == "github" {
		target = s.githubConfig(r, p).AuthCodeURL(pd.State, oauth2.S256ChallengeOption(pd.Verifier))
	} else {
		op, err := s.oidcProvider(r.Context(), p)
		if err != nil {
			return err
		}
		target = s.oauthConfig(r, p, op.Endpoint(), []string{oidc.ScopeOpenID, "email", "profile"}).
			AuthCodeURL(pd.State, oidc.Nonce(pd.Nonce), oauth2.S256ChallengeOption(pd.Verifier))
	}
	tok, err := seal(s.Secret, "login", pd)
	if err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(loginCookie, tok, CallbackPath, loginTTL))
	w.Header().Set("Cache-Control", "private, no-store")
	http.Redirect(w, r, target, http.StatusFound)
	return nil
}

// identity is who the provider says signed in.
type identity struct {
	email, name string
	verified    bool
	groups      []string
}

// Callback answers the provider's redirect back: it checks the state
// against the login cookie, exchanges the code (with the PKCE verifier),
// verifies the ID token (issuer, audience, signature, expiry, nonce), the
// e-mail (verified, an allowed domain, a person of the editors file) and
// starts a new session.
func (s *Service) Callback(w http.ResponseWriter, r *http.Request) error {
	// The login cookie serves once, whatever happens.
	http.SetCookie(w, s.cookie(loginCookie, "", CallbackPath, -1))
	w.Header().Set("Cache-Control", "private, no-store")
	e, err := s.editors(r.Context())
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var pd pending
	c, cerr := r.Cookie(s.name(loginCookie))
	if cerr != nil || open(s.Secret, "login", c.Value, &pd) != nil {
		return s.refuse(r, fault.New(fault.Invalid, "no sign-in under way in this browser (or another site's): start again at %s", LoginPath))
	}
	if s.now().Unix() > pd.Expires {
		return s.refuse(r, fault.New(fault.Invalid, "the sign-in took over %s: start again", loginTTL))
	}
	st := q.Get("state")
	if st == "" || subtle.ConstantTimeCompare([]byte(st), []byte(pd.State)) != 1 {
		return s.refuse(r, fault.New(fault.Invalid, "state: does not match the sign-in under way (forged, or from another sign-in)"))
	}
	if !s.markUsed(pd.State, time.Unix(pd.Expires, 0)) {
		return s.refuse(r, fault.New(fault.Invalid, "state: already used (a replayed sign-in)"))
	}
	if perr := q.Get("error"); perr != "" {
		return s.refuse(r, fault.New(fault.Unauthorized, "the provider refused the sign-in: %s %s", perr, q.Get("error_description")))
	}
	code := q.Get("code")
	if code == "" {
		return s.refuse(r, fault.New(fault.Invalid, "code: missing"))
	}
	p, ok := e.Provider(pd.Provider)
	if !ok {
		return s.refuse(r, fault.New(fault.Invalid, "provider %q is no longer in %s", pd.Provider, EditorsPath))
	}
	var id identity
	if p.Type == "github" {
		id, err = s.githubIdentity(r, p, code, pd)
	} else {
		id, err = s.oidcIdentity(r, p, code, pd)
	}
	if err != nil {
		if fe, ok := err.(*fault.Error); ok {
			return s.refuse(r, fe)
		}
		return err
	}
	if !id.verified {
		return s.refuse(r, fault.New(fault.Forbidden, "the provider has not verified the e-mail %s", id.email))
	}
	if !p.allowedDomain(id.email) {
		return s.refuse(r, fault.New(fault.Forbidden, "%s is not an e-mail of the allowed domains of %s", id.email, p.ID))
	}
	person, ok := e.Lookup(id.email, id.groups)
	if !ok {
		return s.refuse(r, fault.New(fault.Forbidden, "%s is not an editor of this site (%s)", id.email, EditorsPath))
	}
	name := id.name
	if person.Name != "" {
		name = person.Name
	}
	if name == "" {
		name = id.email
	}
	// A new session id, whatever cookie came in: no session fixation.
	now := s.now()
	ss := session{V: 1, SID: random(), Email: strings.ToLower(id.email), Name: name, Provider: p.ID, Groups: id.groups, IAT: now.Unix(), Seen: now.Unix()}
	if err := s.setSession(w, e, ss); err != nil {
		return err
	}
	s.log().Info("signin: signed in", "email", ss.Email, "provider", p.ID, "roles", strings.Join(person.Roles, ","))
	http.Redirect(w, r, pd.Return, http.StatusSeeOther)
	return nil
}

func (s *Service) oidcIdentity(r *http.Request, p *Provider, code string, pd pending) (identity, error) {
	ctx := s.ctx(r.Context())
	op, err := s.oidcProvider(r.Context(), p)
	if err != nil {
		return identity{}, err
	}
	conf := s.oauthConfig(r, p, op.Endpoint(), []string{oidc.ScopeOpenID, "email", "profile"})
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(pd.Verifier))
	if err != nil {
		return identity{}, fault.New(fault.Unauthorized, "the provider refused the code: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return identity{}, fault.New(fault.Unauthorized, "the provider sent no ID token")
	}
	idt, err := op.Verifier(&oidc.Config{ClientID: p.ClientID, Now: s.now}).Verify(ctx, raw)
	if err != nil {
		return identity{}, fault.New(fault.Unauthorized, "the ID token is not valid: %v", err)
	}
	if idt.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(pd.Nonce)) != 1 {
		return identity{}, fault.New(fault.Unauthorized, "the ID token's nonce does not match the sign-in (missing or replayed)")
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return identity{}, fault.New(fault.Unauthorized, "the ID token's claims: %v", err)
	}
	if _, has := claims["email"]; !has {
		// Some providers put the e-mail in the userinfo answer only.
		ui, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return identity{}, fault.New(fault.Unauthorized, "the provider's userinfo: %v", err)
		}
		if ui.Subject != idt.Subject {
			return identity{}, fault.New(fault.Unauthorized, "the provider's userinfo is of another subject")
		}
		var uc map[string]any
		if err := ui.Claims(&uc); err != nil {
			return identity{}, fault.New(fault.Unauthorized, "the provider's userinfo: %v", err)
		}
		for k, v := range uc {
			if _, has := claims[k]; !has {
				claims[k] = v
			}
		}
	}
	id := identity{}
	id.email, _ = claims["email"].(string)
	id.name, _ = claims["name"].(string)
	if id.email == "" {
		return identity{}, fault.New(fault.Forbidden, "the provider sent no e-mail (ask for the email scope)")
	}
	switch v := claims["email_verified"].(type) {
	case bool:
		id.verified = v
	case string:
		id.verified = v == "true"
	case nil:
		id.verified = p.TrustEmail
	}
	if p.GroupsClaim != "" {
		if gs, ok := claims[p.GroupsClaim].([]any); ok {
			for _, g := range gs {
				if s, ok := g.(string); ok {
					id.groups = append(id.groups, s)
				}
			}
		}
	}
	return id, nil
}
