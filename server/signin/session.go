package signin

import (
	"crypto/subtle"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

const (
	sessionCookie = "folio_session"
	loginCookie   = "folio_login"
)

// session is a session cookie's payload.
type session struct {
	V        int      `json:"v"`
	SID      string   `json:"sid"`
	Email    string   `json:"em"`
	Name     string   `json:"nm"`
	Provider string   `json:"pr"`
	Groups   []string `json:"gr,omitempty"`
	IAT      int64    `json:"iat"`  // signed in (Unix seconds)
	Seen     int64    `json:"seen"` // last request, to the refresh step
}

// name is a cookie's name: __Host- prefixed (Secure, Path=/, no Domain:
// no subdomain can set it) except in dev mode on plain HTTP.
func (s *Service) name(n string) string {
	if s.Dev {
		return n
	}
	if n == sessionCookie {
		return "__Host-" + n
	}
	return "__Secure-" + n
}

func (s *Service) cookie(n, value, path string, ttl time.Duration) *http.Cookie {
	c := &http.Cookie{Name: s.name(n), Value: value, Path: path, HttpOnly: true, Secure: !s.Dev, SameSite: http.SameSiteLaxMode}
	if ttl < 0 {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(ttl / time.Second)
	}
	return c
}

func (s *Service) setSession(w http.ResponseWriter, e *Editors, ss session) error {
	tok, err := seal(s.Secret, "session", ss)
	if err != nil {
		return err
	}
	left := time.Unix(ss.IAT, 0).Add(time.Duration(e.Sessions.Absolute)).Sub(s.now())
	http.SetCookie(w, s.cookie(sessionCookie, tok, "/", left))
	return nil
}

// HasCookie tells whether r carries a session cookie.
func (s *Service) HasCookie(r *http.Request) bool {
	_, err := r.Cookie(s.name(sessionCookie))
	return err == nil
}

// Authenticate checks r's session cookie: nil, nil without one; the
// person as the current editors file has them; or the 401 to answer
// (bad signature, expired, signed out, no longer an editor).
func (s *Service) Authenticate(r *http.Request) (*Principal, error) {
	c, err := r.Cookie(s.name(sessionCookie))
	if err != nil {
		return nil, nil
	}
	var ss session
	if open(s.Secret, "session", c.Value, &ss) != nil || ss.V != 1 || ss.SID == "" {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "the session cookie is not one of this site's: sign in again"))
	}
	e, err := s.Editors(r.Context())
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "sign-in is off on this site (no %s)", EditorsPath))
	}
	now := s.now()
	iat, seen := time.Unix(ss.IAT, 0), time.Unix(ss.Seen, 0)
	if now.Sub(iat) > time.Duration(e.Sessions.Absolute) {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "the session is over (signed in %s ago; at most %s): sign in again", now.Sub(iat).Round(time.Minute), time.Duration(e.Sessions.Absolute)))
	}
	if now.Sub(seen) > time.Duration(e.Sessions.Idle) {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "the session is over (idle over %s): sign in again", time.Duration(e.Sessions.Idle)))
	}
	p, ok := e.Lookup(ss.Email, ss.Groups)
	if !ok {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "%s is no longer an editor of this site", ss.Email))
	}
	if !p.SignedOutBefore.IsZero() && iat.Before(p.SignedOutBefore) {
		return nil, s.refuse(r, fault.New(fault.Unauthorized, "%s was signed out everywhere at %s: sign in again", ss.Email, p.SignedOutBefore.Format(time.RFC3339)))
	}
	name := ss.Name
	if p.Name != "" {
		name = p.Name
	}
	return &Principal{Email: ss.Email, Name: name, Provider: ss.Provider, Grant: p.Grant, Session: ss.SID, IssuedAt: iat, seen: seen, raw: ss}, nil
}

// Touch renews the cookie's idle clock, at most once a minute.
func (s *Service) Touch(w http.ResponseWriter, r *http.Request, p *Principal) {
	now := s.now()
	if now.Sub(p.seen) < time.Minute {
		return
	}
	e, err := s.Editors(r.Context())
	if err != nil || e == nil {
		return
	}
	ss := p.raw
	ss.Seen = now.Unix()
	_ = s.setSession(w, e, ss)
}

// CSRF checks a state-changing request of a session: its Origin is this
// site's (or allowed), and it carries the session's token.
func (s *Service) CSRF(r *http.Request, p *Principal, originOK func(origin string) bool) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	o := r.Header.Get("Origin")
	if o == "" || !originOK(o) {
		return s.refuse(r, fault.New(fault.Forbidden, "Origin %q may not make changes with this site's session (CSRF)", o))
	}
	want := csrfToken(s.Secret, p.Session)
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(want)) != 1 {
		return s.refuse(r, fault.New(fault.Forbidden, "the %s header is missing or wrong (CSRF): read it from GET %s", CSRFHeader, SessionPath))
	}
	return nil
}

