package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// Content search: one bleve index per branch over the titles and text of
// every page and item of the branch's snapshot, drafts and scheduled ones
// included, each with its kind, type and visibility (draft; live; or
// timed, with its publish and expiry instants), so that a published
// search filters inside the index (and its total counts only what the
// published view shows). This file is the search; contentsearch_index.go
// keeps the index in step, contentsearch_doc.go makes the documents and
// the snippets.
//
// The index follows the snapshots: a swap only records the new snapshot
// and wakes the index's goroutine, which re-indexes the documents whose
// pointer changed (content.Assembler keeps the pointer of every document
// a commit did not touch) and deletes the ones that are gone. A push is
// therefore served before it is indexed; a search waits (at most
// searchCatchUp) for the index to reach the snapshot served when it
// started, and every hit is checked against the current view, so a
// lagging index never shows a draft, a removed document or an old
// version's title.
//
// In-memory scorch never merges segments, and every push adds one; after
// compactAfter pushes, and when folio.yaml's language changes, the index
// is rebuilt from a snapshot in the background and brought up to date
// before it is swapped in, while searches go on against the old one.

// Field names of the content index.
const (
	csTitle = "title"
	csText  = "text"
	csKind  = "kind"
	csType  = "type"
	csVis   = "vis" // visDraft, visLive or visTimed
	csPub   = "pub" // publish instant of a timed document, Unix milliseconds
	csExp   = "exp" // expiry instant of a timed document, Unix ms; neverMS when none
)

// Kinds of search hits.
const (
	KindPage = "page"
	KindItem = "item"
)

// neverMS stands for "never expires" in the exp field.
const neverMS = float64(253402300799000) // 9999-12-31

// searchCatchUp is how long a search waits for the index to reach the
// snapshot served when the search started (a push is indexed in
// milliseconds; a rebuild of a big site takes longer, and then the search
// answers from the index as it is, filtered by the current view).
const searchCatchUp = time.Second

// searchFirstBuild is how long a search waits for the first build of an
// index (at start-up, or the first draft search with a draft branch).
const searchFirstBuild = 30 * time.Second

// MaxSearchTerms bounds the words of one search.
const MaxSearchTerms = 32

// ErrSearchBusy is returned when the index is still being built after
// searchFirstBuild.
var ErrSearchBusy error = &fault.Error{Code: fault.SearchBuilding, Message: "the search index is still being built; try again shortly"}

// SearchQuery is one content search.
type SearchQuery struct {
	// Text is the words; every one must match (stemmed per the site's
	// language). The last one also matches the words it begins, unless
	// Text ends with a space or punctuation (it is being typed).
	Text string
	// Type keeps the items of one content type ("" = pages and items).
	Type string
	// PublicOnly keeps the items of the types folio.yaml marks public.
	PublicOnly bool
	// Locale searches the documents of one locale of a site with locales
	// (with that locale's analyzer); "" : the default locale's.
	Locale string
	// Draft searches the draft view (the draft branch when configured).
	Draft         bool
	Limit, Offset int
}

// SearchHit is one result, best first.
type SearchHit struct {
	Kind    string  `json:"kind"`           // KindPage or KindItem
	Type    string  `json:"type,omitempty"` // the item's content type; "" for a page
	ID      string  `json:"id"`
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"` // HTML: escaped text, matches in <mark>
}

// SearchStatus tells which commit the search index holds: Commit is ""
// while the first build runs, and CaughtUp is false while the index
// follows a push (or a rebuild runs).
type SearchStatus struct {
	Commit   string `json:"commit"`
	CaughtUp bool   `json:"caughtUp"`
}

// SearchResult is a page of hits and the number of hits in all.
type SearchResult struct {
	Hits  []SearchHit
	Total int
}

// Snapshot is one commit of a branch as the content index reads it: the
// engine makes one per snapshot it loads, and the index tells them apart
// by identity (pointer) and orders them by Seq.
type Snapshot struct {
	Seq    uint64 // later snapshots of an engine have higher ones
	Commit string
	Site   *content.Site
	// RefFields, when set, are the top-level fields of a content type
	// that its content model declares references: their values are not
	// indexed (nor any other reference value).
	RefFields func(typ string) map[string][]string
}

// View is what one reader sees of a snapshot: Shows tells whether it
// serves that very document (a *content.Page or *content.Item of the
// snapshot, same pointer), so a version it no longer serves, a draft, or
// a document scheduled for later never makes a hit.
type View interface {
	Shows(doc any) bool
}

