package gitsource

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// treeBytes is a tree's content with these entries (names and a byte of
// each hash), in order.
func treeBytes(names []string, mark byte) string {
	var b strings.Builder
	for _, n := range names {
		mode := "100644"
		if len(n)%7 == 3 {
			mode = "40000"
		}
		b.WriteString(mode + " " + n + "\x00")
		h := plumbing.Hash(sha1.Sum([]byte(n)))
		h[1] = mark
		b.Write(h[:])
	}
	return b.String()
}

// TestParseTreeFrom_MatchesParse edits random trees at random places
// (entries added, deleted, another hash, a name longer) and checks that
// parsing the new bytes from the old tree gives what parseTree gives,
// the names cut from the new bytes, and that the entries of the common
// ends are not parsed (at most the edited ones are: fails without the
// reuse).
func TestParseTreeFrom_MatchesParse(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		n := 1 + rnd.IntN(400)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("post-%05d.md", i*10)
		}
		oldRaw := treeBytes(names, 0)
		oldEntries, oldEnds, ok := parseTree(oldRaw)
		if !ok {
			t.Fatal("the old tree does not parse")
		}
		// an edit at one place
		edited := slices.Clone(names)
		at := rnd.IntN(n)
		mark := byte(0)
		switch rnd.IntN(4) {
		case 0:
			edited = slices.Insert(edited, at, fmt.Sprintf("post-%05d.md", at*10-1))
		case 1:
			edited = slices.Delete(edited, at, at+1)
		case 2:
			edited[at] += ".draft"
		case 3:
			mark = 1 // every hash differs: nothing in common but the first bytes
		}
		newRaw := treeBytes(edited, mark)
		if mark == 0 && rnd.IntN(2) == 0 {
			// the hash of one entry changed
			newRaw = treeBytes(edited, 0)
			b := []byte(newRaw)
			_, ends, _ := parseTree(newRaw)
			b[int(ends[min(at, len(ends)-1)])-2] ^= 0xff
			newRaw = string(b)
		}
		want, wantEnds, wok := parseTree(newRaw)
		got, gotEnds, parsed, gok := reparseTree(newRaw, &lastTree{raw: oldRaw, entries: oldEntries, ends: oldEnds})
		if gok != wok || !slices.Equal(got, want) || !slices.Equal(gotEnds, wantEnds) {
			t.Fatalf("round %d: parsed from the old tree: %v %d entries, want %v %d", round, gok, len(got), wok, len(want))
		}
		if mark == 0 && parsed > 2 {
			t.Fatalf("round %d: %d of %d entries parsed for one edit", round, parsed, len(got))
		}
		lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(newRaw))), uintptr(unsafe.Pointer(unsafe.StringData(newRaw)))+uintptr(len(newRaw))
		for _, e := range got {
			if p := uintptr(unsafe.Pointer(unsafe.StringData(e.Name))); p < lo || p >= hi {
				t.Fatalf("round %d: %s is not cut from the new bytes", round, e.Name)
			}
		}
	}
	// a middle that does not parse fails as parseTree does
	names := []string{"a.md", "b.md", "c.md"}
	oldRaw := treeBytes(names, 0)
	oldEntries, oldEnds, _ := parseTree(oldRaw)
	bad := oldRaw[:oldEnds[0]] + "zz" + oldRaw[oldEnds[0]:]
	if _, _, ok := parseTreeFrom(bad, &lastTree{raw: oldRaw, entries: oldEntries, ends: oldEnds}); ok {
		t.Fatal("a malformed middle parsed")
	}
}

// BenchmarkParseTreeFrom parses a 50k-entry tree with one entry changed,
// afresh and from its last version.
func BenchmarkParseTreeFrom(b *testing.B) {
	names := make([]string, 50000)
	for i := range names {
		names[i] = fmt.Sprintf("content/posts/post-%06d.md", i)
	}
	oldRaw := treeBytes(names, 0)
	oldEntries, oldEnds, _ := parseTree(oldRaw)
	names[25000] += ".x"
	newRaw := treeBytes(names, 0)
	last := &lastTree{raw: oldRaw, entries: oldEntries, ends: oldEnds}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			parseTree(newRaw)
		}
	})
	b.Run("from", func(b *testing.B) {
		for b.Loop() {
			parseTreeFrom(newRaw, last)
		}
	})
}
