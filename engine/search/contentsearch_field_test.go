package search

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/folio-cms/folio/content"
)

// TestDocMakerIndexesAsMapping: a build (indexDocs, with docMaker's
// documents and pooled tokens) indexes a corpus exactly as bleve's
// mapping does the maps of searchDocOf: in every field, the same words in
// as many documents, and every word, visibility and instant finds the
// same documents with the same scores; in every analyzer (standard, en
// with its stemmer and stop words, de, cjk's bigrams).
func TestDocMakerIndexesAsMapping(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 3))
	words := []string{"glacier", "Canyon", "trail's", "the", "and", "running", "runs", "e.g.", "3.14", "1,000",
		"v2", "foo_bar", "naïve", "café", "über", "straße", "中文", "カタカナ", "“quoted”", "don’t", "a:b",
		"x-ray", "summit", "tents", "Häuser", "über-all", "2026", "TENT"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", " ", ", ", ". ", "\n", "!", "—", "/"}[rng.IntN(8)])
		}
		return b.String()
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	changed := map[string]any{}
	for i := range 1500 {
		m := content.Meta{Draft: i%7 == 0}
		pub := now.Add(-time.Hour)
		switch i % 5 {
		case 1:
			pub = now.Add(time.Duration(i) * time.Hour) // later
		case 2:
			m.ExpiresAt = now.Add(time.Duration(i) * time.Minute)
		}
		if i%4 == 0 {
			p := &content.Page{ID: fmt.Sprint("p", i), Title: text(rng.IntN(5)), Meta: m, PublishedAt: pub}
			p.SEO.Description = text(rng.IntN(40))
			changed[pageDocID(p)] = p
			continue
		}
		// Long bodies: an analysis takes several chunks of an arena,
		// and reuses the arenas of longer and shorter texts.
		it := &content.Item{ID: fmt.Sprint(i), Type: []string{"note", "post"}[i%2], Title: text(1 + rng.IntN(4)),
			Meta: m, PublishedAt: pub, Data: map[string]any{"body": text(rng.IntN(900)), "summary": text(3)}}
		changed[itemDocID(it)] = it
	}
	for _, lang := range []string{"", "en", "de", "ja"} {
		im, err := newContentMapping(lang)
		if err != nil {
			t.Fatal(err)
		}
		mapped, err := newScorchIndex(im)
		if err != nil {
			t.Fatal(err)
		}
		b := mapped.NewBatch()
		for id, d := range changed {
			if err := b.Index(id, searchDocOf(d, now, nil)); err != nil {
				t.Fatal(err)
			}
		}
		if err := mapped.Batch(b); err != nil {
			t.Fatal(err)
		}
		built, err := newContentIndexFor(lang)
		if err != nil {
			t.Fatal(err)
		}
		if err := indexDocs(built, changed, nil, now, nil, make(chan struct{})); err != nil {
			t.Fatal(err)
		}
		hits := func(idx bleve.Index, q query.Query) map[string]float64 {
			res, err := idx.Search(bleve.NewSearchRequestOptions(q, 2000, 0, false))
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]float64{}
			for _, h := range res.Hits {
				m[h.ID] = h.Score
			}
			return m
		}
		for _, field := range []string{csTitle, csText, csKind, csType, csVis} {
			dict := func(idx bleve.Index) map[string]uint64 {
				d, err := idx.FieldDict(field)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				m := map[string]uint64{}
				for e, err := d.Next(); e != nil && err == nil; e, err = d.Next() {
					m[e.Term] = e.Count
				}
				return m
			}
			got, want := dict(built), dict(mapped)
			if len(got) == 0 || !maps.Equal(got, want) {
				t.Fatalf("%q %s: words %v, the mapping's %v", lang, field, got, want)
			}
			for term := range want {
				q := bleve.NewTermQuery(term)
				q.SetField(field)
				if g, w := hits(built, q), hits(mapped, q); len(g) == 0 || !maps.Equal(g, w) {
					t.Fatalf("%q %s %q: hits %v, the mapping's %v", lang, field, term, g, w)
				}
			}
		}
		for _, field := range []string{csPub, csExp} {
			at := float64(now.Add(100 * time.Hour).UnixMilli())
			q := bleve.NewNumericRangeQuery(nil, &at)
			q.SetField(field)
			if g, w := hits(built, q), hits(mapped, q); len(g) == 0 || !maps.Equal(g, w) {
				t.Fatalf("%q %s before %v: hits %v, the mapping's %v", lang, field, at, g, w)
			}
		}
		if g, w := hits(built, bleve.NewMatchAllQuery()), hits(mapped, bleve.NewMatchAllQuery()); len(g) != len(changed) || !maps.Equal(g, w) {
			t.Fatalf("%q: %d documents, the mapping's %d", lang, len(g), len(w))
		}
		mapped.Close()
		built.Close()
	}
}
