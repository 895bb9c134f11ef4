package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitEnv makes commits reproducible: a fixed author and date, and no user
// or system configuration (hooks, signing, templates) that could change
// what is written.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=folio-gen",
	"GIT_AUTHOR_EMAIL=folio-gen@localhost",
	"GIT_COMMITTER_NAME=folio-gen",
	"GIT_COMMITTER_EMAIL=folio-gen@localhost",
	"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z",
	"GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
}

func git(dir string, args ...string) error {
	_, err := gitOutput(dir, args...)
	return err
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// commitSite makes dir a repository with one commit on main holding every
// file, and packs it as a clone would be (loose objects are not what a
// served site looks like). Files are added in one go: one git process for
// 100,000 files instead of one per file. With a model (folio.yaml's
// content), a second commit writes it into folio.yaml; base is then the
// first commit, the site without it.
func commitSite(dir, model string) (head, base string, err error) {
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		// No automatic gc: with a million loose objects it would repack
		// them all with a delta search before the repack below does it
		// again without one.
		{"-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-m", "Generated site"},
	}
	for _, s := range steps {
		if err := git(dir, s...); err != nil {
			return "", "", err
		}
	}
	if model != "" {
		if base, err = gitOutput(dir, "rev-parse", "HEAD"); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "folio.yaml"), []byte(model), 0o644); err != nil {
			return "", "", err
		}
		if err := git(dir, "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-a", "-m", "Content model"); err != nil {
			return "", "", err
		}
	}
	steps = [][]string{
		// No delta search: generated files share little, and it would
		// dominate the time for 100k files on two cores.
		{"-c", "pack.window=0", "repack", "-a", "-d", "-q"},
		{"prune-packed"},
	}
	for _, s := range steps {
		if err := git(dir, s...); err != nil {
			return "", "", err
		}
	}
	head, err = gitOutput(dir, "rev-parse", "HEAD")
	return head, base, err
}
