package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

type repo struct {
	t   *testing.T
	dir string
	n   int
}

func newRepo(t *testing.T) *repo {
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Ann", "-c", "user.email=ann@folio.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	r.n++
	date := fmt.Sprintf("2024-01-01T00:%02d:%02dZ", r.n/60, r.n%60)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) commit(msg string, files map[string]string, rm ...string) string {
	r.t.Helper()
	for p, body := range files {
		full := filepath.Join(r.dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, p := range rm {
		r.git("rm", "-q", p)
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *repo) mv(from, to string) { r.git("mv", from, to) }

func long(word string) string {
	return strings.Repeat(word+" is a line of a long enough file to detect renames\n", 20)
}

// gitLog is `git log --follow` of a path: the commits, newest first.
func (r *repo) gitLog(path string) []string {
	out := r.git("log", "--follow", "--format=%H", "--", path)
	if out == "" {
		return nil
	}
	return strings.Fields(out)
}

func hashes(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Hash)
	}
	return out
}

func open(t *testing.T, dir string) *git.Repository {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		panic(err)
	}
	return repo
}

func TestLogMatchesGitFollow(t *testing.T) {
	r := newRepo(t)
	r.commit("add a", map[string]string{"content/posts/a.md": long("a"), "content/posts/c.md": long("c"), "README": "x"})
	r.commit("edit a", map[string]string{"content/posts/a.md": long("a") + "more\n"})
	r.commit("readme", map[string]string{"README": "y"})
	r.mv("content/posts/a.md", "content/posts/b.md")
	r.commit("rename a to b, edited", map[string]string{"content/posts/b.md": long("a") + "more\nand more\n"})
	r.commit("edit b", map[string]string{"content/posts/b.md": long("a") + "changed\n"})
	r.commit("delete c", nil, "content/posts/c.md")
	r.commit("re-add c", map[string]string{"content/posts/c.md": long("c2")})
	head := r.commit("edit c", map[string]string{"content/posts/c.md": long("c2") + "x\n"})

	ix := New(func(p string) bool { return strings.HasPrefix(p, "content/") })
	repo := open(t, r.dir)
	if err := ix.Update(context.Background(), repo.Storer, head); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"content/posts/b.md", "content/posts/c.md"} {
		got, total, ok := ix.Log(p, 100, 0)
		want := r.gitLog(p)
		if !ok || total != len(want) || strings.Join(hashes(got), " ") != strings.Join(want, " ") {
			t.Errorf("Log(%s) = %v (total %d), git log --follow = %v", p, hashes(got), total, want)
		}
	}
	got, _, _ := ix.Log("content/posts/b.md", 100, 0)
	if got[1].Kind != Renamed || got[1].From != "content/posts/a.md" || got[1].Message != "rename a to b, edited" || got[1].Author != "Ann" {
		t.Errorf("rename entry = %+v", got[1])
	}
	if got[len(got)-1].Kind != Added || got[len(got)-1].Path != "content/posts/a.md" {
		t.Errorf("first entry = %+v", got[len(got)-1])
	}
	// Paging.
	page, total, _ := ix.Log("content/posts/b.md", 2, 1)
	if total != 4 || len(page) != 2 || page[0].Hash != got[1].Hash {
		t.Errorf("page = %v total %d", hashes(page), total)
	}
	if page, _, _ := ix.Log("content/posts/b.md", 2, 10); len(page) != 0 {
		t.Errorf("past the end: %v", page)
	}
	if l, total, ok := ix.Log("README", 10, 0); !ok || total != 0 || len(l) != 0 {
		t.Errorf("irrelevant path indexed: %v", l)
	}
}

