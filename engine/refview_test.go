package engine

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

func refPost(title string) string {
	return "---\ntitle: " + title + "\npublishedAt: 2024-01-02T00:00:00Z\n---\nBody of " + title + "\n"
}

// refSite is a work-tree site with main (two posts), a branch "feature"
// that changes one post and adds one, and a tag v1 on main's first commit.
func refSite(t *testing.T) (r *srcTestRepo, first, feature string) {
	t.Helper()
	r = newSrcWorkTreeSite(t)
	first = r.Commit(srcDay(1), map[string]string{
		"content/posts/a.md": refPost("A"),
		"content/posts/b.md": refPost("B"),
		"pages/home.yaml":    "title: Home\nisHomepage: true\n",
	})
	srcGit(t, r.Dir, "tag", "v1")
	srcGit(t, r.Dir, "checkout", "-q", "-b", "feature")
	feature = r.Commit(srcDay(2), map[string]string{
		"content/posts/a.md": refPost("A on feature"),
		"content/posts/c.md": refPost("C"),
	})
	srcGit(t, r.Dir, "checkout", "-q", "main")
	return r, first, feature
}

func itemTitle(t *testing.T, v *View, typ, slug string) string {
	t.Helper()
	tl, ok := v.Type(typ)
	if !ok {
		return ""
	}
	res, ok := tl.Item(slug)
	if !ok {
		return ""
	}
	body, _, err := res.Body()
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(body), `"title":"`)
	if i < 0 {
		t.Fatalf("no title in %s", body)
	}
	rest := string(body)[i+9:]
	return rest[:strings.IndexByte(rest, '"')]
}

