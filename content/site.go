package content

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// Doc is the path-independent result of parsing one file: its front matter
// (or whole YAML/JSON document) and its Markdown body, rendered to HTML on
// first use (see Markdown).
// The engine caches Docs by Git blob hash, so a Doc must not depend on the
// file's path and must never be modified after Parse returns it.
type Doc struct {
	// fm is the front matter / document keys (frontmatter.go): read
	// them with Value, Fields, Len or Meta; NewDoc sets them.
	fm      atomic.Pointer[frontMatter]
	Body    Markdown // Markdown body; empty when none
	HasBody bool     // the file had a Markdown body
	Line    int      // line where the body starts (for problems)
	// Lines is the file line of each top-level key, when the format tells
	// (YAML documents and YAML front matter); nil otherwise. They also
	// have the line of every nested key and list entry, under LinePath of
	// its path. Read them with KeyLines: a Doc from the parse cache keeps
	// them encoded until a problem needs them (SetLazyLines).
	Lines map[string]int
	lazy  *lazyLines
	// refHint is what Parse found of the strings of Meta for the
	// reference checker (refhint.go); 0: not known.
	refHint RefHint
}

// lazyLines are a Doc's Lines kept encoded, decoded on first use:
// serving needs them only to place a problem, and a map per document
// held for that cost 4 MB at 10k documents. A cache encodes them its way
// (SetLazyLines); Parse packs its own (packLines: decode is nil).
type lazyLines struct {
	// enc is the encoded lines, n bytes long, kept as a pointer and a
	// length: 8 bytes less than a slice for every document (newLazyLines).
	enc    *byte
	n      int
	decode func([]byte) map[string]int
	// m is decode(enc) once made: two first uses at once may both make
	// it (a pure function of enc), and one is kept. An atomic pointer,
	// not a sync.Once and a map: 16 bytes less for every document.
	m atomic.Pointer[map[string]int]
}

// newLazyLines is the lines enc that decode decodes (nil: unpackLines).
func newLazyLines(enc []byte, decode func([]byte) map[string]int) *lazyLines {
	l := &lazyLines{}
	l.set(enc, decode)
	return l
}

// set makes l the lines enc that decode decodes.
func (l *lazyLines) set(enc []byte, decode func([]byte) map[string]int) {
	l.enc, l.n, l.decode = unsafe.SliceData(enc), len(enc), decode
}

// bytes is the encoded lines (their capacity their length).
func (l *lazyLines) bytes() []byte {
	if l.enc == nil {
		return nil
	}
	return unsafe.Slice(l.enc, l.n)
}

// SetLazyLines makes decode(enc) the Doc's Lines, decoded on the first
// KeyLines; only while the Doc is being made (it is shared after).
func (d *Doc) SetLazyLines(enc []byte, decode func([]byte) map[string]int) {
	d.Lines, d.lazy = nil, newLazyLines(enc, decode)
}

// LazyLines is what SetLazyLines was given; nil when it was not (Lines
// is the map, or Parse packed them: PackedLines).
func (d *Doc) LazyLines() []byte {
	if d == nil || d.Lines != nil || d.lazy == nil || d.lazy.decode == nil {
		return nil
	}
	return d.lazy.bytes()
}

// PackedLines are the lines of keys as Parse keeps them: their count,
// then each key (its length as a uvarint, its bytes) and its line (a
// signed varint), in no order; nil when the Doc holds them otherwise.
func (d *Doc) PackedLines() []byte {
	if d == nil || d.Lines != nil || d.lazy == nil || d.lazy.decode != nil {
		return nil
	}
	return d.lazy.bytes()
}

// packLines keeps the Lines Parse made packed (PackedLines), decoded on
// the first KeyLines: a first start holds every document it parsed,
// and the map of each was 260 bytes a document at 100k, a third of it
// the bytes the pack takes.
func (d *Doc) packLines() {
	if len(d.Lines) == 0 {
		return
	}
	n := uvarintLen(uint64(len(d.Lines))) // the exact size: one allocation, no slack
	for k, l := range d.Lines {
		n += uvarintLen(uint64(len(k))) + len(k) + uvarintLen(zigzag(int64(l)))
	}
	enc := binary.AppendUvarint(make([]byte, 0, n), uint64(len(d.Lines)))
	for k, l := range d.Lines {
		enc = binary.AppendUvarint(enc, uint64(len(k)))
		enc = append(enc, k...)
		enc = binary.AppendVarint(enc, int64(l))
	}
	d.Lines, d.lazy = nil, newLazyLines(enc, nil)
}

// uvarintLen is the length of x as binary.AppendUvarint writes it.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// zigzag is x as binary.AppendVarint writes it, unsigned.
func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

