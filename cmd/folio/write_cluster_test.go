package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media/local"
)

// newWriteCluster is a Git remote reached by URL (file://, so that boxes
// clone it and the write API pushes, as with a real remote), a keys file
// with an editor key, and boxes on local media.
func newWriteCluster(t *testing.T) (*cluster, string, string) {
	t.Helper()
	bin := buildFolio(t)
	gitDir := t.TempDir()
	bare, work := filepath.Join(gitDir, "site.git"), filepath.Join(gitDir, "work")
	testkit.Git(t, gitDir, "init", "-q", "--bare", "-b", "main", bare)
	testkit.Git(t, gitDir, "init", "-q", "-b", "main", work)
	testkit.WriteFiles(t, work, map[string]string{
		"content/posts/hello.md": "---\ntitle: Hello\nrating: 1\n---\nHello.\n",
		"globals.yaml":           "siteName: Site\n",
	})
	testkit.Git(t, work, "remote", "add", "origin", bare)
	testkit.Git(t, work, "add", "-A")
	testkit.Git(t, work, "commit", "-qm", "site")
	testkit.Git(t, work, "push", "-q", "origin", "HEAD:main")
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keysCmd := exec.Command(bin, "keys", "create", "--keys", keysFile, "--name", "marketing",
		"--scopes", "content:read,content:draft,content:write")
	keysCmd.Env = childEnv()
	out, err := keysCmd.Output()
	if err != nil {
		t.Fatalf("folio keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c := &cluster{t: t, bin: bin, env: childEnv(), key: lines[len(lines)-1], work: work, common: []string{
		"--site", "file://" + bare, "--keys", keysFile, "--addr", "127.0.0.1:0", "--rate-ip", "0", "--rate-key", "0",
		"--poll", "100ms",
	}}
	t.Cleanup(func() {
		if t.Failed() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, b := range c.boxes {
				t.Logf("--- %s log:\n%s", b.name, b.log.String())
			}
		}
	})
	return c, bare, work
}

