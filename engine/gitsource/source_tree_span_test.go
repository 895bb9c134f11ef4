package gitsource

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestWalkDir_SpanMatchesFresh checks that a walk which takes the entries
// at either end of a changed folder from the last walk by their bytes
// (sameSpan) makes the records a walk from nothing makes, and the same
// changes (diffRecs with and without the spans), over random pushes into a
// folder of 3000 files (three parts) with subfolders, and a root of files the
// site does not read. And that it does take them: a push of one file
// merges a few entries, not the folder.
func TestWalkDir_SpanMatchesFresh(t *testing.T) {
	dir := t.TempDir()
	srcGit(t, dir, "init", "-q", "-b", "main")
	write := func(p, s string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	for i := range 3000 {
		p := fmt.Sprintf("content/posts/p%05d.md", i*10)
		if i%500 == 7 {
			p = fmt.Sprintf("content/posts/p%05d/index.md", i*10) // a subfolder among the files
		}
		files = append(files, p)
		write(p, fmt.Sprintf("post %d\n", i))
	}
	for i := range 40 {
		write(fmt.Sprintf("r%03d.txt", i*10), "not read\n") // irrelevant, at the root
	}
	commit := func(step int) plumbing.Hash {
		srcGit(t, dir, "add", "-A")
		srcGit(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", fmt.Sprint(step))
		return plumbing.NewHash(srcGit(t, dir, "rev-parse", "HEAD^{tree}"))
	}
	gitDir := filepath.Join(dir, ".git")
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	walk := func(h plumbing.Hash, old *dirRec) (*dirRec, *treeEntries) {
		tc := &treeEntries{st: st, loose: &looseTrees{objects: filepath.Join(gitDir, "objects")}, m: map[plumbing.Hash][]object.TreeEntry{},
			read: map[plumbing.Hash][]object.TreeEntry{}}
		d, err := walkDir(tc, h, "", old, srcRelevant)
		if err != nil {
			t.Fatal(err)
		}
		return d, tc
	}
	last, _ := walk(commit(0), nil)
	rng := rand.New(rand.NewPCG(1, 2))
	spanned := 0
	const steps = 40
	for step := 1; step <= steps; step++ {
		var did []string
		for range 1 + rng.IntN(2) {
			switch op := rng.IntN(6); op {
			case 0, 1: // edit
				p := files[rng.IntN(len(files))]
				write(p, fmt.Sprintf("edit %d\n", step))
				did = append(did, "edit "+p)
			case 2: // add, at any place
				p := fmt.Sprintf("content/posts/p%05d.md", rng.IntN(30000)|1)
				if i := rng.IntN(8); i == 0 {
					p = fmt.Sprintf("content/posts/p%05d/x.md", rng.IntN(30000)|1) // a new subfolder
				}
				if !slices.Contains(files, p) {
					files = append(files, p)
				}
				write(p, fmt.Sprintf("new %d\n", step))
				did = append(did, "add "+p)
			case 3: // delete
				i := rng.IntN(len(files))
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(files[i]))); err != nil {
					t.Fatal(err)
				}
				did = append(did, "rm "+files[i])
				files = slices.Delete(files, i, i+1)
			case 4: // the first or the last file
				p := slices.Min(files)
				if rng.IntN(2) == 0 {
					p = slices.Max(files)
				}
				write(p, fmt.Sprintf("end %d\n", step))
				did = append(did, "edit "+p)
			case 5: // a file the site does not read
				write(fmt.Sprintf("r%03d.txt", rng.IntN(400)), fmt.Sprintf("%d\n", step))
				did = append(did, "irrelevant")
			}
		}
		h := commit(step)
		got, tc := walk(h, last)
		want, _ := walk(h, nil)
		if d := recDiff(got, want, ""); d != "" {
			t.Fatalf("step %d (%q): the walk from the last one differs from a fresh one: %s", step, did, d)
		}
		full, okFull := changesSince(last, got, nil)
		ch, ok := changesSince(last, got, tc.spans)
		if ok != okFull || !reflect.DeepEqual(ch, full) {
			t.Fatalf("step %d (%q): changes with the spans %v %+v, without %v %+v", step, did, ok, ch, okFull, full)
		}
		posts := got.kid("content").kid("posts")
		if sp, ok := tc.spans[posts]; ok && sp.sufNew-sp.pre <= 2 {
			spanned++
		}
		last = got
	}
	if spanned < steps/2 {
		t.Fatalf("%d of %d walks took the changed folder's unchanged entries as they were", spanned, steps)
	}
}

