package search

import (
	"html"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search"
	htmlfmt "github.com/blevesearch/bleve/v2/search/highlight/format/html"
	simplefrag "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simplehl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"

	"github.com/folio-cms/folio/content"
)

func pageDocID(p *content.Page) string  { return "p\x00" + p.ID }
func itemDocID(it *content.Item) string { return "i\x00" + it.Type + "\x00" + it.ID }

// Values of the vis field: whether a published view shows a document.
// A document that is not a draft, was published when it was indexed and
// never expires is shown from then on ("live"); one published later or
// expiring ("timed") also has its instants indexed, compared with the
// time of each search. Only the few timed documents have terms in the
// pub and exp fields, so the range queries on them cost little.
const (
	visDraft = "draft"
	visLive  = "live"
	visTimed = "timed"
)

// searchDocOf is what the index holds of a page or an item, at instant
// now.
func searchDocOf(d any, now time.Time, refs *refSkipper) map[string]any {
	doc := searchDocIn(nil, d, now, refs)
	doc[csText] = string(doc[csText].([]byte))
	return doc
}

// searchDocIn is searchDocOf with the text (a []byte) appended to buf: a
// build reuses the buffers of the texts it indexed.
func searchDocIn(buf []byte, d any, now time.Time, refs *refSkipper) map[string]any {
	title, text, kind, typ, m, pub := appendDocText(buf, d, 0, refs)
	doc := map[string]any{csTitle: title, csText: text, csKind: kind, csType: typ}
	switch {
	case m.Draft:
		doc[csVis] = visDraft
	case !pub.After(now) && m.ExpiresAt.IsZero():
		doc[csVis] = visLive
	default:
		doc[csVis] = visTimed
		doc[csPub] = float64(pub.UnixMilli())
		exp := neverMS
		if !m.ExpiresAt.IsZero() {
			exp = float64(m.ExpiresAt.UnixMilli())
		}
		doc[csExp] = exp
	}
	return doc
}

// docText is the title and text of a page or an item (limit, when not 0:
// about the first limit bytes of the text), what kind it is, its type,
// meta and publish instant. The reference values refs tells are left out.
func docText(d any, limit int, refs *refSkipper) (title, text, kind, typ string, m content.Meta, pub time.Time) {
	title, b, kind, typ, m, pub := appendDocText(nil, d, limit, refs)
	return title, string(b), kind, typ, m, pub
}

