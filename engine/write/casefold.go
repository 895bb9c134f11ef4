package write

import (
	"context"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"golang.org/x/text/unicode/norm"
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
		return fault.New(fault.Conflict, "%s differs only in case or Unicode normalization from %s: on a case-insensitive file system (macOS, Windows) they are one file, and a checkout of the repository breaks; choose another slug", p, other)
	}
	return nil
}

// caseClash is the file of files whose path, or a folder of it, equals p
// (or a folder of p) but for case or Unicode normalization; "" when none
// does.
func caseClash(p string, files []File) string {
	lp := foldPath(p)
	// p's folders, as the folded prefixes "content/", "content/posts/",
	// and p's own ones, to tell a folder that differs from one that is p's.
	var dirs []int
	for i := 0; i < len(lp); i++ {
		if lp[i] == '/' {
			dirs = append(dirs, i+1)
		}
	}
	for _, f := range files {
		if f.Path == p {
			continue
		}
		lf := foldPath(f.Path)
		if lf == lp {
			return f.Path
		}
		for _, n := range dirs {
			if len(lf) >= n && lf[:n] == lp[:n] && !sameFolder(f.Path, p, strings.Count(lp[:n], "/")) {
				return f.Path
			}
		}
	}
	return ""
}

// foldPath is p as a case- and normalization-insensitive file system
// compares it: NFC, lower case. An ASCII path is only lower-cased.
func foldPath(p string) string {
	return strings.ToLower(norm.NFC.String(p))
}

// sameFolder tells whether a and b have the same first n folders, byte
// for byte.
func sameFolder(a, b string, n int) bool {
	for ; n > 0; n-- {
		i, j := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		if i < 0 || j < 0 || a[:i] != b[:j] {
			return false
		}
		a, b = a[i+1:], b[j+1:]
	}
	return true
}
