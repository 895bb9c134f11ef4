package content

import (
	"iter"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Hugo module mounts onto folders of content/: a site without locales
// whose configuration (module.mounts in hugo.*/config.*, or mounts in
// config/_default/module.*) mounts a folder of its own repository onto a
// folder below content/ (jaegertracing.io mounts content/docs/v2 onto
// content/docs, and content/docs/v2/_dev onto content/docs/2.dev) is
// read as Hugo reads it: each document of the mount's source is read at
// its path below the target, its repository path kept as Source. The
// mounts are taken in order, a file of a source is read through the
// first mount whose files filter (files: ['! docs/v?'], or the older
// includeFiles and excludeFiles) admits it, and of two files mounted at
// one path the one of the earlier mount is read. With a mount of a
// folder onto content itself (source: content, target: content) a file
// of content/ that no mount admits is not read, as in Hugo, whose
// default mount is then not added; without one, content/ is read as it
// is. A mount whose source is outside the site (../README.md), or that
// is another module's (imports), is not followed: folio check reports
// it (Misreads, MisreadHugoMounts), as it does those of a site with
// locales.

// hugoMount is one module mount onto content or a folder below it.
type hugoMount struct {
	src, dst string // repository paths, cleaned; dst is content or below
	outside  bool   // src is outside the site (../README.md)
	incl     []*regexp.Regexp
	excl     []*regexp.Regexp
	path     string // the config file, and the line of the mount
	line     int
}

// readContentMounts reads the module mounts onto content or below of the
// site's Hugo configuration files (among sorted), in order; nil unless
// one of them mounts a folder or file of the site below content/ (a
// mount onto content itself is a language's content folder: see
// hugoconfig.go).
func readContentMounts(sorted []File) []hugoMount {
	var out []hugoMount
	below := false
	for _, f := range sorted {
		if f.Doc == nil || (strings.IndexByte(f.Path, '/') >= 0 && !strings.HasPrefix(f.Path, "config/")) {
			continue // no config file: asked of every file at every load
		}
		for mt, line := range hugoMountsOf(f) {
			src, outside := mountSource(mt)
			dst := mountPath(mt, "target")
			if src == "" || (dst != "content" && !strings.HasPrefix(dst, "content/")) {
				continue
			}
			hm := hugoMount{src: src, dst: dst, outside: outside, path: f.Path, line: line}
			hm.incl, hm.excl = mountFilter(mt)
			if dst != "content" && !outside {
				below = true
			}
			out = append(out, hm)
		}
	}
	if !below {
		return nil
	}
	return out
}

// hugoMountsOf yields the module mounts a Hugo configuration file f
// declares (module.mounts in the main one, mounts in config/…/module.*),
// each with the line it starts at; none for another file.
func hugoMountsOf(f File) iter.Seq2[map[string]any, int] {
	return func(yield func(map[string]any, int) bool) {
		kind, ok := hugoConfigFile(f.Path)
		if !ok || f.Doc == nil || (kind != "main" && kind != "module") {
			return
		}
		m := f.Doc.Meta()
		var at []string
		if kind == "main" {
			mod, k, ok := lowerKey(m, "module")
			mm, isMap := mod.(map[string]any)
			if !ok || !isMap {
				return
			}
			m, at = mm, append(at, k)
		}
		v, k, ok := lowerKey(m, "mounts")
		if !ok {
			return
		}
		at = append(at, k)
		list, _ := v.([]any)
		for i, e := range list {
			mt, _ := e.(map[string]any)
			if !yield(mt, f.Doc.LineOf(append(slices.Clip(at), strconv.Itoa(i))...)) {
				return
			}
		}
	}
}

// mountSource is a mount's source as a path of the site, and whether it
// is outside the site's folder (../README.md: the repository's, when the
// site is in docsy.dev/).
func mountSource(m map[string]any) (string, bool) {
	v, _, _ := lowerKey(m, "source")
	s, _ := v.(string)
	s = strings.Trim(s, "/")
	if s == "" {
		return "", false
	}
	c := path.Clean(s)
	if c == "." {
		return "", false
	}
	return c, c == ".." || strings.HasPrefix(c, "../")
}

// mountFilter reads a mount's files filter: files (a pattern or a list of
// them, "! pattern" excluding), or Hugo's older includeFiles and
// excludeFiles, as Hugo's glob patterns below the mount's source
// (gobwas/glob's: * within a segment, ** across them, ?, [..], {a,b}).
func mountFilter(m map[string]any) (incl, excl []*regexp.Regexp) {
	add := func(v any, exclude bool) {
		var pats []string
		switch t := v.(type) {
		case string:
			pats = append(pats, t)
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					pats = append(pats, s)
				}
			}
		}
		for _, p := range pats {
			p = strings.TrimSpace(p)
			ex := exclude
			if rest, ok := strings.CutPrefix(p, "!"); ok {
				p, ex = strings.TrimSpace(rest), true
			}
			re := globRegexp(p)
			if re == nil {
				continue
			}
			if ex {
				excl = append(excl, re)
			} else {
				incl = append(incl, re)
			}
		}
	}
	if v, _, ok := lowerKey(m, "files"); ok {
		add(v, false)
	}
	if v, _, ok := lowerKey(m, "includeFiles"); ok {
		add(v, false)
	}
	if v, _, ok := lowerKey(m, "excludeFiles"); ok {
		add(v, true)
	}
	return incl, excl
}

