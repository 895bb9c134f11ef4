package write

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

	"github.com/folio-cms/folio/engine/gitsource"
)

// repo runs the git command on a repository without a work tree: every
// write is made with plumbing (hash-object, a temporary index, write-tree,
// commit-tree, update-ref), so nothing is ever checked out. Pushing with
// the git command (not go-git) is what makes the standard credential
// configuration apply: credential helpers, ~/.git-credentials, SSH keys
// and agents, GIT_SSH_COMMAND, http.extraHeader and so on.
type repo struct {
	gitDir string
	// siteRoot is the folder of the repository the site is in (nil or
	// "": the repository's root, see Config.SiteRoot). The paths the
	// repo's methods take and give are the site's: root/ is added on
	// every path given to git and removed from every path git gives
	// back (a path outside it is left out).
	siteRoot func() string
	env      []string            // extra environment of every command
	redact   func(string) string // takes credentials out of an error; nil: none
	// files reads the repository in process (heads, trees, blobs,
	// history): every read of a write.
	files *gitsource.Files
}

// root is the site root ("" : the repository's root).
func (r *repo) root() string {
	if r.siteRoot == nil {
		return ""
	}
	return r.siteRoot()
}

// full is the repository path of the site path p.
func (r *repo) full(p string) string {
	if root := r.root(); root != "" {
		return root + "/" + p
	}
	return p
}

// rel is the site path of the repository path p; false when p is not
// below the site root.
func (r *repo) rel(p string) (string, bool) {
	if root := r.root(); root != "" {
		return strings.CutPrefix(p, root+"/")
	}
	return p, true
}

// raw is the same repository with the repository's paths (no site
// root): for what works on whole commits (merging a side branch).
func (r *repo) raw() *repo {
	return &repo{gitDir: r.gitDir, env: r.env, redact: r.redact, files: r.files}
}

// gitError is a git command that failed, with what it wrote to stderr.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.args, " "), e.err, strings.TrimSpace(e.stderr))
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git with args, stdin as its input, and returns its stdout.
func (r *repo) run(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + r.gitDir}, args...)...)
	cmd.Env = append(append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), r.env...), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	// A cancelled command takes its children with it (a push runs the
	// transport as a child, which would keep the output open), and
	// is not waited for past WaitDelay.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		stderr := errb.String() + out.String()
		if r.redact != nil {
			stderr = r.redact(stderr)
		}
		return out.Bytes(), &gitError{args: args, stderr: stderr, err: err}
	}
	return out.Bytes(), nil
}

