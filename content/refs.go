package content

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content/chunks"
)

// RefKind tells what a reference names.
type RefKind int

const (
	RefMedia RefKind = iota + 1 // a media item
	RefItem                     // an item of a content type
)

// Ref is a reference written in a front matter or data field: a string
// that names a media item ("media:<id>", or the item's "/uploads/<key>"
// path) or another item ("<type>/<slug>", when <type> is a content type of
// the site). The API replaces it by the object on ?expand=.
type Ref struct {
	Kind     RefKind
	MediaID  string // "media:<id>"
	MediaKey string // "/uploads/<key>": the storage key
	Type     string
	Slug     string
}

// ParseRef reads a reference; false when s is none. isType tells the
// content types of the site.
func ParseRef(s string, isType func(string) bool) (Ref, bool) {
	return RefReader{IsType: isType}.Parse(s)
}

// RefReader reads references as ParseRef does and, with MediaBases, also
// reads an absolute URL of the media library (its public URL base, as
// the admin UI shows it) as the media item of that storage key, as an
// "/uploads/<key>" path is read.
type RefReader struct {
	IsType func(string) bool
	// MediaBases are the absolute URLs (each ending in "/") a media
	// item's URL is its storage key appended to, path-escaped: the
	// --public-url form of local storage ("https://cms.example.com/uploads/")
	// or the S3 public URL with its prefix. Empty: none.
	MediaBases []string
}

// maxRefLen is the length of the longest string read as a reference.
const maxRefLen = 400

// Parse reads a reference; false when s is none.
func (rr RefReader) Parse(s string) (Ref, bool) {
	if len(s) > maxRefLen {
		return Ref{}, false
	}
	if id, ok := strings.CutPrefix(s, "media:"); ok {
		if id == "" || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return Ref{}, false
		}
		return Ref{Kind: RefMedia, MediaID: id}, true
	}
	if key, ok := strings.CutPrefix(s, "/uploads/"); ok {
		return mediaKeyRef(key)
	}
	if len(rr.MediaBases) > 0 && (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) {
		for _, base := range rr.MediaBases {
			if esc, ok := strings.CutPrefix(s, base); ok {
				if strings.ContainsAny(esc, "?#") {
					return Ref{}, false
				}
				key, err := url.PathUnescape(esc)
				if err != nil {
					return Ref{}, false
				}
				return mediaKeyRef(key)
			}
		}
		return Ref{}, false
	}
	typ, slug, ok := strings.Cut(s, "/")
	if !ok || !ValidType(typ) || !ValidSlug(slug) || rr.IsType == nil || !rr.IsType(typ) {
		return Ref{}, false
	}
	return Ref{Kind: RefItem, Type: typ, Slug: slug}, true
}

// mediaKeyRef is the reference to the media item of a storage key; false
// for a key no item can have.
func mediaKeyRef(key string) (Ref, bool) {
	if key == "" || strings.Contains(key, "..") || strings.ContainsAny(key, " ?#\\") {
		return Ref{}, false
	}
	return Ref{Kind: RefMedia, MediaKey: key}, true
}

// ReferenceProblems lists the references of published (non-draft) pages
// and items to items that are drafts or do not exist: a published view
// serves them as null when expanded. The line is that of the top-level
// key holding the reference, when the file's format tells it. files are
// the files site was assembled from. Media references are checked only
// when mediaExists is given (content knows nothing of media): one it
// reports false for is a reference to a missing media item.
func ReferenceProblems(site *Site, files []File, mediaExists func(Ref) bool) []Problem {
	return new(RefChecker).Problems(site, files, mediaExists)
}

// RefChecker is ReferenceProblems for the successive sites of one branch:
// it keeps the references it found in each page and item (by pointer:
// an Assembler keeps the pointers of the documents a commit did not
// change) and looks for them only in the new ones, so that a one-file
// push on a site of 100k files does not read every string of every
// document again. The references are checked afresh each time (the
// items they name may have changed). Not safe for concurrent use.
//
// When the documents changed are few (content.Assembler patched the site),
// only they and the documents that refer to an item that changed are
// checked; the other documents keep their problems of the last call.
type RefChecker struct {
	// MediaBases are the media library's absolute URL bases
	// (RefReader.MediaBases): URLs under them are media references.
	MediaBases []string
	// URLRefs are, per content type, the URL keys (URLKey) a content model
	// declares a reference (or a list of references): the model wins over
	// the URL-key rule, so their strings are read as references. nil: none.
	URLRefs map[string][]string

	types string // the content types (and media bases) the references were parsed for
	gen   uint64
	docs  map[any]*docRefs
	// refBy holds, for each item referred to ("type\x00slug"), the
	// published documents that refer to it.
	refBy map[string]map[any]bool
	// The last call's site and problems; nil when it checked media
	// references (they depend on more than the site).
	last     *Site
	problems []Problem
}

