package gitsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
)

// srcGitEnv makes the git CLI independent of the machine's configuration.
func srcGitEnv(date time.Time) []string {
	env := append(os.Environ(),
		"GIT_AUTHOR_NAME=Folio Test", "GIT_AUTHOR_EMAIL=test@folio.invalid",
		"GIT_COMMITTER_NAME=Folio Test", "GIT_COMMITTER_EMAIL=test@folio.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir(), "GIT_TERMINAL_PROMPT=0",
	)
	if !date.IsZero() {
		d := date.Format(time.RFC3339)
		env = append(env, "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	}
	return env
}

// srcGit runs git in dir and returns its trimmed output.
func srcGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return srcGitAt(tb, dir, time.Time{}, args...)
}

func srcGitAt(tb testing.TB, dir string, date time.Time, args ...string) string {
	tb.Helper()
	full := append([]string{"-c", "user.name=Folio Test", "-c", "user.email=test@folio.invalid",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "core.symlinks=true"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = srcGitEnv(date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// srcTestRepo is a work tree (clone of an optional bare repo) the tests commit in.
type srcTestRepo struct {
	tb   testing.TB
	dir  string // work tree
	bare string // "" when the work tree is the site
}

// newSrcBareSite makes a bare repository and a clone that pushes to it.
func newSrcBareSite(tb testing.TB) *srcTestRepo {
	tb.Helper()
	root := tb.TempDir()
	bare := filepath.Join(root, "site.git")
	srcGit(tb, root, "init", "--bare", "-q", bare)
	work := filepath.Join(root, "work")
	srcGit(tb, root, "init", "-q", work)
	srcGit(tb, work, "remote", "add", "origin", bare)
	return &srcTestRepo{tb: tb, dir: work, bare: bare}
}

// newSrcWorkTreeSite makes a repository with a work tree that is the site.
func newSrcWorkTreeSite(tb testing.TB) *srcTestRepo {
	tb.Helper()
	work := filepath.Join(tb.TempDir(), "site")
	srcGit(tb, filepath.Dir(work), "init", "-q", work)
	return &srcTestRepo{tb: tb, dir: work}
}

func (r *srcTestRepo) write(files map[string]string) {
	r.tb.Helper()
	for p, body := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
}

// commit writes files, removes the paths in rm, commits everything at date
// and returns the commit hash.
func (r *srcTestRepo) commit(date time.Time, files map[string]string, rm ...string) string {
	r.tb.Helper()
	r.write(files)
	for _, p := range rm {
		srcGit(r.tb, r.dir, "rm", "-q", "-r", p)
	}
	srcGit(r.tb, r.dir, "add", "-A")
	srcGitAt(r.tb, r.dir, date, "commit", "-q", "--allow-empty", "-m", "change at "+date.Format(time.RFC3339))
	return srcGit(r.tb, r.dir, "rev-parse", "HEAD")
}

func (r *srcTestRepo) push(force bool) {
	r.tb.Helper()
	args := []string{"push", "-q", "origin", "HEAD:refs/heads/main"}
	if force {
		args = append(args, "--force")
	}
	srcGit(r.tb, r.dir, args...)
}

// site is what OpenSource is given: the bare repository or the work tree.
func (r *srcTestRepo) site() string {
	if r.bare != "" {
		return r.bare
	}
	return r.dir
}

// srcTestParser stands in for content.Parse where a test is about plumbing:
// the document is the file's bytes, "BROKEN" fails, and every call is
// recorded.
type srcTestParser struct {
	mu    sync.Mutex
	calls map[string]int
}

func (p *srcTestParser) parse(path string, data []byte) (*content.Doc, error) {
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[string]int{}
	}
	p.calls[path]++
	p.mu.Unlock()
	if strings.Contains(string(data), "BROKEN") {
		return nil, content.Problem{Path: path, Line: 1, Message: "broken file"}
	}
	return &content.Doc{Meta: map[string]any{"size": len(data)}, Body: content.NewMarkdown(string(data)), HasBody: true, Line: 1}, nil
}

func (p *srcTestParser) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[path]
}

func srcRelevant(p string) bool {
	return p == "globals.yaml" || strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "pages/")
}

// openSrc opens site with the test parser.
func openSrc(tb testing.TB, site, cacheDir string, p *srcTestParser) *Source {
	tb.Helper()
	src, err := OpenSource(context.Background(), SourceConfig{
		Site: site, CacheDir: cacheDir, Parse: p.parse, Relevant: srcRelevant, CacheKey: "test",
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { src.Close() })
	return src
}

func srcLoad(tb testing.TB, src *Source, branch string) *Tree {
	tb.Helper()
	commit, err := src.Resolve(branch)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err := src.Load(context.Background(), commit)
	if err != nil {
		tb.Fatal(err)
	}
	return tree
}

func srcFile(tb testing.TB, tree *Tree, p string) content.File {
	tb.Helper()
	for _, f := range tree.Files {
		if f.Path == p {
			return f
		}
	}
	tb.Fatalf("no file %s in tree %s", p, tree.Commit)
	return content.File{}
}

func srcPaths(tree *Tree) []string {
	var ps []string
	for _, f := range tree.Files {
		ps = append(ps, f.Path)
	}
	return ps
}

// srcWaitFor polls cond until it holds or a generous deadline passes.
func srcWaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func srcProblem(err error) string {
	var p content.Problem
	if errors.As(err, &p) {
		return p.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// srcTreeDiff compares two trees as served: documents by their values and
// bodies by their text (a body read from the repository is a closure,
// which reflect.DeepEqual cannot compare). "" when they are the same.
func srcTreeDiff(got, want *Tree) string {
	if got.Commit != want.Commit || !got.Time.Equal(want.Time) || len(got.Files) != len(want.Files) {
		return fmt.Sprintf("commit %s %v, %d files; want %s %v, %d files", got.Commit, got.Time, len(got.Files), want.Commit, want.Time, len(want.Files))
	}
	for i, g := range got.Files {
		w := want.Files[i]
		if g.Path != w.Path || !g.Updated.Equal(w.Updated) || !reflect.DeepEqual(g.Err, w.Err) || (g.Doc == nil) != (w.Doc == nil) {
			return fmt.Sprintf("file %d: %+v, want %+v", i, g, w)
		}
		if g.Doc == nil {
			continue
		}
		gd, wd := *g.Doc, *w.Doc
		if gd.Body.Source() != wd.Body.Source() {
			return fmt.Sprintf("%s: body %q, want %q", g.Path, gd.Body.Source(), wd.Body.Source())
		}
		gd.Body, wd.Body = content.Markdown{}, content.Markdown{}
		if !reflect.DeepEqual(gd, wd) {
			return fmt.Sprintf("%s: doc %+v, want %+v", g.Path, gd, wd)
		}
	}
	return ""
}
