package local_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
)

// readSyscalls is the number of read system calls this process made
// (/proc/self/io's syscr).
func readSyscalls(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no syscr in /proc/self/io")
	return 0
}

// A Get reads a whole object with one read(2): the stat of the open file
// gives its size, and the store never writes an object in place, so no
// second read looks for the end (a start without a checkpoint reads every
// sidecar: 10 000 reads fewer at 10k items).
func TestState_GetReadsOnce(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	sizes := []int{0, 1, 200, 4095, 4096, 4097, 70000}
	for i, n := range sizes {
		if _, err := st.Create(ctx, "items/k"+strconv.Itoa(i)+".yaml", bytes.Repeat([]byte{'a' + byte(i)}, n)); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 20
	before := readSyscalls(t)
	for range rounds {
		for i, n := range sizes {
			data, _, err := st.Get(ctx, "items/k"+strconv.Itoa(i)+".yaml")
			if err != nil || !bytes.Equal(data, bytes.Repeat([]byte{'a' + byte(i)}, n)) {
				t.Fatalf("get %d: %d bytes, %v", i, len(data), err)
			}
		}
	}
	gets := int64(rounds * len(sizes))
	if reads := readSyscalls(t) - before; reads > gets+gets/10 {
		t.Errorf("%d reads for %d gets, want one each", reads, gets)
	}
}

// ListKeys lists what List does, in the same order, without the tags.
func TestState_ListKeys(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	for _, k := range []string{"items/b.yaml", "items/a.yaml", "items/a-c.yaml", "claims/2026/01/x.pdf", "claims/2026/01/x/y.pdf", "claims/2026/02/z.pdf", "folders.yaml"} {
		if _, err := st.Create(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	for _, prefix := range []string{"items/", "claims/", "claims/2026/01/x", ""} {
		var want, got []string
		if err := st.List(ctx, prefix, "", func(o media.StateObject) error { want = append(want, o.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := st.ListKeys(ctx, prefix, func(k string) error { got = append(got, k); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("ListKeys(%q) = %q, List gives %q", prefix, got, want)
		}
	}
}

// PrepareCreate and CreatePrepared are Create in two steps: the bytes
// synced under a temporary name, then the key's name made (and refused
// when taken); a prepared object is used once, and Discard or a refused
// create leaves no temporary file.
func TestState_CreatePrepared(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	p, err := st.PrepareCreate([]byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	tag, err := st.CreatePrepared(ctx, "items/a.yaml", p)
	if err != nil {
		t.Fatal(err)
	}
	data, gtag, err := st.Get(ctx, "items/a.yaml")
	if err != nil || string(data) != "one" || gtag != tag {
		t.Fatalf("get = %q %q %v, created with tag %q", data, gtag, err, tag)
	}
	if _, err := st.CreatePrepared(ctx, "items/b.yaml", p); err == nil {
		t.Error("a prepared object created twice")
	}
	p.Discard() // used already: nothing to do
	q, err := st.PrepareCreate([]byte("two"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreatePrepared(ctx, "items/a.yaml", q); !errors.Is(err, media.ErrPrecondition) {
		t.Errorf("create over an existing key: %v, want ErrPrecondition", err)
	}
	r, err := st.PrepareCreate([]byte("three"))
	if err != nil {
		t.Fatal(err)
	}
	r.Discard()
	if data, _, _ := st.Get(ctx, "items/a.yaml"); string(data) != "one" {
		t.Errorf("items/a.yaml = %q", data)
	}
	if ents, _ := os.ReadDir(filepath.Join(st.Dir(), ".tmp")); len(ents) != 0 {
		t.Errorf("%d temporary files left", len(ents))
	}
}
