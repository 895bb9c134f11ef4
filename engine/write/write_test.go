package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// site is a bare remote with a few documents, a bare clone of it (what
// the engine keeps for a remote site) and a work clone for other
// writers' pushes.
type site struct {
	t      *testing.T
	remote string
	clone  string
	work   string
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

var files = map[string]string{
	"content/posts/hello.md":  "---\n# the title comment\ntitle: Hello\ntags: [a, b] # inline\nrating: 3\n---\nHello *world*.\n",
	"content/posts/toml.md":   "+++\ntitle = \"Toml\"\n# keep me\nrating = 1\n\n[extra]\nx = 1\n+++\nBody.\n",
	"content/posts/json.md":   "---json\n{\"title\": \"Json\", \"rating\": 2, \"zeta\": true}\n---\nBody.\n",
	"content/notes/data.yaml": "title: Data\n# comment\ncount: 1\n",
	"pages/about.md":          "---\ntitle: About\n---\nAbout us.\n",
	"globals.yaml":            "siteName: Site\n",
}

func newSite(t *testing.T) *site {
	t.Helper()
	dir := t.TempDir()
	s := &site{t: t, remote: filepath.Join(dir, "remote.git"), clone: filepath.Join(dir, "clone.git"), work: filepath.Join(dir, "work")}
	git(t, dir, "init", "-q", "--bare", "-b", "main", s.remote)
	git(t, dir, "init", "-q", "-b", "main", s.work)
	for p, c := range files {
		full := filepath.Join(s.work, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, s.work, "add", "-A")
	git(t, s.work, "commit", "-qm", "init")
	git(t, s.work, "remote", "add", "origin", s.remote)
	git(t, s.work, "push", "-q", "origin", "main")
	git(t, dir, "clone", "-q", "--bare", s.remote, s.clone)
	return s
}

func (s *site) writer() *Writer {
	return New(Config{GitDir: s.clone, Remote: true, Branch: "main", JournalDir: s.t.TempDir()})
}

// remoteFile is a file of the remote's main branch; "" when absent.
func (s *site) remoteFile(p string) string {
	cmd := exec.Command("git", "--git-dir="+s.remote, "show", "main:"+p)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func (s *site) remoteHead() string { return git(s.t, s.remote, "rev-parse", "main") }

// push commits a change made by someone else to the remote.
func (s *site) push(p, c string) {
	git(s.t, s.work, "pull", "-q", "--ff-only", "origin", "main")
	full := filepath.Join(s.work, p)
	os.MkdirAll(filepath.Dir(full), 0o755)
	os.WriteFile(full, []byte(c), 0o644)
	git(s.t, s.work, "add", "-A")
	git(s.t, s.work, "commit", "-qm", "other")
	git(s.t, s.work, "push", "-q", "origin", "main")
}

func str(s string) *string { return &s }

func codeOf(err error) fault.Code { return fault.CodeOf(err) }

func TestCreateCommitsAndPushes(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	res, err := w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{"title": "Über Café: a New post!", "rating": 4}, Body: str("# Hi\n\nText.")},
		Options{Author: Person{Name: "marketing"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Slug != "uber-cafe-a-new-post" || res.Path != "content/posts/uber-cafe-a-new-post.md" {
		t.Fatalf("result %+v", res)
	}
	got := s.remoteFile(res.Path)
	want := "---\ntitle: 'Über Café: a New post!'\nrating: 4\n---\n# Hi\n\nText.\n"
	if got != want {
		t.Fatalf("remote file:\n%q\nwant\n%q", got, want)
	}
	if h := s.remoteHead(); h != res.Commit {
		t.Fatalf("remote main %s, commit %s", h, res.Commit)
	}
	who := git(t, s.remote, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", "main")
	if who != "marketing <editor@folio.invalid>|folio <folio@folio.invalid>|Create posts/uber-cafe-a-new-post" {
		t.Fatalf("commit: %s", who)
	}
	// The clone's branch follows, so the engine loads the write.
	if h := git(t, s.clone, "rev-parse", "main"); h != res.Commit {
		t.Fatalf("clone main %s", h)
	}
	if !strings.HasPrefix(res.ETag(), `"`+res.Blob[:8]) {
		t.Fatalf("etag %s blob %s", res.ETag(), res.Blob)
	}
	_, err = w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"title": "Again"}}, Options{})
	if codeOf(err) != fault.Conflict {
		t.Fatalf("create over hello: %v", err)
	}
}

func TestPatchKeepsFormatOrderAndComments(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	for _, tc := range []struct {
		slug   string
		fields map[string]any
		path   string
		want   string
	}{
		{"hello", map[string]any{"rating": 5, "extra": "new"}, "content/posts/hello.md",
			"---\n# the title comment\ntitle: Hello\ntags: [a, b] # inline\nrating: 5\nextra: new\n---\nHello *world*.\n"},
		{"toml", map[string]any{"rating": 2, "added": "x"}, "content/posts/toml.md",
			"+++\ntitle = \"Toml\"\n# keep me\nrating = 2\n\nadded = \"x\"\n[extra]\nx = 1\n+++\nBody.\n"},
		{"json", map[string]any{"rating": 9, "zeta": nil}, "content/posts/json.md",
			"---json\n{\n  \"title\": \"Json\",\n  \"rating\": 9\n}\n---\nBody.\n"},
	} {
		res, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: tc.slug, Fields: tc.fields}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.slug, err)
		}
		if got := s.remoteFile(tc.path); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.slug, got, tc.want)
		}
		if res.Commit == "" {
			t.Errorf("%s: no commit", tc.slug)
		}
	}
	// A data file keeps its comments; a body is refused there.
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "notes", Slug: "data", Fields: map[string]any{"count": 2}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/notes/data.yaml"); got != "title: Data\n# comment\ncount: 2\n" {
		t.Errorf("data file:\n%s", got)
	}
	_, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "notes", Slug: "data", Body: str("x")}, Options{})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Path != "body" {
		t.Fatalf("body on a data file: %v", err)
	}
	// A patch that changes nothing commits nothing.
	head := s.remoteHead()
	res, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "notes", Slug: "data", Fields: map[string]any{"count": 2}}, Options{})
	if err != nil || res.Commit != "" || s.remoteHead() != head {
		t.Fatalf("no-op patch: %+v %v", res, err)
	}
}