func TestIncrementalAndForcePush(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	ix := New(nil)
	first := r.commit("one", map[string]string{"a.md": "1"})
	repo := open(t, r.dir)
	if err := ix.Update(ctx, repo.Storer, first); err != nil {
		t.Fatal(err)
	}
	second := r.commit("two", map[string]string{"a.md": "2"})
	if err := ix.Update(ctx, repo.Storer, second); err != nil {
		t.Fatal(err)
	}
	if ix.Commits() != 2 {
		t.Fatalf("commits = %d", ix.Commits())
	}
	got, _, _ := ix.Log("a.md", 10, 0)
	if strings.Join(hashes(got), " ") != second+" "+first {
		t.Fatalf("log = %v", hashes(got))
	}
	// A force push back to first plus another commit: second is gone.
	r.git("reset", "-q", "--hard", first)
	third := r.commit("three", map[string]string{"a.md": "3"})
	if err := ix.Update(ctx, repo.Storer, third); err != nil {
		t.Fatal(err)
	}
	got, _, _ = ix.Log("a.md", 10, 0)
	if strings.Join(hashes(got), " ") != third+" "+first || ix.Commits() != 2 {
		t.Fatalf("after force push: log = %v, %d commits", hashes(got), ix.Commits())
	}
}

func TestMerges(t *testing.T) {
	r := newRepo(t)
	base := r.commit("base", map[string]string{"a.md": "a", "b.md": "b"})
	r.git("checkout", "-q", "-b", "side")
	side := r.commit("side edits b", map[string]string{"b.md": "b2"})
	r.git("checkout", "-q", "main")
	mainEdit := r.commit("main edits a", map[string]string{"a.md": "a2"})
	r.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	merge := r.git("rev-parse", "HEAD")
	ix := New(nil)
	if err := ix.Update(context.Background(), open(t, r.dir).Storer, merge); err != nil {
		t.Fatal(err)
	}
	// git log shows neither path's history with the merge commit: each
	// is the same as one parent.
	for p, want := range map[string][]string{"a.md": {mainEdit, base}, "b.md": {side, base}} {
		got, _, _ := ix.Log(p, 10, 0)
		if strings.Join(hashes(got), " ") != strings.Join(want, " ") || strings.Join(want, " ") != strings.Join(r.gitLog(p), " ") {
			t.Errorf("Log(%s) = %v, want %v (git: %v)", p, hashes(got), want, r.gitLog(p))
		}
	}
	chs, err := ix.Between(context.Background(), open(t, r.dir).Storer, base, merge)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(chs) != "[{modified a.md } {modified b.md }]" {
		t.Errorf("Between = %v", chs)
	}
}

// fastImport makes a repository of docs files and commits commits, each
// changing one file, with git fast-import.
func fastImport(tb testing.TB, docs, commits int) (dir, head string) {
	dir = tb.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "init", "-q", "-b", "main")
	var in strings.Builder
	body := func(s string) { fmt.Fprintf(&in, "data %d\n%s\n", len(s), s) }
	for c := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter A <a@folio.invalid> %d +0000\n", 1700000000+c)
		body(fmt.Sprintf("change %d", c))
		if c == 0 {
			for d := range docs {
				fmt.Fprintf(&in, "M 644 inline content/posts/p%04d.md\n", d)
				body(fmt.Sprintf("---\ntitle: P%d\n---\nversion 0\n", d))
			}
			continue
		}
		d := (c * 7919) % docs
		fmt.Fprintf(&in, "M 644 inline content/posts/p%04d.md\n", d)
		body(fmt.Sprintf("---\ntitle: P%d\n---\nversion %d\n", d, c))
	}
	run(in.String(), "fast-import", "--quiet")
	return dir, run("", "rev-parse", "main")
}

// BenchmarkLog: one document's history on a site of 1,000 documents with
// 1,000 commits (issue: p50 <= 5 ms).
func BenchmarkLog(b *testing.B) {
	dir, head := fastImport(b, 1000, 1000)
	ix := New(nil)
	if err := ix.Update(context.Background(), open(nil, dir).Storer, head); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, _, ok := ix.Log(fmt.Sprintf("content/posts/p%04d.md", i%1000), 20, 0); !ok {
			b.Fatal("no index")
		}
	}
}

