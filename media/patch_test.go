package media_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
)

func TestLibrary_Patch(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		if err := l.CreateFolder("/blog"); err != nil {
			t.Fatal(err)
		}
		it := mustCreate(t, l, "a.png", pngBytes(t, 4, 4), "")
		got, err := l.Patch(ctx, it.ID, media.Patch{Alt: ptr("alt"), Title: ptr("T"), Description: ptr("D"),
			Folder: ptr("/blog/"), FocalX: ptr(0.0), FocalY: ptr(100.0)})
		if err != nil {
			t.Fatal(err)
		}
		if got.Alt != "alt" || got.Title != "T" || got.Description != "D" || got.Folder != "/blog" ||
			got.FocalX != 0 || got.FocalY != 100 || got.Version != 2 || got.URL != it.URL {
			t.Errorf("got %+v", got)
		}
		// Unset fields stay; the version counts writes.
		got, err = l.Patch(ctx, it.ID, media.Patch{Title: ptr("T2"), IfVersion: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got.Alt != "alt" || got.Title != "T2" || got.Version != 3 {
			t.Errorf("got %+v", got)
		}
		// It survives a restart.
		l2 := e.open(t)
		g, ok := l2.Get(it.ID)
		if !ok || g.Title != "T2" || g.Folder != "/blog" || g.Version != 3 || g.FocalY != 100 {
			t.Errorf("after reopen: %+v", g)
		}
		if items, total := l2.List(media.Query{Folder: "/blog"}); total != 1 || items[0].ID != it.ID {
			t.Errorf("folder list after move: %d", total)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "a.png", pngBytes(t, 4, 4), "")
		for _, tc := range []struct {
			name string
			id   string
			p    media.Patch
			want error
		}{
			{"focal high", it.ID, media.Patch{FocalX: ptr(100.01)}, media.ErrBadInput},
			{"focal low", it.ID, media.Patch{FocalY: ptr(-1.0)}, media.ErrBadInput},
			{"focal NaN", it.ID, media.Patch{FocalY: ptr(math.NaN())}, media.ErrBadInput},
			{"focal Inf", it.ID, media.Patch{FocalX: ptr(math.Inf(1))}, media.ErrBadInput},
			{"unknown folder", it.ID, media.Patch{Folder: ptr("/nope")}, media.ErrFolderNotFound},
			{"bad folder", it.ID, media.Patch{Folder: ptr("/../etc")}, media.ErrBadInput},
			{"long title", it.ID, media.Patch{Title: ptr(strings.Repeat("x", media.MaxTitleBytes+1))}, media.ErrBadInput},
			{"stale version", it.ID, media.Patch{Alt: ptr("x"), IfVersion: 7}, media.ErrConflict},
			{"unknown id", "aaaaaaaaaaaaaaaa", media.Patch{Alt: ptr("x")}, media.ErrNotFound},
			{"traversal id", "../../etc/passwd", media.Patch{Alt: ptr("x")}, media.ErrNotFound},
			{"empty id", "", media.Patch{Alt: ptr("x")}, media.ErrNotFound},
		} {
			if _, err := l.Patch(ctx, tc.id, tc.p); !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		if g, _ := l.Get(it.ID); g.Version != 1 || g.Alt != "" {
			t.Errorf("failed patches changed the item: %+v", g)
		}
	})
}

func TestLibrary_Delete(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	var changes []string
	e.cfg.OnChange = func(it *media.Item, deleted bool) {
		if deleted {
			changes = append(changes, "-"+it.Filename)
		} else {
			changes = append(changes, "+"+it.Filename)
		}
	}
	l := e.open(t)
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	other := mustCreate(t, l, "b.pdf", pdfBytes, "")
	if err := l.Delete(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Get(it.ID); ok {
		t.Error("deleted item still found")
	}
	if fileExists(t, keyPath(e.root, it.Key)) || fileExists(t, stateItem(e.root, it.ID)) {
		t.Error("files of the deleted item remain")
	}
	if !fileExists(t, keyPath(e.root, other.Key)) {
		t.Error("other item's file gone")
	}
	for _, id := range []string{it.ID, "../" + other.ID, "", "zzzzzzzzzzzzzzzz"} {
		if err := l.Delete(ctx, id); !errors.Is(err, media.ErrNotFound) {
			t.Errorf("Delete(%q) = %v", id, err)
		}
	}
	if got := strings.Join(changes, " "); got != "+a.pdf +b.pdf -a.pdf" {
		t.Errorf("changes %s", got)
	}
	// The name is free again.
	if again := mustCreate(t, l, "a.pdf", pdfBytes, ""); again.Filename != "a.pdf" {
		t.Errorf("name after delete: %s", again.Filename)
	}
	if _, total := e.open(t).List(media.Query{}); total != 2 {
		t.Errorf("after reopen %d items", total)
	}
}

func TestLibrary_List(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	for _, f := range []string{"/a", "/b"} {
		if err := l.CreateFolder(f); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(t, l, "c.png", pngBytes(t, 30, 30), "/a")
	mustCreate(t, l, "a.pdf", pdfBytes, "/a")
	mustCreate(t, l, "b.mp4", mp4Bytes, "/b")
	mustCreate(t, l, "d.gif", gifBytes(t, 1, 1), "")
	for _, tc := range []struct {
		name  string
		q     media.Query
		want  string
		total int
	}{
		{"default is createdAt asc", media.Query{}, "c.png,a.pdf,b.mp4,d.gif", 4},
		{"createdAt desc", media.Query{Desc: true}, "d.gif,b.mp4,a.pdf,c.png", 4},
		{"filename", media.Query{Sort: media.SortFilename}, "a.pdf,b.mp4,c.png,d.gif", 4},
		{"size desc", media.Query{Sort: media.SortSize, Desc: true, Limit: 1}, "c.png", 4},
		{"page", media.Query{Sort: media.SortFilename, Limit: 2, Offset: 1}, "b.mp4,c.png", 4},
		{"offset past end", media.Query{Offset: 10}, "", 4},
		{"folder", media.Query{Folder: "/a"}, "c.png,a.pdf", 2},
		{"folder trailing slash", media.Query{Folder: "/a/"}, "c.png,a.pdf", 2},
		{"root folder", media.Query{Folder: "/"}, "d.gif", 1},
		{"bad folder", media.Query{Folder: "/../a"}, "", 0},
		{"images", media.Query{Type: "image"}, "c.png,d.gif", 2},
		{"videos", media.Query{Type: "video"}, "b.mp4", 1},
		{"documents", media.Query{Type: "document"}, "a.pdf", 1},
		{"unknown type", media.Query{Type: "audio"}, "", 0},
		{"no ids", media.Query{IDs: []string{}}, "", 0},
	} {
		items, total := l.List(tc.q)
		if got := listNames(items); got != tc.want || total != tc.total {
			t.Errorf("%s: %q (%d), want %q (%d)", tc.name, got, total, tc.want, tc.total)
		}
	}
	all, _ := l.List(media.Query{Sort: media.SortFilename})
	ids := []string{all[3].ID, "nonexistent", all[0].ID, all[1].ID, all[0].ID}
	if items, total := l.List(media.Query{IDs: ids}); listNames(items) != "d.gif,a.pdf,b.mp4" || total != 3 {
		t.Errorf("ids in relevance order: %s %d", listNames(items), total)
	}
	if items, _ := l.List(media.Query{IDs: ids, Sort: media.SortFilename}); listNames(items) != "a.pdf,b.mp4,d.gif" {
		t.Errorf("ids by filename: %s", listNames(items))
	}
	if items, _ := l.List(media.Query{IDs: ids, Type: "image"}); listNames(items) != "d.gif" {
		t.Errorf("ids and type: %s", listNames(items))
	}
	for _, it := range all {
		if it.URL == "" || !strings.HasPrefix(it.URL, "/uploads/2026/03/") {
			t.Errorf("url %q", it.URL)
		}
	}
}

func TestLibrary_Folders(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	if got := strings.Join(l.Folders(), ","); got != "/" {
		t.Errorf("fresh: %s", got)
	}
	if err := l.CreateFolder("/blog/2024/"); err != nil {
		t.Fatal(err)
	}
	if err := l.CreateFolder("/Press"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Folders(), ","); got != "/,/Press,/blog,/blog/2024" {
		t.Errorf("folders: %s", got)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"exists", l.CreateFolder("/blog/2024"), media.ErrFolderExists},
		{"parent exists", l.CreateFolder("/blog"), media.ErrFolderExists},
		{"root exists", l.CreateFolder("/"), media.ErrFolderExists},
		{"bad path", l.CreateFolder("blog"), media.ErrBadInput},
		{"traversal", l.CreateFolder("/a/../../b"), media.ErrBadInput},
		{"delete root", l.DeleteFolder("/"), media.ErrBadInput},
		{"delete unknown", l.DeleteFolder("/nope"), media.ErrFolderNotFound},
		{"delete bad", l.DeleteFolder("/a/./b"), media.ErrBadInput},
		{"delete with subfolder", l.DeleteFolder("/blog"), media.ErrFolderNotEmpty},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	it := mustCreate(t, l, "a.pdf", pdfBytes, "/blog/2024")
	if err := l.DeleteFolder("/blog/2024"); !errors.Is(err, media.ErrFolderNotEmpty) {
		t.Errorf("delete folder with item: %v", err)
	}
	if _, err := l.Patch(ctx, it.ID, media.Patch{Folder: ptr("/")}); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteFolder("/blog/2024"); err != nil {
		t.Errorf("delete emptied folder: %v", err)
	}
	// Parents created with a child persist after it goes, like mkdir -p.
	if got := strings.Join(l.Folders(), ","); got != "/,/Press,/blog" {
		t.Errorf("folders after delete: %s", got)
	}
	l2 := e.open(t)
	if got := strings.Join(l2.Folders(), ","); got != "/,/Press,/blog" {
		t.Errorf("folders after reopen: %s", got)
	}
}
