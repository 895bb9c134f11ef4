package main

import (
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

	held := holdPush(t, bare)
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		st, body, err := rpc(writer, `{"action":"updateUnpublishedEntryStatus","params":{"branch":"main","collection":"posts","slug":"idea","newStatus":"pending_publish"}}`)
		answered <- answer{st, body, err}
	}()
	// The push reaches the hook, unless the change is answered first
	// (refused before any push): then that answer is the failure.
	for deadline := time.Now().Add(clusterSettle); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(held.started); err == nil {
			break
		}
		select {
		case a := <-answered:
			t.Fatalf("the status change was answered before its push reached the hook: %d %s %v\n%s", a.status, a.body, a.err, writer.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the push never reached the remote's hook\n%s", writer.log.String())
		}
	}
	writer.kill()
	if a := <-answered; a.err == nil {
		t.Fatalf("the status change was answered (%d %s) although the box died before its push ended", a.status, a.body)
	}
	held.refuse(t) // the push the dead box was making
	if branchHead() != before {
		t.Fatal("the refused push moved the branch")
	}

	writer = c.start("writer-again", own...)
	out, _ := exec.Command("git", "--git-dir="+bare, "log", "-1", "--format=%an|%(trailers:key=Decap-Status,valueonly)", "cms/posts/idea").Output()
	if got := strings.TrimSpace(string(out)); got != "marketing|pending_publish" {
		t.Fatalf("the status change was not pushed at the next start: %q\n%s", got, writer.log.String())
	}
	if st, body, err := rpc(writer, `{"action":"unpublishedEntry","params":{"branch":"main","id":"posts/idea"}}`); err != nil || st != 200 || !strings.Contains(body, `"status":"pending_publish"`) {
		t.Fatalf("unpublishedEntry after the restart: %d %s %v", st, body, err)
	}
}
