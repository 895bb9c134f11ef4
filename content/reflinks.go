package content

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// Hugo's ref and relref shortcodes ({{< ref "docs/intro.md#x" >}}) are
// the path of the document they name, as the site serves it: the target
// document's path (Addressed.Path: the site's permalinks, url:, slug:),
// its anchor kept. A path is found as Hugo finds it: below the content
// folder, without the extension, _index and index naming their folder,
// in any case; one without a leading / first next to the referring
// file, then from the content folder, then by its last name alone when
// one document only has it. A ref that names no document is served as
// Hugo's default permalink of the path it names (where such a page
// would be), and folio check reports it (LinkProblems): Hugo fails its
// build on it (REF_NOT_FOUND).
//
// A body is rendered once and kept, and so is the JSON of the document
// it is in, as long as the document is unchanged; a body's links
// depend on other documents. So a render keeps the targets it resolved
// and what to (refDep), a render is used again only while they resolve
// the same, and the Assembler reads a document again (a new pointer,
// new JSON) when a target of its rendered body now resolves otherwise
// (siteLinks.stale).

// siteLinks is the link table of the latest site an Assembler made,
// which the bodies it read resolve their links in, and the bodies
// rendered with links, by file.
// (A mutex, not an atomic pointer: a site read again is deeply equal
// to one read afresh, which tests check.)
type siteLinks struct {
	mu       sync.Mutex
	cur      *linkTable
	rendered map[string]Markdown // RealPath -> a body rendered with links
}

// set makes site the one links resolve in.
func (l *siteLinks) set(site *Site) {
	l.mu.Lock()
	l.cur = &linkTable{site: site}
	l.mu.Unlock()
}

func (l *siteLinks) table() *linkTable {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

// note remembers that the body of the file at self was rendered with
// links.
func (l *siteLinks) note(self string, m Markdown) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rendered == nil {
		l.rendered = map[string]Markdown{}
	}
	l.rendered[self] = m
}

// fork is a siteLinks that knows the bodies l knows to have links.
func (l *siteLinks) fork() *siteLinks {
	out := &siteLinks{}
	if l == nil {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.rendered) > 0 {
		out.rendered = make(map[string]Markdown, len(l.rendered))
		for k, v := range l.rendered {
			out.rendered[k] = v
		}
	}
	return out
}

// stale lists the files whose kept render (HTML or tree) has a link that
// resolves otherwise in the current table: they are to be read again.
func (l *siteLinks) stale() map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.cur
	if t == nil {
		return nil
	}
	var out map[string]bool
	for self, m := range l.rendered {
		if m.b == nil {
			continue
		}
		ok := true
		for _, r := range []*rendered{m.b.out(), m.b.tree()} {
			if r != nil && !t.hold(self, r.deps) {
				ok = false
			}
		}
		if !ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[self] = true
			delete(l.rendered, self) // noted again when rendered again
		}
	}
	return out
}

// refDep is a link a render resolved: the target as written, and the
// path it was served as (found: a document's).
type refDep struct {
	target, path string
	found        bool
}

// linkTable finds the documents of one site by the paths refs name;
// made on first use.
type linkTable struct {
	site *Site
	once sync.Once
	// byKey: refKey of a document's file -> its path; byName: the last
	// element of the key -> the paths of the documents that have it
	byKey  map[string]string
	byName map[string][]string
	// contentDir is the folder the site's content files are below
	// ("content", or a locale's "content/fr")
	contentDir string
}