// unpackLines decodes PackedLines; nil when enc is not such.
func unpackLines(enc []byte) map[string]int {
	n, w := binary.Uvarint(enc)
	if w <= 0 || n > uint64(len(enc)) {
		return nil
	}
	enc = enc[w:]
	lines := make(map[string]int, n)
	for range n {
		kl, w := binary.Uvarint(enc)
		if w <= 0 || kl > uint64(len(enc)-w) {
			return nil
		}
		k := string(enc[w : w+int(kl)])
		enc = enc[w+int(kl):]
		l, w2 := binary.Varint(enc)
		if w2 <= 0 {
			return nil
		}
		enc = enc[w2:]
		lines[k] = int(l)
	}
	return lines
}

// KeyLines is Lines, decoded first when the Doc keeps them encoded.
func (d *Doc) KeyLines() map[string]int {
	if d == nil || d.Lines != nil || d.lazy == nil {
		if d == nil {
			return nil
		}
		return d.Lines
	}
	l := d.lazy
	if m := l.m.Load(); m != nil {
		return *m
	}
	var m map[string]int
	if l.decode != nil {
		m = l.decode(l.bytes())
	} else {
		m = unpackLines(l.bytes())
	}
	if !l.m.CompareAndSwap(nil, &m) {
		return *l.m.Load()
	}
	return m
}

// LinePath is the key of a nested value in Doc.Lines: its path of keys
// and list indexes, each after a "/" ("/types/posts/fields"). A
// top-level key is its own name.
func LinePath(path []string) string {
	if len(path) == 1 {
		return path[0]
	}
	n := 0
	for _, p := range path {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for _, p := range path {
		b = append(b, '/')
		b = append(b, p...)
	}
	return string(b)
}

// LineOf is the file line of the value at path, or of the nearest
// enclosing key whose line is known; 0 when none is.
func (d *Doc) LineOf(path ...string) int {
	lines := d.KeyLines()
	if lines == nil {
		return 0
	}
	for n := len(path); n > 0; n-- {
		if l, ok := lines[LinePath(path[:n])]; ok {
			return l
		}
	}
	return 0
}

// File is one file of a site tree handed to Assemble.
type File struct {
	Path string // slash-separated repository path, e.g. "content/posts/hello.md"
	Doc  *Doc   // nil when Err is set
	Err  error  // parse failure; a Problem when the position is known
	// Source is the repository path of the file when Path is not (a
	// locale's file as the locale's own site sees it: content/fr/posts/a.md
	// is content/posts/a.md of locale fr); "" when Path is.
	Source string
	// Updated is the time of the last commit that touched the file; it is
	// updatedAt when front matter has none, and publishedAt as a last resort.
	Updated time.Time
	// Blob is the file's Git blob hash; "" when not known (a file not
	// read from Git).
	Blob string
	// markup is the site's Markdown settings its body renders with (set
	// by the Assembler while reading it; markup.go)
	markup *Markup
	// links is the site its ref shortcodes resolve in (reflinks.go)
	links *siteLinks
}

// Site is one whole, assembled site: every page and item including drafts,
// scheduled and expired ones. Views filter it.
type Site struct {
	Pages   []*Page            // sorted by slug
	Items   map[string][]*Item // by type slug, each sorted by slug
	Globals *Globals           // nil when the site has no globals file
	Config  Config
	// ModelFiles are the documents the content model may be declared in
	// (see ModelFile), and folio.yaml and the globals file, by path.
	ModelFiles map[string]*Doc
	// ConfigPath and GlobalsPath are the paths of folio.yaml and of the
	// globals file; "" when the site has none.
	ConfigPath, GlobalsPath string
	// Resources are the repository paths, sorted, of the files of Hugo
	// leaf bundles that are resources of their bundle's page, not
	// documents (content/posts/b/notes.md beside b/index.md); in a site
	// with locales, each locale's site has its own.
	Resources []string

	// I18n is the site's locales; nil for a site without. In a site with
	// locales, the Site is the default locale's and Locales holds every
	// locale's site by code (the default one being this one); each
	// locale's site has its pages, items and globals (merged key by key
	// over the default's) in that locale only, each document saying its
	// Locale and Translations.
	I18n    *I18n
	Locale  string
	Locales map[string]*Site
	// Localize is, with the fields layout, the document a file's doc is
	// in locale loc, as the site read it (false: the document is not in
	// loc); nil for other sites. It may be called until the next Assemble
	// of the Assembler that made the site, from one goroutine.
	Localize func(doc *Doc, loc string) (*Doc, bool)

	zola bool // a Zola site: its leaf bundles' Markdown files are pages (bundle.go)
}

// Resource tells whether the file at the repository path p is a
// resource of a leaf bundle (Resources), no document.
func (s *Site) Resource(p string) bool {
	_, ok := slices.BinarySearch(s.Resources, p)
	return ok
}

// RealPath is the file's repository path.
func (f File) RealPath() string {
	if f.Source != "" {
		return f.Source
	}
	return f.Path
}
