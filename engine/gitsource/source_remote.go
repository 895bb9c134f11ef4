package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A remote site is fetched with the git CLI, as the writer pushes to it:
// one transport, with the same credentials (package gitauth: a token, an
// SSH key, else git's credential helpers and SSH configuration), the same
// timeouts (a command cut off is killed with its transport) and the same
// errors, redacted. See docs/contributing.md.

// gitRemote runs git on the clone with the remote's credentials, and
// returns its stdout; an error carries its stderr, redacted.
func (s *Source) gitRemote(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + s.gitDir}, args...)...)
	cmd.Env = append(os.Environ(), s.auth.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("a remote site is fetched with the git command, and there is none on PATH: %w", err)
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			return nil, s.auth.Error(err)
		}
		return nil, s.auth.Error(fmt.Errorf("%w: %s", err, msg))
	}
	return out.Bytes(), nil
}

// fetch fetches every branch and tag of the remote into the clone,
// force, pruning what the remote deleted. Each fetch keeps its pack as
// it came (go-git's reads see it; no loose objects) and git does no
// maintenance of its own on the clone (a Load may be reading its packs).
func (s *Source) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	defer cancel()
	_, err := s.gitRemote(ctx, "-c", "fetch.unpackLimit=1", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
		"fetch", "--quiet", "--force", "--prune", "--no-tags", "--no-write-fetch-head", "origin", remoteFetchSpec, remoteTagSpec)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("source: fetch %s: no answer within %v: %w", s.auth.URL(), s.cfg.FetchTimeout, context.DeadlineExceeded)
		}
		return fmt.Errorf("source: fetch %s: %w", s.auth.URL(), err)
	}
	return nil
}

// remoteHead is the branch the remote's HEAD names; "" when it names
// none.
func (s *Source) remoteHead(ctx context.Context) (plumbing.ReferenceName, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	defer cancel()
	out, err := s.gitRemote(ctx, "ls-remote", "--symref", "origin", "HEAD")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if ref, ok := strings.CutPrefix(line, "ref: "); ok {
			target, name, _ := strings.Cut(ref, "\t")
			if name == "HEAD" && plumbing.ReferenceName(target).IsBranch() {
				return plumbing.ReferenceName(target), nil
			}
		}
	}
	return "", nil
}

// URL is the site as given, without the password of a remote's URL.
func (s *Source) URL() string {
	if s.remote {
		return s.auth.URL()
	}
	return s.cfg.Site
}

// GitEnv is the environment of a git command that talks to the remote
// (gitauth.Auth.Env): the writer's push gets the credentials the fetch
// has.
func (s *Source) GitEnv() []string { return s.auth.Env() }

// Redact is s with the remote's credentials taken out.
func (s *Source) Redact(v string) string { return s.auth.Redact(v) }
