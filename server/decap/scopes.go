package decap

import (
	"sort"

	"github.com/folio-cms/folio/content/fault"
)

// The scopes of folio's keys the actions need (server/keys.go names
// them; the route itself needs content:write). Writing does not imply
// reading: an action that answers with what the repository or the
// library holds needs the scopes a GET of the same thing needs. Entries
// are files as they are, drafts and scheduled documents among them:
// content:read and content:draft, as draft=true needs.
const (
	scopeRead        = "content:read"
	scopeDraft       = "content:draft"
	scopeMediaRead   = "media:read"
	scopeMediaWrite  = "media:write"
	scopeMediaDelete = "media:delete"
)

var (
	readEntries = []string{scopeRead, scopeDraft}
	readMedia   = []string{scopeMediaRead}
)

// Actions lists the actions the RPC answers, sorted.
func Actions() []string {
	out := make([]string, 0, len(actions))
	for a := range actions {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// ActionScopes are the scopes action needs beyond content:write (its
// row of actions, actions.go).
func ActionScopes(action string) []string { return actions[action].scopes }

// allowed checks that who may call action: a 400 for an action the RPC
// does not answer, a 403 naming the scope it lacks.
func allowed(who Caller, action string) error {
	act, ok := actions[action]
	if !ok {
		return bad("action: unknown action %q", action)
	}
	for _, sc := range act.scopes {
		if !who.Can(sc) {
			return fault.New(fault.Forbidden, "%s needs the scope %s (writing does not imply reading)", action, sc)
		}
	}
	return nil
}
