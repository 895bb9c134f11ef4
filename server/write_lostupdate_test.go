package server_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server"
)

// startWriterCfg is startWriter with the engine's and the writer's
// configuration changed by cfg.
func startWriterCfg(t testing.TB, site string, cfg func(*engine.Config, *write.Config)) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ecfg := engine.Config{Site: site, CacheDir: t.TempDir()}
	var wcfg write.Config
	cfg(&ecfg, &wcfg)
	eng, err := engine.Open(ctx, ecfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keys, err := server.OpenKeys(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	wcfg.GitDir, wcfg.Remote, wcfg.RefLock, wcfg.Branch, wcfg.DraftBranch = eng.GitDir(), eng.RemoteSite(), eng.RefLock(), eng.Branch(), eng.DraftBranch()
	wcfg.JournalDir, wcfg.Snapshot = t.TempDir(), eng.SnapshotOf
	wcfg.Written = func(ctx context.Context, branch, commit string) { eng.Reload(ctx) }
	w := write.New(wcfg)
	srv := server.New(server.Config{Engine: eng, Keys: keys, Writer: w, AllowMissingKeys: true, Decap: server.DecapConfig{AuthorEmail: "editors@example.com"}})
	registerFolio(t, ln.Addr().String())
	done := make(chan struct{}, 2)
	go func() { eng.Run(ctx); done <- struct{}{} }()
	go func() { srv.Serve(ctx, ln); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		eng.Close()
	})
	return &testServer{URL: "http://" + ln.Addr().String(), Handler: srv, Engine: eng, keys: keys, keysFile: keysFile, secret: map[string]string{}}
}

// TestWriteEveryBranchConcurrentPatches is issue 29's second lost
// update: concurrent PATCHes without If-Match of one document, on every
// kind of branch (the draft branch the box serves, a cms/ branch and
// another branch --write-branches allows, neither served, each before and
// after it exists): of the ones that set one field, one is taken and
// the others are 409 (each was made from the version before it), never
// last-writer-wins; ones that set different fields are all merged.
func TestWriteEveryBranchConcurrentPatches(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriterCfg(t, "file://"+repo.bare, func(e *engine.Config, w *write.Config) {
		e.DraftBranch = "draft"
		w.WriteBranches = []string{"cms/*", "team/*"}
		// The 12 writes queue behind each other's pushes; beside the
		// other tests that can pass the default 10 s. The queue's bound
		// is TestWriteQueueBounded's.
		w.QueueWait = 2 * time.Minute
	})
	key := ts.key(t, "ed", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	const n = 12
	for _, branch := range []string{"draft", "cms/posts/hello", "team/spring"} {
		url := ts.URL + "/api/v1/content/posts/hello?branch=" + branch
		for _, round := range []string{"new", "existing"} {
			var wg sync.WaitGroup
			res := make([]response, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = wr(t, "PATCH", url, key, fmt.Sprintf(`{"title": "Title %s %d"}`, round, i))
				}()
			}
			wg.Wait()
			won := -1
			for i, r := range res {
				switch r.Status {
				case 200:
					if won >= 0 {
						t.Fatalf("%s (%s): two PATCHes of the title made from one version were both taken: %d and %d", branch, round, won, i)
					}
					won = i
				case 409:
				default:
					t.Fatalf("%s (%s): PATCH %d: %d %s", branch, round, i, r.Status, r.Body)
				}
			}
			got := git(t, repo.bare, "show", branch+":content/posts/hello.md")
			if won < 0 || !strings.Contains(got, fmt.Sprintf("title: Title %s %d\n", round, won)) {
				t.Fatalf("%s (%s): the taken PATCH %d is not in the file:\n%s", branch, round, won, got)
			}
			// Different fields: every one merged.
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = wr(t, "PATCH", url, key, fmt.Sprintf(`{"data": {"k%d": "%s"}}`, i, round))
				}()
			}
			wg.Wait()
			got = git(t, repo.bare, "show", branch+":content/posts/hello.md")
			for i, r := range res {
				if r.Status != 200 || !strings.Contains(got, fmt.Sprintf("k%d: %s\n", i, round)) {
					t.Fatalf("%s (%s): PATCH of k%d: %d %s; the file:\n%s", branch, round, i, r.Status, r.Body, got)
				}
			}
			ts.Engine.Sync(t.Context())
		}
	}
}

