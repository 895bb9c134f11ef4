// Package gittest is the git side of the tests of engine and
// engine/gitsource: a repository to commit a site in with the real git
// CLI, independent of the machine's configuration, and a generated
// benchmark site. It is imported by tests only.
package gittest

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

// Env makes the git CLI independent of the machine's configuration.
func Env(date time.Time) []string {
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

// Git runs git in dir and returns its trimmed output.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return GitAt(tb, dir, time.Time{}, args...)
}

func GitAt(tb testing.TB, dir string, date time.Time, args ...string) string {
	tb.Helper()
	full := append([]string{"-c", "user.name=Folio Test", "-c", "user.email=test@folio.invalid",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "core.symlinks=true"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = Env(date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo is a work tree (clone of an optional bare repo) the tests commit in.
type Repo struct {
	TB   testing.TB
	Dir  string // work tree
	Bare string // "" when the work tree is the site
}

// NewBareSite makes a bare repository and a clone that pushes to it.
func NewBareSite(tb testing.TB) *Repo {
	tb.Helper()
	root := tb.TempDir()
	bare := filepath.Join(root, "site.git")
	Git(tb, root, "init", "--bare", "-q", bare)
	work := filepath.Join(root, "work")
	Git(tb, root, "init", "-q", work)
	Git(tb, work, "remote", "add", "origin", bare)
	return &Repo{TB: tb, Dir: work, Bare: bare}
}

// NewWorkTreeSite makes a repository with a work tree that is the site.
func NewWorkTreeSite(tb testing.TB) *Repo {
	tb.Helper()
	work := filepath.Join(tb.TempDir(), "site")
	Git(tb, filepath.Dir(work), "init", "-q", work)
	return &Repo{TB: tb, Dir: work}
}

func (r *Repo) Write(files map[string]string) {
	r.TB.Helper()
	for p, body := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.TB.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			r.TB.Fatal(err)
		}
	}
}

// Commit writes files, removes the paths in rm, commits everything at date
// and returns the commit hash.
func (r *Repo) Commit(date time.Time, files map[string]string, rm ...string) string {
	r.TB.Helper()
	r.Write(files)
	for _, p := range rm {
		Git(r.TB, r.Dir, "rm", "-q", "-r", p)
	}
	Git(r.TB, r.Dir, "add", "-A")
	GitAt(r.TB, r.Dir, date, "commit", "-q", "--allow-empty", "-m", "change at "+date.Format(time.RFC3339))
	return Git(r.TB, r.Dir, "rev-parse", "HEAD")
}

func (r *Repo) Push(force bool) {
	r.TB.Helper()
	args := []string{"push", "-q", "origin", "HEAD:refs/heads/main"}
	if force {
		args = append(args, "--force")
	}
	Git(r.TB, r.Dir, args...)
}

// Site is what OpenSource is given: the bare repository or the work tree.
func (r *Repo) Site() string {
	if r.Bare != "" {
		return r.Bare
	}
	return r.Dir
}

var T0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func Day(n int) time.Time { return T0.AddDate(0, 0, n) }

// BenchSite generates a 10k-file site (about 78 MB, like the measurements in
// docs/performance.md) with git fast-import: one commit adding everything, then
// `edits` commits changing one file each. It returns the bare repository.
func BenchSite(b testing.TB, files, edits int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "site.git")
	Git(b, filepath.Dir(dir), "init", "-q", "--bare", dir)

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
	commit(0, T0, all)
	for e := 1; e <= edits; e++ {
		i := 1 + (e*7919)%(files-1)
		commit(e, T0.Add(time.Duration(e)*time.Hour), map[string]string{path(i): fileBody(i, e)})
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = Env(time.Time{})
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	// One pack with deltas, as a real repository after gc.
	Git(b, dir, "repack", "-a", "-d", "-q")
	return dir
}
