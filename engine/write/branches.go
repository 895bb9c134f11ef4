package write

import (
	"context"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/gitsource"
)

// Branch operations, for editors that keep work on branches of their own
// (Decap CMS's editorial workflow: one cms/<collection>/<slug> branch per
// unpublished entry). A side branch is one that Config.WriteBranches
// allows and that is neither the published nor the draft branch. It is
// made by the first write that names it (Options.Branch), from the
// commit BranchStart tells; AddTrailer, MergeBranch and DeleteBranch
// commit, push (journaled, retried: as every write) and merge or remove
// it. Repo reads branches and commits.

// Repo reads a repository's branches, commits and files (no work tree),
// in process, through the Git source's reader (gitsource.Files): heads,
// branch lists, files, blobs, changes and commit times; trailers with
// git log (see Trailers). It is safe for concurrent use.
type Repo struct {
	r *repo
}

// OpenRepo reads the repository at gitDir (a bare clone, or a .git
// directory): for reads on a box that has no Writer.
func OpenRepo(gitDir string) *Repo {
	return &Repo{r: &repo{gitDir: gitDir, files: gitsource.OpenFiles(gitDir)}}
}

// Under is g reading the site in the folder root() of the repository
// (engine's SiteRoot): its paths are the site's, as the Writer's are.
func (g *Repo) Under(root func() string) *Repo {
	return &Repo{r: &repo{gitDir: g.r.gitDir, siteRoot: root, env: g.r.env, redact: g.r.redact, files: g.r.files}}
}

// Repo reads the repository the Writer commits to.
func (w *Writer) Repo() *Repo { return &Repo{r: w.repo} }

// Head is the commit branch points to; "" when there is no such branch.
func (g *Repo) Head(ctx context.Context, branch string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return g.r.files.Head(branch)
}

// Branches lists the branches whose name starts with prefix ("cms/"), in
// name order.
func (g *Repo) Branches(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return g.r.files.Branches(prefix)
}

// Files lists the files of commit under dir ("" : all), at most depth
// directory levels below it (depth ≤ 0: any depth), in path order.
func (g *Repo) Files(ctx context.Context, commit, dir string, depth int) ([]File, error) {
	files, err := g.r.listTree(ctx, commit, dir)
	if err != nil || depth <= 0 {
		return files, err
	}
	keep := files[:0]
	for _, f := range files {
		rel := f.Path
		if dir != "" {
			rel = strings.TrimPrefix(rel, dir+"/")
		}
		if strings.Count(rel, "/") < depth {
			keep = append(keep, f)
		}
	}
	return keep, nil
}

// Read returns a file of commit and its blob; NotFound when the commit
// has no file at p.
func (g *Repo) Read(ctx context.Context, commit, p string) ([]byte, string, error) {
	if commit == "" {
		return nil, "", fault.New(fault.NotFound, "no file %s", p)
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	blob, err := g.r.files.BlobAt(commit, g.r.full(p))
	if err != nil {
		return nil, "", err
	}
	if blob == "" {
		return nil, "", fault.New(fault.NotFound, "no file %s", p)
	}
	data, err := g.r.files.Blobs([]string{blob})
	if err != nil {
		return nil, "", err
	}
	return data[0], blob, nil
}

// Blobs reads many blobs, in the order of ids.
func (g *Repo) Blobs(ctx context.Context, ids []string) ([][]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return g.r.files.Blobs(ids)
}

// Change is a file a branch changed.
type Change struct {
	Path   string
	Status string // "added", "modified" or "deleted"
}

// Changes lists the files head changed since it parted from base (from
// their merge base to head).
func (g *Repo) Changes(ctx context.Context, base, head string) ([]Change, error) {
	mb, err := g.r.mergeBase(ctx, base, head)
	if err != nil {
		return nil, err
	}
	changes, err := g.r.files.Diff(mb, head)
	if err != nil {
		return nil, err
	}
	var cs []Change
	for _, c := range changes {
		st := map[byte]string{'A': "added", 'D': "deleted"}[c.Status]
		if st == "" {
			st = "modified" // M, and T: a file become a link or back
		}
		if p, ok := g.r.rel(c.Path); ok {
			cs = append(cs, Change{Path: p, Status: st})
		}
	}
	return cs, nil
}

// Trailer is one value of a commit message trailer, with the commit
// that carries it.
type Trailer struct {
	Value  string
	Author string // the commit's author name
	Email  string // the commit's author e-mail
	Time   time.Time
	Commit string
}

// Trailers lists the values of the trailer key in the commits of head
// that base does not have, oldest first. It stays with git log: which
// lines of a message are trailers is git's grammar (the last paragraph,
// its share of trailer lines, continuation lines, separators), and the
// order of a log through merges is git's walk.
func (g *Repo) Trailers(ctx context.Context, base, head, key string) ([]Trailer, error) {
	args := []string{"log", "--reverse", "--format=%H%x00%an%x00%cI%x00%ae%x00%(trailers:key=" + key + ",valueonly,separator=%x1f)%x1e", head}
	if base != "" {
		args = append(args, "^"+base)
	}
	out, err := g.r.run(ctx, nil, nil, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	var ts []Trailer
	for _, rec := range strings.Split(string(out), "\x1e") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x00", 5)
		if len(f) != 5 {
			continue
		}
		at, _ := time.Parse(time.RFC3339, f[2])
		for _, v := range strings.Split(f[4], "\x1f") {
			if v = strings.TrimSpace(v); v != "" {
				ts = append(ts, Trailer{Value: v, Author: f[1], Email: f[3], Time: at, Commit: f[0]})
			}
		}
	}
	return ts, nil
}

// CommitTime is when commit was made (its committer time).
func (g *Repo) CommitTime(ctx context.Context, commit string) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	return g.r.files.CommitTime(commit)
}

