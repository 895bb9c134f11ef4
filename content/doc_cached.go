package content

// A restart decodes every document of the parse cache (a million at a
// million files) and keeps them: the collector marks each of their
// objects in every collection of the start, and a collection of a heap
// of millions of small objects is what a restart at that size spends
// most of its CPU on. A Doc read from the cache is made in one
// allocation with its lazy body and its encoded lines of keys
// (NewCachedDoc), and the body's reader is a type the caller keeps in
// memory of its own (BodySource), not a closure made for each body.

// BodySource reads the source of a lazy body (NewCachedDoc): it must
// return the same text every time, text that passed Parse's checks.
type BodySource interface {
	BodySource() (string, error)
}

// BodyFunc is a func as a BodySource.
type BodyFunc func() (string, error)

// BodySource calls f.
func (f BodyFunc) BodySource() (string, error) { return f() }

// bodyFunc is load as a BodySource; nil when load is nil.
func bodyFunc(load func() (string, error)) BodySource {
	if load == nil {
		return nil
	}
	return BodyFunc(load)
}

// cachedDoc is a Doc read from a parse cache, its lazy body and its
// lines of keys, made in one allocation.
type cachedDoc struct {
	doc   Doc
	body  markdownBody
	lines lazyLines
}

// CachedDoc is what NewCachedDoc makes a Doc of.
type CachedDoc struct {
	// Fields are the front matter's keys (nil: none), as NewDocFields.
	Fields []MetaField
	// Ext is the extension of the file, which chooses the body's kind
	// (LazyBodyOf); Body reads its source (nil: no lazy body).
	Ext  string
	Body BodySource
	// HasBody, Line and RefHint are the Doc's.
	HasBody bool
	Line    int
	RefHint RefHint
	// Lines and Decode are SetLazyLines's (Lines nil: none).
	Lines  []byte
	Decode func([]byte) map[string]int
}

// NewCachedDoc is the Doc c describes: NewDocFields(c.Fields) with the
// lazy body LazyBodyOf(c.Ext, …) of c.Body and SetLazyLines(c.Lines,
// c.Decode), the Doc, its body and its lines made as one object.
func NewCachedDoc(c CachedDoc) *Doc {
	cd := &cachedDoc{}
	d := &cd.doc
	if c.Fields != nil {
		d.fm.Store(frontMatterOut(c.Fields))
	}
	if c.Body != nil {
		cd.body = markdownBody{load: c.Body, isHTML: IsHTMLExt(c.Ext), isMDX: !IsHTMLExt(c.Ext) && IsMDXExt(c.Ext)}
		d.Body = Markdown{b: &cd.body}
	}
	d.HasBody, d.Line, d.refHint = c.HasBody, c.Line, c.RefHint
	if c.Lines != nil {
		cd.lines.set(c.Lines, c.Decode)
		d.lazy = &cd.lines
	}
	return d
}
