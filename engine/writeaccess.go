package engine

import "sync"

// What the write API (package engine/write) needs of the engine.

// GitDir is the repository the engine reads: a local site's own, or the
// clone of a remote one.
func (e *Engine) GitDir() string { return e.src.GitDir() }

// RefLock is the lock a writer holds from a push until the clone's ref
// follows it; every fetch takes it too (gitsource.Source.RefLock, whose
// rule the package gitsource states).
func (e *Engine) RefLock() sync.Locker { return e.src.RefLock() }

// SiteRoot is the folder of the repository the published site is read
// from; "" for the repository's root.
func (e *Engine) SiteRoot() string { return e.src.SiteRoot() }

// RemoteSite tells whether the site is a remote repository (cloned).
func (e *Engine) RemoteSite() bool { return e.src.Remote() }

// Branch is the published branch; DraftBranch the draft branch, "" when
// the site has none.
func (e *Engine) Branch() string { return e.cfg.Branch }

// DraftBranch is the draft branch; "" when the site has none.
func (e *Engine) DraftBranch() string { return e.cfg.DraftBranch }

// SnapshotOf is the snapshot served of branch (the published or the
// draft branch); nil for another branch.
func (e *Engine) SnapshotOf(branch string) *Snapshot {
	switch {
	case branch == e.cfg.Branch:
		return e.published.Load()
	case e.cfg.DraftBranch != "" && branch == e.cfg.DraftBranch:
		if d := e.draft.Load(); d != nil && d.Branch == branch {
			return d
		}
	}
	return nil
}
