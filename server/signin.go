package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server/signin"
	"github.com/julienschmidt/httprouter"
)

// SigninConfig turns on editors' sign-in (docs/editors.md): who may sign
// in, with which provider and role, is the repository's
// .folio/editors.yaml.
type SigninConfig struct {
	// Secret signs the session cookies (at least 32 bytes; every box
	// behind a load balancer has the same); nil: sign-in is off.
	Secret []byte
	// ClientSecret returns a provider's client secret.
	ClientSecret func(providerID string) string
	// Dev leaves Secure off the cookies (plain HTTP on 127.0.0.1).
	Dev bool
	// HTTPClient talks to the providers (tests); nil: the default.
	HTTPClient *http.Client
	// GitHubAPI, GitHubWeb replace GitHub's origins (tests).
	GitHubAPI, GitHubWeb string
}

type principalCtx struct{}

// principalFrom is the signed-in person of the request, nil for a key
// or nobody.
func principalFrom(ctx context.Context) *signin.Principal {
	p, _ := ctx.Value(principalCtx{}).(*signin.Principal)
	return p
}

// editorsCache holds the editors file of the commit last read.
type editorsCache struct {
	mu     sync.Mutex
	commit string
	ed     *signin.Editors
	err    error
}

func (s *Server) newSignin(cfg SigninConfig) *signin.Service {
	if len(cfg.Secret) == 0 {
		return nil
	}
	cache := &editorsCache{}
	if cfg.HTTPClient == nil {
		// A provider that hangs must not hold a sign-in forever.
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	return &signin.Service{
		Secret: cfg.Secret, ClientSecret: cfg.ClientSecret, Dev: cfg.Dev, HTTPClient: cfg.HTTPClient,
		GitHubAPI: cfg.GitHubAPI, GitHubWeb: cfg.GitHubWeb, Now: s.now, Log: s.log,
		Editors: func(ctx context.Context) (*signin.Editors, error) { return s.editorsFile(ctx, cache) },
	}
}

// editorsFile reads .folio/editors.yaml of the commit served now, once
// per commit. A file that does not load signs nobody in (logged).
func (s *Server) editorsFile(ctx context.Context, c *editorsCache) (*signin.Editors, error) {
	snap := s.engine.Published()
	if snap == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.commit == snap.Commit {
		return c.ed, c.err
	}
	b, _, err := s.decap.svc.Repo.Read(ctx, snap.Commit, signin.EditorsPath)
	var ed *signin.Editors
	switch {
	case err == nil:
		ed, err = signin.ParseEditors(b)
		if err != nil {
			s.log.Error("signin: the editors file does not load: nobody signs in", "commit", snap.Commit, "err", err)
			err = fault.New(fault.Unauthorized, "%s of the served commit does not load: nobody signs in until it is fixed", signin.EditorsPath)
		}
	case fault.CodeOf(err) == fault.NotFound:
		err = nil
	default:
		return nil, err // not cached: try again
	}
	c.commit, c.ed, c.err = snap.Commit, ed, err
	return ed, err
}

// sessionAuth authenticates a request carrying a session cookie (and no
// Authorization header): the person's roles as a key's scopes, CSRF on
// state-changing methods. ok is false when there is no session to check.
func (s *Server) sessionAuth(r *http.Request, a access) (_ *http.Request, ok bool, err error) {
	if s.signin == nil || !s.signin.HasCookie(r) {
		return r, false, nil
	}
	p, err := s.signin.Authenticate(r)
	if err != nil {
		if !a.required {
			// A stale cookie does not break the public surface.
			return r, true, nil
		}
		return nil, true, err
	}
	if p == nil {
		return r, false, nil
	}
	if err := s.signin.CSRF(r, p, s.originAllowed(r)); err != nil {
		return nil, true, err
	}
	k := &Key{Name: p.Email, Scopes: p.Scopes()}
	if sc := a.missing(k); sc != "" {
		return nil, true, errorf(fault.Forbidden, "%s's role does not allow this (it needs the %s scope)", p.Email, sc)
	}
	ctx := context.WithValue(r.Context(), keyCtx{}, k)
	return r.WithContext(context.WithValue(ctx, principalCtx{}, p)), true, nil
}

// originAllowed tells whether an Origin is this box's own (or one of
// --cors-origins).
func (s *Server) originAllowed(r *http.Request) func(string) bool {
	return func(o string) bool {
		u, err := url.Parse(o)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && (strings.EqualFold(u.Host, r.Host) || s.corsOrigins[strings.ToLower(o)])
	}
}

// personAuthor is the commit author of a signed-in person's write: their
// name and verified e-mail (folio stays the committer).
func personAuthor(r *http.Request, fallback write.Person) write.Person {
	if p := principalFrom(r.Context()); p != nil {
		return write.Person{Name: p.Name, Email: p.Email}
	}
	return fallback
}

// mayEdit refuses a signed-in person's write outside their role (keys
// are checked by scope alone).
func mayEdit(r *http.Request, doc write.Doc, eng *engine.Engine) error {
	p := principalFrom(r.Context())
	if p == nil {
		return nil
	}
	return p.MayEdit(collectionOf(doc), localeOf(eng, doc.Locale))
}

// mayPublish refuses a signed-in person without the publish role.
func mayPublish(r *http.Request) error {
	if p := principalFrom(r.Context()); p != nil {
		return p.MayPublish()
	}
	return nil
}

func collectionOf(d write.Doc) string {
	switch d.Kind {
	case write.KindPage:
		return "pages"
	case write.KindGlobals:
		return "globals"
	}
	return d.Type
}

// localeOf is the locale a write goes to: the default locale for "" on
// a site with locales; "" on a site without.
func localeOf(eng *engine.Engine, loc string) string {
	if loc != "" {
		return loc
	}
	if snap := eng.Published(); snap != nil && snap.Site != nil && snap.Site.I18n != nil {
		return snap.Site.I18n.Default
	}
	return ""
}

// signinHandlers answer the sign-in routes (signin.Service does the
// work); svc nil: sign-in is off, and they are 404.
type signinHandlers struct {
	svc *signin.Service
}

func (s *signinHandlers) signinOff() error {
	return notFound("sign-in is off on this box (no --session-secret-file; docs/editors.md)")
}

// authLogin, authCallback, authSession and authLogout are the sign-in
// routes (signin.Service answers them).
func (s *signinHandlers) authLogin(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	return s.svc.Login(w, r)
}

func (s *signinHandlers) authCallback(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	return s.svc.Callback(w, r)
}

func (s *signinHandlers) authSession(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	p := principalFrom(r.Context())
	if p == nil && s.svc.HasCookie(r) {
		// A cookie that no longer holds: say why.
		if _, err := s.svc.Authenticate(r); err != nil {
			return err
		}
	}
	return s.svc.Session(w, r, p)
}

func (s *signinHandlers) authLogout(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	return s.svc.Logout(w, r, principalFrom(r.Context()))
}

func (s *signinHandlers) authProviders(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	return s.svc.Providers(w, r)
}

func (s *signinHandlers) authEditors(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return s.signinOff()
	}
	if principalFrom(r.Context()) == nil && keyFrom(r.Context()) != nil {
		return errorf(fault.Forbidden, "the editors are shown to a signed-in admin, not to an API key")
	}
	return s.svc.List(w, r, principalFrom(r.Context()))
}
