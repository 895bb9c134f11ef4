package decap

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
)

// Decap's notes: comments editors leave on an unpublished entry (Decap
// 3.16's editor.notes, its proxy backend's getNotes, addNote, updateNote,
// deleteNote and toggleNoteResolution; decap-server has none of them).
// folio keeps them where the entry's status is: each change of a note is
// an empty commit on the entry's cms/<collection>/<slug> branch whose
// message ends with a trailer "Decap-Note: <JSON>" (an event: add, update,
// delete), pushed as every write, so every box reads them (the branch's
// commits since it left Decap's branch, replayed). They go with the entry:
// publishing merges them into the history, deleting the entry drops them.

// noteTrailer is the commit message trailer of a note's change.
const noteTrailer = "Decap-Note"

// maxNoteBytes bounds a note's text (its JSON event fits in a trailer).
const maxNoteBytes = 8 << 10

// noteEvent is one change of a note, as a trailer carries it.
type noteEvent struct {
	Op       string  `json:"op"` // add, update, delete
	ID       string  `json:"id"`
	Content  *string `json:"content,omitempty"`
	Resolved *bool   `json:"resolved,omitempty"`
}

// note is a note as Decap reads it.
type note struct {
	ID        string `json:"id"`
	Content   string `json:"content"`
	Author    string `json:"author"`
	Timestamp string `json:"timestamp"`
	UpdatedAt string `json:"updatedAt,omitempty"`
	Resolved  bool   `json:"resolved"`
	IsOwn     bool   `json:"isOwn"`
	EntrySlug string `json:"entrySlug"`
}

type notesParams struct {
	Collection string `json:"collection"`
	Slug       string `json:"slug"`
	NoteID     string `json:"noteId"`
	Note       *struct {
		Content  string `json:"content"`
		Resolved bool   `json:"resolved"`
	} `json:"note"`
	Updates *struct {
		Content  *string `json:"content"`
		Resolved *bool   `json:"resolved"`
	} `json:"updates"`
}

func (s *Service) notes(ctx context.Context, who Caller, branch, action string, p notesParams) (any, error) {
	cms, err := cmsBranch(p.Collection, p.Slug)
	if err != nil {
		return nil, err
	}
	head, err := s.Repo.Head(ctx, cms)
	if err != nil {
		return nil, err
	}
	if action == "getNotes" {
		if head == "" {
			return map[string]any{"notes": []note{}}, nil
		}
		ns, err := s.readNotes(ctx, who, branch, head, p.Slug)
		if err != nil {
			return nil, err
		}
		return map[string]any{"notes": ns}, nil
	}
	if head == "" {
		return nil, fault.New(fault.NotFound, "%s/%s is not an unpublished entry: notes are kept on its branch", p.Collection, p.Slug)
	}
	ev := noteEvent{ID: p.NoteID}
	switch action {
	case "addNote":
		if p.Note == nil {
			return nil, bad("params.note: missing")
		}
		text := strings.TrimSpace(p.Note.Content)
		if err := checkNote(text); err != nil {
			return nil, err
		}
		id := make([]byte, 8)
		rand.Read(id)
		ev = noteEvent{Op: "add", ID: hex.EncodeToString(id), Content: &text, Resolved: &p.Note.Resolved}
	case "updateNote", "toggleNoteResolution", "deleteNote":
		ns, err := s.readNotes(ctx, who, branch, head, p.Slug)
		if err != nil {
			return nil, err
		}
		var cur *note
		for i := range ns {
			if ns[i].ID == p.NoteID {
				cur = &ns[i]
			}
		}
		if cur == nil {
			return nil, fault.New(fault.NotFound, "no note %q on %s/%s", p.NoteID, p.Collection, p.Slug)
		}
		switch action {
		case "toggleNoteResolution":
			r := !cur.Resolved
			ev.Op, ev.Resolved = "update", &r
		case "deleteNote":
			if !cur.IsOwn {
				return nil, fault.New(fault.Forbidden, "a note is deleted by its author (%s) only", cur.Author)
			}
			ev.Op = "delete"
		default:
			if p.Updates == nil || (p.Updates.Content == nil && p.Updates.Resolved == nil) {
				return nil, bad("params.updates: want content or resolved")
			}
			ev.Op, ev.Resolved = "update", p.Updates.Resolved
			if c := p.Updates.Content; c != nil {
				if !cur.IsOwn {
					return nil, fault.New(fault.Forbidden, "a note's text is changed by its author (%s) only", cur.Author)
				}
				text := strings.TrimSpace(*c)
				if err := checkNote(text); err != nil {
					return nil, err
				}
				ev.Content = &text
			}
		}
	default:
		return nil, bad("action: unknown action %q", action)
	}
	w, err := s.writer()
	if err != nil {
		return nil, err
	}
	value, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	res, err := w.AddTrailer(ctx, cms, write.TrailerOptions{Key: noteTrailer, Value: string(value), Author: s.author(who),
		Subject: map[string]string{"add": "Add a note to ", "update": "Update a note of ", "delete": "Delete a note of "}[ev.Op] + strings.TrimPrefix(cms, branchPrefix)})
	if err != nil {
		return nil, s.caughtUp(ctx, err)
	}
	if ev.Op == "delete" {
		return map[string]string{"message": "deleted note " + ev.ID}, nil
	}
	ns, err := s.readNotes(ctx, who, branch, res.Commit, p.Slug)
	if err != nil {
		return nil, err
	}
	for _, n := range ns {
		if n.ID == ev.ID {
			return map[string]any{"note": n}, nil
		}
	}
	return nil, fault.New(fault.NotFound, "no note %q on %s/%s", ev.ID, p.Collection, p.Slug)
}

