package media

import (
	"context"
	"slices"
	"time"
)

// Folders lists every folder, sorted: the root, the explicitly created
// folders, the folders items are in, and all their parents.
func (l *Library) Folders() []string {
	set := map[string]bool{RootFolder: true}
	add := func(p string) {
		set[p] = true
		for _, q := range folderParents(p) {
			set[q] = true
		}
	}
	l.cat.read(func(x *index) {
		for p := range x.explicit {
			add(p)
		}
		for p := range x.inFolder {
			add(p)
		}
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// CreateFolder creates a folder and its missing parents (they persist too,
// like mkdir -p). Creating a folder that already exists, explicitly or
// because items are in it, fails with ErrFolderExists, which the HTTP
// layer answers with 409, as Strapi does for a duplicate folder name.
func (l *Library) CreateFolder(p string) error {
	if l.cfg.ReadOnly {
		return errReadOnly
	}
	c, err := CleanFolder(p)
	if err != nil {
		return err
	}
	if err := checkNewFolder(c); err != nil {
		return err
	}
	return l.changeFolders(func(x *index) (map[string]bool, error) {
		if x.folderExists(c) {
			return nil, errorf(ErrFolderExists, "folder %s already exists", c)
		}
		next := make(map[string]bool, len(x.explicit)+1)
		for q := range x.explicit {
			next[q] = true
		}
		next[c] = true
		for _, q := range folderParents(c) {
			next[q] = true
		}
		return next, nil
	})
}

// DeleteFolder deletes an empty folder: no item in it and no folder below
// it. The root cannot be deleted.
func (l *Library) DeleteFolder(p string) error {
	if l.cfg.ReadOnly {
		return errReadOnly
	}
	c, err := CleanFolder(p)
	if err != nil {
		return err
	}
	if c == RootFolder {
		return errorf(ErrBadInput, "the root folder cannot be deleted")
	}
	return l.changeFolders(func(x *index) (map[string]bool, error) {
		if !x.folderExists(c) {
			return nil, errorf(ErrFolderNotFound, "folder %s not found", c)
		}
		if x.inFolder[c] > 0 {
			return nil, errorf(ErrFolderNotEmpty, "folder %s is not empty", c)
		}
		for q := range x.explicit {
			if below(q, c) {
				return nil, errorf(ErrFolderNotEmpty, "folder %s has subfolders", c)
			}
		}
		for q := range x.inFolder {
			if below(q, c) {
				return nil, errorf(ErrFolderNotEmpty, "folder %s has subfolders", c)
			}
		}
		next := make(map[string]bool, len(x.explicit))
		for q := range x.explicit {
			if q != c {
				next[q] = true
			}
		}
		return next, nil
	})
}

// folderWriteTimeout bounds a folder change, whose methods take no
// context.
const folderWriteTimeout = 30 * time.Second

// changeFolders replaces the explicit folders with what edit makes of
// them, with a compare-and-swap on the folder list in the state
// (foldersShared); edit runs inside the catalog's lock, held for reading,
// and may refuse. Folder changes are ordered against item writes by
// folderMu.
func (l *Library) changeFolders(edit func(x *index) (map[string]bool, error)) error {
	l.folderMu.Lock()
	defer l.folderMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), folderWriteTimeout)
	defer cancel()
	return l.sync.foldersShared(ctx, edit)
}

// checkFolder cleans p and checks that it exists. The caller holds
// l.folderMu for reading until the item is committed.
func (l *Library) checkFolder(p string) (string, error) {
	c, err := CleanFolder(p)
	if err != nil {
		return "", err
	}
	if !l.folderExists(c) {
		return "", errorf(ErrFolderNotFound, "folder %s not found", c)
	}
	return c, nil
}

// folderExists reports whether the clean path p is a folder.
func (l *Library) folderExists(p string) (ok bool) {
	l.cat.read(func(x *index) { ok = x.folderExists(p) })
	return ok
}
