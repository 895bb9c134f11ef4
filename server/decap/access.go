package decap

import (
	"context"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/write"
)

// mayEdit asks the caller's role (a signed-in person's; keys have none)
// whether the document at repository path p may be written.
func (s *Service) mayEdit(who Caller, p string) error {
	if who.MayEdit == nil || p == "" {
		return nil
	}
	d, _ := s.docOfFile(p)
	coll := d.Type
	switch d.Kind {
	case write.KindPage:
		coll = "pages"
	case write.KindGlobals:
		coll = "globals"
	}
	loc := ""
	if snap := s.Engine.Published(); snap != nil && snap.Site != nil && snap.Site.I18n != nil {
		c := snap.Site.I18n
		loc = c.Default
		if l, ok := content.GlobalsLocale(p); ok && l != "" {
			loc = l
		} else if l, _, ok := c.Classify(p); ok && l != "" {
			loc = l
		}
	}
	return who.MayEdit(coll, loc)
}

// mayWrite asks the caller's role about a data file of an entry. A file
// sent as it is already stored is no edit: Decap sends every locale's
// file of an entry, and a translator saves the default locale's
// unchanged beside their own.
func (s *Service) mayWrite(ctx context.Context, who Caller, branch string, ew entryWrite) error {
	if who.MayEdit == nil {
		return nil
	}
	if ew.oldPath == "" {
		if snap := s.Engine.SnapshotOf(branch); snap != nil {
			if b, _, err := s.Repo.Read(ctx, snap.Commit, ew.path); err == nil && string(b) == ew.raw {
				return nil
			}
		}
	}
	for _, p := range []string{ew.path, ew.oldPath} {
		if err := s.mayEdit(who, p); err != nil {
			return err
		}
	}
	return nil
}

// mayWorkflow asks a signed-in person's role about an editorial-workflow
// action: publishing, and approving (setting an entry ready), need the
// publish role; changing or deleting an entry, their collection.
func mayWorkflow(who Caller, action string, p workflowParams) error {
	if who.MayEdit == nil {
		return nil
	}
	switch {
	case action == "publishUnpublishedEntry" || action == "updateUnpublishedEntryStatus" && p.NewStatus == "pending_publish":
		return who.MayPublish()
	case action == "updateUnpublishedEntryStatus" || action == "deleteUnpublishedEntry":
		return who.MayEdit(p.Collection, "")
	}
	return nil
}

// mayNote asks a signed-in person's role about a change to an entry's
// notes (reading them is reading the entry): the review of an entry is
// for who may edit its collection or publish it.
func mayNote(who Caller, action string, p notesParams) error {
	if who.MayEdit == nil || action == "getNotes" {
		return nil
	}
	if who.MayPublish != nil && who.MayPublish() == nil {
		return nil
	}
	return who.MayEdit(p.Collection, "")
}

// mayChangeEntry asks a signed-in person's role about every file an
// editorial-workflow entry (its branch's head) changes: deleting the
// entry or changing its status is an edit of each, and a translator's
// role covers their locale's files only.
func (s *Service) mayChangeEntry(ctx context.Context, who Caller, branch, head string) error {
	if who.MayEdit == nil {
		return nil
	}
	base, err := s.baseOf(ctx, branch)
	if err != nil {
		return err
	}
	changes, err := s.Repo.Changes(ctx, base, head)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := s.mayEdit(who, c.Path); err != nil {
			return err
		}
	}
	return nil
}