func TestReplaceAndDelete(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	if _, err := w.Replace(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"title": "Hello", "summary": "S"}, Body: str("New body.\n")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/posts/hello.md"); got != "---\n# the title comment\ntitle: Hello\nsummary: S\n---\nNew body.\n" {
		t.Fatalf("replaced:\n%s", got)
	}
	if _, err := w.Delete(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello"}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/posts/hello.md"); got != "" {
		t.Fatalf("deleted file still there: %s", got)
	}
	if _, err := w.Delete(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello"}, Options{}); codeOf(err) != fault.NotFound {
		t.Fatalf("delete again: %v", err)
	}
	if _, err := w.Patch(ctx, Doc{Kind: KindGlobals, Fields: map[string]any{"siteName": "New"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("globals.yaml"); got != "siteName: New\n" {
		t.Fatalf("globals: %q", got)
	}
	// Replacing a data file: it has no body, and none is needed.
	if _, err := w.Replace(ctx, Doc{Kind: KindItem, Type: "notes", Slug: "data", Fields: map[string]any{"title": "Data", "count": 5}}, Options{}); err != nil {
		t.Fatalf("replace a data file: %v", err)
	}
	if got := s.remoteFile("content/notes/data.yaml"); got != "title: Data\n# comment\ncount: 5\n" {
		t.Fatalf("replaced data file: %q", got)
	}
	if _, err := w.Patch(ctx, Doc{Kind: KindPage, Slug: "about", Fields: map[string]any{"title": "About us"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("pages/about.md"); got != "---\ntitle: About us\n---\nAbout us.\n" {
		t.Fatalf("page: %q", got)
	}
}

func TestBadInput(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	head := s.remoteHead()
	for name, tc := range map[string]struct {
		d    Doc
		code fault.Code
	}{
		"dotdot slug":     {Doc{Kind: KindItem, Type: "posts", Slug: "../x", Fields: map[string]any{"title": "x"}}, fault.Unprocessable},
		"control slug":    {Doc{Kind: KindItem, Type: "posts", Slug: "a\x01b", Fields: map[string]any{"title": "x"}}, fault.Unprocessable},
		"title not text":  {Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{"slug": "ok", "title": map[string]any{"a": 1}}}, fault.Unprocessable},
		"bad type":        {Doc{Kind: KindItem, Type: "../etc", Fields: map[string]any{"title": "x"}}, fault.Invalid},
		"no title":        {Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{}}, fault.Unprocessable},
		"too large":       {Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{"title": "big"}, Body: str(strings.Repeat("x", 5<<20))}, fault.TooLarge},
		"bad date":        {Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{"title": "d", "publishedAt": "yesterday"}}, fault.Unprocessable},
		"yaml in a value": {Doc{Kind: KindItem, Type: "posts", Fields: map[string]any{"title": "x: y\n---\nz: [", "slug": "yamlish"}}, fault.Internal},
	} {
		_, err := w.Create(ctx, tc.d, Options{})
		if tc.code == fault.Internal {
			// Written quoted: valid YAML that reads back the same.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if codeOf(err) != tc.code {
			t.Errorf("%s: %v (code %v), want %v", name, err, codeOf(err), tc.code)
		}
	}
	doc, err := content.Parse("content/posts/yamlish.md", []byte(s.remoteFile("content/posts/yamlish.md")))
	if err != nil || doc.Meta()["title"] != "x: y\n---\nz: [" {
		t.Errorf("yamlish: %v %v", doc, err)
	}
	if git(t, s.remote, "rev-list", "--count", head+"..main") != "1" {
		t.Error("a refused write reached the remote")
	}
}

func TestIfMatchAndMerge(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	base := s.remoteHead()
	blob := git(t, s.remote, "rev-parse", "main:content/posts/hello.md")
	// Someone else changes rating.
	s.push("content/posts/hello.md", "---\n# the title comment\ntitle: Hello\ntags: [a, b] # inline\nrating: 1\n---\nHello *world*.\n")
	_, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"title": "T"}}, Options{IfMatch: `"` + blob[:16] + `.abc"`})
	if codeOf(err) != fault.PreconditionFailed {
		t.Fatalf("stale If-Match: %v", err)
	}
	// Without If-Match, from the old base: another field merges…
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"title": "T"}}, Options{Base: base}); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if got := s.remoteFile("content/posts/hello.md"); !strings.Contains(got, "title: T\n") || !strings.Contains(got, "rating: 1\n") {
		t.Fatalf("merged:\n%s", got)
	}
	// …the same field changed since is a conflict, and nothing is written.
	head := s.remoteHead()
	_, err = w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 7}}, Options{Base: base})
	if codeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "rating") {
		t.Fatalf("conflicting field: %v", err)
	}
	if s.remoteHead() != head {
		t.Fatal("a conflicting write was pushed")
	}
	cur := git(t, s.remote, "rev-parse", "main:content/posts/hello.md")
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 7}}, Options{IfMatch: `"` + cur[:16] + `.x"`}); err != nil {
		t.Fatalf("current If-Match: %v", err)
	}
}

