package decap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/folio-cms/folio/media/fault"
)

// errNoFile is a path that is not in the commit.
var errNoFile = errors.New("decap: no such file")

// Author is who a commit is written for: the API key's name and the
// configured e-mail.
type Author struct{ Name, Email string }

// Commit is one commit to make: Files written (path → content) and Delete
// removed, on top of Parent (the branch's tip the change was computed
// against; "" starts the branch from From). Merge, when set, is a second
// parent (a publish).
type Commit struct {
	Branch  string
	Parent  string
	From    string
	Merge   string
	Files   map[string][]byte
	Delete  []string
	Author  Author
	Message string
	// AllowEmpty makes the commit even when the tree does not change (a
	// status change of an unpublished entry).
	AllowEmpty bool
}

// Git makes commits in the engine's repository without a work tree (git
// plumbing on its object store, a private index file) and pushes them to
// the site's remote. It is the smallest writer the RPC needs; one commit
// at a time.
type Git struct {
	Dir    string // the repository (a bare clone, or a .git directory)
	Remote string // the URL pushed to; "" updates the local branch refs
	// Committer is who commits (folio), beside each commit's author.
	Committer Author
	mu        sync.Mutex
}

func (g *Git) run(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = append(append(os.Environ(), "GIT_DIR="+g.Dir, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s %s", args[0], err, strings.TrimSpace(errb.String()), strings.TrimSpace(out.String()))
	}
	return out.Bytes(), nil
}

// Head is the commit a branch points to; "" when there is no such branch.
func (g *Git) Head(ctx context.Context, branch string) (string, error) {
	out, err := g.run(ctx, nil, nil, "for-each-ref", "--format=%(objectname)", "refs/heads/"+branch)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Branches lists the branches below prefix ("cms/").
func (g *Git) Branches(ctx context.Context, prefix string) ([]string, error) {
	out, err := g.run(ctx, nil, nil, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"+prefix)
	if err != nil {
		return nil, err
	}
	var bs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			bs = append(bs, l)
		}
	}
	sort.Strings(bs)
	return bs, nil
}

// Blob is a file of a commit: its path and its blob id.
type Blob struct{ Path, ID string }

// List lists the files of commit below folder, at most depth levels down
// (depth ≤ 0: any depth).
func (g *Git) List(ctx context.Context, commit, folder string, depth int) ([]Blob, error) {
	args := []string{"ls-tree", "-r", "-z", commit}
	if folder != "" {
		args = append(args, "--", folder+"/")
	}
	out, err := g.run(ctx, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var bs []Blob
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> <type> <id>\t<path>"
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		rel := strings.TrimPrefix(p, folder+"/")
		if folder == "" {
			rel = p
		}
		if depth > 0 && strings.Count(rel, "/") >= depth {
			continue
		}
		bs = append(bs, Blob{Path: p, ID: f[2]})
	}
	return bs, nil
}

// Read returns a file of a commit and its blob id; errNoFile when it is
// not there.
func (g *Git) Read(ctx context.Context, commit, path string) ([]byte, string, error) {
	out, err := g.run(ctx, nil, nil, "ls-tree", "-z", commit, "--", path)
	if err != nil {
		return nil, "", err
	}
	meta, _, ok := strings.Cut(string(bytes.TrimRight(out, "\x00")), "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 || f[1] != "blob" {
		return nil, "", errNoFile
	}
	b, err := g.run(ctx, nil, nil, "cat-file", "blob", f[2])
	if err != nil {
		return nil, "", err
	}
	return b, f[2], nil
}

// Blobs reads many blobs with one git process (cat-file --batch), in the
// order of ids.
func (g *Git) Blobs(ctx context.Context, ids []string) ([][]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := g.run(ctx, nil, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	blobs := make([][]byte, 0, len(ids))
	for range ids {
		// "<id> blob <size>\n<content>\n"
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file --batch: unexpected %q", header)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(rest) {
			return nil, fmt.Errorf("git cat-file --batch: bad size in %q", header)
		}
		blobs = append(blobs, rest[:n])
		out = rest[n+1:]
	}
	return blobs, nil
}

// Change is a file a branch changed against its base.
type Change struct {
	Path   string
	Status string // "added", "modified" or "deleted"
}

// Diff lists the files changed from the merge base of base and head to
// head.
func (g *Git) Diff(ctx context.Context, base, head string) ([]Change, error) {
	mb, err := g.run(ctx, nil, nil, "merge-base", base, head)
	if err != nil {
		return nil, err
	}
	out, err := g.run(ctx, nil, nil, "diff", "--name-status", "-z", "--no-renames", strings.TrimSpace(string(mb)), head)
	if err != nil {
		return nil, err
	}
	f := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	var cs []Change
	for i := 0; i+1 < len(f); i += 2 {
		st := map[string]string{"A": "added", "M": "modified", "D": "deleted"}[string(f[i])]
		if st == "" {
			st = "modified"
		}
		cs = append(cs, Change{Path: string(f[i+1]), Status: st})
	}
	return cs, nil
}

// Trailer returns the last value of a commit message trailer key among
// the commits of head not in base (newest first): an unpublished entry's
// status.
func (g *Git) Trailer(ctx context.Context, base, head, key string) (string, error) {
	out, err := g.run(ctx, nil, nil, "log", "--format=%(trailers:key="+key+",valueonly,separator=%x00)%x01", base+".."+head)
	if err != nil {
		return "", err
	}
	for _, rec := range strings.Split(string(out), "\x01") {
		if v := strings.TrimSpace(rec); v != "" {
			return v, nil
		}
	}
	return "", nil
}

// LastChange is when head last changed (its committer time, RFC 3339).
func (g *Git) LastChange(ctx context.Context, head string) (string, error) {
	out, err := g.run(ctx, nil, nil, "log", "-1", "--format=%cI", head)
	return strings.TrimSpace(string(out)), err
}

// ErrConflict is a branch that moved since the change was computed (the
// remote has commits this box has not fetched, or another writer won).
var ErrConflict = fault.New(fault.Conflict, "the branch changed meanwhile; reload and try again")

// ErrPush is a remote that refused or did not answer the push: nothing was
// acknowledged.
var ErrPush = fault.New(fault.GitUnavailable, "the Git remote did not take the commit; nothing was saved")

// Apply makes the commit and pushes it (or moves the local branch) only if
// the branch is still at c.Parent; it returns the new commit.
func (g *Git) Apply(ctx context.Context, c Commit) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	base := c.Parent
	if base == "" {
		base = c.From
	}
	idx, err := os.CreateTemp("", "folio-decap-index-*")
	if err != nil {
		return "", err
	}
	idxPath := idx.Name()
	idx.Close()
	os.Remove(idxPath) // git wants to create it
	defer os.Remove(idxPath)
	env := []string{"GIT_INDEX_FILE=" + idxPath}
	if base != "" {
		if _, err := g.run(ctx, env, nil, "read-tree", base); err != nil {
			return "", err
		}
	}
	var info bytes.Buffer
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		id, err := g.run(ctx, nil, c.Files[p], "hash-object", "-w", "--stdin")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&info, "100644 %s\t%s\x00", strings.TrimSpace(string(id)), p)
	}
	for _, p := range c.Delete {
		fmt.Fprintf(&info, "0 %s\t%s\x00", strings.Repeat("0", 40), p)
	}
	if info.Len() > 0 {
		if _, err := g.run(ctx, env, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	tree, err := g.run(ctx, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	treeID := strings.TrimSpace(string(tree))
	if c.Parent != "" && !c.AllowEmpty && c.Merge == "" {
		old, err := g.run(ctx, nil, nil, "rev-parse", c.Parent+"^{tree}")
		if err == nil && strings.TrimSpace(string(old)) == treeID {
			// Nothing changed: no commit, the branch stays.
			return c.Parent, nil
		}
	}
	args := []string{"commit-tree", treeID}
	if base != "" {
		args = append(args, "-p", base)
	}
	if c.Merge != "" {
		args = append(args, "-p", c.Merge)
	}
	cenv := []string{
		"GIT_AUTHOR_NAME=" + c.Author.Name, "GIT_AUTHOR_EMAIL=" + c.Author.Email,
		"GIT_COMMITTER_NAME=" + g.Committer.Name, "GIT_COMMITTER_EMAIL=" + g.Committer.Email,
	}
	out, err := g.run(ctx, cenv, []byte(c.Message), args...)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(out))
	if err := g.updateRef(ctx, c.Branch, commit, c.Parent); err != nil {
		return "", err
	}
	return commit, nil
}

// DeleteBranch deletes a branch that is still at expect.
func (g *Git) DeleteBranch(ctx context.Context, branch, expect string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.updateRef(ctx, branch, "", expect)
}

// updateRef moves branch from old ("" : it must not exist) to commit (""
// deletes it): on the remote with a push that checks old (a lease), then
// locally, so that the engine's next fetch or reload serves it.
func (g *Git) updateRef(ctx context.Context, branch, commit, old string) error {
	ref := "refs/heads/" + branch
	if g.Remote != "" {
		lease := "--force-with-lease=" + ref + ":" + old
		if _, err := g.run(ctx, nil, nil, "push", "--porcelain", "--no-verify", lease, g.Remote, commit+":"+ref); err != nil {
			if msg := err.Error(); strings.Contains(msg, "stale info") || strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "fetch first") {
				return ErrConflict
			}
			return fault.Wrap(fault.GitUnavailable, err, "%s", ErrPush.Message)
		}
	}
	zero := strings.Repeat("0", 40)
	if old == "" {
		old = zero
	}
	var err error
	if commit == "" {
		_, err = g.run(ctx, nil, nil, "update-ref", "-d", ref, old)
	} else {
		_, err = g.run(ctx, nil, nil, "update-ref", ref, commit, old)
	}
	if err != nil && g.Remote == "" {
		return ErrConflict
	}
	// With a remote, the push is what counts; the next fetch makes the
	// local ref agree if this update lost a race with it.
	return nil
}

// safeRepoPath tells whether p is a clean relative path inside the
// repository: no "..", no absolute path, no .git, no control characters.
func safeRepoPath(p string) bool {
	if p == "" || len(p) > 1024 || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	if filepath.ToSlash(filepath.Clean(p)) != p {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	return true
}