// SessionInfo is GET /api/v1/auth/session.
type SessionInfo struct {
	Email       string    `json:"email"`
	Name        string    `json:"name"`
	Provider    string    `json:"provider"`
	Roles       []string  `json:"roles"`
	Collections []string  `json:"collections"`
	Locales     []string  `json:"locales"`
	CSRF        string    `json:"csrfToken"`
	SignedInAt  time.Time `json:"signedInAt"`
	Expires     time.Time `json:"expiresAt"`
}

// ProviderInfo names a provider for a sign-in button.
type ProviderInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Login string `json:"login"` // the URL that starts the sign-in
}

// Session answers GET /api/v1/auth/session: the person signed in, or
// 401.
func (s *Service) Session(w http.ResponseWriter, r *http.Request, p *Principal) error {
	e, err := s.editors(r.Context())
	if err != nil {
		return err
	}
	if p == nil {
		return fault.New(fault.Unauthorized, "not signed in: GET %s lists the providers to sign in with", ProvidersPath)
	}
	info := SessionInfo{Email: p.Email, Name: p.Name, Provider: p.Provider, Roles: nonNil(p.Grant.Roles),
		Collections: nonNil(p.Grant.Collections), Locales: nonNil(p.Grant.Locales), CSRF: csrfToken(s.Secret, p.Session),
		SignedInAt: p.IssuedAt.UTC(), Expires: p.IssuedAt.Add(time.Duration(e.Sessions.Absolute)).UTC()}
	return writeJSON(w, info)
}

// Providers answers GET /api/v1/auth/providers: the sign-in buttons.
func (s *Service) Providers(w http.ResponseWriter, r *http.Request) error {
	e, err := s.editors(r.Context())
	if err != nil {
		return err
	}
	provs := make([]ProviderInfo, 0, len(e.Providers))
	for _, pr := range e.Providers {
		provs = append(provs, ProviderInfo{ID: pr.ID, Name: pr.Name, Login: LoginPath + "?provider=" + pr.ID})
	}
	return writeJSON(w, map[string]any{"providers": provs})
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	return json.NewEncoder(w).Encode(v)
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// Logout answers POST /api/v1/auth/logout: the cookie is cleared.
func (s *Service) Logout(w http.ResponseWriter, r *http.Request, p *Principal) error {
	http.SetCookie(w, s.cookie(sessionCookie, "", "/", -1))
	w.Header().Set("Cache-Control", "private, no-store")
	if p != nil {
		s.log().Info("signin: signed out", "email", p.Email)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// EditorsInfo is GET /api/v1/auth/editors: who has which role.
type EditorsInfo struct {
	People    []EditorInfo   `json:"people"`
	Groups    []EditorInfo   `json:"groups"`
	Providers []ProviderInfo `json:"providers"`
}

// EditorInfo is a person's (or a group's) grant.
type EditorInfo struct {
	Email           string     `json:"email,omitempty"`
	Name            string     `json:"name,omitempty"`
	Group           string     `json:"group,omitempty"`
	Roles           []string   `json:"roles"`
	Collections     []string   `json:"collections"`
	Locales         []string   `json:"locales"`
	SignedOutBefore *time.Time `json:"signedOutBefore,omitempty"`
}

// List answers GET /api/v1/auth/editors, for an admin.
func (s *Service) List(w http.ResponseWriter, r *http.Request, p *Principal) error {
	e, err := s.editors(r.Context())
	if err != nil {
		return err
	}
	if p == nil {
		return fault.New(fault.Unauthorized, "not signed in: the editors are shown to a signed-in admin")
	}
	if !p.Has(RoleAdmin) {
		return fault.New(fault.Forbidden, "only a signed-in person with the admin role sees the editors")
	}
	out := EditorsInfo{People: []EditorInfo{}, Groups: []EditorInfo{}, Providers: []ProviderInfo{}}
	for _, pe := range e.People {
		ei := EditorInfo{Email: pe.Email, Name: pe.Name, Roles: nonNil(pe.Roles), Collections: nonNil(pe.Collections), Locales: nonNil(pe.Locales)}
		if !pe.SignedOutBefore.IsZero() {
			t := pe.SignedOutBefore.UTC()
			ei.SignedOutBefore = &t
		}
		out.People = append(out.People, ei)
	}
	for _, g := range slices.Sorted(maps.Keys(e.Groups)) {
		gr := e.Groups[g]
		out.Groups = append(out.Groups, EditorInfo{Group: g, Roles: nonNil(gr.Roles), Collections: nonNil(gr.Collections), Locales: nonNil(gr.Locales)})
	}
	for _, pr := range e.Providers {
		out.Providers = append(out.Providers, ProviderInfo{ID: pr.ID, Name: pr.Name, Login: LoginPath + "?provider=" + pr.ID})
	}
	return writeJSON(w, out)
}