func TestPushRaces(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	// The clone is behind: another file changed on the remote. The push
	// is refused, the write is rebased and pushed.
	s.push("content/posts/other.md", "---\ntitle: Other\n---\n")
	res, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 8}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.remoteFile("content/posts/other.md") == "" || !strings.Contains(s.remoteFile("content/posts/hello.md"), "rating: 8") || s.remoteHead() != res.Commit {
		t.Fatal("the rebased write lost a change")
	}
	// The same file changed on the remote: 409, nothing pushed.
	s.push("content/posts/json.md", "---json\n{\"title\": \"Changed\"}\n---\n")
	head := s.remoteHead()
	_, err = w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "json", Fields: map[string]any{"rating": 1}}, Options{})
	if codeOf(err) != fault.Conflict {
		t.Fatalf("same file changed remotely: %v", err)
	}
	if s.remoteHead() != head {
		t.Fatal("pushed over a remote change")
	}
}

func TestPushRefused(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	hook := filepath.Join(s.remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := s.remoteHead()
	_, err := w.Patch(context.Background(), Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 8}}, Options{})
	if codeOf(err) != fault.GitUnavailable {
		t.Fatalf("refused push: %v", err)
	}
	if s.remoteHead() != head || git(t, s.clone, "rev-parse", "main") != head {
		t.Fatal("a refused write moved a branch")
	}
	if _, err := os.Stat(w.journalPath()); !os.IsNotExist(err) {
		t.Fatal("the journal keeps a refused push")
	}
}