func checkNote(text string) error {
	if text == "" || len(text) > maxNoteBytes || !utf8.ValidString(text) {
		return bad("a note is 1 to %d bytes of UTF-8 text", maxNoteBytes)
	}
	return nil
}

// readNotes replays the note events of an entry's branch (head) since it
// left Decap's branch, in the order they were added.
func (s *Service) readNotes(ctx context.Context, who Caller, branch, head, slug string) ([]note, error) {
	base, err := s.baseOf(ctx, branch)
	if err != nil {
		return nil, err
	}
	ts, err := s.Repo.Trailers(ctx, base, head, noteTrailer)
	if err != nil {
		return nil, err
	}
	ns := []note{}
	at := map[string]int{}
	me := s.author(who)
	for _, t := range ts {
		var ev noteEvent
		if json.Unmarshal([]byte(t.Value), &ev) != nil || ev.ID == "" {
			continue // not one of folio's: skipped
		}
		when := t.Time.UTC().Format(time.RFC3339)
		i, ok := at[ev.ID]
		switch {
		case ev.Op == "add" && !ok && ev.Content != nil:
			n := note{ID: ev.ID, Content: *ev.Content, Author: t.Author, Timestamp: when, IsOwn: t.Author == me.Name && t.Email == me.Email, EntrySlug: slug}
			if ev.Resolved != nil {
				n.Resolved = *ev.Resolved
			}
			at[ev.ID] = len(ns)
			ns = append(ns, n)
		case ev.Op == "update" && ok && ns[i].ID != "":
			// A note's text is its author's: another's change of it is
			// not applied (as the RPC refuses it); resolving is anyone's.
			if ev.Content != nil && t.Author == ns[i].Author {
				ns[i].Content = *ev.Content
			}
			if ev.Resolved != nil {
				ns[i].Resolved = *ev.Resolved
			}
			ns[i].UpdatedAt = when
		case ev.Op == "delete" && ok && t.Author == ns[i].Author:
			ns[i].ID = "" // dropped below; the index stays valid
		}
	}
	out := ns[:0]
	for _, n := range ns {
		if n.ID != "" {
			out = append(out, n)
		}
	}
	return out, nil
}
