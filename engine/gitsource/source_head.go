package gitsource

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
)

// fallbackBranch is the published branch when the repository does not
// say which is its default (a remote that does not advertise its HEAD, a
// detached or dangling HEAD).
const fallbackBranch = "main"

// DefaultBranch is the branch the repository's HEAD names: for a remote
// site, the remote's default branch (its advertised HEAD, remembered as
// the clone's HEAD so that a restart without the network finds it
// again); for a local one, the branch HEAD is on. It is "main" when HEAD
// names no branch the repository has.
func (s *Source) DefaultBranch(ctx context.Context) string {
	if s.remote {
		s.followRemoteHead(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.repo.Storer.Reference(plumbing.HEAD)
	if err != nil || head.Type() != plumbing.SymbolicReference || !head.Target().IsBranch() {
		return fallbackBranch
	}
	if _, err := s.repo.Reference(head.Target(), true); err != nil {
		return fallbackBranch
	}
	return head.Target().Short()
}

// followRemoteHead sets the clone's HEAD to the branch the remote's HEAD
// names. A remote that cannot be asked, or does not say, leaves it as
// it was.
func (s *Source) followRemoteHead(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := s.remoteHead(ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.log.Warn("source: the remote's default branch could not be asked", "site", s.auth.URL(), "err", err)
		}
		return
	}
	if target == "" {
		return
	}
	if err := s.repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, target)); err != nil {
		s.log.Warn("source: remember the remote's default branch", "err", err)
	}
}
