package signin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/folio-cms/folio/content/fault"
)

// Paths of the sign-in routes.
const (
	LoginPath     = "/api/v1/auth/login"
	CallbackPath  = "/api/v1/auth/callback"
	LogoutPath    = "/api/v1/auth/logout"
	SessionPath   = "/api/v1/auth/session"
	ProvidersPath = "/api/v1/auth/providers"
	ListPath      = "/api/v1/auth/editors"
)

// CSRFHeader carries a session's CSRF token on state-changing requests.
const CSRFHeader = "X-CSRF-Token"

// loginTTL is how long a browser has to come back from the provider.
const loginTTL = 10 * time.Minute

// Service signs people in and checks their sessions. Its zero value is
// not usable: Secret and Editors are needed.
type Service struct {
	// Secret signs sessions (at least 32 bytes): every box behind the
	// load balancer has the same one, so each accepts the others'
	// sessions, and sessions outlive a restart.
	Secret []byte
	// Editors returns the editors file of the commit served now (nil:
	// none, sign-in is off). A person removed from it loses their
	// sessions as soon as the box serves the commit.
	Editors func(ctx context.Context) (*Editors, error)
	// ClientSecret returns a provider's client secret (from the
	// environment or a file, never from the repository).
	ClientSecret func(providerID string) string
	// Dev leaves Secure off the cookies, for plain HTTP on 127.0.0.1.
	Dev bool
	// HTTPClient talks to the providers; nil: http.DefaultClient.
	HTTPClient *http.Client
	// GitHubAPI and GitHubWeb are GitHub's API and web origins (tests
	// point them elsewhere); "": api.github.com, github.com.
	GitHubAPI, GitHubWeb string
	Now                  func() time.Time
	Log                  *slog.Logger

	mu        sync.Mutex
	providers map[string]*oidc.Provider // by issuer
	used      map[string]time.Time      // states already used, until they expire
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (s *Service) ctx(ctx context.Context) context.Context {
	if s.HTTPClient != nil {
		return oidc.ClientContext(ctx, s.HTTPClient)
	}
	return ctx
}

// editors is the editors file, or 404 when sign-in is off.
func (s *Service) editors(ctx context.Context) (*Editors, error) {
	e, err := s.Editors(ctx)
	if err != nil {
		return nil, err
	}
	if e == nil || len(e.Providers) == 0 {
		return nil, fault.New(fault.NotFound, "sign-in is off: the repository has no %s naming a provider (docs/editors.md)", EditorsPath)
	}
	return e, nil
}

// refuse logs why a sign-in or session was refused and returns err.
func (s *Service) refuse(r *http.Request, err *fault.Error) error {
	s.log().Warn("signin: refused", "path", r.URL.Path, "reason", err.Message)
	return err
}

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// markUsed records a state as used; false if it was already.
func (s *Service) markUsed(state string, until time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.used == nil {
		s.used = map[string]time.Time{}
	}
	for k, t := range s.used {
		if now.After(t) {
			delete(s.used, k)
		}
	}
	if _, ok := s.used[state]; ok {
		return false
	}
	s.used[state] = until
	return true
}
