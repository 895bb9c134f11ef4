// Package signin signs editors in through an OpenID Connect provider (or
// GitHub), keeps their sessions in signed cookies every box can check, and
// says what each person may do, from the repository's .folio/editors.yaml.
package signin

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// EditorsPath is the repository file naming the providers and the people
// who may sign in: every change of access is a reviewed commit.
const EditorsPath = ".folio/editors.yaml"

// The roles a person can hold.
const (
	RoleRead    = "read"    // reads drafts and the media library
	RoleEdit    = "edit"    // writes documents (of Collections, in Locales)
	RolePublish = "publish" // merges to the served branch, publishes workflow entries
	RoleMedia   = "media"   // uploads, changes and deletes media
	RoleAdmin   = "admin"   // everything, and sees who has which role
)

var knownRoles = []string{RoleRead, RoleEdit, RolePublish, RoleMedia, RoleAdmin}

// Editors is .folio/editors.yaml.
type Editors struct {
	Providers []Provider `yaml:"providers"`
	Sessions  Sessions   `yaml:"sessions"`
	People    []Person   `yaml:"people"`
	// Groups maps a provider's group (its groupsClaim) to a grant: a
	// person of the group may sign in without being listed.
	Groups map[string]Grant `yaml:"groups"`
}

// Provider is one way to sign in.
type Provider struct {
	ID   string `yaml:"id"`   // in URLs and the secret's name: [a-z0-9-]
	Name string `yaml:"name"` // on the button: "Sign in with <name>"
	// Type is "oidc" (default) or "github".
	Type     string `yaml:"type"`
	Issuer   string `yaml:"issuer"` // OIDC: the issuer URL (its discovery document)
	ClientID string `yaml:"clientId"`
	// Domains are the e-mail domains allowed; none: any (the people
	// list still decides).
	Domains []string `yaml:"domains"`
	// GroupsClaim is the ID token claim holding the person's groups
	// (for Groups); "": none.
	GroupsClaim string `yaml:"groupsClaim"`
	// TrustEmail takes the e-mail as verified when the provider sends
	// no email_verified claim (Microsoft Entra): only for a provider
	// whose e-mails are its own tenant's.
	TrustEmail bool `yaml:"trustEmail"`
	// Scopes beyond openid email profile.
	Scopes []string `yaml:"scopes"`
}

// Sessions bounds how long a session lasts.
type Sessions struct {
	Idle     Duration `yaml:"idle"`     // without a request; default 8h
	Absolute Duration `yaml:"absolute"` // since sign-in; default 7 days
}

// Grant is what a person (or a group) may do.
type Grant struct {
	Roles []string `yaml:"roles"`
	// Collections limits edit to these content types ("pages" and
	// "globals" name those); none: all.
	Collections []string `yaml:"collections"`
	// Locales limits edit to these locales (translators); none: all.
	Locales []string `yaml:"locales"`
}

// Person is one editor.
type Person struct {
	Email string `yaml:"email"`
	Name  string `yaml:"name"`
	Grant `yaml:",inline"`
	// SignedOutBefore ends every session begun before it (sign-out
	// everywhere, as a commit).
	SignedOutBefore time.Time `yaml:"signedOutBefore"`
}

// Duration is a time.Duration written as "8h".
type Duration time.Duration