// Search runs q against the index and keeps the hits that view shows,
// as they are in snap.
func (ci *ContentIndex) Search(ctx context.Context, q SearchQuery, snap *Snapshot, view View, now time.Time) (SearchResult, error) {
	ci.Start()
	limit := searchCatchUp
	ci.mu.Lock()
	first := ci.applied == nil
	ci.mu.Unlock()
	if first {
		limit = searchFirstBuild
	}
	if !ci.wait(ctx, snap, limit) {
		if err := ctx.Err(); err != nil {
			return SearchResult{}, err
		}
		return SearchResult{}, ErrSearchBusy
	}
	ci.idxMu.RLock()
	defer ci.idxMu.RUnlock()
	if ci.idx == nil {
		return SearchResult{}, ErrSearchBusy
	}
	words, prefix, err := queryTerms(ci.idx, ci.lang, q.Text)
	if err != nil {
		return SearchResult{}, err
	}
	if len(words) == 0 || q.Limit <= 0 {
		return SearchResult{Hits: []SearchHit{}}, nil
	}
	must := make([]query.Query, 0, len(words)+4)
	for i, w := range words {
		t := bleve.NewTermQuery(w)
		t.SetField(csText)
		ti := bleve.NewTermQuery(w)
		ti.SetField(csTitle)
		ti.SetBoost(3) // a word of the title counts thrice
		either := []query.Query{t, ti}
		if prefix != "" && i == len(words)-1 {
			// The word being typed: a word it begins also matches
			// ("campgr" finds "campground" as the user types).
			p := bleve.NewPrefixQuery(prefix)
			p.SetField(csText)
			pi := bleve.NewPrefixQuery(prefix)
			pi.SetField(csTitle)
			pi.SetBoost(3)
			either = append(either, p, pi)
		}
		must = append(must, bleve.NewDisjunctionQuery(either...))
	}
	// The filters add the same score to every hit: the order is the words'.
	switch {
	case q.Type != "":
		must = append(must, termQuery(csKind, KindItem), termQuery(csType, q.Type))
	case q.PublicOnly:
		var types []query.Query
		for _, name := range sortedKeys(snap.Site.Config.Types) {
			if snap.Site.Config.Types[name].Public {
				types = append(types, termQuery(csType, name))
			}
		}
		if len(types) == 0 {
			return SearchResult{Hits: []SearchHit{}}, nil
		}
		must = append(must, termQuery(csKind, KindItem), bleve.NewDisjunctionQuery(types...))
	}
	if !q.Draft {
		ms := float64(now.UnixMilli())
		incl, excl := true, false
		pub := bleve.NewNumericRangeInclusiveQuery(nil, &ms, nil, &incl)
		pub.SetField(csPub)
		exp := bleve.NewNumericRangeInclusiveQuery(&ms, nil, &excl, nil)
		exp.SetField(csExp)
		must = append(must, bleve.NewDisjunctionQuery(termQuery(csVis, visLive),
			bleve.NewConjunctionQuery(termQuery(csVis, visTimed), pub, exp)))
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(must...), q.Limit, q.Offset, false)
	res, err := ci.idx.SearchInContext(ctx, req)
	if err != nil {
		return SearchResult{}, err
	}
	an := ci.idx.Mapping().AnalyzerNamed(analyzerFor(ci.lang))
	refs := newRefSkipper(snap)
	out := SearchResult{Hits: make([]SearchHit, 0, len(res.Hits)), Total: int(res.Total)}
	for _, h := range res.Hits {
		d := ci.docs[h.ID]
		hit, ok := hitOf(d)
		if !ok || !view.Shows(d) {
			// Indexed, but not what the view shows (the index lags a
			// push, or a scheduled instant just passed).
			out.Total--
			continue
		}
		hit.Score = h.Score
		hit.Snippet = snippetOf(d, an, matchTerms{words, prefix}, refs)
		out.Hits = append(out.Hits, hit)
	}
	out.Total = max(out.Total, q.Offset+len(out.Hits))
	return out, nil
}

func termQuery(field, term string) query.Query {
	t := bleve.NewTermQuery(term)
	t.SetField(field)
	return t
}

// minPrefix is the fewest letters of a last word that match as a prefix.
const minPrefix = 3

// queryTerms analyses text as the index's text is analysed (lower-cased,
// stop words dropped, stemmed per the language), without repeats. prefix
// is the last word as typed, lower-cased, when it may be the start of a
// longer word: text does not end after it (a space, a punctuation mark),
// it is a word of letters or digits (not a CJK bigram) of at least
// minPrefix letters, and it is the last of words.
func queryTerms(idx bleve.Index, lang, text string) (words []string, prefix string, err error) {
	an := idx.Mapping().AnalyzerNamed(analyzerFor(lang))
	if an == nil {
		return nil, "", fmt.Errorf("no analyzer for language %q", lang)
	}
	var last *analysis.Token
	for _, tok := range an.Analyze([]byte(text)) {
		if tok.Type == analysis.Shingle {
			continue
		}
		w := string(tok.Term)
		if !slices.Contains(words, w) {
			words = append(words, w)
			last = tok
			if len(words) == MaxSearchTerms {
				break
			}
		} else {
			last = nil
		}
	}
	if last != nil && last.End == len(text) && last.Type == analysis.AlphaNumeric && last.Start < last.End {
		p := strings.ToLower(text[last.Start:last.End])
		if utf8.RuneCountInString(p) >= minPrefix {
			prefix = p
		}
	}
	return words, prefix, nil
}

// hitOf describes d, a document of the index.
func hitOf(d any) (SearchHit, bool) {
	switch d := d.(type) {
	case *content.Page:
		return SearchHit{Kind: KindPage, ID: d.ID, Slug: d.Slug, Title: d.Title}, true
	case *content.Item:
		return SearchHit{Kind: KindItem, Type: d.Type, ID: d.ID, Slug: d.Slug, Title: d.Title}, true
	}
	return SearchHit{}, false
}
