package decap

import (
	"context"
	"errors"
	"strings"

	"github.com/folio-cms/folio/media/fault"
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
	head, err := s.Git.Head(ctx, cms)
	if err != nil {
		return nil, err
	}
	if head == "" {
		return nil, errNoEntry
	}
	switch action {
	case "unpublishedEntry":
		base, err := s.Git.Head(ctx, branch)
		if err != nil {
			return nil, err
		}
		changes, err := s.Git.Diff(ctx, base, head)
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
		status, err := s.Git.Trailer(ctx, base, head, statusTrailer)
		if err != nil {
			return nil, err
		}
		updated, err := s.Git.LastChange(ctx, head)
		if err != nil {
			return nil, err
		}
		return map[string]any{"collection": p.Collection, "slug": p.Slug, "status": status,
			"diffs": diffs, "updatedAt": updated}, nil
	case "unpublishedEntryDataFile":
		if !safeRepoPath(p.Path) {
			return nil, bad("params.path: want a repository path")
		}
		b, _, err := s.Git.Read(ctx, head, p.Path)
		if errors.Is(err, errNoFile) {
			return nil, fault.New(fault.NotFound, "%s is not on %s", p.Path, cms)
		}
		if err != nil {
			return nil, err
		}
		return map[string]string{"data": string(b)}, nil
	case "unpublishedEntryMediaFile":
		// Media live in the library, not on the branch.
		return s.mediaFile(ctx, p.Path)
	case "deleteUnpublishedEntry":
		if err := s.Git.DeleteBranch(ctx, cms, head); err != nil {
			return nil, err
		}
		return map[string]string{"message": "deleted branch: " + cms}, nil
	case "updateUnpublishedEntryStatus":
		if !statuses[p.NewStatus] {
			return nil, bad("params.newStatus: want draft, pending_review or pending_publish")
		}
		c := Commit{Branch: cms, Parent: head, Author: s.author(who), AllowEmpty: true,
			Message: "Set " + strings.TrimPrefix(cms, branchPrefix) + " to " + p.NewStatus + "\n\n" + statusTrailer + ": " + p.NewStatus + "\n"}
		if _, err := s.apply(ctx, c); err != nil {
			return nil, err
		}
		return map[string]string{"message": cms + " description was updated to " + labelPrefix + p.NewStatus}, nil
	case "publishUnpublishedEntry":
		return s.publish(ctx, who, branch, cms, head)
	}
	return nil, bad("action: unknown action %q", action)
}

// publish merges an unpublished entry's branch into branch: a merge
// commit whose tree is branch's with the entry's changed files taken from
// its branch (409 when branch changed one of them since the entry
// branched off), then deletes the entry's branch.
func (s *Service) publish(ctx context.Context, who Caller, branch, cms, head string) (any, error) {
	base, err := s.Git.Head(ctx, branch)
	if err != nil {
		return nil, err
	}
	changes, err := s.Git.Diff(ctx, base, head)
	if err != nil {
		return nil, err
	}
	theirs, err := s.Git.Diff(ctx, head, base)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	for _, c := range theirs {
		touched[c.Path] = true
	}
	c := Commit{Branch: branch, Parent: base, Merge: head, Files: map[string][]byte{}, Author: s.author(who),
		Message: "Publish " + strings.TrimPrefix(cms, branchPrefix) + "\n\nAutomatically generated. Merged on Decap CMS.\n"}
	var conflicts []string
	for _, ch := range changes {
		if touched[ch.Path] {
			conflicts = append(conflicts, ch.Path)
			continue
		}
		if ch.Status == "deleted" {
			c.Delete = append(c.Delete, ch.Path)
			continue
		}
		b, _, err := s.Git.Read(ctx, head, ch.Path)
		if err != nil {
			return nil, err
		}
		c.Files[ch.Path] = b
	}
	if len(conflicts) > 0 {
		return nil, fault.New(fault.Conflict, "%s changed on %s since the entry was branched: %s", strings.Join(conflicts, ", "), branch, "update the entry and publish again")
	}
	if _, err := s.apply(ctx, c); err != nil {
		return nil, err
	}
	if err := s.Git.DeleteBranch(ctx, cms, head); err != nil {
		return nil, err
	}
	s.served(ctx)
	return map[string]string{"message": "branch " + cms + " merged to " + branch}, nil
}