type docRefs struct {
	gen  uint64
	refs []foundRef
}

// foundRef is a reference and where it is: the top-level key, the
// LinePath keys of where it stands in the document (most precise first:
// a section's value may be under data or not), and the string as written.
type foundRef struct {
	key, s string
	at     []string
	ref    Ref
}

// Problems is ReferenceProblems(site, files, mediaExists).
func (c *RefChecker) Problems(site *Site, files []File, mediaExists func(Ref) bool) []Problem {
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(files, byPath) {
		files = slices.Clone(files)
		slices.SortStableFunc(files, byPath)
	}
	return c.ProblemsOf(site, chunks.Of(files), mediaExists)
}

// ProblemsOf is Problems of files in chunks, in path order (a Load's
// list): a check that only looks at the documents a push changed reads
// only theirs.
func (c *RefChecker) ProblemsOf(site *Site, files chunks.List[File], mediaExists func(Ref) bool) []Problem {
	run := &refRun{c: c, site: site, files: files, mediaExists: mediaExists, rr: c.reader(site)}
	c.gen++
	if c.last != nil && mediaExists == nil {
		if d, ok := diffDocs(c.last, site); ok {
			run.patch(d)
			sortRefProblems(run.out)
			c.last, c.problems = site, run.out
			return slices.Clone(run.out)
		}
	}
	run.all()
	sortRefProblems(run.out)
	c.last, c.problems = nil, nil
	if mediaExists == nil {
		c.last, c.problems = site, run.out
	}
	return slices.Clone(run.out)
}

// reader is the RefReader for the site's content types, and forgets every
// document's references when the types (or the media bases) changed:
// whether a string is a reference depends on them.
func (c *RefChecker) reader(site *Site) RefReader {
	typeNames := make([]string, 0, len(site.Items)+len(site.Config.Types))
	for t := range site.Items {
		typeNames = append(typeNames, t)
	}
	for t := range site.Config.Types {
		if _, ok := site.Items[t]; !ok {
			typeNames = append(typeNames, t)
		}
	}
	slices.Sort(typeNames)
	types := strings.Join(typeNames, "\x00") + "\x01" + strings.Join(c.MediaBases, "\x00") + "\x01" + urlRefsKey(c.URLRefs)
	if c.docs == nil || types != c.types {
		c.types, c.docs, c.refBy, c.last = types, map[any]*docRefs{}, map[string]map[any]bool{}, nil
	}
	return RefReader{IsType: func(t string) bool {
		_, ok := slices.BinarySearch(typeNames, t)
		return ok
	}, MediaBases: c.MediaBases}
}