func TestEngine_RefSnapshots(t *testing.T) {
	r, first, feature := refSite(t)
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: r.Dir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	ref, err := e.ResolveRef(ctx, "feature")
	if err != nil {
		t.Fatal(err)
	}
	if ref.Kind != RefBranch || ref.Commit != feature || ref.Immutable() {
		t.Fatalf("feature = %+v, want branch at %s", ref, feature)
	}
	snap, err := e.RefSnapshot(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	v := snap.View(false, e.cfg.Now())
	if got := itemTitle(t, v, "posts", "a"); got != "A on feature" {
		t.Fatalf("feature's a = %q", got)
	}
	if got := itemTitle(t, v, "posts", "c"); got != "C" {
		t.Fatalf("feature's c = %q", got)
	}
	if got := itemTitle(t, e.View(false), "posts", "a"); got != "A" {
		t.Fatalf("published a = %q after building a ref", got)
	}
	if _, ok := mustType(t, e.View(false), "posts").Item("c"); ok {
		t.Fatal("published view has the feature branch's new post")
	}
	// The unchanged post is the published snapshot's resource: shared.
	pb, _ := mustType(t, e.View(false), "posts").Item("b")
	fb, _ := mustType(t, v, "posts").Item("b")
	if pb != fb {
		t.Fatal("the unchanged post is not shared with the published snapshot")
	}
	// A ref snapshot is what an engine serving that branch serves.
	fresh, err := Open(ctx, Config{Site: r.Dir, Branch: "feature", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if got, want := dumpView(t, v), dumpView(t, fresh.View(false)); got != want {
		t.Fatalf("ref view differs from a fresh engine's:\n got %s\nwant %s", got, want)
	}
	// Built once: the second lookup is the same snapshot.
	again, err := e.RefSnapshot(ctx, ref)
	if err != nil || again != snap {
		t.Fatalf("second lookup: %p %v, want the cached %p", again, err, snap)
	}

	// Tag, full and short commit hashes.
	tag, err := e.ResolveRef(ctx, "v1")
	if err != nil || tag.Kind != RefTag || tag.Commit != first {
		t.Fatalf("v1 = %+v, %v", tag, err)
	}
	full, err := e.ResolveRef(ctx, feature)
	if err != nil || full.Kind != RefCommit || !full.Immutable() {
		t.Fatalf("full hash = %+v, %v", full, err)
	}
	short, err := e.ResolveRef(ctx, feature[:8])
	if err != nil || short.Commit != feature || short.Immutable() {
		t.Fatalf("short hash = %+v, %v", short, err)
	}
	ts, err := e.RefSnapshot(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	if got := itemTitle(t, ts.View(false, e.cfg.Now()), "posts", "a"); got != "A" {
		t.Fatalf("v1's a = %q", got)
	}

	// A push to the branch is served on the next lookup.
	srcGit(t, r.Dir, "checkout", "-q", "feature")
	moved := r.Commit(srcDay(3), map[string]string{"content/posts/a.md": refPost("A again")})
	srcGit(t, r.Dir, "checkout", "-q", "main")
	ref, err = e.ResolveRef(ctx, "feature")
	if err != nil || ref.Commit != moved {
		t.Fatalf("after push: %+v %v", ref, err)
	}
	snap, err = e.RefSnapshot(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := itemTitle(t, snap.View(false, e.cfg.Now()), "posts", "a"); got != "A again" {
		t.Fatalf("after push a = %q", got)
	}

	// A deleted branch is not found from then on.
	srcGit(t, r.Dir, "branch", "-q", "-D", "feature")
	if _, err := e.ResolveRef(ctx, "feature"); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("deleted branch: %v", err)
	}

	refs, err := e.Refs()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range refs {
		names = append(names, string(r.Kind)+":"+r.Name)
	}
	if got := strings.Join(names, " "); got != "branch:main tag:v1" {
		t.Fatalf("refs = %s", got)
	}
}

func mustType(t *testing.T, v *View, typ string) *TypeList {
	t.Helper()
	tl, ok := v.Type(typ)
	if !ok {
		t.Fatalf("no type %s", typ)
	}
	return tl
}

// dumpView is every item and page body of a view.
func dumpView(t *testing.T, v *View) string {
	t.Helper()
	var b strings.Builder
	for _, p := range v.Pages() {
		body, _, _ := p.Body()
		b.Write(body)
	}
	for _, typ := range v.TypeNames() {
		rs, _, err := mustType(t, v, typ).Sorted("")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			body, _, _ := r.Body()
			b.Write(body)
		}
	}
	return b.String()
}

func TestEngine_RefSnapshotSingleFlight(t *testing.T) {
	r, _, feature := refSite(t)
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: r.Dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ref, err := e.ResolveRef(ctx, feature)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	snaps := make([]*Snapshot, 16)
	for i := range snaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.RefSnapshot(ctx, ref)
			if err != nil {
				t.Error(err)
			}
			snaps[i] = s
		}()
	}
	wg.Wait()
	for _, s := range snaps[1:] {
		if s != snaps[0] {
			t.Fatal("concurrent lookups built more than one snapshot")
		}
	}
	if st := e.RefStats(); st.Snapshots != 1 || st.Bytes <= 0 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestEngine_RefCacheBounded(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	var commits []string
	for i := range 6 {
		commits = append(commits, r.Commit(srcDay(i), map[string]string{"content/posts/p.md": refPost(fmt.Sprint("P", i))}))
	}
	ctx := context.Background()
	// Each older commit's snapshot has one document of its own.
	one := int64(refCostMinimum + refCostPerDoc + refCostPerOwnDoc)
	e, err := Open(ctx, Config{Site: r.Dir, RefCacheBytes: 2*one + one/2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range commits[:5] {
		ref, err := e.ResolveRef(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.RefSnapshot(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	if st := e.RefStats(); st.Snapshots != 2 || st.Bytes != 2*one {
		t.Fatalf("stats after 5 refs = %+v, want 2 kept of %d bytes each", st, one)
	}
}

func TestResolveRef_BadAndAmbiguous(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	r.Commit(srcDay(1), map[string]string{"content/posts/a.md": refPost("A")})
	// Many commits at once through fast-import, so that some short
	// prefixes are shared.
	var in strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&in, "commit refs/heads/many\ncommitter T <t@folio.invalid> %d +0000\ndata 3\nc%02d\n", 1700000000+i, i%100)
		fmt.Fprintf(&in, "M 644 inline content/posts/n.md\ndata %d\n%s\n", len(fmt.Sprint(i)), fmt.Sprint(i))
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: r.Dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	seen := map[string]int{}
	for _, h := range strings.Fields(srcGit(t, r.Dir, "rev-list", "--all")) {
		seen[h[:4]]++
	}
	shared := ""
	for p, n := range seen {
		if n > 1 {
			shared = p
			break
		}
	}
	if shared == "" {
		t.Fatal("no shared 4-digit prefix among 1500 commits")
	}
	var amb *AmbiguousRefError
	if _, err := e.ResolveRef(ctx, shared); !errors.As(err, &amb) || amb.Candidates != seen[shared] {
		t.Fatalf("ResolveRef(%s) = %v, want ambiguous among %d", shared, err, seen[shared])
	}
	// The errors are the client's, as the contract words them.
	if _, err := e.ResolveRef(ctx, shared); fault.CodeOf(err) != fault.Invalid || err.Error() != fmt.Sprintf("ref: %d commits start with %q; give more digits", seen[shared], shared) {
		t.Errorf("ResolveRef(%s) = %v (%v)", shared, err, fault.CodeOf(err))
	}
	for _, bad := range []string{"", "a..b", "x\x01", "a b", "-x", "x/", "x.lock", "a//b", "@{1}", strings.Repeat("a", 10<<10), "x:y", ".hidden/x"} {
		if _, err := e.ResolveRef(ctx, bad); !errors.Is(err, ErrBadRef) {
			t.Errorf("ResolveRef(%q) = %v, want ErrBadRef", bad, err)
		}
		if _, err := e.ResolveRef(ctx, bad); fault.CodeOf(err) != fault.Invalid || !strings.HasPrefix(err.Error(), "ref: not a branch, tag or commit name (at most 255 characters") {
			t.Errorf("ResolveRef(%q) = %v (%v), want the contract's 400", bad, err, fault.CodeOf(err))
		}
	}
	for _, missing := range []string{"nope", "feature/x", "abcd", strings.Repeat("0", 40)} {
		if _, err := e.ResolveRef(ctx, missing); !errors.Is(err, ErrRefNotFound) {
			t.Errorf("ResolveRef(%q) = %v, want ErrRefNotFound", missing, err)
		}
		if _, err := e.ResolveRef(ctx, missing); fault.CodeOf(err) != fault.RefNotFound || err.Error() != fmt.Sprintf("no branch, tag or commit %q is served", missing) {
			t.Errorf("ResolveRef(%q) = %v (%v), want the contract's REF_NOT_FOUND", missing, err, fault.CodeOf(err))
		}
	}
}

func TestRefPatterns(t *testing.T) {
	p := RefPatterns{"main", "cms/*", "tags/v*", "commits"}
	for _, c := range []struct {
		kind RefKind
		name string
		want bool
	}{
		{RefBranch, "main", true},
		{RefBranch, "cms/posts/hello", true},
		{RefBranch, "feature", false},
		{RefTag, "v1.2", true},
		{RefBranch, "v1.2", false},
		{RefTag, "main", true},
		{RefCommit, "abcdef", true},
	} {
		if got := p.Allows(c.kind, c.name); got != c.want {
			t.Errorf("Allows(%s %s) = %v, want %v", c.kind, c.name, got, c.want)
		}
	}
	if (RefPatterns{"main"}).Allows(RefCommit, "abcd") {
		t.Error("commits allowed without the commits pattern")
	}
	if !(RefPatterns{}).Allows(RefCommit, "abcd") {
		t.Error("no patterns must allow everything")
	}
}