// appendDocText is docText with the text appended to buf.
func appendDocText(buf []byte, d any, limit int, refs *refSkipper) (title string, text []byte, kind, typ string, m content.Meta, pub time.Time) {
	tb := textBuilder{buf: buf, limit: limit, refs: refs}
	switch d := d.(type) {
	case *content.Page:
		title, kind, m, pub = d.Title, KindPage, d.Meta, d.PublishedAt
		tb.add(d.SEO.Description)
		for _, sec := range d.Sections {
			tb.walk(sec.Data)
		}
	case *content.Item:
		title, kind, typ, m, pub = d.Title, KindItem, d.Type, d.Meta, d.PublishedAt
		// The body first: a snippet is cut from the start when the words
		// are only in the title.
		if b, ok := d.Data["body"]; ok {
			tb.walk(b)
		}
		refFields := refs.fields(d.Type)
		for _, k := range sortedKeys(d.Data) {
			if k == "body" {
				continue
			}
			if _, ok := refFields[k]; ok {
				continue // a reference (or list of them), by bare slug or not
			}
			tb.walk(d.Data[k])
		}
	}
	return title, tb.buf, kind, typ, m, pub
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// textBuilder gathers the text of a document's string values.
type textBuilder struct {
	buf []byte
	// limit, when not 0, stops the text at about that many bytes.
	limit int
	refs  *refSkipper
}

// refSkipper tells the values that are references: they name another
// document or a media item ("media:<id>", "<type>/<slug>"), and are no
// words of the document (a search snippet showed them to visitors).
// /uploads/ paths and URLs are left out as every path and link is.
type refSkipper struct {
	rr content.RefReader
	// refFields are, by content type, the top-level fields the content
	// model declares references (their values may be bare slugs).
	refFields func(typ string) map[string][]string
}

// newRefSkipper reads the references of the snapshot's site.
func newRefSkipper(s *Snapshot) *refSkipper {
	types := map[string]bool{}
	for t := range s.Site.Items {
		types[t] = true
	}
	for t := range s.Site.Config.Types {
		types[t] = true
	}
	return &refSkipper{rr: content.RefReader{IsType: func(t string) bool { return types[t] }}, refFields: s.RefFields}
}

func (r *refSkipper) isRef(v string) bool {
	if r == nil {
		return false
	}
	_, ok := r.rr.Parse(v)
	return ok
}

func (r *refSkipper) fields(typ string) map[string][]string {
	if r == nil || r.refFields == nil {
		return nil
	}
	return r.refFields(typ)
}

func (tb *textBuilder) full() bool { return tb.limit > 0 && len(tb.buf) >= tb.limit }

func (tb *textBuilder) add(s string) {
	if tb.full() {
		return
	}
	if tb.limit > 0 && len(s) > 2*tb.limit {
		// Markup makes the text shorter than its source; twice the
		// room left is plenty. Cut at a line end, so that no construct
		// is cut in two, when there is one.
		cut := 2 * tb.limit
		if i := strings.LastIndexByte(s[:cut], '\n'); i > tb.limit {
			cut = i
		}
		s = s[:cut]
	}
	mark := len(tb.buf)
	if mark > 0 {
		tb.buf = append(tb.buf, " \u2026 "...) // fields apart: a phrase never spans two
	}
	from := len(tb.buf)
	if tb.buf = content.AppendPlainText(tb.buf, s); len(tb.buf) == from {
		tb.buf = tb.buf[:mark] // no text: no separator either
	}
}

// walk adds the strings of a front matter value: Markdown bodies and
// strings, in maps (by key) and lists, but not the strings that are a
// link or a path (no spaces, a scheme or a leading '/').
func (tb *textBuilder) walk(v any) {
	switch v := v.(type) {
	case content.Markdown:
		if v.IsHTML() {
			tb.add(v.HTML()) // sanitized: no script or style text
		} else {
			tb.add(v.Source())
		}
	case string:
		if !strings.ContainsAny(v, " \t\n") && (strings.HasPrefix(v, "/") || strings.Contains(v, "://") || tb.refs.isRef(v)) {
			return
		}
		tb.add(v)
	case map[string]any:
		for _, k := range sortedKeys(v) {
			tb.walk(v[k])
		}
	case []any:
		for _, e := range v {
			tb.walk(e)
		}
	}
}

// snippetLen is the length of a snippet.
const snippetLen = 200

// snippetChunk is how much of a document's text is analysed at a time
// while looking for the first match.
const snippetChunk = 512

// snippetHighlighter cuts fragments of about snippetLen bytes around
// matches and marks them: bleve's simple highlighter, as its "html" style.
var snippetHighlighter = simplehl.NewHighlighter(simplefrag.NewFragmenter(snippetLen),
	htmlfmt.NewFragmentFormatter("<mark>", "</mark>"), "\u2026")

// matchTerms are the analysed words of a search, and the last word as
// typed when a word it begins matches too (queryTerms).
type matchTerms struct {
	words  []string
	prefix string
}

func (m matchTerms) match(term string) bool {
	return slices.Contains(m.words, term) || (m.prefix != "" && strings.HasPrefix(term, m.prefix))
}

// probes are the texts whose first bytes a matching word begins with.
func (m matchTerms) probes() []string {
	if m.prefix == "" {
		return m.words
	}
	return append(slices.Clip(m.words), m.prefix)
}

// snippetOf is the best fragment of the first part of d's text that holds
// one of words (the analysed search words), with the matches marked;
// else the title's; else the text's start. Only the hits of a page are
// given one, so the text is analysed here rather than stored in the
// index with the positions of every word.
func snippetOf(d any, an analysis.Analyzer, words matchTerms, refs *refSkipper) string {
	// The start of the text first: common words are found there, and
	// the rest of a long body is then never read.
	_, text, _, _, _, _ := docText(d, 2*snippetChunk, refs)
	if f, ok := firstFragment(text, an, words); ok {
		return f
	}
	title, text, _, _, _, _ := docText(d, 0, refs)
	if f, ok := firstFragment(text, an, words); ok {
		return f
	}
	if f, ok := highlight(title, an, words); ok {
		return f
	}
	s := text
	if s == "" {
		s = title
	}
	if len(s) > snippetLen {
		i := snippetLen
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "\u2026"
	}
	return html.EscapeString(s)
}

// firstFragment is the best fragment around the first match in text.
// Analysing a whole body for every hit would cost more than the search,
// so it analyses only the chunks around the places where the lower-cased
// text holds the first bytes of a search word (a stem keeps a word's
// start in the languages that stem; where it does not, the snippet
// falls back to the title or the text's start).
func firstFragment(text string, an analysis.Analyzer, words matchTerms) (string, bool) {
	if text == "" {
		return "", false
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		lower = "" // a case change resized some letter: offsets differ
	}
	next := 0
	for tries := 0; tries < 8 && next < len(text); tries++ {
		at := len(text)
		if lower == "" {
			at = next // no probe: analyse chunk after chunk
		} else {
			for _, w := range words.probes() {
				probe := w[:min(len(w), 3)]
				if i := strings.Index(lower[next:], probe); i >= 0 && next+i < at {
					at = next + i
				}
			}
			if at == len(text) {
				return "", false
			}
		}
		from := max(0, at-snippetChunk/4)
		if i := strings.LastIndexByte(text[:from], ' '); i >= 0 && from > 0 {
			from = i + 1
		} else {
			from = 0
		}
		to := min(len(text), from+snippetChunk)
		if to < len(text) {
			if i := strings.LastIndexByte(text[at:to], ' '); i > 0 {
				to = at + i
			}
		}
		if f, ok := highlight(text[from:to], an, words); ok {
			return f, true
		}
		next = max(to, at+1)
	}
	return "", false
}

// highlight marks the words in text and returns the best fragment; false
// when none is there.
func highlight(text string, an analysis.Analyzer, words matchTerms) (string, bool) {
	tlm := search.TermLocationMap{}
	for _, tok := range an.Analyze([]byte(text)) {
		if tok.Type == analysis.Shingle || !words.match(string(tok.Term)) {
			continue
		}
		tlm[string(tok.Term)] = append(tlm[string(tok.Term)], &search.Location{
			Pos: uint64(tok.Position), Start: uint64(tok.Start), End: uint64(tok.End)})
	}
	if len(tlm) == 0 {
		return "", false
	}
	dm := &search.DocumentMatch{Locations: search.FieldTermLocationMap{csText: tlm}}
	doc := document.NewDocument("")
	doc.AddField(document.NewTextField(csText, nil, []byte(text)))
	frags := snippetHighlighter.BestFragmentsInField(dm, doc, csText, 1)
	if len(frags) == 0 {
		return "", false
	}
	return frags[0], true
}