// urlRefsKey is refs (RefChecker.URLRefs) as one string, to tell a change.
func urlRefsKey(refs map[string][]string) string {
	if len(refs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range slices.Sorted(maps.Keys(refs)) {
		b.WriteString(t + "\x00" + strings.Join(refs[t], "\x00") + "\x02")
	}
	return b.String()
}

// refRun is one call of RefChecker.Problems: the site it checks and the
// problems it found.
type refRun struct {
	c           *RefChecker
	site        *Site
	files       chunks.List[File]
	mediaExists func(Ref) bool
	rr          RefReader
	lines       map[string]map[string]int // made when a problem needs them
	out         []Problem
}

// all checks every published document.
func (r *refRun) all() {
	for _, p := range r.site.Pages {
		if !p.Meta.Draft {
			r.check(p.Meta.Path, r.pageRefs(p))
		}
	}
	for _, items := range r.site.Items {
		for _, it := range items {
			if !it.Meta.Draft {
				r.check(it.Meta.Path, r.itemRefs(it))
			}
		}
	}
	c := r.c
	for d, e := range c.docs {
		if e.gen != c.gen {
			c.forget(d, e.refs) // not in this site, or a draft now
		}
	}
}

// patch checks only the documents d added, and those referring to an
// item that came or went; the others keep their problems of the last call.
func (r *refRun) patch(d docDiff) {
	c := r.c
	redo := map[any]bool{}
	drop := map[string]bool{} // the paths whose problems go
	gone := func(doc any, path string) {
		drop[path] = true
		if e := c.docs[doc]; e != nil {
			c.forget(doc, e.refs)
		}
	}
	for _, p := range d.gonePages {
		gone(p, p.Meta.Path)
	}
	for _, it := range d.goneItems {
		gone(it, it.Meta.Path)
	}
	for _, list := range [][]*Item{d.goneItems, d.addedItems} {
		for _, it := range list {
			for doc := range c.refBy[it.Type+"\x00"+it.Slug] {
				redo[doc] = true
			}
		}
	}
	for _, p := range d.addedPages {
		redo[p] = true
	}
	for _, it := range d.addedItems {
		redo[it] = true
	}
	for doc := range redo {
		switch doc := doc.(type) {
		case *Page:
			drop[doc.Meta.Path] = true
			if !doc.Meta.Draft {
				r.check(doc.Meta.Path, r.pageRefs(doc))
			}
		case *Item:
			drop[doc.Meta.Path] = true
			if !doc.Meta.Draft {
				r.check(doc.Meta.Path, r.itemRefs(doc))
			}
		}
	}
	for _, p := range c.problems {
		if !drop[p.Path] {
			r.out = append(r.out, p)
		}
	}
}

// refsOf is the references of doc (a *Page or an *Item), found the first
// time the checker sees doc and remembered (with who refers to which
// item) after.
func (r *refRun) refsOf(doc any) []foundRef {
	c := r.c
	if e := c.docs[doc]; e != nil {
		e.gen = c.gen
		return e.refs
	}
	var urlRefs []string // the URL keys the model declares references
	if it, ok := doc.(*Item); ok {
		urlRefs = c.URLRefs[it.Type]
		if urlRefs == nil && it.refHint.refFree(r.rr) {
			return nil // nothing to read, nothing to remember
		}
	}
	sc := refScan{rr: r.rr}
	switch doc := doc.(type) {
	case *Page:
		for _, s := range doc.Sections {
			i := strconv.Itoa(s.Order)
			sc.add("sections", [][]string{{"sections", i, "data"}, {"sections", i}}, s.Data, nil)
		}
		sc.add("seo", [][]string{{"seo", "ogImage"}}, doc.SEO.OGImage, nil)
	case *Item:
		var buf [16]string
		keys := buf[:0]
		for k := range doc.Data {
			if k != "body" && (!URLKey(k) || slices.Contains(urlRefs, k)) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var key [1]string
		bases := [1][]string{key[:]}
		var sub [8]string
		for _, k := range keys {
			key[0] = k
			sc.add(k, bases[:], doc.Data[k], sub[:0])
		}
	}
	refs := sc.refs
	c.docs[doc] = &docRefs{gen: c.gen, refs: refs}
	for _, f := range refs {
		if f.ref.Kind == RefItem {
			k := f.ref.Type + "\x00" + f.ref.Slug
			if c.refBy[k] == nil {
				c.refBy[k] = map[any]bool{}
			}
			c.refBy[k][doc] = true
		}
	}
	return refs
}

func (r *refRun) pageRefs(p *Page) []foundRef { return r.refsOf(p) }

func (r *refRun) itemRefs(it *Item) []foundRef { return r.refsOf(it) }

// refScan reads the references of one document: every string under its
// top-level key key, whose LinePath keys are under bases.
type refScan struct {
	rr    RefReader
	key   string
	bases [][]string
	refs  []foundRef
}

// add reads v, the value of top-level key key, at bases; sub is an
// empty slice to build the paths below in.
func (sc *refScan) add(key string, bases [][]string, v any, sub []string) {
	sc.key, sc.bases = key, bases
	sc.walk(v, sub)
}

// walk calls Parse on every string in v (maps, lists, strings), sub
// being its path of keys and list indexes under the top-level key:
// without a closure per document and key, and in sub's room (a restart
// reads every string of every document of the site).
func (sc *refScan) walk(v any, sub []string) {
	switch v := v.(type) {
	case string:
		ref, ok := sc.rr.Parse(v)
		if !ok {
			return
		}
		at := make([]string, 0, len(sc.bases))
		for _, b := range sc.bases {
			at = append(at, LinePath(append(slices.Clip(b), sub...)))
		}
		sc.refs = append(sc.refs, foundRef{key: sc.key, s: v, at: at, ref: ref})
	case map[string]any:
		for k, c := range v {
			sc.walk(c, append(sub, k))
		}
	case []any:
		for i, c := range v {
			sc.walk(c, append(sub, strconv.Itoa(i)))
		}
	}
}

// check adds a problem for each of a document's references that names a
// missing or draft item, or (when media are checked) a missing media item.
func (r *refRun) check(path string, refs []foundRef) {
	for _, f := range refs {
		ref := f.ref
		if ref.Kind == RefMedia {
			if r.mediaExists != nil && !r.mediaExists(ref) {
				r.problem(path, f, fmt.Sprintf("reference to a missing media item %s (null when expanded)", f.s))
			}
			continue
		}
		items := r.site.Items[ref.Type] // sorted by slug, slugs unique
		i, found := slices.BinarySearchFunc(items, ref.Slug, func(it *Item, slug string) int { return strings.Compare(it.Slug, slug) })
		switch {
		case !found:
			r.problem(path, f, fmt.Sprintf("reference to a missing item %s (null when expanded)", f.s))
		case items[i].Meta.Draft:
			r.problem(path, f, fmt.Sprintf("reference to a draft item %s (null when expanded)", f.s))
		}
	}
}

// problem adds msg about reference f of the document at path, at the line
// of the reference (or of its top-level key).
func (r *refRun) problem(path string, f foundRef, msg string) {
	if r.lines == nil {
		r.lines = map[string]map[string]int{}
	}
	ls, ok := r.lines[path]
	if !ok {
		// the file of the document, looked up (a push's check has a
		// few problems, not one per file of the site)
		if i, found := r.files.Search(func(f *File) int { return strings.Compare(f.Path, path) }); found {
			if f := r.files.Ptr(i); f.Doc != nil {
				ls = f.Doc.KeyLines()
			}
		}
		r.lines[path] = ls
	}
	line := 0
	for _, at := range f.at {
		if line = ls[at]; line > 0 {
			break
		}
	}
	if line == 0 {
		line = ls[f.key]
	}
	r.out = append(r.out, Problem{Path: path, Line: line, Message: msg})
}

// forget drops what the checker knows of a document.
func (c *RefChecker) forget(doc any, refs []foundRef) {
	delete(c.docs, doc)
	for _, f := range refs {
		if f.ref.Kind == RefItem {
			k := f.ref.Type + "\x00" + f.ref.Slug
			delete(c.refBy[k], doc)
			if len(c.refBy[k]) == 0 {
				delete(c.refBy, k)
			}
		}
	}
}

func sortRefProblems(out []Problem) {
	slices.SortStableFunc(out, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Message, b.Message)
	})
}