// BranchStart is the commit a branch that does not exist yet starts from
// when a write names it: a side branch starts from the draft branch when
// the site has one and it exists (the edits it holds are what the editor
// read), else from the published branch, as the draft branch does.
func (w *Writer) BranchStart(ctx context.Context, branch string) (string, error) {
	if d := w.cfg.DraftBranch; d != "" && branch != d && branch != w.cfg.Branch {
		if h, err := w.head(ctx, d); err != nil || h != "" {
			return h, err
		}
	}
	return w.head(ctx, w.cfg.Branch)
}

// BranchHead is the commit a write to branch starts from now: the
// branch's head, or BranchStart for a branch that does not exist yet;
// "" when neither exists. A server passes it as Options.Base of a write
// to a branch it does not serve (what a reader of the branch has read).
func (w *Writer) BranchHead(ctx context.Context, branch string) (string, error) {
	h, err := w.head(ctx, branch)
	if err != nil || h != "" {
		return h, err
	}
	return w.BranchStart(ctx, branch)
}

// sideBranch checks that b is a branch writes may name that is neither
// the published nor the draft branch.
func (w *Writer) sideBranch(b string) error {
	if b == w.cfg.Branch || b == w.cfg.DraftBranch || b == "" {
		return fault.New(fault.Invalid, "%q is not a side branch (the published and the draft branch are not)", b)
	}
	_, err := w.TargetBranch(b)
	return err
}

// Author is p as the Writer's commits name it: "folio" for no name,
// Config.AuthorEmail for no e-mail.
func (w *Writer) Author(p Person) Person { return w.defaultAuthor(p) }

func (w *Writer) defaultAuthor(p Person) Person {
	if p.Name == "" {
		p.Name = "folio"
	}
	if p.Email == "" {
		p.Email = w.cfg.AuthorEmail
	}
	return p
}

// TrailerOptions are a commit AddTrailer makes.
type TrailerOptions struct {
	Key     string // a trailer token: letters, digits and '-'
	Value   string // one line, at most MaxTrailerValue bytes
	Subject string // the commit's first line; "" : "Set <Key>"
	Author  Person
}

// MaxTrailerValue bounds a trailer's value.
const MaxTrailerValue = 64 << 10

// AddTrailer records a value on a side branch that exists: an empty
// commit (the branch's tree does not change) whose message ends with the
// trailer "Key: Value", pushed as every write is (made again on the new
// head when the branch moved meanwhile). Repo.Trailers reads them back.
func (w *Writer) AddTrailer(ctx context.Context, branch string, o TrailerOptions) (Result, error) {
	if err := w.sideBranch(branch); err != nil {
		return Result{}, err
	}
	if err := checkTrailer(o.Key, o.Value); err != nil {
		return Result{}, err
	}
	subject := strings.Join(strings.Fields(o.Subject), " ")
	if subject == "" {
		subject = "Set " + o.Key
	}
	msg := subject + "\n\n" + o.Key + ": " + o.Value + "\n"
	author := w.defaultAuthor(o.Author)
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	head, err := w.head(ctx, branch)
	if err != nil {
		return Result{}, err
	}
	for attempt := 1; ; attempt++ {
		if head == "" {
			return Result{}, fault.New(fault.NotFound, "no branch %s", branch)
		}
		commit, err := w.repo.commitTree(ctx, head+"^{tree}", msg, author, w.cfg.Committer, head)
		if err != nil {
			return Result{}, err
		}
		moved, err := w.land(ctx, branch, head, commit, "("+o.Key+")", attempt)
		if err != nil {
			return Result{}, err
		}
		if moved == "" {
			return Result{Branch: branch, Commit: commit}, nil
		}
		head = moved
	}
}

