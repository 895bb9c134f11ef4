package write

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// A local site may be a work tree (make run serves data/site, a developer
// serves the clone they edit). Moving its checked-out branch's ref alone
// would leave the index and files behind the commit: `git status` would
// show folio's edit as a staged deletion, and the next `git commit -a`
// would undo it. So a write to the checked-out branch also brings the
// work tree along, as git's receive.denyCurrentBranch=updateInstead does
// for a push: a two-tree read-tree from the old head to the new one,
// which updates only the paths the commit changed and refuses when one of
// them has uncommitted changes (then nothing is written: 409).

// workTree returns the work tree whose checked-out branch is branch, ""
// when the repository is bare or has another branch checked out.
func (r *repo) workTree(ctx context.Context, branch string) string {
	if filepath.Base(r.gitDir) != ".git" {
		return "" // a bare repository, or the clone of a remote
	}
	head, err := r.text(ctx, "symbolic-ref", "-q", "HEAD")
	if err != nil || head != "refs/heads/"+branch {
		return ""
	}
	if bare, err := r.text(ctx, "config", "--bool", "core.bare"); err == nil && bare == "true" {
		return ""
	}
	return filepath.Dir(r.gitDir)
}

// checkout brings the index and files of work tree wt from commit old to
// commit new; only the paths that differ between them are touched. It is
// a *fault.Error (Conflict) when one of those paths has uncommitted
// changes or is an untracked file in the way.
func (r *repo) checkout(ctx context.Context, wt, old, new string) error {
	// Refresh the index's stat data first, so that a file merely touched
	// is not taken for a changed one (the exit status says whether any
	// file differs; read-tree decides whether one that matters does).
	_, _ = r.run(ctx, nil, nil, "--work-tree="+wt, "update-index", "-q", "--refresh")
	if _, err := r.run(ctx, nil, nil, "--work-tree="+wt, "read-tree", "-u", "-m", old, new); err != nil {
		var ge *gitError
		if !errors.As(err, &ge) {
			return err
		}
		return fault.New(fault.Conflict, "the site's work tree has uncommitted changes to a file this write changes; commit or stash them there, then retry (git: %s)",
			strings.Join(strings.Fields(ge.stderr), " "))
	}
	return nil
}