// globRegexp is a Hugo files pattern as a regular expression matching a
// path below the mount's source with a leading "/" (Hugo's filter adds
// it to both); nil for an empty pattern or one it cannot read.
func globRegexp(p string) *regexp.Regexp {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("^/")
	depth := 0 // inside {…}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil
			}
			class := p[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j
		case c == '{':
			b.WriteString("(?:")
			depth++
		case c == '}' && depth > 0:
			b.WriteString(")")
			depth--
		case c == ',' && depth > 0:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1])) // a byte: UTF-8 is kept whole
		}
	}
	if depth > 0 {
		return nil
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// admits tells whether the mount reads rel, a file's path below its
// source ("" for the source itself, a file mount): as Hugo's walk does,
// each folder on the way and the file must match an inclusion (a
// folder: or lead to one) or no exclusion.
func (m *hugoMount) admits(rel string) bool {
	if rel == "" || (len(m.incl) == 0 && len(m.excl) == 0) {
		return true
	}
	segs := strings.Split(rel, "/")
	for i := range segs {
		if !m.match("/"+strings.Join(segs[:i+1], "/"), i < len(segs)-1) {
			return false
		}
	}
	return true
}

// match is Hugo's FilenameFilter.Match for one name ("/a/b").
func (m *hugoMount) match(name string, isDir bool) bool {
	for _, re := range m.incl {
		if re.MatchString(name) {
			return true
		}
	}
	if isDir && len(m.incl) > 0 {
		return true // a folder on the way to an inclusion is walked
	}
	for _, re := range m.excl {
		if re.MatchString(name) {
			return false
		}
	}
	return len(m.incl) == 0
}

// target is where the mount reads file p, and whether it does.
func (m *hugoMount) target(p string) (string, bool) {
	if m.outside {
		return "", false
	}
	if p == m.src {
		return m.dst, true // a file mounted on its own
	}
	rest, ok := strings.CutPrefix(p, m.src+"/")
	if !ok || !m.admits(rest) {
		return "", false
	}
	return m.dst + "/" + rest, true
}

// hugoMountRemap reads the files of sorted (a site without locales)
// through the Hugo configuration's mounts below content/ (see above):
// each file a mount reads at another path gets that path, its real one
// as Source; files no mount reads are left out when a mount onto content
// itself is there. sorted itself when there are no such mounts.
func hugoMountRemap(sorted []File) []File {
	mounts := readContentMounts(sorted)
	if mounts == nil {
		return sorted
	}
	rootMount := slices.ContainsFunc(mounts, func(m hugoMount) bool { return m.dst == "content" && !m.outside })
	type mounted struct {
		f     File
		mount int // the mount's index; -1 for a file read where it is
	}
	out := make([]mounted, 0, len(sorted))
	for _, f := range sorted {
		if f.Source != "" {
			out = append(out, mounted{f, -1})
			continue
		}
		read := false
		for i := range mounts {
			to, ok := mounts[i].target(f.Path)
			if !ok {
				continue
			}
			read = true
			if to != f.Path {
				if !relevantPlain(to) {
					break // read by Hugo where folio reads no document
				}
				f.Path, f.Source = to, f.Path
			}
			out = append(out, mounted{f, i})
			break
		}
		if !read && !(rootMount && strings.HasPrefix(f.Path, "content/")) && !hugoMountSourceOnly(mounts, f.Path) {
			out = append(out, mounted{f, -1})
		}
	}
	slices.SortStableFunc(out, func(a, b mounted) int {
		if c := strings.Compare(a.f.Path, b.f.Path); c != 0 {
			return c
		}
		return a.mount - b.mount
	})
	files := make([]File, 0, len(out))
	for i, m := range out {
		if i > 0 && out[i-1].f.Path == m.f.Path {
			continue // mounted at one path by an earlier mount
		}
		files = append(files, m.f)
	}
	return files
}

// hugoMountSourceOnly tells whether p is read by folio only because it is
// below a mount's source (a folder starting with _, or outside content/):
// a file no mount admits there is not read.
func hugoMountSourceOnly(mounts []hugoMount, p string) bool {
	if relevantPlain(p) {
		return false
	}
	for _, m := range mounts {
		if !m.outside && (p == m.src || strings.HasPrefix(p, m.src+"/")) {
			return true
		}
	}
	return false
}

// hugoMountDirs are the sources of the mounts below content/ of a site
// without locales whose files folio does not read otherwise (a folder
// starting with _, a folder or file outside content/), for ContentDirs.
func hugoMountDirs(files []File) []string {
	var out []string
	for _, m := range readContentMounts(files) {
		if m.outside || relevantPlain(m.src+"/x/x.md") {
			continue
		}
		out = append(out, m.src)
	}
	return out
}
