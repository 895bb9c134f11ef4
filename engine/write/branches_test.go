package write

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

// remoteRef is a branch's commit on the remote; "" when it has none.
func (s *site) remoteRef(branch string) string {
	out, _ := exec.Command("git", "--git-dir="+s.remote, "rev-parse", "--verify", "-q", "refs/heads/"+branch).Output()
	return strings.TrimSpace(string(out))
}

// pushBranch commits a file to branch of the remote as another writer
// would.
func (s *site) pushBranch(branch, p, c string) {
	git(s.t, s.work, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
	git(s.t, s.work, "checkout", "-q", "-B", branch, "origin/"+branch)
	full := filepath.Join(s.work, p)
	os.MkdirAll(filepath.Dir(full), 0o755)
	os.WriteFile(full, []byte(c), 0o644)
	git(s.t, s.work, "add", "-A")
	git(s.t, s.work, "commit", "-qm", "other on "+branch)
	git(s.t, s.work, "push", "-q", "origin", branch)
	git(s.t, s.work, "checkout", "-q", "main")
}

// journalSeen makes the remote copy the writer's push journal to a file
// as each push arrives: what a kill -9 during that push would leave.
func (s *site) journalSeen(w *Writer) string {
	seen := filepath.Join(s.t.TempDir(), "seen")
	hook := "#!/bin/sh\ncat '" + w.journalPath() + "' >> '" + seen + "' 2>/dev/null; echo >> '" + seen + "'\n"
	if err := os.WriteFile(filepath.Join(s.remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return seen
}

func TestSideBranches(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	repo := w.Repo()
	ctx := context.Background()
	seen := s.journalSeen(w)
	const br = "cms/posts/fresh"

	// A write naming a side branch makes it, from the published branch.
	main0 := s.remoteHead()
	if _, err := w.PutFile(ctx, "content/posts/fresh.md", []byte("---\ntitle: Fresh\n---\nNew.\n"), Options{Branch: br, Author: Person{Name: "ann"}}); err != nil {
		t.Fatal(err)
	}
	if s.remoteRef(br) == "" || s.remoteHead() != main0 {
		t.Fatal("the side branch is not on the remote, or main moved")
	}

	// Trailers: empty commits, pushed (journaled while pushing), read back.
	for _, v := range []string{"draft", "pending_review"} {
		res, err := w.AddTrailer(ctx, br, TrailerOptions{Key: "Decap-Status", Value: v, Subject: "Set fresh to " + v, Author: Person{Name: "ann"}})
		if err != nil {
			t.Fatal(err)
		}
		if s.remoteRef(br) != res.Commit || git(t, s.remote, "rev-parse", res.Commit+"^{tree}") != git(t, s.remote, "rev-parse", res.Commit+"^^{tree}") {
			t.Fatalf("trailer commit %s: not pushed, or it changed the tree", res.Commit)
		}
		if b, _ := os.ReadFile(seen); !strings.Contains(string(b), res.Commit) {
			t.Fatalf("the trailer commit was pushed without a journal record: %s", b)
		}
	}
	// Another box moved the branch meanwhile: the trailer goes on top.
	s.pushBranch(br, "content/posts/fresh.md", "---\ntitle: Fresh\n---\nOther box.\n")
	if _, err := w.AddTrailer(ctx, br, TrailerOptions{Key: "Decap-Status", Value: "pending_publish", Author: Person{Name: "ann"}}); err != nil {
		t.Fatal(err)
	}
	head, _ := repo.Head(ctx, br)
	if head != s.remoteRef(br) || !strings.Contains(git(t, s.remote, "show", br+":content/posts/fresh.md"), "Other box.") {
		t.Fatal("the trailer lost the other box's commit")
	}
	ts, err := repo.Trailers(ctx, main0, head, "Decap-Status")
	if err != nil || len(ts) != 3 || ts[0].Value != "draft" || ts[2].Value != "pending_publish" || ts[2].Author != "ann" || ts[2].Commit != head {
		t.Fatalf("trailers: %+v %v", ts, err)
	}
	if got := git(t, s.remote, "log", "-1", "--format=%s|%an|%cn", br); got != "Set Decap-Status|ann|folio" {
		t.Fatalf("trailer commit %q", got)
	}
	for _, bad := range []TrailerOptions{{Key: "a b", Value: "x"}, {Key: "K", Value: "two\nlines"}, {Key: "K", Value: ""}, {Key: "K", Value: strings.Repeat("x", MaxTrailerValue+1)}} {
		if _, err := w.AddTrailer(ctx, br, bad); codeOf(err) != fault.Invalid {
			t.Fatalf("trailer %+v: %v", bad, err)
		}
	}
	for b, want := range map[string]fault.Code{"main": fault.Invalid, "other/x": fault.Forbidden, "cms/posts/none": fault.NotFound, "cms/../x": fault.Invalid} {
		if _, err := w.AddTrailer(ctx, b, TrailerOptions{Key: "K", Value: "v"}); codeOf(err) != want {
			t.Fatalf("trailer on %s: %v, want %s", b, err, want)
		}
	}
	changes, err := repo.Changes(ctx, "main", br)
	if err != nil || len(changes) != 1 || changes[0] != (Change{"content/posts/fresh.md", "added"}) {
		t.Fatalf("changes: %+v %v", changes, err)
	}

	// Merging: a merge commit on main taking the branch's files, pushed
	// with its journal record; main moved meanwhile on another file.
	s.push("content/posts/other.md", "---\ntitle: Other\n---\n")
	main1 := s.remoteHead()
	// Another box saved to the branch since this clone fetched it: what
	// the caller read (Expect) is not what would be merged.
	s.pushBranch(br, "content/posts/fresh.md", "---\ntitle: Fresh\n---\nOther box, later.\n")
	if _, err := w.MergeBranch(ctx, br, "main", MergeOptions{Expect: head}); codeOf(err) != fault.Conflict {
		t.Fatalf("merge of a branch that moved on the remote: %v", err)
	}
	if s.remoteHead() != main1 {
		t.Fatal("a refused merge moved main")
	}
	if head, _ = repo.Head(ctx, br); head != s.remoteRef(br) {
		t.Fatal("the clone did not fetch the side branch")
	}
	res, err := w.MergeBranch(ctx, br, "main", MergeOptions{Expect: head, Message: "Publish fresh", Author: Person{Name: "boss"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.remoteHead() != res.Commit || git(t, s.remote, "log", "-1", "--format=%P|%an|%s", "main") != main1+" "+head+"|boss|Publish fresh" {
		t.Fatalf("merge commit: %s", git(t, s.remote, "log", "-1", "--format=%P|%an|%s", "main"))
	}
	if !strings.Contains(s.remoteFile("content/posts/fresh.md"), "Other box, later.") || s.remoteFile("content/posts/other.md") == "" {
		t.Fatal("the merge lost a file")
	}
	if b, _ := os.ReadFile(seen); !strings.Contains(string(b), res.Commit) {
		t.Fatal("the merge was pushed without a journal record")
	}

	// A file changed on both sides: a conflict naming it, nothing pushed.
	if _, err := w.PutFile(ctx, "content/posts/hello.md", []byte("---\ntitle: Hello\n---\nOn the branch.\n"), Options{Branch: "cms/posts/hello"}); err != nil {
		t.Fatal(err)
	}
	s.push("content/posts/hello.md", "---\ntitle: Hello\n---\nOn main.\n")
	w.repo.fetchBranch(ctx, "main")
	main2 := s.remoteHead()
	if _, err := w.MergeBranch(ctx, "cms/posts/hello", "", MergeOptions{}); codeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "content/posts/hello.md") {
		t.Fatalf("conflicting merge: %v", err)
	}
	if s.remoteHead() != main2 {
		t.Fatal("a conflicting merge moved main")
	}
	if _, err := w.MergeBranch(ctx, "main", "", MergeOptions{}); codeOf(err) != fault.Invalid {
		t.Fatalf("merge of main: %v", err)
	}

	// Deleting: only while the branch is where the caller read it.
	s.pushBranch("cms/posts/hello", "content/posts/hello.md", "---\ntitle: Hello\n---\nNewer, elsewhere.\n")
	stale, _ := repo.Head(ctx, "cms/posts/hello")
	if err := w.DeleteBranch(ctx, "cms/posts/hello", stale); codeOf(err) != fault.Conflict {
		t.Fatalf("delete over a newer remote commit: %v", err)
	}
	if s.remoteRef("cms/posts/hello") == "" {
		t.Fatal("a branch with a newer commit was deleted")
	}
	now, _ := repo.Head(ctx, "cms/posts/hello")
	if now != s.remoteRef("cms/posts/hello") {
		t.Fatal("the clone did not catch up after the conflict")
	}
	if err := w.DeleteBranch(ctx, "cms/posts/hello", now); err != nil {
		t.Fatal(err)
	}
	if s.remoteRef("cms/posts/hello") != "" {
		t.Fatal("not deleted on the remote")
	}
	if h, _ := repo.Head(ctx, "cms/posts/hello"); h != "" {
		t.Fatal("not deleted in the clone")
	}
	// Deleted on the remote already (another box): no error.
	git(t, s.work, "push", "-q", "origin", ":refs/heads/"+br)
	if err := w.DeleteBranch(ctx, br, ""); err != nil {
		t.Fatalf("delete of a branch the remote no longer has: %v", err)
	}
	if h, _ := repo.Head(ctx, br); h != "" {
		t.Fatal("the clone keeps a branch the remote deleted")
	}
	if err := w.DeleteBranch(ctx, br, ""); codeOf(err) != fault.NotFound {
		t.Fatalf("delete of no branch: %v", err)
	}
	if bs, err := repo.Branches(ctx, "cms/"); err != nil || len(bs) != 0 {
		t.Fatalf("branches left: %v %v", bs, err)
	}
}

func TestMergeBranchOnADraftSite(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", DraftBranch: "draft", JournalDir: t.TempDir()})
	ctx := context.Background()
	if _, err := w.PutFile(ctx, "content/posts/fresh.md", []byte("---\ntitle: Fresh\n---\nNew.\n"), Options{Branch: "cms/posts/fresh"}); err != nil {
		t.Fatal(err)
	}
	// The published branch is reached through Publish only.
	if _, err := w.MergeBranch(ctx, "cms/posts/fresh", "main", MergeOptions{}); codeOf(err) != fault.Forbidden {
		t.Fatalf("merge into main on a draft site: %v", err)
	}
	main0 := s.remoteHead()
	res, err := w.MergeBranch(ctx, "cms/posts/fresh", "", MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The draft branch did not exist: it is made, from main.
	if res.Branch != "draft" || s.remoteRef("draft") != res.Commit || s.remoteHead() != main0 ||
		git(t, s.remote, "log", "-1", "--format=%P", "draft") != main0+" "+s.remoteRef("cms/posts/fresh") {
		t.Fatalf("merge into the draft branch: %+v", res)
	}
}

// TestSideBranchStartsFromTheDraftBranch: on a site with a draft branch, a
// new side branch starts from it (the edits it holds are the base the
// editor saw), and from the published branch while it does not exist.
func TestSideBranchStartsFromTheDraftBranch(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", DraftBranch: "draft", JournalDir: t.TempDir()})
	ctx := context.Background()
	if _, err := w.PutFile(ctx, "content/posts/a.md", []byte("---\ntitle: A\n---\n"), Options{Branch: "cms/posts/a"}); err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.remote, "rev-parse", "cms/posts/a^"); got != s.remoteHead() {
		t.Fatalf("before the draft branch exists: parent %s, want main %s", got, s.remoteHead())
	}
	if _, err := w.PutFile(ctx, "content/posts/hello.md", []byte("---\ntitle: Hello\n---\nDraft edit.\n"), Options{}); err != nil {
		t.Fatal(err)
	}
	draft := s.remoteRef("draft")
	if _, err := w.PutFile(ctx, "content/posts/hello.md", []byte("---\ntitle: Hello\n---\nWorkflow edit.\n"), Options{Branch: "cms/posts/hello"}); err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.remote, "rev-parse", "cms/posts/hello^"); got != draft {
		t.Fatalf("a new side branch starts from %s, want the draft branch %s", got, draft)
	}
	if data, _, err := w.ReadFile(ctx, "cms/posts/b", "content/posts/hello.md"); err != nil || !strings.Contains(string(data), "Draft edit.") {
		t.Fatalf("a side branch not made yet reads as the draft branch: %q %v", data, err)
	}
	// Its merge goes into the draft branch without a conflict.
	if _, err := w.MergeBranch(ctx, "cms/posts/hello", "", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.remote, "show", "draft:content/posts/hello.md"); !strings.Contains(got, "Workflow edit.") {
		t.Fatalf("draft after the merge: %s", got)
	}
}

// TestRecoverPushesANewBranch: a box killed while pushing the first
// commit of a side branch pushes it at its next start (the remote has no
// such branch yet: nothing moved).
func TestRecoverPushesANewBranch(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	head := s.remoteHead()
	blob, _ := w.repo.writeBlob(ctx, []byte("---\ntitle: Crash\n---\n"))
	commit, err := w.repo.commitFile(ctx, head, "content/posts/crash.md", blob, "Create posts/crash", Person{"k", "k@x"}, Person{"folio", "f@x"})
	if err != nil {
		t.Fatal(err)
	}
	// What publish journals for a side branch's first write.
	if err := w.journal(pending{Branch: "cms/posts/crash", Commit: commit, Parent: head, Path: "content/posts/crash.md", New: w.headOrEmpty(ctx, "cms/posts/crash", head) == ""}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.writer().withJournal(w.cfg.JournalDir).Recover(ctx)
	if err != nil || rec == nil || rec.State != "pushed" || s.remoteRef("cms/posts/crash") != commit {
		t.Fatalf("recover a new branch: %+v %v", rec, err)
	}
}
