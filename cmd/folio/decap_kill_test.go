package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecapStatusKilledBeforePush: an unpublished entry's status change
// (a commit on its cms/ branch, made by the writer as every write) is
// journaled while it is pushed: the writing box killed with SIGKILL during
// the push (the remote's hook holds it, then refuses it) pushes it at its
// next start.
func TestDecapStatusKilledBeforePush(t *testing.T) {
	if testing.Short() {
		t.Skip("starts folio processes")
	}
	c, bare, _ := newWriteCluster(t)
	dir := t.TempDir()
	own := []string{"--cache-dir", filepath.Join(dir, "cache"), "--media", filepath.Join(dir, "media")}
	writer := c.start("writer", own...)
	rpc := func(b *clusterBox, body string) (int, string, error) {
		r, err := b.call("POST", "/api/v1/decap", c.key, strings.NewReader(body), "Content-Type", "application/json")
		if err != nil {
			return 0, "", err
		}
		return r.status, string(r.body), nil
	}
	if st, body, err := rpc(writer, `{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"idea","path":"content/posts/idea.md","raw":"---\ntitle: Idea\n---\nAn idea.\n"}],"assets":[],"options":{"collectionName":"posts","commitMessage":"Create idea","useWorkflow":true,"status":"draft"}}}`); err != nil || st != 200 {
		t.Fatalf("persistEntry: %d %s %v", st, body, err)
	}
	branchHead := func() string {
		out, _ := exec.Command("git", "--git-dir="+bare, "rev-parse", "cms/posts/idea").Output()
		return strings.TrimSpace(string(out))
	}
	before := branchHead()
	if before == "" {
		t.Fatal("the entry's branch is not on the remote")
	}

	marks := t.TempDir()
	block, started, rejectOnce := filepath.Join(marks, "block"), filepath.Join(marks, "started"), filepath.Join(marks, "reject-once")
	hook := fmt.Sprintf("#!/bin/sh\ntouch %s\nwhile [ -e %s ]; do sleep 0.02; done\nif [ -e %s ]; then rm %s; exit 1; fi\nexit 0\n", started, block, rejectOnce, rejectOnce)
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(block, nil, 0o644)
	os.WriteFile(rejectOnce, nil, 0o644)
	answered := make(chan error, 1)
	go func() {
		_, _, err := rpc(writer, `{"action":"updateUnpublishedEntryStatus","params":{"branch":"main","collection":"posts","slug":"idea","newStatus":"pending_publish"}}`)
		answered <- err
	}()
	deadline := time.Now().Add(clusterSettle)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the push never reached the remote's hook")
		}
		time.Sleep(10 * time.Millisecond)
	}
	writer.kill()
	if err := <-answered; err == nil {
		t.Fatal("the status change was answered although the box died before its push ended")
	}
	os.Remove(block) // the hook refuses the push the dead box was making
	time.Sleep(300 * time.Millisecond)
	if branchHead() != before {
		t.Fatal("the refused push moved the branch")
	}
	os.Remove(started)

	writer = c.start("writer-again", own...)
	out, _ := exec.Command("git", "--git-dir="+bare, "log", "-1", "--format=%an|%(trailers:key=Decap-Status,valueonly)", "cms/posts/idea").Output()
	if got := strings.TrimSpace(string(out)); got != "marketing|pending_publish" {
		t.Fatalf("the status change was not pushed at the next start: %q\n%s", got, writer.log.String())
	}
	if st, body, err := rpc(writer, `{"action":"unpublishedEntry","params":{"branch":"main","id":"posts/idea"}}`); err != nil || st != 200 || !strings.Contains(body, `"status":"pending_publish"`) {
		t.Fatalf("unpublishedEntry after the restart: %d %s %v", st, body, err)
	}
}