func TestRecoverPushesAnUnfinishedWrite(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	// A commit made and journaled, its push never done (the box was
	// killed): what write leaves behind at that instant.
	head := s.remoteHead()
	blob, err := w.repo.writeBlob(ctx, []byte("---\ntitle: Crash\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	commit, err := w.repo.commitFile(ctx, head, "content/posts/crash.md", blob, "Create posts/crash", Person{"k", "k@x"}, Person{"folio", "f@x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.journal(pending{Branch: "main", Commit: commit, Parent: head, Path: "content/posts/crash.md"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.writer().withJournal(w.cfg.JournalDir).Recover(ctx)
	if err != nil || rec == nil || rec.State != "pushed" {
		t.Fatalf("recover: %+v %v", rec, err)
	}
	if s.remoteHead() != commit {
		t.Fatal("not pushed")
	}
	// A journal whose remote moved on: kept, reported, not pushed.
	commit2, _ := w.repo.commitFile(ctx, head, "content/posts/crash2.md", blob, "x", Person{"k", "k@x"}, Person{"folio", "f@x"})
	w.journal(pending{Branch: "main", Commit: commit2, Parent: head, Path: "content/posts/crash2.md"})
	rec, err = w.Recover(ctx)
	if err != nil || rec == nil || rec.State != "kept" || s.remoteHead() != commit {
		t.Fatalf("recover a stale one: %+v %v", rec, err)
	}
	if git(t, s.clone, "rev-parse", rec.Ref) != commit2 {
		t.Fatal("the unpushed commit is not kept")
	}
	if u := w.Unpushed(); u == nil || u.Commit != commit2 || u.Path != "content/posts/crash2.md" {
		t.Fatalf("not reported: %+v", u)
	}
	// A remote that refuses it at the start: kept and reported too, not
	// left in a journal that the next write would overwrite.
	os.WriteFile(filepath.Join(s.remote, "hooks", "pre-receive"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	commit3, _ := w.repo.commitFile(ctx, commit, "content/posts/crash3.md", blob, "x", Person{"k", "k@x"}, Person{"folio", "f@x"})
	w.journal(pending{Branch: "main", Commit: commit3, Parent: commit, Path: "content/posts/crash3.md"})
	rec, err = w.Recover(ctx)
	if err != nil || rec == nil || rec.State != "kept" || s.remoteHead() != commit || w.Unpushed().Commit != commit3 {
		t.Fatalf("recover against a refusing remote: %+v %v", rec, err)
	}
	if _, err := os.Stat(w.journalPath()); !os.IsNotExist(err) {
		t.Fatal("the journal is left behind")
	}
}

func (w *Writer) withJournal(dir string) *Writer { w.cfg.JournalDir = dir; return w }

func TestLocalRepositoryCompareAndSwap(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.remote, Branch: "main", DraftBranch: "draft"})
	ctx := context.Background()
	res, err := w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "local", Fields: map[string]any{"title": "L"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "draft" || git(t, s.remote, "rev-parse", "draft") != res.Commit || git(t, s.remote, "rev-parse", "draft^") != s.remoteHead() {
		t.Fatalf("draft branch write: %+v", res)
	}
	if _, err := w.TargetBranch("main"); codeOf(err) != fault.Forbidden {
		t.Fatalf("published branch with a draft branch: %v", err)
	}
	if b, err := w.TargetBranch("cms/posts/x"); err != nil || b != "cms/posts/x" {
		t.Fatalf("cms branch: %v", err)
	}
	if _, err := w.TargetBranch("cms/../x"); codeOf(err) != fault.Invalid {
		t.Fatalf("bad branch: %v", err)
	}
}

// A remote that does not answer in time: 503, the branch does not move,
// and the writer is free for the next write. The remote's hook hangs until
// the test releases it (a mark it waits for, not a sleep; 2 minutes at
// most, should the test never get to it), then refuses; a hook killed with
// the push refuses too. Either way the branch is looked at once the hook
// is over: the remote moves a branch only after its hook exits 0.
func TestPushTimeout(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", JournalDir: t.TempDir(), PushTimeout: 500 * time.Millisecond})
	dir := t.TempDir()
	started, release, ended := filepath.Join(dir, "started"), filepath.Join(dir, "release"), filepath.Join(dir, "ended")
	releaseHook := func() {
		if err := os.WriteFile(release, nil, 0o600); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(releaseHook)
	hook := filepath.Join(s.remote, "hooks", "pre-receive")
	script := fmt.Sprintf("#!/bin/sh\necho $$ > '%s'\nn=0\nwhile [ ! -e '%s' ] && [ $n -lt 12000 ]; do sleep 0.01; n=$((n+1)); done\n: > '%s'\nexit 1\n", started, release, ended)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	head := s.remoteHead()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := w.Patch(context.Background(), Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 8}}, Options{})
		done <- err
	}()
	// The hook never ends by itself: a write that returns gave up. The
	// bound is far above PushTimeout, for a loaded machine.
	select {
	case err := <-done:
		if codeOf(err) != fault.GitUnavailable {
			t.Fatalf("hanging remote: %v", err)
		}
		t.Logf("gave up after %v (PushTimeout 500ms)", time.Since(start))
	case <-time.After(20 * time.Second):
		releaseHook()
		t.Fatalf("the write still waits for a hanging remote after %v", time.Since(start))
	}
	releaseHook()
	if b, err := os.ReadFile(started); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		for deadline := time.Now().Add(30 * time.Second); !hookOver(pid, ended); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the released hook did not end")
			}
		}
	}
	if s.remoteHead() != head {
		t.Fatal("the branch moved")
	}
}

