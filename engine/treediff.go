package engine

import (
	"slices"

	"github.com/folio-cms/folio/engine/gitsource"
)

// A Load names the paths it changed from the Source's Load before it
// (gitsource.Tree.Base and Changed). The stages that keep what they made
// of a commit (the Assembler, the model) need the changes from that
// commit, which is not always the Load before: a branch's snapshot is
// built from the published one's after another branch's Load, and the
// published branch's push may follow a branch's Load. loadDiffs keeps,
// for the last Load, its changes from the published commit of the time,
// so that the next Load's are known from there too: the union of the
// two (a path in neither commit's files is no change, and is skipped).
type loadDiffs struct {
	commit string   // the last Load's commit
	from   string   // the commit paths are its changes from; "" none
	paths  []string // in path order
}

// treeDiff is what a Load changed: from its Base, and from the
// published commit of the time when known.
type treeDiff struct {
	base, from       string
	changed, fromPub []string
}

// since is the paths changed from commit x; ok is false when unknown.
func (t treeDiff) since(x string) ([]string, bool) {
	switch {
	case x == "":
		return nil, false
	case t.base == x:
		return t.changed, true
	case t.from == x:
		return t.fromPub, true
	}
	return nil, false
}

// next returns the changes of tree, just loaded, and records them; pub
// is the published commit ("" none).
func (d *loadDiffs) next(tree *gitsource.Tree, pub string) treeDiff {
	td := treeDiff{base: tree.Base, changed: tree.Changed}
	switch {
	case tree.Base == "" || pub == "":
	case tree.Base == pub:
		td.from, td.fromPub = pub, tree.Changed
	case tree.Base == d.commit && d.from == pub && len(d.paths)+len(tree.Changed) <= maxPatchedChecks:
		td.from, td.fromPub = pub, slices.Compact(slices.Sorted(slices.Values(slices.Concat(d.paths, tree.Changed))))
	}
	d.commit, d.from, d.paths = tree.Commit, td.from, td.fromPub
	return td
}