// recDiff tells how two walks' records differ, "" when alike: their
// entries, slots, files and subfolders as one folder's (the parts a walk
// from the last one makes need not be cut where a fresh walk cuts them).
func recDiff(a, b *dirRec, at string) string {
	fa, fb := flatRec(a), flatRec(b)
	switch {
	case a.hash != b.hash:
		return at + ": hash"
	case !reflect.DeepEqual(fa.entries, fb.entries):
		return at + ": entries"
	case !slices.Equal(fa.slot, fb.slot):
		return fmt.Sprintf("%s: slots %v, want %v", at, fa.slot, fb.slot)
	case !slices.Equal(fa.files, fb.files):
		return fmt.Sprintf("%s: files %v, want %v", at, fa.files, fb.files)
	case !slices.Equal(fa.before, fb.before):
		return fmt.Sprintf("%s: before %v, want %v", at, fa.before, fb.before)
	case a.total != b.total:
		return fmt.Sprintf("%s: total %d, want %d", at, a.total, b.total)
	case len(fa.dirs) != len(fb.dirs):
		return fmt.Sprintf("%s: %d folders, want %d", at, len(fa.dirs), len(fb.dirs))
	}
	for _, p := range a.parts {
		if len(p.entries) == 0 {
			return at + ": an empty part"
		}
		if p.raw != "" {
			if _, _, ok := parseTree(p.raw); !ok {
				return at + ": a part's bytes are not its entries'"
			}
		}
	}
	for i := range fa.dirs {
		if d := recDiff(fa.dirs[i], fb.dirs[i], at+"/"+strings.TrimSpace(fmt.Sprint(i))); d != "" {
			return d
		}
	}
	return ""
}

// flatDir is a folder's record as one part: its slots, files and
// subfolders numbered in the folder.
type flatDir struct {
	entries []object.TreeEntry
	slot    []int32
	files   []gitFile
	dirs    []*dirRec
	before  []int
}

func flatRec(d *dirRec) flatDir {
	var f flatDir
	for _, p := range d.parts {
		for i, e := range p.entries {
			f.entries = append(f.entries, e)
			s := p.slot[i]
			switch {
			case s < 0:
			case e.Mode == filemode.Dir:
				s += int32(len(f.dirs))
			default:
				s += int32(len(f.files))
			}
			f.slot = append(f.slot, s)
		}
		for k, kid := range p.dirs {
			f.before = append(f.before, len(f.files)+int(p.before[k]))
			f.dirs = append(f.dirs, kid)
		}
		f.files = append(f.files, p.files...)
	}
	return f
}

// TestWalkDir_SpanMalformed checks that a folder whose changed middle is
// out of order (a malformed tree) is not patched: the Load lists every
// file then, as it does without the spans.
func TestWalkDir_SpanMalformed(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"pages/a.md": "x"})
	r.Push(false)
	gitDir := r.Site()
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	site := func(order []int, edit int) plumbing.Hash {
		var posts [][]byte
		for _, i := range order {
			b := byte(i)
			if i == edit {
				b = 200
			}
			posts = append(posts, rawEntry("100644", fmt.Sprintf("f%04d.md", i), b))
		}
		ph := hashTree(t, gitDir, bytes.Join(posts, nil))
		ch := hashTree(t, gitDir, append([]byte("40000 posts\x00"), ph[:]...))
		return hashTree(t, gitDir, append([]byte("40000 content\x00"), ch[:]...))
	}
	walk := func(h plumbing.Hash, old *dirRec) (*dirRec, *treeEntries) {
		tc := &treeEntries{st: st, loose: &looseTrees{objects: filepath.Join(gitDir, "objects")}, m: map[plumbing.Hash][]object.TreeEntry{},
			read: map[plumbing.Hash][]object.TreeEntry{}}
		d, err := walkDir(tc, h, "", old, srcRelevant)
		if err != nil {
			t.Fatal(err)
		}
		return d, tc
	}
	order := make([]int, 3000) // three parts
	for i := range order {
		order[i] = i
	}
	a, _ := walk(site(order, -1), nil)
	b, tc := walk(site(order, 1570), a)
	if ch, ok := changesSince(a, b, tc.spans); !ok || len(ch.added) != 1 {
		t.Fatalf("one file changed: %v %+v", ok, ch)
	}
	swapped := slices.Clone(order)
	swapped[1500], swapped[1501] = swapped[1501], swapped[1500]
	c, tc := walk(site(swapped, 1510), b)
	if _, ok := tc.spans[c.kid("content").kid("posts")]; !ok {
		t.Fatal("the folder's ends were not taken from the last walk")
	}
	if ch, ok := changesSince(b, c, tc.spans); ok {
		t.Fatalf("a folder out of order was patched: %+v", ch)
	}
}
