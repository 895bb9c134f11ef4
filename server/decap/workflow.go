package decap

import (
	"context"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
)

// workflowParams are the parameters of the editorial-workflow actions.
type workflowParams struct {
	ID             string `json:"id"`
	Collection     string `json:"collection"`
	Slug           string `json:"slug"`
	Path           string `json:"path"`
	NewStatus      string `json:"newStatus"`
	CMSLabelPrefix string `json:"cmsLabelPrefix"`
}

// statuses are Decap's workflow statuses.
var statuses = map[string]bool{"draft": true, "pending_review": true, "pending_publish": true}

// errNoEntry is an entry that is not under editorial workflow (Decap
// reads the 404 as such).
var errNoEntry = fault.New(fault.NotFound, "Not Found")

// diff is one changed file of an unpublished entry, as Decap reads it.
type diff struct {
	OldPath string `json:"oldPath"`
	NewPath string `json:"newPath"`
	Status  string `json:"status"`
	NewFile bool   `json:"newFile"`
	Path    string `json:"path"`
	ID      string `json:"id"`
	Binary  bool   `json:"binary"`
}

func (s *Service) workflow(ctx context.Context, who Caller, branch, action, cms string, p workflowParams) (any, error) {
	head, err := s.Repo.Head(ctx, cms)
	if err != nil {
		return nil, err
	}
	if head == "" {
		return nil, errNoEntry
	}
	switch action {
	case "unpublishedEntry":
		base, err := s.baseOf(ctx, branch)
		if err != nil {
			return nil, err
		}
		changes, err := s.Repo.Changes(ctx, base, head)
		if err != nil {
			return nil, err
		}
		diffs := make([]diff, 0, len(changes))
		for _, c := range changes {
			d := diff{Path: c.Path, ID: c.Path, Status: c.Status, NewFile: c.Status == "added"}
			if c.Status != "added" {
				d.OldPath = c.Path
			}
			if c.Status != "deleted" {
				d.NewPath = c.Path
			}
			d.Binary = !strings.HasSuffix(c.Path, ".md") && !strings.HasSuffix(c.Path, ".markdown") &&
				!strings.HasSuffix(c.Path, ".yaml") && !strings.HasSuffix(c.Path, ".yml") &&
				!strings.HasSuffix(c.Path, ".json") && !strings.HasSuffix(c.Path, ".toml")
			diffs = append(diffs, d)
		}
		ts, err := s.Repo.Trailers(ctx, base, head, statusTrailer)
		if err != nil {
			return nil, err
		}
		status := ""
		if len(ts) > 0 {
			status = ts[len(ts)-1].Value
		}
		updated, err := s.Repo.CommitTime(ctx, head)
		if err != nil {
			return nil, err
		}
		return map[string]any{"collection": p.Collection, "slug": p.Slug, "status": status,
			"diffs": diffs, "updatedAt": updated.Format(time.RFC3339)}, nil
	case "unpublishedEntryDataFile":
		if err := s.entryPath(p.Path); err != nil {
			return nil, err
		}
		b, id, err := s.Repo.Read(ctx, head, p.Path)
		if fault.CodeOf(err) == fault.NotFound {
			return nil, fault.New(fault.NotFound, "%s is not on %s", p.Path, cms)
		}
		if err != nil {
			return nil, err
		}
		// id is folio's addition: the base of the next save (rpc.go).
		return map[string]string{"data": s.decapSingle(p.Path, string(b)), "id": id}, nil // i18n.go
	case "unpublishedEntryMediaFile":
		// Media live in the library, not on the branch.
		return s.mediaFile(ctx, p.Path)
	}
	if action == "deleteUnpublishedEntry" || action == "updateUnpublishedEntryStatus" && p.NewStatus != "pending_publish" {
		if err := s.mayChangeEntry(ctx, who, branch, head); err != nil { // access.go
			return nil, err
		}
	}
	w, err := s.writer()
	if err != nil {
		return nil, err
	}
	switch action {
	case "deleteUnpublishedEntry":
		if err := w.DeleteBranch(ctx, cms, head); err != nil {
			return nil, s.caughtUp(ctx, err)
		}
		return map[string]string{"message": "deleted branch: " + cms}, nil
	case "updateUnpublishedEntryStatus":
		if !statuses[p.NewStatus] {
			return nil, bad("params.newStatus: want draft, pending_review or pending_publish")
		}
		if _, err := w.AddTrailer(ctx, cms, write.TrailerOptions{Key: statusTrailer, Value: p.NewStatus,
			Subject: "Set " + strings.TrimPrefix(cms, branchPrefix) + " to " + p.NewStatus, Author: s.author(who)}); err != nil {
			return nil, s.caughtUp(ctx, err)
		}
		return map[string]string{"message": cms + " description was updated to " + labelPrefix + p.NewStatus}, nil
	case "publishUnpublishedEntry":
		// The writer merges the branch into Decap's branch (the draft
		// branch when the site has one), then the branch goes.
		if _, err := w.MergeBranch(ctx, cms, branch, write.MergeOptions{Expect: head, Author: s.author(who),
			Message: "Publish " + strings.TrimPrefix(cms, branchPrefix) + "\n\nAutomatically generated. Merged on Decap CMS.\n"}); err != nil {
			return nil, s.caughtUp(ctx, err)
		}
		if err := w.DeleteBranch(ctx, cms, head); err != nil {
			return nil, s.caughtUp(ctx, err)
		}
		return map[string]string{"message": "branch " + cms + " merged to " + branch}, nil
	}
	return nil, bad("action: unknown action %q", action)
}

// baseOf is the head of Decap's branch; the published branch's when it
// is a draft branch that does not exist yet.
func (s *Service) baseOf(ctx context.Context, branch string) (string, error) {
	h, err := s.Repo.Head(ctx, branch)
	if err != nil || h != "" {
		return h, err
	}
	if h, err = s.Repo.Head(ctx, s.Engine.Branch()); err == nil && h == "" {
		err = fault.New(fault.NotFound, "the branch %q does not exist", branch)
	}
	return h, err
}

// caughtUp passes err on; on a conflict the box fetches first, so that
// the editor's next try starts from the new state.
func (s *Service) caughtUp(ctx context.Context, err error) error {
	if c := fault.CodeOf(err); c == fault.Conflict || c == fault.PreconditionFailed {
		s.served(ctx)
	}
	return err
}
