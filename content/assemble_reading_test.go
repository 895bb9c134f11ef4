package content

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The rules of the whole site are applied to the first files while the
// last ones are still read: readUnitsAsync's workers publish each run of
// files as it is read, and ready waits for the one run it needs.
func TestUnitReading_ReadyBeforeAllRead(t *testing.T) {
	todo := make([]int, 4*unitReadRun)
	for i := range todo {
		todo[i] = 2 * i
	}
	last := todo[len(todo)-1]
	release := make(chan struct{})
	read := func(i int) {
		if i == last {
			<-release
		}
	}
	r := &unitReading{todo: todo}
	first := make(chan struct{})
	go func() {
		r.start(2, read)
		r.ready(todo[0])
		r.ready(todo[unitReadRun]) // the second run
		close(first)
	}()
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("ready of the first files waited for the last one to be read")
	}
	done := make(chan struct{})
	go func() { r.wait(); close(done) }()
	select {
	case <-done:
		t.Fatal("wait returned before the last file was read")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-done
}

// A site assembled while its units are read (two workers) is the site
// read first and assembled after (one CPU: no workers), duplicates,
// homepage candidates and failed reads included.
func TestAssemble_ReadingInTurnSameSite(t *testing.T) {
	var files []File
	add := func(p, src string) {
		doc, err := Parse(p, []byte(src))
		files = append(files, File{Path: p, Doc: doc, Err: err})
	}
	add("folio.yaml", "types:\n  posts: {public: true}\n")
	for i := range 300 {
		add(fmt.Sprintf("pages/p%04d.md", i), fmt.Sprintf("---\ntitle: P%d\nslug: s%d\n---\n", i, i%250))
	}
	add("pages/zhome.md", "---\ntitle: Home\nisHomepage: true\n---\n")
	for i := range 3*parallelUnits + 7 {
		switch {
		case i%97 == 0:
			add(fmt.Sprintf("content/posts/p%05d.md", i), "---\ndate: yesterday\n---\n")
		case i%13 == 0:
			add(fmt.Sprintf("content/posts/p%05d.md", i), fmt.Sprintf("---\ntitle: T%d\nid: dup%d\n---\n", i, i%5))
		default:
			add(fmt.Sprintf("content/notes/n%05d.md", i), fmt.Sprintf("---\ntitle: N%d\nslug: n%d\n---\nbody\n", i, i%700))
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	assemble := func(procs int) (*Site, []Problem) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return new(Assembler).Assemble(files)
	}
	serial, serialProblems := assemble(1)
	both, bothProblems := assemble(2)
	if len(serialProblems) == 0 || len(serial.Items["notes"]) == 0 {
		t.Fatalf("the site has %d problems, %d notes", len(serialProblems), len(serial.Items["notes"]))
	}
	if !reflect.DeepEqual(serialProblems, bothProblems) {
		t.Fatalf("problems differ:\n%v\n%v", serialProblems, bothProblems)
	}
	if !reflect.DeepEqual(serial, both) {
		t.Fatal("the site assembled while read differs from the one read first")
	}
}