// MergeOptions are a MergeBranch.
type MergeOptions struct {
	// Expect is the side branch's head the caller read; "" : whatever
	// it is. A branch that moved since is a Conflict.
	Expect  string
	Message string // "" : "Merge <branch>"
	Author  Person
}

// MergeBranch merges a side branch into the default write branch (the
// draft branch when the site has one, else the published branch; ""
// names it): a merge commit whose tree is the target's with the files
// the side branch changed since they parted taken from the side branch
// (as the remote has it: a Conflict when that is not Expect). A file the
// target also changed since, differently, is a Conflict
// naming the files, and nothing is written. The commit is pushed as every
// write is, and made again when the target moved meanwhile. A draft
// branch that does not exist yet is made, from the published branch.
func (w *Writer) MergeBranch(ctx context.Context, from, into string, o MergeOptions) (Result, error) {
	if err := w.sideBranch(from); err != nil {
		return Result{}, err
	}
	def, err := w.TargetBranch("")
	if err != nil {
		return Result{}, err
	}
	if into == "" {
		into = def
	}
	if into != def {
		return Result{}, fault.New(fault.Forbidden, "a branch is merged into %s, not %q (the draft branch is published on its own)", def, into)
	}
	author := w.defaultAuthor(o.Author)
	msg, err := clientMessage(o.Message)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(msg) == "" {
		msg = "Merge " + from
	}
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	// What is merged is the side branch as the remote has it: another
	// box may have saved to it since this clone last fetched.
	var head string
	if w.cfg.Remote {
		fctx, cancel := w.remoteCtx(ctx)
		head, err = w.repo.fetchBranch(fctx, from)
		cancel()
		if err != nil {
			return Result{}, fault.Wrap(fault.GitUnavailable, err, "the Git remote cannot be fetched; nothing was merged")
		}
	} else if head, err = w.head(ctx, from); err != nil {
		return Result{}, err
	}
	if head == "" {
		return Result{}, fault.New(fault.NotFound, "no branch %s", from)
	}
	if o.Expect != "" && head != o.Expect {
		return Result{}, fault.New(fault.Conflict, "the branch %s changed meanwhile; reload it and try again", from)
	}
	for attempt := 1; ; attempt++ {
		parent, err := w.head(ctx, into)
		if err != nil {
			return Result{}, err
		}
		if parent == "" {
			if parent, err = w.head(ctx, w.cfg.Branch); err != nil || parent == "" {
				return Result{}, fault.New(fault.NotFound, "the published branch %q does not exist", w.cfg.Branch)
			}
		}
		changes, err := w.sideChanges(ctx, parent, head, from, into)
		if err != nil {
			return Result{}, err
		}
		tree, err := w.repo.raw().writeTree(ctx, parent, changes)
		if err != nil {
			return Result{}, err
		}
		commit, err := w.repo.commitTree(ctx, tree, msg, author, w.cfg.Committer, parent, head)
		if err != nil {
			return Result{}, err
		}
		moved, err := w.land(ctx, into, parent, commit, "(merge "+from+")", attempt)
		if err != nil {
			return Result{}, err
		}
		if moved == "" {
			return Result{Branch: into, Commit: commit}, nil
		}
	}
}

// land publishes commit on branch (see publish) and tells Config.Written:
// "" when it landed, else the head the branch moved to (the caller makes
// its commit again on it), a Conflict once attempt is the last.
func (w *Writer) land(ctx context.Context, branch, parent, commit, what string, attempt int) (string, error) {
	moved, err := w.publish(ctx, branch, parent, commit, what)
	switch {
	case err != nil:
		return "", err
	case moved == "":
		if w.cfg.Written != nil {
			w.cfg.Written(ctx, branch, commit)
		}
		return "", nil
	case attempt >= maxAttempts:
		return "", fault.New(fault.Conflict, "the branch %s kept moving; retry", branch)
	}
	return moved, nil
}