// emptyMediaRoot is a media root holding an empty library's state, which
// a --read-only box needs (it creates nothing).
func emptyMediaRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	st, err := local.OpenState(filepath.Join(dir, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func remoteShow(bare, p string) string {
	out, err := exec.Command("git", "--git-dir="+bare, "show", "main:"+p).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// TestWriteCluster: a write on the writing box is served by it at once
// and by a read-only box as any push; the read-only box refuses writes.
func TestWriteCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two folio processes")
	}
	c, bare, _ := newWriteCluster(t)
	writer := c.start("writer")
	replica := c.start("replica", "--read-only", "--media", emptyMediaRoot(t))

	start := time.Now()
	r := writer.must(t, "POST", "/api/v1/content/posts", c.key, strings.NewReader(`{"title": "From the editor", "body": "Edited *in* folio."}`),
		"Content-Type", "application/json")
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	t.Logf("write answered in %v", time.Since(start).Round(time.Millisecond))
	if g := writer.must(t, "GET", "/api/v1/content/posts/from-the-editor", c.key, nil); g.status != 200 {
		t.Fatalf("writer does not serve its write at once: %d", g.status)
	}
	took := waitAll(t, "the write", start, clusterPropagation, []*clusterBox{replica}, func(b *clusterBox) error {
		g, err := b.call("GET", "/api/v1/content/posts/from-the-editor", c.key, nil)
		if err != nil {
			return err
		}
		if g.status != 200 || !strings.Contains(string(g.body), "<em>in</em>") {
			return fmt.Errorf("%d %s", g.status, g.body)
		}
		return nil
	})
	t.Logf("served by the read-only box %v after the request", took["replica"].Round(time.Millisecond))
	if got := remoteShow(bare, "content/posts/from-the-editor.md"); got != "---\ntitle: From the editor\n---\nEdited *in* folio.\n" {
		t.Fatalf("remote file %q", got)
	}
	out, _ := exec.Command("git", "--git-dir="+bare, "log", "-1", "--format=%an|%cn", "main").Output()
	if strings.TrimSpace(string(out)) != "marketing|folio" {
		t.Fatalf("author|committer: %s", out)
	}
	ro := replica.must(t, "PATCH", "/api/v1/content/posts/hello", c.key, strings.NewReader(`{"title": "x"}`), "Content-Type", "application/json")
	if ro.status != http.StatusMethodNotAllowed || !strings.Contains(string(ro.body), "READ_ONLY") {
		t.Fatalf("read-only box: %d %s", ro.status, ro.body)
	}
}

// TestWriteKilledBeforePush: the writing box is killed with SIGKILL while
// its push is under way (the remote's hook holds it, then refuses it):
// nothing was acknowledged, and the next start pushes the commit.
func TestWriteKilledBeforePush(t *testing.T) {
	if testing.Short() {
		t.Skip("starts folio processes")
	}
	c, bare, _ := newWriteCluster(t)
	held := holdPush(t, bare)
	dir := t.TempDir()
	own := []string{"--cache-dir", filepath.Join(dir, "cache"), "--media", filepath.Join(dir, "media")}
	writer := c.start("writer", own...)
	replica := c.start("replica", "--read-only", "--media", emptyMediaRoot(t))
	before, _ := exec.Command("git", "--git-dir="+bare, "rev-parse", "main").Output()

	answered := make(chan error, 1)
	go func() {
		_, err := writer.call("PATCH", "/api/v1/content/posts/hello", c.key, strings.NewReader(`{"data": {"rating": 42}}`), "Content-Type", "application/json")
		answered <- err
	}()
	held.reached(t)
	writer.kill()
	if err := <-answered; err == nil {
		t.Fatal("the write was answered although the box died before its push ended")
	}
	held.refuse(t) // the push the dead box was making
	after, _ := exec.Command("git", "--git-dir="+bare, "rev-parse", "main").Output()
	if string(after) != string(before) {
		t.Fatal("the refused push moved the remote")
	}

	// The next start finds the push under way and finishes it.
	restart := time.Now()
	writer = c.start("writer-again", own...)
	if got := remoteShow(bare, "content/posts/hello.md"); !strings.Contains(got, "rating: 42") {
		t.Fatalf("not pushed at the next start: %q\n%s", got, writer.log.String())
	}
	if !strings.Contains(writer.log.String(), "pushed a commit the last run left unpushed") {
		t.Fatalf("the restart did not report the recovered push:\n%s", writer.log.String())
	}
	waitAll(t, "the recovered write", restart, clusterSettle, []*clusterBox{writer, replica}, func(b *clusterBox) error {
		g, err := b.call("GET", "/api/v1/content/posts/hello", c.key, nil)
		if err != nil {
			return err
		}
		if !strings.Contains(string(g.body), `"rating":42`) {
			return fmt.Errorf("%d %s", g.status, g.body)
		}
		return nil
	})
}

// heldPush is the next push to a bare remote, held in its pre-receive
// hook until refuse (which refuses it; later pushes pass).
type heldPush struct{ block, started, rejectOnce string }

func holdPush(t *testing.T, bare string) *heldPush {
	t.Helper()
	marks := t.TempDir()
	h := &heldPush{block: filepath.Join(marks, "block"), started: filepath.Join(marks, "started"), rejectOnce: filepath.Join(marks, "reject-once")}
	hook := fmt.Sprintf("#!/bin/sh\ntouch %s\nwhile [ -e %s ]; do sleep 0.02; done\nif [ -e %s ]; then rm %s; exit 1; fi\nexit 0\n", h.started, h.block, h.rejectOnce, h.rejectOnce)
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(h.block, nil, 0o644)
	os.WriteFile(h.rejectOnce, nil, 0o644)
	return h
}

// reached waits until the held push is in the hook.
func (h *heldPush) reached(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(clusterSettle)
	for {
		if _, err := os.Stat(h.started); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the push never reached the remote's hook")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// refuse lets the hook refuse the held push, and waits for it to: the
// hook removes reject-once as it refuses.
func (h *heldPush) refuse(t *testing.T) {
	t.Helper()
	os.Remove(h.block)
	for deadline := time.Now().Add(clusterSettle); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(h.rejectOnce); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the held push was never refused")
		}
	}
	os.Remove(h.started)
}
