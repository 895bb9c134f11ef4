package gitsource

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/internal/gittest"
)

// The git helpers of package gittest, under the names these tests use.
type srcTestRepo = gittest.Repo

var (
	srcGitEnv          = gittest.Env
	srcGit             = gittest.Git
	srcGitAt           = gittest.GitAt
	newSrcBareSite     = gittest.NewBareSite
	newSrcWorkTreeSite = gittest.NewWorkTreeSite
	srcT0              = gittest.T0
	srcDay             = gittest.Day
	benchSite          = gittest.BenchSite
)

// srcTestParser stands in for content.Parse where a test is about plumbing:
// the document is the file's bytes, "BROKEN" fails, and every call is
// recorded.
type srcTestParser struct {
	mu    sync.Mutex
	calls map[string]int
}

func (p *srcTestParser) parse(path string, data []byte) (*content.Doc, error) {
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[string]int{}
	}
	p.calls[path]++
	p.mu.Unlock()
	if strings.Contains(string(data), "BROKEN") {
		return nil, content.Problem{Path: path, Line: 1, Message: "broken file"}
	}
	d := content.NewDoc(map[string]any{"size": len(data)})
	d.Body, d.HasBody, d.Line = content.NewMarkdown(string(data)), true, 1
	return d, nil
}

func (p *srcTestParser) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[path]
}

func srcRelevant(p string) bool {
	return p == "globals.yaml" || strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "pages/")
}

// openSrc opens site with the test parser.
func openSrc(tb testing.TB, site, cacheDir string, p *srcTestParser) *Source {
	tb.Helper()
	src, err := OpenSource(context.Background(), SourceConfig{
		Site: site, CacheDir: cacheDir, Parse: p.parse, Relevant: srcRelevant, CacheKey: "test",
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { src.Close() })
	return src
}

func srcLoad(tb testing.TB, src *Source, branch string) *Tree {
	tb.Helper()
	commit, err := src.Resolve(branch)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err := src.Load(context.Background(), commit)
	if err != nil {
		tb.Fatal(err)
	}
	return tree
}

func srcFile(tb testing.TB, tree *Tree, p string) content.File {
	tb.Helper()
	for _, f := range tree.Files.All() {
		if f.Path == p {
			return *f
		}
	}
	tb.Fatalf("no file %s in tree %s", p, tree.Commit)
	return content.File{}
}

func srcPaths(tree *Tree) []string {
	var ps []string
	for _, f := range tree.Files.All() {
		ps = append(ps, f.Path)
	}
	return ps
}

// srcWaitFor polls cond until it holds or a generous deadline passes.
func srcWaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func srcProblem(err error) string {
	var p content.Problem
	if errors.As(err, &p) {
		return p.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// srcTreeDiff compares two trees as served: documents by their values and
// bodies by their text (a body read from the repository is a closure,
// which reflect.DeepEqual cannot compare). "" when they are the same.
func srcTreeDiff(got, want *Tree) string {
	if got.Commit != want.Commit || !got.Time.Equal(want.Time) || got.Files.Len() != want.Files.Len() {
		return fmt.Sprintf("commit %s %v, %d files; want %s %v, %d files", got.Commit, got.Time, got.Files.Len(), want.Commit, want.Time, want.Files.Len())
	}
	for i, g := range got.Files.All() {
		w := want.Files.At(i)
		if g.Path != w.Path || !g.Updated.Equal(w.Updated) || !reflect.DeepEqual(g.Err, w.Err) || (g.Doc == nil) != (w.Doc == nil) {
			return fmt.Sprintf("file %d: %+v, want %+v", i, g, w)
		}
		if g.Doc == nil {
			continue
		}
		gd, wd := g.Doc, w.Doc
		if gd.Body.Source() != wd.Body.Source() {
			return fmt.Sprintf("%s: body %q, want %q", g.Path, gd.Body.Source(), wd.Body.Source())
		}
		type reading struct {
			Meta    map[string]any
			HasBody bool
			Line    int
			Lines   map[string]int
			RefHint content.RefHint
		}
		gr := reading{gd.Meta(), gd.HasBody, gd.Line, gd.KeyLines(), gd.RefHint()}
		wr := reading{wd.Meta(), wd.HasBody, wd.Line, wd.KeyLines(), wd.RefHint()}
		if !reflect.DeepEqual(gr, wr) {
			return fmt.Sprintf("%s: doc %+v, want %+v", g.Path, gr, wr)
		}
	}
	return ""
}