// docDiff is what changed between two sites of a branch: the pages and
// items (pointers) of the old that the new lacks, and the new's that the
// old lacks.
type docDiff struct {
	gonePages, addedPages []*Page
	goneItems, addedItems []*Item
}

// maxDiffDocs is the number of changed documents up to which diffDocs
// reports them.
const maxDiffDocs = 64

// diffDocs compares two sites' pages and items, type by type (each sorted
// by slug, slugs unique); a list that is the same slice is not compared.
// ok is false when the types differ or more than maxDiffDocs documents
// changed.
func diffDocs(old, new *Site) (d docDiff, ok bool) {
	if len(old.Items) != len(new.Items) {
		return d, false
	}
	if !diffSorted(old.Pages, new.Pages, func(p *Page) string { return p.Slug }, &d.gonePages, &d.addedPages) {
		return d, false
	}
	for typ, items := range new.Items {
		was, ok := old.Items[typ]
		if !ok || !diffSorted(was, items, func(it *Item) string { return it.Slug }, &d.goneItems, &d.addedItems) {
			return d, false
		}
	}
	return d, len(d.gonePages)+len(d.addedPages)+len(d.goneItems)+len(d.addedItems) <= maxDiffDocs
}

// diffSorted adds to gone and added the elements of a and b (sorted by
// key, keys unique) that the other lacks; false past maxDiffDocs.
func diffSorted[T comparable](a, b []T, key func(T) string, gone, added *[]T) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true
	}
	// The same elements at either end are no change: no key is read (an
	// item's slug is a pointer away, for each of a type's 500k items).
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && key(a[i]) < key(b[j])):
			*gone = append(*gone, a[i])
			i++
		case i == len(a) || key(b[j]) < key(a[i]):
			*added = append(*added, b[j])
			j++
		default:
			if a[i] != b[j] {
				*gone = append(*gone, a[i])
				*added = append(*added, b[j])
			}
			i++
			j++
		}
		if len(*gone)+len(*added) > maxDiffDocs {
			return false
		}
	}
	return true
}
