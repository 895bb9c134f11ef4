package write

import (
	"context"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// checkCaseClash refuses a new file p whose path differs only in case
// from a file (or a folder) the tree of commit has: on a case-insensitive
// file system (macOS, Windows) the two are one, and a checkout of the
// repository breaks. It lists the files of p's first two folders
// (content/posts, pages/…), where the documents of one kind are.
func (r *repo) checkCaseClash(ctx context.Context, commit, p string) error {
	dir := ""
	if segs := strings.SplitN(p, "/", 3); len(segs) == 3 {
		dir = segs[0] + "/" + segs[1]
	} else if len(segs) == 2 {
		dir = segs[0]
	}
	files, err := r.listTree(ctx, commit, dir)
	if err != nil {
		return err
	}
	if other := caseClash(p, files); other != "" {
		return fault.New(fault.Conflict, "%s differs only in case from %s: on a case-insensitive file system (macOS, Windows) they are one file, and a checkout of the repository breaks; choose another slug", p, other)
	}
	return nil
}

// caseClash is the file of files whose path, or a folder of it, equals p
// (or a folder of p) but for case; "" when none does.
func caseClash(p string, files []File) string {
	lp := strings.ToLower(p)
	// p's folders, as the lower-case prefixes "content/", "content/posts/".
	var dirs []int
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			dirs = append(dirs, i+1)
		}
	}
	for _, f := range files {
		if f.Path == p {
			continue
		}
		lf := strings.ToLower(f.Path)
		if lf == lp {
			return f.Path
		}
		for _, n := range dirs {
			if len(lf) >= n && len(lp) >= n && lf[:n] == lp[:n] && f.Path[:n] != p[:n] {
				return f.Path
			}
		}
	}
	return ""
}