// BenchmarkBuild: the first build of that index (done in the background).
func BenchmarkBuild(b *testing.B) {
	dir, head := fastImport(b, 1000, 1000)
	st := open(nil, dir).Storer
	b.ResetTimer()
	for range b.N {
		if err := New(nil).Update(context.Background(), st, head); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIncrementalLayersMatchFresh: an index brought to each head by many
// small updates (its maps in layers, merged every few updates: see
// state) answers as one built at that head in one go, for every path
// and commit; and a state published earlier still answers as it did
// (an update never writes into what it shares with it).
func TestIncrementalLayersMatchFresh(t *testing.T) {
	defer func(n int) { maxRecent = n }(maxRecent)
	maxRecent = 24
	const docs, commits = 40, 120
	dir, _ := fastImport(t, docs, commits)
	repo := open(t, dir)
	var heads []string
	iter, err := repo.Log(&git.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	iter.ForEach(func(c *object.Commit) error { heads = append([]string{c.Hash.String()}, heads...); return nil })
	if len(heads) != commits {
		t.Fatalf("%d commits", len(heads))
	}
	paths := make([]string, docs)
	for d := range docs {
		paths[d] = fmt.Sprintf("content/posts/p%04d.md", d)
	}
	answers := func(ix *Index) string {
		var b strings.Builder
		for _, p := range paths {
			got, total, _ := ix.Log(p, 1000, 0)
			fmt.Fprintln(&b, p, total, got)
		}
		for _, h := range heads {
			fmt.Fprint(&b, ix.Contains(h))
		}
		return b.String()
	}
	ctx := context.Background()
	ix := New(nil)
	type kept struct {
		st   *state
		want string
	}
	var published []kept
	step := 1
	for i := 0; i < len(heads); i += step {
		if err := ix.Update(ctx, repo.Storer, heads[i]); err != nil {
			t.Fatal(err)
		}
		fresh := New(nil)
		if err := fresh.Update(ctx, repo.Storer, heads[i]); err != nil {
			t.Fatal(err)
		}
		got, want := answers(ix), answers(fresh)
		if got != want {
			t.Fatalf("at commit %d, the index updated in steps answers\n%s\nbuilt at once\n%s", i, got, want)
		}
		published = append(published, kept{ix.state, got})
		step = i%5 + 1 // steps of 1 to 5 commits
	}
	if len(ix.state.recentSeq) == 0 && len(ix.state.recentPaths) == 0 {
		t.Error("the last state has no recent layer: the test does not reach it")
	}
	for i, k := range published {
		if got := answers(&Index{state: k.st}); got != k.want {
			t.Fatalf("state %d changed after later updates:\n%s\nwas\n%s", i, got, k.want)
		}
	}
}

// TestReadTreesWith: an index reads its trees with the reader it is
// given, and from the object store when the reader declines one; either
// way it answers as an index without a reader does.
func TestReadTreesWith(t *testing.T) {
	dir, head := fastImport(t, 20, 30)
	repo := open(t, dir)
	plain := New(nil)
	if err := plain.Update(context.Background(), repo.Storer, head); err != nil {
		t.Fatal(err)
	}
	read, declined := 0, 0
	ix := New(nil).ReadTreesWith(func(h plumbing.Hash) ([]object.TreeEntry, bool) {
		if (read+declined)%2 == 0 {
			declined++
			return nil, false
		}
		tr, err := object.GetTree(repo.Storer, h)
		if err != nil {
			return nil, false
		}
		read++
		return tr.Entries, true
	})
	if err := ix.Update(context.Background(), repo.Storer, head); err != nil {
		t.Fatal(err)
	}
	if read == 0 || declined == 0 {
		t.Fatalf("the reader read %d trees and declined %d", read, declined)
	}
	for d := range 20 {
		p := fmt.Sprintf("content/posts/p%04d.md", d)
		got, _, _ := ix.Log(p, 100, 0)
		want, _, _ := plain.Log(p, 100, 0)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Log(%s) = %v, want %v", p, hashes(got), hashes(want))
		}
	}
}