func (t *linkTable) build() {
	s := t.site
	t.contentDir = "content"
	if s.I18n != nil {
		if l, ok := s.I18n.Locale(s.Locale); ok && l.ContentDir != "" {
			t.contentDir = l.ContentDir
		}
	}
	t.byKey = map[string]string{}
	t.byName = map[string][]string{}
	add := func(file, p string) {
		if file == "" {
			return
		}
		k := refKey(t.rel(file))
		if _, dup := t.byKey[k]; dup {
			return
		}
		t.byKey[k] = p
		name := k[strings.LastIndexByte(k, '/')+1:]
		t.byName[name] = append(t.byName[name], p)
		// a file named for its language (about.fr.md) is also about
		if code := langSuffix(file); code != "" {
			base := strings.TrimSuffix(k, "."+strings.ToLower(code))
			if _, dup := t.byKey[base]; !dup {
				t.byKey[base] = p
			}
		}
	}
	docs := make([][2]string, 0, len(s.Pages))
	for _, p := range s.Pages {
		docs = append(docs, [2]string{p.Meta.Path, p.Path})
	}
	for _, items := range s.Items {
		for _, it := range items {
			docs = append(docs, [2]string{it.Meta.Path, it.Path})
		}
	}
	slices.SortFunc(docs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, d := range docs {
		add(d[0], d[1])
	}
}

// rel is a repository path below the content folder (or pages/, folio's
// own pages).
func (t *linkTable) rel(file string) string {
	for _, dir := range []string{t.contentDir, "content", "pages"} {
		if rest, ok := strings.CutPrefix(file, dir+"/"); ok {
			return rest
		}
	}
	return file
}

// refKey is the key of a content path as ref names it: no leading or
// trailing /, no document extension, lower case, _index and index
// naming their folder ("" the content folder).
func refKey(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	p = strings.Trim(path.Clean("/"+p), "/")
	if isDocExt(path.Ext(p)) || path.Ext(p) == ".mdx" {
		p = strings.TrimSuffix(p, path.Ext(p))
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	if base == "_index" || base == "index" {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			return p[:i]
		}
		return ""
	}
	return p
}

// resolve is the path of the document ref names (without its anchor),
// from the file at self (a repository path); false when none has it.
func (t *linkTable) resolve(self, ref string) (string, bool) {
	t.once.Do(t.build)
	if strings.HasPrefix(ref, "/") {
		p, ok := t.byKey[refKey(ref)]
		return p, ok
	}
	if self != "" {
		dir := path.Dir(t.rel(self))
		if dir != "." {
			if p, ok := t.byKey[refKey(dir+"/"+ref)]; ok {
				return p, true
			}
		}
	}
	if p, ok := t.byKey[refKey(ref)]; ok {
		return p, true
	}
	if k := refKey(ref); !strings.Contains(k, "/") {
		if ps := t.byName[k]; len(ps) == 1 {
			return ps[0], true
		}
	}
	return "", false
}

// hold tells whether every dep resolves as it did, from self.
func (t *linkTable) hold(self string, deps []refDep) bool {
	for _, d := range deps {
		p, ok := t.resolve(self, d.target)
		if !ok {
			p = hugoRefPath(d.target)
		}
		if ok != d.found || p != d.path {
			return false
		}
	}
	return true
}

// refHref is the href of a ref or relref shortcode naming ref, from the
// body env renders; it records what it resolved in env's deps.
func refHref(ref string, env *bodyEnv) string {
	ref = strings.TrimSpace(ref)
	target, anchor := ref, ""
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		target, anchor = ref[:i], ref[i:]
	}
	if target == "" {
		return anchor
	}
	var t *linkTable
	if env != nil {
		t = env.links.table()
	}
	if t == nil {
		return hugoRefPath(ref) // a body read outside a site
	}
	p, found := t.resolve(env.self, target)
	if !found {
		p = hugoRefPath(target)
	}
	if d := env.deps(); d != nil {
		*d = append(*d, refDep{target: target, path: p, found: found})
	}
	return p + anchor
}

// depsHold tells whether the links of a kept render resolve as they did
// in the site env renders in.
func (e *bodyEnv) depsHold(deps []refDep) bool {
	if len(deps) == 0 || e == nil {
		return true
	}
	t := e.links.table()
	if t == nil {
		return true
	}
	return t.hold(e.self, deps)
}

// LinkProblems lists the ref and relref shortcodes of the published
// pages' and items' bodies that name no document of their site (Hugo
// fails its build on them: REF_NOT_FOUND), at their line. files are the
// files site was assembled from. It reads every body: folio check's,
// not a server's.
func LinkProblems(site *Site, files []File) []Problem {
	starts := make(map[string]int, len(files))
	for _, f := range files {
		if f.Doc != nil {
			starts[f.RealPath()] = f.Doc.Line
		}
	}
	sites := []*Site{site}
	if len(site.Locales) > 0 {
		sites = sites[:0]
		for _, code := range slices.Sorted(maps.Keys(site.Locales)) {
			sites = append(sites, site.Locales[code])
		}
	}
	var out []Problem
	seen := map[string]bool{}
	for _, s := range sites {
		t := &linkTable{site: s}
		check := func(file string, body any) {
			m, ok := body.(Markdown)
			if !ok || m.b == nil || m.b.isHTML || m.b.isMDX || seen[s.Locale+"\x00"+file] {
				return
			}
			seen[s.Locale+"\x00"+file] = true
			out = append(out, t.problems(file, m.Source(), starts[file])...)
		}
		for _, p := range s.Pages {
			if !p.Meta.Draft && len(p.Sections) > 0 {
				check(p.Meta.Path, p.Sections[len(p.Sections)-1].Data["html"])
			}
		}
		for _, items := range s.Items {
			for _, it := range items {
				if !it.Meta.Draft {
					check(it.Meta.Path, it.Data["body"])
				}
			}
		}
	}
	sortRefProblems(out)
	return out
}

// problems are the refs of the body src of the file at self (whose body
// starts at line start) that name no document.
func (t *linkTable) problems(self, src string, start int) []Problem {
	if !strings.Contains(src, "ref") {
		return nil
	}
	tags, _ := scanTags(src)
	var out []Problem
	for _, tag := range tags {
		if tag.closing || tag.literal != "" || (tag.name != "ref" && tag.name != "relref") {
			continue
		}
		c := component{named: tag.named, args: tag.args}
		ref := strings.TrimSpace(c.arg("path", 0))
		target, _, _ := strings.Cut(ref, "#")
		if target == "" {
			continue
		}
		if _, ok := t.resolve(self, target); ok {
			continue
		}
		line := 0
		if start > 0 {
			line = start + strings.Count(src[:tag.start], "\n")
		}
		out = append(out, Problem{Path: self, Line: line, Message: fmt.Sprintf(
			"{{< %s %q >}} names no document of the site (Hugo fails its build: REF_NOT_FOUND); served as %s", tag.name, ref, hugoRefPath(ref))})
	}
	return out
}
