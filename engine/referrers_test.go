package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/gitsource"
)

// referrersString is the referrers as "kind type/slug fields" lines.
func referrersString(rs []Referrer) string {
	var out []string
	for _, r := range rs {
		if r.Field != r.Fields[0] {
			return fmt.Sprintf("field %q is not the first of %q", r.Field, r.Fields)
		}
		out = append(out, fmt.Sprintf("%s %s/%s %s", r.Kind, r.Type, r.Slug, strings.Join(r.Fields, ",")))
	}
	return strings.Join(out, "\n")
}

// TestReferrers loads a site whose documents refer to items, pages and
// media items in every form, pushes edits that add and remove
// references (the index is patched), and checks what the published and
// the draft views list.
func TestReferrers(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":            "types:\n  posts:\n    fields:\n      author: {kind: reference, to: team}\n      related: {kind: list, of: {kind: reference, to: [posts, pages]}}\n",
		"globals.yaml":          "siteName: Site\nlogoUrl: media:logo1\nnav:\n  - {label: Maria, url: team/maria}\n",
		"content/team/maria.md": "---\ntitle: Maria\n---\n",
		"content/team/jo.md":    "---\ntitle: Jo\n---\n",
		"content/posts/a.md":    "---\ntitle: A\nauthor: maria\ncover: media:img1\nrelated: [b, pages/about]\n---\nA\n",
		"content/posts/b.md":    "---\ntitle: B\nauthor: team/maria\ngallery:\n  - {src: /uploads/2024/01/x.jpg}\n  - {src: https://cdn.example.com/media/2024/01/caf%C3%A9.jpg}\n  - {src: https://elsewhere.example.com/2024/01/x.jpg}\n---\nB\n",
		"content/posts/d.md":    "---\ntitle: D\ndraft: true\nauthor: maria\ncover: media:img1\n---\nD\n",
		"pages/about.md":        "---\ntitle: About\nseo:\n  ogImage: /uploads/2024/01/x.jpg\nsections:\n  - type: hero\n    image: media:img1\n    people: [team/jo, team/maria]\n---\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now },
		MediaBases: []string{"https://cdn.example.com/media/"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check := func(draft bool, q ReferrersQuery, want string) {
		t.Helper()
		if got := referrersString(e.View(draft).Referrers(q)); got != want {
			t.Errorf("referrers of %+v (draft %v):\n%s\nwant:\n%s", q, draft, got, want)
		}
	}
	maria := ReferrersQuery{Type: "team", Slug: "maria"}
	check(false, maria, "page /about sections.0.data.people.1\nitem posts/a data.author\nitem posts/b data.author\nglobals / nav.0.url")
	check(true, maria, "page /about sections.0.data.people.1\nitem posts/a data.author\nitem posts/b data.author\nitem posts/d data.author\nglobals / nav.0.url")
	check(false, ReferrersQuery{Type: "posts", Slug: "b"}, "item posts/a data.related.0")
	check(false, ReferrersQuery{Slug: "about"}, "item posts/a data.related.1")
	check(false, ReferrersQuery{MediaID: "img1", MediaKeys: []string{"2024/01/x.jpg"}},
		"page /about sections.0.data.image,seo.ogImage\nitem posts/a data.cover\nitem posts/b data.gallery.0.src")
	check(false, ReferrersQuery{MediaID: "other", MediaKeys: []string{"2024/01/café.jpg"}}, "item posts/b data.gallery.1.src")
	check(false, ReferrersQuery{MediaID: "logo1"}, "globals / logoUrl")
	check(false, ReferrersQuery{Type: "team", Slug: "nobody"}, "")

	mr, _ := json.Marshal(e.View(false).MediaReferences(func(string, string) bool { return true }))
	if want := `[{"id":"img1","referrers":[{"kind":"page","slug":"about","title":"About","field":"sections.0.data.image","fields":["sections.0.data.image"]},{"kind":"item","type":"posts","slug":"a","title":"A","field":"data.cover","fields":["data.cover"]}]},{"id":"logo1","referrers":[{"kind":"globals","title":"Site","field":"logoUrl","fields":["logoUrl"]}]},{"key":"2024/01/café.jpg","referrers":[{"kind":"item","type":"posts","slug":"b","title":"B","field":"data.gallery.1.src","fields":["data.gallery.1.src"]}]},{"key":"2024/01/x.jpg","referrers":[{"kind":"page","slug":"about","title":"About","field":"seo.ogImage","fields":["seo.ogImage"]},{"kind":"item","type":"posts","slug":"b","title":"B","field":"data.gallery.0.src","fields":["data.gallery.0.src"]}]}]`; string(mr) != want {
		t.Errorf("media references:\n%s\nwant\n%s", mr, want)
	}

	// A push that changes one post and the page: the index is patched.
	prev := e.Published().referrers()
	r.Commit(srcDay(1), map[string]string{
		"content/posts/a.md": "---\ntitle: A2\nauthor: jo\n---\nA\n",
		"pages/about.md":     "---\ntitle: About\n---\n",
	})
	r.Push(false)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	patched := e.Published().refs.Load()
	if patched == nil || patched == prev {
		t.Fatal("the index was not patched at the load")
	}
	same := 0
	for i := range patched.shards {
		if reflect.ValueOf(patched.shards[i]).Pointer() == reflect.ValueOf(prev.shards[i]).Pointer() {
			same++
		}
	}
	if same < refShards/2 {
		t.Errorf("only %d of %d shards shared with the last index: not patched", same, refShards)
	}
	check(false, maria, "item posts/b data.author\nglobals / nav.0.url")
	check(false, ReferrersQuery{Type: "team", Slug: "jo"}, "item posts/a data.author")
	check(false, ReferrersQuery{MediaID: "img1"}, "")
	check(true, ReferrersQuery{MediaID: "img1"}, "item posts/d data.cover")
	// The last snapshot's views still answer as they did.
	if got := referrersString(e.View(false).Referrers(maria)); got == "" {
		t.Fatal("no referrers")
	}
	assertSameIndex(t, patched, buildRefIndex(e.Published()))
}

// assertSameIndex fails when two indexes differ (the order of a
// target's entries apart).
func assertSameIndex(t *testing.T, got, want *refIndex) {
	t.Helper()
	flat := func(x *refIndex) map[string][]string {
		m := map[string][]string{}
		for _, sh := range x.shards {
			for tg, es := range sh {
				for _, e := range es {
					m[tg] = append(m[tg], fmt.Sprintf("%p %s", e.doc, e.field))
				}
				slices.Sort(m[tg])
			}
		}
		return m
	}
	if g, w := flat(got), flat(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("patched index:\n%v\nbuilt afresh:\n%v", g, w)
	}
}

// TestReferrers_RandomPushes pushes random edits (few: the index is
// patched; many: it is rebuilt) and compares the index with one built
// afresh after each.
func TestReferrers_RandomPushes(t *testing.T) {
	r := newSrcBareSite(t)
	rng := rand.New(rand.NewPCG(1, 2))
	doc := func() string {
		var b strings.Builder
		b.WriteString("---\ntitle: T\nrefs:\n")
		for range rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "  - posts/p%d\n", rng.IntN(30))
			case 1:
				fmt.Fprintf(&b, "  - media:m%d\n", rng.IntN(10))
			default:
				fmt.Fprintf(&b, "  - /uploads/k%d.jpg\n", rng.IntN(10))
			}
		}
		if rng.IntN(4) == 0 {
			b.WriteString("draft: true\n")
		}
		b.WriteString("---\n")
		return b.String()
	}
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("content/posts/p%d.md", i)] = doc()
	}
	for i := range 5 {
		files[fmt.Sprintf("pages/g%d.md", i)] = "---\ntitle: G\nsections:\n  - type: x\n    to: posts/p" + fmt.Sprint(i) + "\n---\n"
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for push := range 12 {
		changes := map[string]string{}
		n := 1 + rng.IntN(3)
		if push%4 == 3 {
			n = 30
		}
		var rm []string
		for range n {
			i := rng.IntN(35)
			switch {
			case i >= 30:
				changes[fmt.Sprintf("pages/g%d.md", i-30)] = "---\ntitle: G2\nsections:\n  - type: x\n    to: posts/p" + fmt.Sprint(rng.IntN(30)) + "\n---\n"
			case rng.IntN(5) == 0 && push%4 != 3:
				rm = append(rm, fmt.Sprintf("content/posts/p%d.md", i))
			default:
				changes[fmt.Sprintf("content/posts/p%d.md", i)] = doc()
			}
		}
		for _, p := range rm {
			srcGit(t, r.Dir, "rm", "-q", "--ignore-unmatch", p)
			delete(changes, p)
		}
		r.Commit(srcDay(push+1), changes)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.Published().referrers() // an earlier one built in the background: it is patched from it
		assertSameIndex(t, e.Published().referrers(), buildRefIndex(e.Published()))
		// What the views list agrees with a scan of the documents.
		for i := range 30 {
			q := ReferrersQuery{Type: "posts", Slug: fmt.Sprintf("p%d", i)}
			for _, draft := range []bool{false, true} {
				var want []string
				v := e.View(draft)
				for _, tl := range []string{"posts"} {
					list, _ := v.Type(tl)
					res, _, _ := list.Sorted("slug")
					for _, rs := range res {
						b, _, _ := rs.Body()
						if strings.Contains(string(b), `"posts/`+q.Slug+`"`) {
							var it struct{ Slug string }
							json.Unmarshal(b, &it)
							want = append(want, it.Slug)
						}
					}
				}
				var got []string
				for _, rf := range v.Referrers(q) {
					if rf.Kind == ReferrerItem {
						got = append(got, rf.Slug)
					}
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("push %d: referrers of %s (draft %v) = %v, want %v", push, q.Slug, draft, got, want)
				}
			}
		}
	}
}

