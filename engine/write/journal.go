package write

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/folio-cms/folio/engine/internal/atomicfile"
)

// pending is a push under way, recorded before it starts and removed once
// it is done (or refused), so that a box killed between its commit and
// the end of its push finds it at its next start (Recover).
type pending struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
	Parent string `json:"parent"`
	Path   string `json:"path"`
	// New: the push makes the branch (a side branch's first write, from
	// Parent on another branch).
	New bool `json:"new,omitempty"`
}

func (w *Writer) journalPath() string {
	return filepath.Join(w.cfg.JournalDir, "folio-write-pending.json")
}

func (w *Writer) journal(p pending) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	// Synced and renamed into place, the rename made durable: a record a
	// crash cut off would lose the acknowledgement it guards.
	return atomicfile.Write(w.journalPath(), data)
}

func (w *Writer) clearJournal() {
	if err := os.Remove(w.journalPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.cfg.Logger.Warn("write: remove the push journal", "err", err)
	}
}

// Recovery is what Recover found of a push that a previous run left
// under way.
type Recovery struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
	Path   string `json:"path"`
	// State: "pushed" (the remote has it: it was, before the crash, or
	// has been now), or "kept" (the remote moved meanwhile: the commit
	// is kept as Ref, not pushed, and must be looked at by hand).
	State string `json:"state"`
	Ref   string `json:"ref,omitempty"`
}

// Unpushed is the write a previous run left unpushed that Recover could
// not push (State "kept"), for the status endpoint; nil when none.
func (w *Writer) Unpushed() *Recovery {
	w.umu.Lock()
	defer w.umu.Unlock()
	return w.unpushed
}

// Recover finishes the push a previous run was making when it stopped
// (kill -9, a crash, a power cut between the commit and the push's
// answer): when the remote branch is still at the commit's parent, the
// commit is pushed; when it already holds it, nothing is to do; when the
// remote moved, the commit is kept as refs/folio/unpushed/<commit> in
// the repository and reported. No write was acknowledged before its push
// succeeded, so none is lost either way. Run it before serving writes.
func (w *Writer) Recover(ctx context.Context) (*Recovery, error) {
	w.slot <- struct{}{} // before serving: no write waits
	defer w.unlock()
	data, err := os.ReadFile(w.journalPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p pending
	if err := json.Unmarshal(data, &p); err != nil || p.Commit == "" {
		w.clearJournal()
		return nil, nil
	}
	rec := &Recovery{Branch: p.Branch, Commit: p.Commit, Path: p.Path}
	if _, err := w.repo.files.Commit(p.Commit); err != nil {
		// The commit never reached the object store: nothing to push.
		w.clearJournal()
		return nil, nil
	}
	fctx, cancel := w.remoteCtx(ctx)
	remote, err := w.repo.fetchBranch(fctx, p.Branch)
	cancel()
	if err != nil {
		// The remote cannot be asked now: keep and report the commit
		// rather than leave it to a journal the next write overwrites.
		return w.keep(ctx, p, rec, err)
	}
	if remote != "" {
		if ok, err := w.repo.isAncestor(ctx, p.Commit, remote); err == nil && ok {
			rec.State = "pushed"
			w.clearJournal()
			return rec, nil
		}
	}
	if remote == p.Parent || remote == "" && p.New {
		pctx, cancel := w.remoteCtx(ctx)
		res, err := w.repo.push(pctx, p.Commit, p.Branch)
		cancel()
		if res == pushed {
			if err := w.repo.setRef(ctx, p.Branch, p.Commit); err != nil {
				w.cfg.Logger.Warn("write: pushed a commit the last run left unpushed; the clone's ref will follow on the next fetch", "branch", p.Branch, "commit", p.Commit, "err", err)
			}
			rec.State = "pushed"
			w.clearJournal()
			w.cfg.Logger.Info("write: pushed a commit the last run left unpushed", "branch", p.Branch, "commit", p.Commit, "path", p.Path)
			return rec, nil
		}
		if res == refused {
			return w.keep(ctx, p, rec, err)
		}
	}
	return w.keep(ctx, p, rec, errors.New("the remote branch moved since"))
}

// keep keeps an unpushed commit as a ref and reports it.
func (w *Writer) keep(ctx context.Context, p pending, rec *Recovery, why error) (*Recovery, error) {
	rec.State, rec.Ref = "kept", "refs/folio/unpushed/"+p.Commit
	if _, err := w.repo.run(ctx, nil, nil, "update-ref", rec.Ref, p.Commit); err != nil {
		return nil, err
	}
	w.umu.Lock()
	w.unpushed = rec
	w.umu.Unlock()
	w.clearJournal()
	w.cfg.Logger.Error("write: a commit the last run left unpushed was not pushed; it is kept in the repository",
		"branch", p.Branch, "commit", p.Commit, "path", p.Path, "ref", rec.Ref, "why", why)
	return rec, nil
}