// failGitRead makes the object rev names (a tree a write left loose in
// the repository gitDir) unreadable until the returned function puts it
// back: a transient read failure, of the writer's in-process reads, that
// leaves every other object readable.
func failGitRead(t *testing.T, gitDir, rev string) (restore func()) {
	t.Helper()
	h := git(t, gitDir, "rev-parse", rev)
	p := filepath.Join(gitDir, "objects", h[:2], h[2:])
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s (%s) is not a loose object: %v", rev, h, err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("not zlib"), 0o644); err != nil {
		t.Fatal(err)
	}
	restore = func() {
		if err := os.WriteFile(p, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(restore)
	return restore
}

// TestPublishReadFailure is issue 29's third lost update: publishing a
// document whose draft-branch file cannot be read (a transient Git
// failure) is an error, nothing published; it published a deletion.
func TestPublishReadFailure(t *testing.T) {
	repo := newRepo(t, writeSite)
	ts := startWriterWith(t, "file://"+repo.bare, "draft")
	boss := ts.key(t, "boss", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", boss, `{"title": "Drafted"}`); r.Status != 200 {
		t.Fatalf("draft write: %d %s", r.Status, r.Body)
	}
	mainBefore := git(t, repo.bare, "rev-parse", "main")
	restore := failGitRead(t, ts.Engine.GitDir(), "draft:content/posts")
	r := wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"type": "posts", "slug": "hello"}]}`)
	if r.Status == 200 || git(t, repo.bare, "rev-parse", "main") != mainBefore {
		t.Fatalf("publish with a failed read: %d %s; main: %s", r.Status, r.Body, remoteFile(t, repo.bare, "content/posts/hello.md"))
	}
	// Once Git reads again, it publishes the file.
	restore()
	r = wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"type": "posts", "slug": "hello"}]}`)
	if r.Status != 200 || !strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "title: Drafted") {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
}

// TestWriteQueueBounded is issue 29's item 12: a push to a remote that
// hangs holds the box's one write slot; a write behind it waits at most
// the queue wait and is then 503 GIT_UNAVAILABLE with Retry-After,
// nothing written, instead of minutes. The held write lands once the
// remote answers, and the next one goes through.
func TestWriteQueueBounded(t *testing.T) {
	repo := newRepo(t, writeSite)
	ts := startWriterCfg(t, "file://"+repo.bare, func(_ *engine.Config, w *write.Config) {
		w.QueueWait, w.PushTimeout = time.Second, 30*time.Second
	})
	key := ts.key(t, "ed", server.ScopeContentRead, server.ScopeContentWrite)
	marks := t.TempDir()
	block, started := filepath.Join(marks, "block"), filepath.Join(marks, "started")
	hook := fmt.Sprintf("#!/bin/sh\ntouch %s\nwhile [ -e %s ]; do sleep 0.02; done\nexit 0\n", started, block)
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo.bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(block)
	url := ts.URL + "/api/v1/content/posts/hello"
	held := make(chan response, 1)
	go func() { held <- wr(t, "PATCH", url, key, `{"title": "Held"}`) }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the push never reached the remote's hook")
		}
	}
	behind := make(chan response, 1)
	go func() { behind <- wr(t, "PATCH", url, key, `{"data": {"rating": 9}}`) }()
	select {
	case r := <-behind:
		wantError(t, r, 503, "GIT_UNAVAILABLE")
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Fatalf("Retry-After: %q", r.Header.Get("Retry-After"))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write behind a hanging push waited more than 10 s")
	}
	os.Remove(block)
	if r := <-held; r.Status != 200 {
		t.Fatalf("the held write: %d %s", r.Status, r.Body)
	}
	if r := wr(t, "PATCH", url, key, `{"data": {"rating": 9}}`); r.Status != 200 {
		t.Fatalf("the write after: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/posts/hello.md"); !strings.Contains(got, "title: Held") || !strings.Contains(got, "rating: 9") {
		t.Fatalf("the remote:\n%s", got)
	}
}
