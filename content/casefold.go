package content

import (
	"slices"
	"strings"

	"github.com/folio-cms/folio/content/chunks"
)

// CaseProblems reports the files whose repository paths differ only in
// case (content/posts/Hello-World.md and content/posts/hello-world.md):
// on a case-insensitive file system (macOS, Windows) they are one file,
// and a checkout of the repository breaks. Each file after the first of
// a group (by path) is a problem naming the first. Cheap when no path has
// an upper-case letter: strings.ToLower returns such a path as it is.
func CaseProblems(files []File) []Problem {
	return CaseProblemsOf(chunks.Of(files))
}

// CaseProblemsOf is CaseProblems of files in chunks.
func CaseProblemsOf(files chunks.List[File]) []Problem {
	var folded map[string][]string // lower-case path → the paths with an upper-case letter
	for _, f := range files.All() {
		p := f.RealPath()
		if l := strings.ToLower(p); l != p {
			if folded == nil {
				folded = map[string][]string{}
			}
			folded[l] = append(folded[l], p)
		}
	}
	if folded == nil {
		return nil
	}
	paths := make(map[string]bool, files.Len())
	for _, f := range files.All() {
		paths[f.RealPath()] = true
	}
	var out []Problem
	for l, group := range folded {
		if paths[l] {
			group = append(group, l)
		}
		if len(group) < 2 {
			continue
		}
		slices.Sort(group)
		group = slices.Compact(group)
		for _, p := range group[1:] {
			out = append(out, Problem{Path: p, Message: "differs only in case from " + group[0] +
				": on a case-insensitive file system (macOS, Windows) they are one file, and a checkout of the repository breaks; rename one"})
		}
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return out
}