// UnmarshalYAML reads "90m", "8h".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: want a duration like 8h, found %q", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// ParseEditors reads and checks an editors file.
func ParseEditors(b []byte) (*Editors, error) {
	var e Editors
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %v", EditorsPath, err)
	}
	if e.Sessions.Idle == 0 {
		e.Sessions.Idle = Duration(8 * time.Hour)
	}
	if e.Sessions.Absolute == 0 {
		e.Sessions.Absolute = Duration(7 * 24 * time.Hour)
	}
	seen := map[string]bool{}
	for i := range e.Providers {
		p := &e.Providers[i]
		if !idRE.MatchString(p.ID) || seen[p.ID] {
			return nil, fmt.Errorf("%s: providers[%d].id %q: want a unique id of a-z, 0-9 and -", EditorsPath, i, p.ID)
		}
		seen[p.ID] = true
		if p.Name == "" {
			p.Name = p.ID
		}
		switch p.Type {
		case "", "oidc":
			p.Type = "oidc"
			u, err := url.Parse(p.Issuer)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return nil, fmt.Errorf("%s: providers[%d].issuer: want the issuer URL, found %q", EditorsPath, i, p.Issuer)
			}
		case "github":
		default:
			return nil, fmt.Errorf("%s: providers[%d].type: want oidc or github, found %q", EditorsPath, i, p.Type)
		}
		if p.ClientID == "" {
			return nil, fmt.Errorf("%s: providers[%d].clientId: missing", EditorsPath, i)
		}
		for j, d := range p.Domains {
			p.Domains[j] = strings.ToLower(strings.TrimPrefix(d, "@"))
		}
	}
	emails := map[string]bool{}
	for i := range e.People {
		p := &e.People[i]
		p.Email = strings.ToLower(strings.TrimSpace(p.Email))
		if !strings.Contains(p.Email, "@") || emails[p.Email] {
			return nil, fmt.Errorf("%s: people[%d].email %q: want a unique e-mail address", EditorsPath, i, p.Email)
		}
		emails[p.Email] = true
		if err := p.Grant.check(); err != nil {
			return nil, fmt.Errorf("%s: people[%d] (%s): %v", EditorsPath, i, p.Email, err)
		}
	}
	for g, gr := range e.Groups {
		if err := gr.check(); err != nil {
			return nil, fmt.Errorf("%s: groups.%s: %v", EditorsPath, g, err)
		}
	}
	return &e, nil
}

func (g Grant) check() error {
	if len(g.Roles) == 0 {
		return fmt.Errorf("roles: missing (known: %s)", strings.Join(knownRoles, ", "))
	}
	for _, r := range g.Roles {
		if !slices.Contains(knownRoles, r) {
			return fmt.Errorf("roles: unknown role %q (known: %s)", r, strings.Join(knownRoles, ", "))
		}
	}
	return nil
}

// Provider returns the provider named id.
func (e *Editors) Provider(id string) (*Provider, bool) {
	for i := range e.Providers {
		if e.Providers[i].ID == id {
			return &e.Providers[i], true
		}
	}
	return nil, false
}

// Lookup finds who a signed-in e-mail (with its groups) is: the person
// listed, else the grants of the groups mapped. ok is false for nobody.
func (e *Editors) Lookup(email string, groups []string) (Person, bool) {
	email = strings.ToLower(email)
	for _, p := range e.People {
		if p.Email == email {
			return p, true
		}
	}
	var merged Person
	found := false
	for _, g := range groups {
		gr, ok := e.Groups[g]
		if !ok {
			continue
		}
		if !found {
			merged = Person{Email: email, Grant: Grant{Roles: slices.Clone(gr.Roles), Collections: slices.Clone(gr.Collections), Locales: slices.Clone(gr.Locales)}}
			found = true
			continue
		}
		merged.Grant = merged.Grant.union(gr)
	}
	return merged, found
}

// union is what either grant allows. The collections and locales limit
// edit: they come from the grants that edit (an empty limit of one of
// them is no limit), never from a grant of other roles only.
func (g Grant) union(o Grant) Grant {
	out := Grant{Roles: slices.Clone(g.Roles)}
	for _, r := range o.Roles {
		if !slices.Contains(out.Roles, r) {
			out.Roles = append(out.Roles, r)
		}
	}
	switch {
	case g.edits() && o.edits():
		if len(g.Collections) > 0 && len(o.Collections) > 0 {
			out.Collections = append(slices.Clone(g.Collections), o.Collections...)
		}
		if len(g.Locales) > 0 && len(o.Locales) > 0 {
			out.Locales = append(slices.Clone(g.Locales), o.Locales...)
		}
	case g.edits():
		out.Collections, out.Locales = slices.Clone(g.Collections), slices.Clone(g.Locales)
	case o.edits():
		out.Collections, out.Locales = slices.Clone(o.Collections), slices.Clone(o.Locales)
	}
	return out
}

func (g Grant) edits() bool {
	return slices.Contains(g.Roles, RoleEdit) || slices.Contains(g.Roles, RoleAdmin)
}

// allowedDomain tells whether email's domain is one of p's (any when p
// names none).
func (p *Provider) allowedDomain(email string) bool {
	if len(p.Domains) == 0 {
		return true
	}
	_, dom, ok := strings.Cut(strings.ToLower(email), "@")
	return ok && slices.Contains(p.Domains, dom)
}