// sideChanges are the files head changed since it parted from parent,
// as parent is to take them; a Conflict naming the files parent changed
// too, differently. The paths are the repository's (a merge takes the
// whole side branch, below the site root or not).
func (w *Writer) sideChanges(ctx context.Context, parent, head, from, into string) ([]fileChange, error) {
	repo := w.repo.raw()
	mb, err := repo.mergeBase(ctx, parent, head)
	if err != nil {
		return nil, fault.New(fault.Conflict, "the branch %s has no history in common with %s", from, into)
	}
	diff, err := repo.files.Diff(mb, head)
	if err != nil {
		return nil, err
	}
	var changes []fileChange
	var conflicts []string
	for _, c := range diff {
		p := c.Path
		theirs, err := repo.blobAt(ctx, head, p)
		if err != nil {
			return nil, err
		}
		ours, err := repo.blobAt(ctx, parent, p)
		if err != nil {
			return nil, err
		}
		base, err := repo.blobAt(ctx, mb, p)
		if err != nil {
			return nil, err
		}
		switch {
		case theirs == ours:
		case ours != base:
			conflicts = append(conflicts, p)
		default:
			changes = append(changes, fileChange{p, theirs})
		}
	}
	if len(conflicts) > 0 {
		return nil, fault.New(fault.Conflict, "%s changed on %s since %s left it: %s", strings.Join(conflicts, ", "), into, from, "update the entry and try again")
	}
	return changes, nil
}

// DeleteBranch deletes a side branch, only while it is at expect (""
// : whatever it is): on the remote (a push with a lease: another box's
// newer commit there is a Conflict, not lost), then in the clone. A
// branch the remote no longer has is deleted from the clone and is no
// error.
func (w *Writer) DeleteBranch(ctx context.Context, branch, expect string) error {
	if err := w.sideBranch(branch); err != nil {
		return err
	}
	unlock, err := w.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	head, err := w.head(ctx, branch)
	if err != nil {
		return err
	}
	if head == "" {
		return fault.New(fault.NotFound, "no branch %s", branch)
	}
	if expect != "" && head != expect {
		return fault.New(fault.Conflict, "the branch %s changed meanwhile; reload it and try again", branch)
	}
	ref := "refs/heads/" + branch
	if w.cfg.Remote {
		defer w.lockRefs()()
		pctx, cancel := context.WithTimeout(ctx, w.cfg.PushTimeout)
		_, err := w.repo.run(pctx, nil, nil, "push", "--porcelain", "--quiet", "--force-with-lease="+ref+":"+head, "origin", ":"+ref)
		cancel()
		if err != nil {
			fctx, cancel := w.remoteCtx(ctx)
			now, ferr := w.repo.fetchBranch(fctx, branch)
			cancel()
			switch {
			case ferr != nil:
				return fault.Wrap(fault.GitUnavailable, err, "the Git remote did not delete the branch %s and cannot be fetched; nothing was changed", branch)
			case now == "":
				// Deleted already (another box): the clone follows.
			case now != head:
				return fault.New(fault.Conflict, "the branch %s changed on the remote meanwhile; reload it and try again", branch)
			default:
				return fault.Wrap(fault.GitUnavailable, err, "the Git remote did not delete the branch %s; nothing was changed", branch)
			}
		}
		// The remote is what counts; the engine's next fetch prunes the
		// clone's ref if this loses a race with it.
		_, _ = w.repo.run(ctx, nil, nil, "update-ref", "-d", ref, head)
		return nil
	}
	if _, err := w.repo.run(ctx, nil, nil, "update-ref", "-d", ref, head); err != nil {
		return fault.New(fault.Conflict, "the branch %s changed meanwhile; reload it and try again", branch)
	}
	return nil
}

// listTree lists the files of commit under dir ("" : all), recursively,
// in Git's order (git ls-tree -r): the writer's own reads, beside its
// writes.
func (r *repo) listTree(ctx context.Context, commit, dir string) ([]File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full := r.root()
	if dir != "" {
		full = r.full(dir)
	}
	entries, err := r.files.List(commit, full)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range entries {
		if rel, ok := r.rel(e.Path); ok {
			files = append(files, File{Path: rel, Blob: e.Blob})
		}
	}
	return files, nil
}
