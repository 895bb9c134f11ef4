package media_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// soleWriter is local storage in a new directory and a function that
// opens a library on it as its only writer (the state under
// <root>/.state, as cmd/folio keeps it), returning the library and its
// state store for the test to close, or not (a crash).
func soleWriter(t *testing.T) (*local.Storage, func() (*media.Library, *local.State)) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "files")
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, func() (*media.Library, *local.State) {
		t.Helper()
		state, err := local.OpenState(filepath.Join(root, local.StateDir))
		if err != nil {
			t.Fatal(err)
		}
		l, err := media.Open(context.Background(), media.Config{Root: root, Storage: st, State: state, PollInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return l, state
	}
}

// The only writer of a local state (the library of one box) settles at
// its start what a crash left: an upload cut off after its claim and its
// file, before its sidecar, loses both at once, not after the hour a
// shared bucket waits; a committed item whose log entry the crash lost is
// found, and its files stay, as do those of an item whose sidecar does
// not parse.
// Its Close writes a checkpoint, which the next start loads.
func TestSoleWriter_SweepsAtOpenAndCheckpointsAtClose(t *testing.T) {
	ctx := context.Background()
	st, openLib := soleWriter(t)
	l, state := openLib()
	kept := mustCreate(t, l, "kept.png", pngBytes(t, 500, 300), "")
	typo := mustCreate(t, l, "typo.pdf", pdfBytes, "")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := state.List(ctx, "checkpoints/", "", func(media.StateObject) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("checkpoints after Close: %d, %v", n, err)
	}

	// The crash: an upload's claim and file without a sidecar; an item
	// committed behind the log and the checkpoint; a sidecar broken by hand.
	orphan := "2026/01/orphan.png"
	if err := st.Put(ctx, orphan, bytes.NewReader(pngBytes(t, 5, 5)), -1, "image/png"); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Create(ctx, "claims/"+orphan, media.ClaimBody("zzzzzzzzzzzzzzzz", orphan)); err != nil {
		t.Fatal(err)
	}
	behind := "2026/01/behind.pdf"
	if err := st.Put(ctx, behind, bytes.NewReader(pdfBytes), -1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Create(ctx, "claims/"+behind, media.ClaimBody("yyyyyyyyyyyyyyyy", behind)); err != nil {
		t.Fatal(err)
	}
	side := "id: yyyyyyyyyyyyyyyy\nfilename: behind.pdf\nmimeType: application/pdf\nsize: 10\nfolder: /\nkey: " + behind + "\nversion: 1\n"
	if _, err := state.Create(ctx, "items/yyyyyyyyyyyyyyyy.yaml", []byte(side)); err != nil {
		t.Fatal(err)
	}
	broken := "2026/01/broken.pdf"
	if err := st.Put(ctx, broken, bytes.NewReader(pdfBytes), -1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Create(ctx, "claims/"+broken, media.ClaimBody("xxxxxxxxxxxxxxxx", broken)); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Create(ctx, "items/xxxxxxxxxxxxxxxx.yaml", []byte("id: [unclosed\n")); err != nil {
		t.Fatal(err)
	}
	_, tag, err := state.Get(ctx, "items/"+typo.ID+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Replace(ctx, "items/"+typo.ID+".yaml", []byte("id: [unclosed\n"), tag); err != nil {
		t.Fatal(err)
	}
	// A crashed run leaves no clean-shutdown mark (its start removed the
	// one of the Close before it).
	if err := state.Delete(ctx, "clean-shutdown"); err != nil {
		t.Fatal(err)
	}
	state.Close()

	l, state = openLib()
	defer state.Close()
	defer l.Close()
	if _, err := st.Stat(ctx, orphan); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("orphan object after the sole writer's start: %v", err)
	}
	if _, _, err := state.Get(ctx, "claims/"+orphan); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("orphan claim after the sole writer's start: %v", err)
	}
	if got, ok := l.Get("yyyyyyyyyyyyyyyy"); !ok || got.Key != behind {
		t.Errorf("the item committed behind the log: %+v, %v", got, ok)
	}
	if _, ok := l.Get("xxxxxxxxxxxxxxxx"); ok {
		t.Error("an item whose sidecar never parsed was loaded")
	}
	for _, k := range append([]string{kept.Key, behind, typo.Key, broken}, sizeKeys(kept)...) {
		if _, err := st.Stat(ctx, k); err != nil {
			t.Errorf("file %s: %v", k, err)
		}
	}
	if got, ok := l.Get(kept.ID); !ok || len(got.Sizes) != 2 {
		t.Errorf("kept item after restart: %+v, %v", got, ok)
	}
	// The broken sidecar is logged and skipped: the index keeps the
	// version the checkpoint holds.
	if got, ok := l.Get(typo.ID); !ok || got.Version != typo.Version {
		t.Errorf("item whose sidecar broke after the checkpoint: %+v, %v", got, ok)
	}
}

// A clean Close leaves a mark that the next start takes (removes): that
// start still reconciles the sidecars (an item committed behind the log is
// found) but skips the listing of every claim, since no write of the last
// run was cut off; a start without the mark, after a crash, sweeps.
func TestSoleWriter_CleanCloseSkipsTheClaimSweep(t *testing.T) {
	ctx := context.Background()
	st, open := soleWriter(t)
	l, state := open()
	mustCreate(t, l, "a.pdf", pdfBytes, "")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := state.Get(ctx, "clean-shutdown"); err != nil {
		t.Fatalf("no clean-shutdown mark after Close: %v", err)
	}
	// Planted after the clean Close: a claim with its file, and a sidecar
	// committed behind the log.
	planted := "2026/01/planted.pdf"
	if err := st.Put(ctx, planted, bytes.NewReader(pdfBytes), -1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Create(ctx, "claims/"+planted, media.ClaimBody("zzzzzzzzzzzzzzzz", planted)); err != nil {
		t.Fatal(err)
	}
	behind := "2026/01/behind.pdf"
	if err := st.Put(ctx, behind, bytes.NewReader(pdfBytes), -1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	side := "id: yyyyyyyyyyyyyyyy\nfilename: behind.pdf\nmimeType: application/pdf\nsize: 10\nfolder: /\nkey: " + behind + "\nversion: 1\n"
	if _, err := state.Create(ctx, "items/yyyyyyyyyyyyyyyy.yaml", []byte(side)); err != nil {
		t.Fatal(err)
	}
	state.Close()

	l, state = open()
	if _, _, err := state.Get(ctx, "clean-shutdown"); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("the start left the clean-shutdown mark: %v", err)
	}
	if _, err := st.Stat(ctx, planted); err != nil {
		t.Errorf("a start after a clean Close swept the claims: %v", err)
	}
	if got, ok := l.Get("yyyyyyyyyyyyyyyy"); !ok || got.Key != behind {
		t.Errorf("the sidecar behind the log, after a clean Close: %+v, %v", got, ok)
	}
	// This run crashes: its state is closed, the library never is, so no
	// mark is written, and the next start sweeps.
	state.Close()
	l2, state2 := open()
	defer state2.Close()
	defer l2.Close()
	if _, err := st.Stat(ctx, planted); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("a start after a crash did not sweep: %v", err)
	}
}
