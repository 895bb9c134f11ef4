package server_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	registerFolio(ln.Addr().String())
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
	repo := newRepo(t, writeSite)
	ts := startWriterCfg(t, "file://"+repo.bare, func(e *engine.Config, w *write.Config) {
		e.DraftBranch = "draft"
		w.WriteBranches = []string{"cms/*", "team/*"}
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
