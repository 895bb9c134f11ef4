package signin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"golang.org/x/oauth2"
)

// GitHub signs in with OAuth 2.0, not OpenID Connect: no ID token, so
// the person is who GitHub's API says the access token belongs to, with
// their primary verified e-mail.

func (s *Service) githubOrigins() (api, web string) {
	api, web = "https://api.github.com", "https://github.com"
	if s.GitHubAPI != "" {
		api = strings.TrimSuffix(s.GitHubAPI, "/")
	}
	if s.GitHubWeb != "" {
		web = strings.TrimSuffix(s.GitHubWeb, "/")
	}
	return api, web
}

func (s *Service) githubConfig(r *http.Request, p *Provider) *oauth2.Config {
	_, web := s.githubOrigins()
	ep := oauth2.Endpoint{AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token", AuthStyle: oauth2.AuthStyleInParams}
	return s.oauthConfig(r, p, ep, []string{"read:user", "user:email"})
}

func (s *Service) githubIdentity(r *http.Request, p *Provider, code string, pd pending) (identity, error) {
	ctx := s.ctx(r.Context())
	tok, err := s.githubConfig(r, p).Exchange(ctx, code, oauth2.VerifierOption(pd.Verifier))
	if err != nil {
		return identity{}, fault.New(fault.Unauthorized, "GitHub refused the code: %v", err)
	}
	api, _ := s.githubOrigins()
	client := oauth2.NewClient(ctx, oauth2.StaticTokenSource(tok))
	var user struct {
		Login string `json:"login"`
		Name  string `json:"name"`
	}
	if err := getJSON(client, api+"/user", &user); err != nil {
		return identity{}, err
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := getJSON(client, api+"/user/emails", &emails); err != nil {
		return identity{}, err
	}
	id := identity{name: user.Name}
	if id.name == "" {
		id.name = user.Login
	}
	for _, e := range emails {
		if e.Primary {
			id.email, id.verified = e.Email, e.Verified
		}
	}
	if id.email == "" {
		return identity{}, fault.New(fault.Forbidden, "GitHub has no primary e-mail for %s", user.Login)
	}
	return id, nil
}

func getJSON(c *http.Client, url string, v any) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	res, err := c.Do(req)
	if err != nil {
		return fault.New(fault.Unavailable, "GitHub's API does not answer: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fault.New(fault.Unauthorized, "GitHub's API answered %s for %s", res.Status, url)
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GitHub's API: %w", err)
	}
	return nil
}
