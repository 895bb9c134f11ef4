package content

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// A site may live in a folder of its repository (a Hugo theme's
// exampleSite/, the Decap templates' site/): its root, under which
// everything is read (Hugo config, content, model, Decap config), as
// hugo -s <dir> does. It is set by folio's --root, or by the root: of a
// folio.yaml at the repository's root; the site's own folio.yaml is then
// <root>/folio.yaml.

// CleanRoot checks a site root: a relative folder path of the
// repository, returned without a trailing slash; "" (and ".") is the
// repository's root.
func CleanRoot(root string) (string, error) {
	r := strings.Trim(strings.ReplaceAll(root, "\\", "/"), "/")
	if r == "" || r == "." {
		return "", nil
	}
	c := path.Clean(r)
	if c != r || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("site root %q: want a folder of the repository, as a relative path (site, docs/exampleSite)", root)
	}
	for _, s := range strings.Split(c, "/") {
		if s[0] == '.' {
			return "", fmt.Errorf("site root %q: a hidden folder cannot be the site root", root)
		}
	}
	return c, nil
}

// RootOf is the site root a folio.yaml at the repository's root names
// (its root: key); "" when doc is nil or names none.
func RootOf(doc *Doc) (string, error) {
	if doc == nil {
		return "", nil
	}
	v, ok := doc.Value("root")
	if !ok {
		return "", nil
	}
	s, isText := v.(string)
	if !isText {
		return "", problemAt(doc.KeyLines()["root"], "root: want a folder of the repository, found %s", kindOf(v))
	}
	r, err := CleanRoot(s)
	if err != nil {
		return "", problemAt(doc.KeyLines()["root"], "root: %v", err)
	}
	return r, nil
}

// IsRootConfig tells whether p is a folio.yaml at a repository's root
// (the file that may name the site root).
func IsRootConfig(p string) bool {
	low := strings.ToLower(p)
	return low == "folio.yaml" || low == "folio.yml"
}

// ReadSite reads a site on disk: the files of dir, or of its site root
// (root, else the root: of dir's folio.yaml), with their paths below
// it. It returns the root it read.
func ReadSite(dir, root string) ([]File, string, error) {
	if root == "" {
		files, err := readDir(dir, IsRootConfig)
		if err != nil {
			return nil, "", err
		}
		for _, f := range files {
			if r, err := RootOf(f.Doc); err != nil {
				return nil, "", fmt.Errorf("%s: %w", f.Path, err)
			} else if r != "" {
				root = r
				break
			}
		}
	}
	r, err := CleanRoot(root)
	if err != nil {
		return nil, "", err
	}
	files, err := ReadDir(filepath.Join(dir, filepath.FromSlash(r)))
	return files, r, err
}

// SiteFolder is a Decap collection's folder as a path of the site: the
// Decap config of a site in a folder of its repository names folders
// from the repository's root (site/content/post, as the Decap/Netlify
// templates do), which is content/post below the site root.
func SiteFolder(folder string) string {
	if i := strings.LastIndex(folder, "/content/"); i > 0 {
		return folder[i+1:]
	}
	return folder
}