// hookOver: the hook of process pid wrote ended, or was killed (gone, or a
// zombie).
func hookOver(pid int, ended string) bool {
	if _, err := os.Stat(ended); err == nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state …: the state follows the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || strings.HasPrefix(string(stat[i+1:]), " Z")
}

// draft, publishedAt and the like are written under the file's own
// spelling or alias.
func TestAliases(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	s.push("content/posts/hugo.md", "---\ntitle: Hugo\ndate: 2024-01-02\npublished: false\n---\n")
	git(t, s.clone, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main")
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hugo", Fields: map[string]any{"draft": false, "publishedAt": "2024-03-04T00:00:00Z"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/posts/hugo.md"); got != "---\ntitle: Hugo\ndate: \"2024-03-04T00:00:00Z\"\npublished: true\n---\n" {
		t.Fatalf("aliases: %q", got)
	}
}

// A file dated by Hugo's published: <date> (vitess.io's posts) keeps
// it as its date: a publishedAt write changes it, a draft write adds
// draft: and never turns the date into published: false.
func TestAliasesPublishedDate(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	s.push("content/blog/digest.md", "---\ntitle: Digest\npublished: 2018-08-05T07:15:00-07:00\n---\n")
	git(t, s.clone, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main")
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "blog", Slug: "digest", Fields: map[string]any{"draft": true, "publishedAt": "2019-01-02T00:00:00Z"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/blog/digest.md"); got != "---\ntitle: Digest\npublished: \"2019-01-02T00:00:00Z\"\ndraft: true\n---\n" {
		t.Fatalf("published date: %q", got)
	}
}

// A file that does not parse cannot be patched, and is mended by a
// replace.
func TestReplaceMendsABrokenFile(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	s.push("content/posts/broken.md", "---\ntitle: [unclosed\n---\nBody.\n")
	git(t, s.clone, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main")
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "broken", Fields: map[string]any{"title": "x"}}, Options{}); codeOf(err) != fault.Conflict {
		t.Fatalf("patch of a broken file: %v", err)
	}
	if _, err := w.Replace(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "broken", Fields: map[string]any{"title": "Mended"}, Body: str("Body.\n")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.remoteFile("content/posts/broken.md"); got != "---\ntitle: Mended\n---\nBody.\n" {
		t.Fatalf("mended: %q", got)
	}
}

func TestSlugify(t *testing.T) {
	for title, want := range map[string]string{
		"Hello, World!":          "hello-world",
		"Crème brûlée à Paris":   "creme-brulee-a-paris",
		"Політика приватності":   "політика-приватності",
		"关于我们 (2026)":            "关于我们-2026",
		"हिंदी समाचार":           "हिंदी-समाचार",
		"  --  ":                 "",
		"Zero\u200dwidth\u202ex": "zero-width-x",
	} {
		got := Slugify(title)
		if got != want {
			t.Errorf("Slugify(%q) = %q, want %q", title, got, want)
		}
		if got != "" && !content.ValidSlug(got) {
			t.Errorf("Slugify(%q) = %q, not a valid slug", title, got)
		}
	}
}
