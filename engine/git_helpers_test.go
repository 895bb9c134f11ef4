package engine

// The git helpers of the engine's tests: a repository to commit a site
// in, as package gitsource's tests have (source_helpers_test.go there).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

var srcT0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func srcDay(n int) time.Time { return srcT0.AddDate(0, 0, n) }

// benchSite generates a 10k-file site (about 78 MB, like the measurements in
// docs/performance.md) with git fast-import: one commit adding everything, then
// `edits` commits changing one file each. It returns the bare repository.
func benchSite(b testing.TB, files, edits int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "site.git")
	srcGit(b, filepath.Dir(dir), "init", "-q", "--bare", dir)

	var in bytes.Buffer
	para := strings.Repeat("Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, sed do eiusmod [tempor](/x) incididunt. ", 8)
	fileBody := func(i, rev int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "---\ntitle: Post %d rev %d\ndate: 2024-01-%02dT10:00:00Z\ntags: [go, cms, t%d]\ndraft: false\nweight: %d\n---\n", i, rev, 1+i%28, i%50, i)
		for s.Len() < 7600 {
			fmt.Fprintf(&s, "\n## Section %d\n\n%s\n\n- item one\n- item two\n", s.Len(), para)
		}
		return s.String()
	}
	path := func(i int) string {
		switch {
		case i == 0:
			return "globals.yaml"
		case i < 1000:
			return fmt.Sprintf("pages/page-%04d.md", i)
		case i < 4000:
			return fmt.Sprintf("content/docs/section-%02d/doc-%05d.md", i%30, i)
		default:
			return fmt.Sprintf("content/posts/post-%05d.md", i)
		}
	}
	commit := func(n int, when time.Time, changes map[string]string) {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter Bench <b@folio.invalid> %d +0000\ndata 7\ncommit%d\n", when.Unix(), n%10)
		for p, body := range changes {
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
		}
		in.WriteString("\n")
	}
	all := map[string]string{}
	for i := range files {
		if i == 0 {
			all[path(i)] = "siteName: Bench\n"
			continue
		}
		all[path(i)] = fileBody(i, 0)
	}
	all["README.md"] = "# not content\n"
	commit(0, srcT0, all)
	for e := 1; e <= edits; e++ {
		i := 1 + (e*7919)%(files-1)
		commit(e, srcT0.Add(time.Duration(e)*time.Hour), map[string]string{path(i): fileBody(i, e)})
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = srcGitEnv(time.Time{})
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	// One pack with deltas, as a real repository after gc.
	srcGit(b, dir, "repack", "-a", "-d", "-q")
	return dir
}