// TestBuildRefIndex_SizedForReferences: the referrer index of a site
// whose documents have few references is small (its shards were sized
// for every document: 0.7 MB of empty slots at ready of a 10k restart
// with 403 targets), and lists what a scan finds.
func TestBuildRefIndex_SizedForReferences(t *testing.T) {
	const n = 5000
	var files []content.File
	for i := range n {
		src := fmt.Sprintf("---\ntitle: Item %d\n---\nBody\n", i)
		if i%500 == 0 {
			src = fmt.Sprintf("---\ntitle: Item %d\nrel: posts/p%d\n---\nBody\n", i, i+1)
		}
		p := fmt.Sprintf("content/posts/p%d.md", i)
		doc, err := content.Parse(p, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, content.File{Path: p, Doc: doc, Blob: fmt.Sprintf("%040d", i)})
	}
	slices.SortFunc(files, func(a, b content.File) int { return strings.Compare(a.Path, b.Path) })
	site, _ := new(content.Assembler).Assemble(files)
	s := newSnapshot("main", &gitsource.Tree{Commit: "a"}, site, nil, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := buildRefIndex(s)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 100<<10 {
		t.Errorf("the index of %d references took %d KB, want at most 100", n/500, got>>10)
	}
	targets := 0
	for _, sh := range x.shards {
		targets += len(sh)
	}
	if targets != n/500 {
		t.Errorf("%d targets, want %d", targets, n/500)
	}
	if es := x.shards[shardOf(itemTarget("posts", "p1"))][itemTarget("posts", "p1")]; len(es) != 1 || es[0].field != "data.rel" {
		t.Errorf("referrers of posts/p1: %v", es)
	}
}

// TestRefScanner_NoGarbagePerDocument: scanning a document without
// references allocates nothing (a start scans every item: the path of
// fields grown per document was garbage among what the start keeps).
func TestRefScanner_NoGarbagePerDocument(t *testing.T) {
	it := &content.Item{Type: "posts", Slug: "a", Data: map[string]any{"title": "A", "tags": []any{"x", "y"}, "seo": map[string]any{"desc": "plain text"}}}
	sc := &refScanner{}
	if refs := sc.scan(it); len(refs) != 0 {
		t.Fatalf("refs %v", refs)
	}
	if n := testing.AllocsPerRun(100, func() { sc.scan(it) }); n != 0 {
		t.Fatalf("scan made %.0f allocations, want none", n)
	}
}
