package gitsource

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Change is a path whose entry differs between two trees (a file, a
// symbolic link or a submodule; never a folder): Status is 'A' (added),
// 'D' (deleted), 'M' (modified: content or mode) or 'T' (its type
// changed: a file became a symbolic link or a submodule, or back), as
// git diff-tree -r --name-status --no-renames tells it.
type Change struct {
	Path   string
	Status byte
}

// Diff lists what changed from the tree of the revision from to that of
// to (see Resolve; commits or trees), every folder walked down to its
// files, in Git's order, as git diff-tree -r --no-renames from to: a
// file that became a folder is the file deleted and the folder's files
// added. Folders equal on both sides are not read.
func (f *Files) Diff(from, to string) ([]Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, err := f.tree(from)
	if err != nil {
		return nil, err
	}
	b, err := f.tree(to)
	if err != nil {
		return nil, err
	}
	var out []Change
	err = f.diffTrees(a, b, "", &out)
	return out, err
}

// diffTrees adds the changes from a to b (nil: an empty tree) below
// prefix. Under f.mu.
func (f *Files) diffTrees(a, b *object.Tree, prefix string, out *[]Change) error {
	var ea, eb []object.TreeEntry
	if a != nil {
		ea = a.Entries
	}
	if b != nil {
		eb = b.Entries
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = compareEntries(ea[i], eb[j])
		}
		switch {
		case c < 0:
			if err := f.side(ea[i], prefix, 'D', out); err != nil {
				return err
			}
			i++
		case c > 0:
			if err := f.side(eb[j], prefix, 'A', out); err != nil {
				return err
			}
			j++
		default:
			x, y := ea[i], eb[j]
			i, j = i+1, j+1
			if x.Hash == y.Hash && x.Mode == y.Mode {
				continue
			}
			if x.Mode == filemode.Dir { // both folders: compareEntries tells a folder from a file
				if err := checkPathLen(prefix, x.Name); err != nil {
					return err
				}
				ta, err := f.readTree(x.Hash)
				if err != nil {
					return err
				}
				tb, err := f.readTree(y.Hash)
				if err != nil {
					return err
				}
				if err := f.diffTrees(ta, tb, prefix+x.Name+"/", out); err != nil {
					return err
				}
				continue
			}
			st := byte('M')
			if entryType(x.Mode) != entryType(y.Mode) {
				st = 'T'
			}
			*out = append(*out, Change{Path: prefix + x.Name, Status: st})
		}
	}
	return nil
}

// side adds e, on one side only, as status: a file itself, a folder
// every file in it. Under f.mu.
func (f *Files) side(e object.TreeEntry, prefix string, status byte, out *[]Change) error {
	if e.Mode != filemode.Dir {
		*out = append(*out, Change{Path: prefix + e.Name, Status: status})
		return nil
	}
	if err := checkPathLen(prefix, e.Name); err != nil {
		return err
	}
	t, err := f.readTree(e.Hash)
	if err != nil {
		return err
	}
	if status == 'D' {
		return f.diffTrees(t, nil, prefix+e.Name+"/", out)
	}
	return f.diffTrees(nil, t, prefix+e.Name+"/", out)
}

// readTree reads the tree h. Under f.mu.
func (f *Files) readTree(h plumbing.Hash) (*object.Tree, error) {
	o, err := f.object(h)
	if err != nil {
		return nil, fmt.Errorf("gitsource: tree %s: %w", h, err)
	}
	return object.DecodeTree(f.st, o)
}

// compareEntries orders tree entries as Git does (base_name_compare): by
// name, a folder's as its name followed by "/".
func compareEntries(a, b object.TreeEntry) int {
	an, bn := a.Name, b.Name
	if a.Mode == filemode.Dir {
		an += "/"
	}
	if b.Mode == filemode.Dir {
		bn += "/"
	}
	return strings.Compare(an, bn)
}

// entryType is the kind of a non-folder entry as git's diff tells a type
// change: a file (regular or executable), a symbolic link, a submodule.
func entryType(m filemode.FileMode) int {
	switch m {
	case filemode.Symlink:
		return 1
	case filemode.Submodule:
		return 2
	}
	return 0
}