func (r *repo) text(ctx context.Context, args ...string) (string, error) {
	out, err := r.run(ctx, nil, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// The reads of a write (heads, files, blobs, history) go through the Git
// source's in-process reader (gitsource.Files), no git process each;
// what writes (hash-object, the temporary index, commit-tree,
// update-ref) and what talks to the remote stays with the git command
// (see docs/contributing.md, "One way to talk to a remote").

// head is the commit branch points to; "" when the branch does not exist.
func (r *repo) head(ctx context.Context, branch string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return r.files.Head(branch)
}

// blobAt is the blob hash of path in commit (a revision: a full or short
// hash, a branch); "" when the path is not a file there (or commit is "").
func (r *repo) blobAt(ctx context.Context, commit, path string) (string, error) {
	if commit == "" {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return r.files.BlobAt(commit, r.full(path))
}

// fileAt is the content and blob hash of path in commit; a nil content
// and "" when the path is not a file there.
func (r *repo) fileAt(ctx context.Context, commit, path string) ([]byte, string, error) {
	blob, err := r.blobAt(ctx, commit, path)
	if err != nil || blob == "" {
		return nil, "", err
	}
	data, err := r.readBlob(ctx, blob)
	return data, blob, err
}

// firstAt is the first of paths that is in commit (a file, or a folder
// or a submodule of that name); "" when none is.
func (r *repo) firstAt(ctx context.Context, commit string, paths []string) (string, error) {
	if commit == "" || len(paths) == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	for _, p := range paths {
		if ok, err := r.files.Has(commit, r.full(p)); err != nil || ok {
			return p, err
		}
	}
	return "", nil
}

// readBlob returns the bytes of a blob.
func (r *repo) readBlob(ctx context.Context, blob string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := r.files.Blobs([]string{blob})
	if err != nil {
		return nil, err
	}
	return data[0], nil
}

// writeBlob stores data as a blob and returns its hash.
func (r *repo) writeBlob(ctx context.Context, data []byte) (string, error) {
	out, err := r.run(ctx, nil, data, "hash-object", "-w", "--stdin")
	return strings.TrimSpace(string(out)), err
}

// commitFile makes a commit on parent ("" : a root commit) in which path
// holds blob (blob "" removes it), without a work tree: the tree is built
// in a temporary index.
func (r *repo) commitFile(ctx context.Context, parent, path, blob, message string, author, committer Person) (string, error) {
	return r.commitFiles(ctx, parent, []fileChange{{path, blob}}, message, author, committer)
}

// fileChange is one path of a commit: its new blob, "" to remove it.
type fileChange struct{ path, blob string }

// commitFiles is commitFile for several paths.
func (r *repo) commitFiles(ctx context.Context, parent string, changes []fileChange, message string, author, committer Person) (string, error) {
	tree, err := r.writeTree(ctx, parent, changes)
	if err != nil {
		return "", err
	}
	return r.commitTree(ctx, tree, message, author, committer, parent)
}

// writeTree is the tree of parent ("" : the empty tree) with changes
// made, built in a temporary index.
func (r *repo) writeTree(ctx context.Context, parent string, changes []fileChange) (string, error) {
	idx, err := os.CreateTemp("", "folio-index-*")
	if err != nil {
		return "", err
	}
	idxPath := idx.Name()
	idx.Close()
	os.Remove(idxPath) // git wants to create it
	defer os.Remove(idxPath)
	defer os.Remove(idxPath + ".lock")
	env := []string{"GIT_INDEX_FILE=" + idxPath}
	if parent != "" {
		if _, err := r.run(ctx, env, nil, "read-tree", parent); err != nil {
			return "", err
		}
	} else if _, err := r.run(ctx, env, nil, "read-tree", "--empty"); err != nil {
		return "", err
	}
	var info strings.Builder
	for _, c := range changes {
		if c.blob == "" {
			info.WriteString("0 " + strings.Repeat("0", 40) + "\t" + r.full(c.path) + "\x00")
		} else {
			info.WriteString("100644 " + c.blob + "\t" + r.full(c.path) + "\x00")
		}
	}
	if _, err := r.run(ctx, env, []byte(info.String()), "update-index", "-z", "--add", "--index-info"); err != nil {
		return "", err
	}
	tree, err := r.run(ctx, env, nil, "write-tree")
	return strings.TrimSpace(string(tree)), err
}

// commitTree makes a commit of tree with parents.
func (r *repo) commitTree(ctx context.Context, tree, message string, author, committer Person, parents ...string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	cenv := []string{
		"GIT_AUTHOR_NAME=" + author.Name, "GIT_AUTHOR_EMAIL=" + author.Email,
		"GIT_COMMITTER_NAME=" + committer.Name, "GIT_COMMITTER_EMAIL=" + committer.Email,
	}
	out, err := r.run(ctx, cenv, []byte(message), args...)
	return strings.TrimSpace(string(out)), err
}

// updateRef moves branch from old to new, atomically: it fails when the
// branch is no longer at old (old "" : the branch must not exist). When
// the branch is checked out in the repository's work tree, the work tree
// is brought along (see worktree.go).
func (r *repo) updateRef(ctx context.Context, branch, new, old string) error {
	if old == "" {
		old = strings.Repeat("0", len(new))
	} else if wt := r.workTree(ctx, branch); wt != "" {
		if err := r.checkout(ctx, wt, old, new); err != nil {
			return err
		}
		if _, err := r.run(ctx, nil, nil, "update-ref", "-m", "folio write", "refs/heads/"+branch, new, old); err != nil {
			// The branch moved under the write (a commit made in the work
			// tree meanwhile): put the files back as they were.
			if berr := r.checkout(ctx, wt, new, old); berr != nil {
				return fmt.Errorf("%w; and the work tree could not be put back: %v", err, berr)
			}
			return err
		}
		return nil
	}
	_, err := r.run(ctx, nil, nil, "update-ref", "-m", "folio write", "refs/heads/"+branch, new, old)
	return err
}

// setRef moves branch to new whatever it was (a clone's mirror ref).
func (r *repo) setRef(ctx context.Context, branch, new string) error {
	_, err := r.run(ctx, nil, nil, "update-ref", "-m", "folio write", "refs/heads/"+branch, new)
	return err
}

// pushResult tells how a push went.
type pushResult int

const (
	pushed   pushResult = iota
	rejected            // non-fast-forward: the remote moved
	refused             // the remote refused it for another reason, or is unreachable
)

// push pushes commit to branch of the remote origin, never forcing.
func (r *repo) push(ctx context.Context, commit, branch string) (pushResult, error) {
	_, err := r.run(ctx, nil, nil, "push", "--porcelain", "--quiet", "origin", commit+":refs/heads/"+branch)
	if err == nil {
		return pushed, nil
	}
	var ge *gitError
	if errors.As(err, &ge) {
		s := ge.stderr
		if strings.Contains(s, "non-fast-forward") || strings.Contains(s, "fetch first") || strings.Contains(s, "[rejected]") && strings.Contains(s, "(stale info)") {
			return rejected, err
		}
	}
	return refused, err
}

// fetchBranch updates the clone's mirror of branch from origin and
// returns its commit ("" : the remote has no such branch).
func (r *repo) fetchBranch(ctx context.Context, branch string) (string, error) {
	out, err := r.text(ctx, "ls-remote", "origin", "refs/heads/"+branch)
	if err != nil {
		return "", err
	}
	hash, _, _ := strings.Cut(out, "\t")
	if hash == "" {
		return "", nil
	}
	if _, err := r.run(ctx, nil, nil, "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+branch+":refs/heads/"+branch); err != nil {
		// Another fetch (the engine's) may hold the ref's lock: the
		// objects are what matter; check that the commit is here.
		if _, err2 := r.files.Commit(hash); err2 != nil {
			return "", err
		}
	}
	return hash, nil
}

// isAncestor tells whether a is an ancestor of (or is) b.
func (r *repo) isAncestor(ctx context.Context, a, b string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return r.files.IsAncestor(a, b)
}

// errNoMergeBase is two commits without a common ancestor.
var errNoMergeBase = errors.New("the commits have no history in common")

// mergeBase is the best common ancestor of a and b, as git merge-base
// prints it; errNoMergeBase when they have none. When several of the
// same date tie (a criss-cross history), git's own walk picks it: the
// in-process one does not copy git's order among them.
func (r *repo) mergeBase(ctx context.Context, a, b string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	mb, err := r.files.MergeBase(a, b)
	if errors.Is(err, gitsource.ErrMergeBaseTie) {
		return r.text(ctx, "merge-base", a, b)
	}
	if err == nil && mb == "" {
		err = errNoMergeBase
	}
	return mb, err
}

func asGitError(err error, ge **gitError) bool { return errors.As(err, ge) }

func pathExt(p string) string {
	if i := strings.LastIndexByte(p, '.'); i > strings.LastIndexByte(p, '/') {
		return p[i:]
	}
	return ""
}

// changedPaths are the paths whose file differs between two commits
// (of the site's: below the site root).
func (r *repo) changedPaths(ctx context.Context, from, to string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	changes, err := r.files.Diff(from, to)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range changes {
		if rel, ok := r.rel(c.Path); ok {
			paths = append(paths, rel)
		}
	}
	return paths, nil
}
