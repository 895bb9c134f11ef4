package engine

import "github.com/folio-cms/folio/engine/gitsource"

// The refs a request may name are package gitsource's: these names keep
// them where the engine's callers (the server, the write API) find them.

// Ref is a branch, tag or commit and the commit it points to.
type Ref = gitsource.Ref

// RefKind says what a ref name named.
type RefKind = gitsource.RefKind

// The kinds of refs.
const (
	RefBranch = gitsource.RefBranch
	RefTag    = gitsource.RefTag
	RefCommit = gitsource.RefCommit
)

// RefPatterns bound the branches and tags served (--refs).
type RefPatterns = gitsource.RefPatterns

// AmbiguousRefError is a short commit hash that more than one commit
// starts with.
type AmbiguousRefError = gitsource.AmbiguousRefError

// Errors of ref resolution (Engine.ResolveRef).
var (
	// ErrRefNotFound: no branch, tag or commit of that name (or one that
	// the served patterns exclude).
	ErrRefNotFound = gitsource.ErrRefNotFound
	// ErrBadRef: the name is not a well-formed ref name.
	ErrBadRef = gitsource.ErrBadRef
)

// CheckRefName reports whether name is acceptable as a ref
// (gitsource.CheckRefName).
func CheckRefName(name string) error { return gitsource.CheckRefName(name) }

// DefaultFetchTimeout is Config.FetchTimeout's default.
const DefaultFetchTimeout = gitsource.DefaultFetchTimeout
