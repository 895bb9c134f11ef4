package write

import (
	"context"
	"fmt"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// PublishOptions are what Publish publishes.
type PublishOptions struct {
	// Docs names the documents of the draft branch to publish (their
	// file as the draft branch has it, or their deletion); empty: the
	// whole draft branch.
	Docs    []Doc
	Message string // default "Publish <draft branch>" or "Publish posts/hello, …"
	Author  Person
}

// Publish brings the draft branch (or the named documents of it) into
// the published branch: the whole branch by a fast-forward when the
// published branch has not moved since they parted, else by a merge
// commit; named documents by one commit on the published branch. A file
// changed on both sides since they parted, differently, is a Conflict
// naming the files, and nothing is written. Result.Commit is "" when
// there was nothing to publish.
func (w *Writer) Publish(ctx context.Context, o PublishOptions) (Result, error) {
	if w.cfg.DraftBranch == "" {
		return Result{}, fault.New(fault.Conflict, "this site has no draft branch (--draft-branch): writes go to the published branch directly")
	}
	o.Author = w.defaultAuthor(o.Author)
	msg, err := clientMessage(o.Message)
	if err != nil {
		return Result{}, err
	}
	o.Message = msg
	for i := range o.Docs {
		if err := checkDoc(opPatch, &o.Docs[i]); err != nil {
			return Result{}, err
		}
	}
	unlock, err := w.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	v := w.view(w.cfg.DraftBranch)
	for i := range o.Docs {
		if _, err := v.checkLocale(&o.Docs[i]); err != nil {
			return Result{}, err
		}
		v.resolveSlug(&o.Docs[i])
	}
	for attempt := 1; ; attempt++ {
		pub, err := w.head(ctx, w.cfg.Branch)
		if err != nil {
			return Result{}, err
		}
		draft, err := w.head(ctx, w.cfg.DraftBranch)
		if err != nil {
			return Result{}, err
		}
		if draft == "" || pub == "" {
			return Result{}, fault.New(fault.NotFound, "the draft branch %q has nothing to publish (it does not exist)", w.cfg.DraftBranch)
		}
		var commit string
		if len(o.Docs) == 0 {
			commit, err = w.mergeDraft(ctx, pub, draft, o)
		} else {
			commit, err = w.publishDocs(ctx, v, pub, draft, o)
		}
		if err != nil || commit == "" {
			return Result{Branch: w.cfg.Branch}, err
		}
		moved, err := w.publish(ctx, w.cfg.Branch, pub, commit, "(publish)")
		if err != nil {
			return Result{}, err
		}
		if moved == "" {
			if w.cfg.Written != nil {
				w.cfg.Written(ctx, w.cfg.Branch, commit)
			}
			return Result{Branch: w.cfg.Branch, Commit: commit}, nil
		}
		if attempt >= maxAttempts {
			return Result{}, fault.New(fault.Conflict, "the branch %s kept moving; retry", w.cfg.Branch)
		}
	}
}

// mergeDraft is the commit that brings the whole draft branch into pub:
// draft itself (fast-forward) or a merge commit; "" when pub has it all.
func (w *Writer) mergeDraft(ctx context.Context, pub, draft string, o PublishOptions) (string, error) {
	if ok, err := w.repo.isAncestor(ctx, draft, pub); err != nil || ok {
		return "", err
	}
	if ok, err := w.repo.isAncestor(ctx, pub, draft); err != nil || ok {
		return draft, err
	}
	out, err := w.repo.run(ctx, nil, nil, "merge-tree", "--write-tree", "--name-only", "--no-messages", pub, draft)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		var ge *gitError
		if len(lines) > 1 && asGitError(err, &ge) {
			return "", fault.New(fault.Conflict, "the draft branch and %s both changed, differently: %s; resolve it in Git or publish other documents", w.cfg.Branch, strings.Join(lines[1:], ", "))
		}
		return "", err
	}
	msg := o.Message
	if msg == "" {
		msg = "Publish " + w.cfg.DraftBranch
	}
	return w.repo.commitTree(ctx, lines[0], msg, o.Author, w.cfg.Committer, pub, draft)
}

// publishDocs is one commit on pub giving the named documents their
// draft-branch files.
func (w *Writer) publishDocs(ctx context.Context, v view, pub, draft string, o PublishOptions) (string, error) {
	base, err := w.repo.mergeBase(ctx, pub, draft)
	if err != nil {
		return "", err
	}
	var changes []fileChange
	var conflicts, names []string
	for _, d := range o.Docs {
		p, err := w.findPath(ctx, v, d, draft, pub)
		if err != nil {
			return "", err
		}
		// A read that fails is an error, never an absent file: that
		// would publish a deletion.
		var dr, pb, mb string
		for _, at := range []struct {
			blob   *string
			commit string
		}{{&dr, draft}, {&pb, pub}, {&mb, base}} {
			if *at.blob, err = w.repo.blobAt(ctx, at.commit, p); err != nil {
				return "", fmt.Errorf("publish %s: read it at %s: %w", p, at.commit, err)
			}
		}
		if dr == pb {
			continue
		}
		if pb != mb && dr != mb {
			conflicts = append(conflicts, p)
			continue
		}
		if dr == mb {
			continue // only the published side changed it
		}
		changes = append(changes, fileChange{p, dr})
		names = append(names, strings.TrimPrefix(strings.TrimSuffix(p, pathExt(p)), "content/"))
	}
	if len(conflicts) > 0 {
		return "", fault.New(fault.Conflict, "changed on both branches, differently: %s", strings.Join(conflicts, ", "))
	}
	if len(changes) == 0 {
		return "", nil
	}
	msg := o.Message
	if msg == "" {
		msg = "Publish " + strings.Join(names, ", ")
	}
	return w.repo.commitFiles(ctx, pub, changes, msg, o.Author, w.cfg.Committer)
}

// findPath is the path of a document on the draft branch (v's), else on
// pub.
func (w *Writer) findPath(ctx context.Context, v view, d Doc, draft, pub string) (string, error) {
	if p, _, _ := v.served(d); p != "" {
		return p, nil
	}
	i18n := v.i18n()
	for _, c := range []string{draft, pub} {
		for _, p := range candidatesIn(i18n, v.own, d) {
			if b, err := w.repo.blobAt(ctx, c, p); err != nil {
				return "", err
			} else if b != "" {
				return p, nil
			}
		}
	}
	return "", fault.New(fault.NotFound, "no %s on the draft branch", describe(d))
}
