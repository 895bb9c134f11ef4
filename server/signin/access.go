package signin

import (
	"slices"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// Principal is a signed-in person, as the current editors file sees them.
type Principal struct {
	Email    string
	Name     string
	Provider string
	Grant    Grant
	// Session is the session id (for the CSRF token).
	Session  string
	IssuedAt time.Time

	seen time.Time
	raw  session
}

// Has tells whether the person holds role (admin holds every role).
func (p *Principal) Has(role string) bool {
	return slices.Contains(p.Grant.Roles, role) || slices.Contains(p.Grant.Roles, RoleAdmin)
}

// Scopes are the API key scopes the person's roles amount to, for the
// routes' own checks. Everyone signed in reads drafts.
func (p *Principal) Scopes() []string {
	s := []string{"content:read", "content:draft", "content:preview", "media:read"}
	if p.Has(RoleEdit) || p.Has(RolePublish) {
		s = append(s, "content:write")
	}
	if p.Has(RoleMedia) {
		s = append(s, "media:write", "media:delete")
	}
	return s
}

// MayEdit says whether the person may write a document of collection
// (a content type, "pages" or "globals") in locale ("" on a site
// without locales): nil, or the 403 to answer.
func (p *Principal) MayEdit(collection, locale string) error {
	if p.Has(RoleAdmin) {
		return nil
	}
	if !p.Has(RoleEdit) {
		return fault.New(fault.Forbidden, "%s may not edit documents (roles: %s)", p.Email, strings.Join(p.Grant.Roles, ", "))
	}
	if len(p.Grant.Collections) > 0 && !slices.Contains(p.Grant.Collections, collection) {
		return fault.New(fault.Forbidden, "%s may not edit %s: their role covers %s only", p.Email, collection, strings.Join(p.Grant.Collections, ", "))
	}
	if len(p.Grant.Locales) > 0 && locale != "" && !slices.Contains(p.Grant.Locales, locale) {
		return fault.New(fault.Forbidden, "%s may not edit the %s locale: their role covers %s only", p.Email, locale, strings.Join(p.Grant.Locales, ", "))
	}
	return nil
}

// MayPublish says whether the person may publish (merge to the served
// branch, publish an editorial-workflow entry).
func (p *Principal) MayPublish() error {
	if p.Has(RolePublish) {
		return nil
	}
	return fault.New(fault.Forbidden, "%s may not publish: that needs the publish role", p.Email)
}

// MayCollection says whether the person sees collection in the editor
// (and may edit it in some locale).
func (p *Principal) MayCollection(collection string) bool {
	if p.Has(RoleAdmin) || len(p.Grant.Collections) == 0 {
		return true
	}
	return slices.Contains(p.Grant.Collections, collection)
}
