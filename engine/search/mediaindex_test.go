package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/folio-cms/folio/media"
)

// bleveMediaRef is the media search as it was built on bleve (a scorch
// index of the same documents, queried as the old MediaSearch.find did):
// the reference the in-memory index must rank like.
type bleveMediaRef struct {
	idx bleve.Index
}

func newBleveMediaRef(tb testing.TB, items []*media.Item) *bleveMediaRef {
	tb.Helper()
	im, err := newMediaMapping()
	if err != nil {
		tb.Fatal(err)
	}
	idx, err := newScorchIndex(im)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	b := idx.NewBatch()
	for _, it := range items {
		if err := b.Index(it.ID, docOf(it)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		tb.Fatal(err)
	}
	return &bleveMediaRef{idx: idx}
}

// wordQuery is the old one: every indexed word t starts, the exact one
// boosted; past maxPrefixTerms, the exact word or a prefix query.
func (r *bleveMediaRef) wordQuery(t string) (query.Query, error) {
	d, err := r.idx.FieldDictPrefix("text", []byte(t))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var qs []query.Query
	for {
		e, err := d.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if len(qs) == maxPrefixTerms {
			exact := bleve.NewTermQuery(t)
			exact.SetField("text")
			exact.SetBoost(exactBoost)
			prefix := bleve.NewPrefixQuery(t)
			prefix.SetField("text")
			return bleve.NewDisjunctionQuery(exact, prefix), nil
		}
		tq := bleve.NewTermQuery(e.Term)
		tq.SetField("text")
		if e.Term == t {
			tq.SetBoost(exactBoost)
		}
		qs = append(qs, tq)
	}
	switch len(qs) {
	case 0:
		return nil, nil
	case 1:
		return qs[0], nil
	}
	return bleve.NewDisjunctionQuery(qs...), nil
}

// ranking returns every hit of q by the old order (best first, or worst
// first with reverse), with its score.
func (r *bleveMediaRef) ranking(tb testing.TB, q MediaQuery) (ids []string, scores map[string]float64) {
	tb.Helper()
	terms := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	scores = map[string]float64{}
	var parts []query.Query
	for _, t := range terms {
		p, err := r.wordQuery(t)
		if err != nil {
			tb.Fatal(err)
		}
		if p == nil {
			return nil, scores
		}
		parts = append(parts, p)
	}
	if q.Folder != "" {
		f := bleve.NewTermQuery(q.Folder)
		f.SetField("folder")
		parts = append(parts, f)
	}
	if q.Type != "" {
		k := bleve.NewTermQuery(q.Type)
		k.SetField("kind")
		parts = append(parts, k)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(parts...), 1<<20, 0, false)
	if q.Reverse {
		req.SortBy([]string{"_score"})
	}
	res, err := r.idx.Search(req)
	if err != nil {
		tb.Fatal(err)
	}
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
		scores[h.ID] = h.Score
	}
	return ids, scores
}

// refLibrary makes n items whose words share prefixes (lake, lakes,
// lakeside), repeat within a text, and include numbers enough for one
// digit to expand past maxPrefixTerms.
func refLibrary(n int, seed uint64) []*media.Item {
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"lake", "lakes", "lakeside", "la", "river", "riverbank", "snow", "snowy", "city", "night",
		"nightfall", "sun", "sunset", "sunrise", "forest", "fog", "dog", "dogs", "café", "Ünïcode", "peak", "peaks"}
	folders := []string{"/", "/blog", "/products", "/team", "/press/2024"}
	mimes := []string{"image/jpeg", "image/png", "application/pdf", "video/mp4"}
	w := func() string { return words[r.IntN(len(words))] }
	items := make([]*media.Item, n)
	for i := range n {
		name := w()
		for range r.IntN(3) {
			name += []string{"-", "_", "."}[r.IntN(3)] + w()
		}
		name += fmt.Sprintf("-%d.jpg", r.IntN(3000))
		alt := ""
		for range r.IntN(7) {
			alt += w() + " "
		}
		items[i] = &media.Item{ID: fmt.Sprintf("id%05d", i), Filename: name, Alt: strings.TrimSpace(alt),
			Folder: folders[r.IntN(len(folders))], MimeType: mimes[r.IntN(len(mimes))]}
	}
	return items
}

// TestMediaIndexRanksAsBleve checks the in-memory index against the
// bleve index it replaced, on a generated library reached through
// updates and deletes: the same total, the same hits, and each page
// holds, position by position, a hit of the score bleve ranks there (hits
// of equal score may come in another order: bleve's order among them
// depended on how its segments happened to be built).
func TestMediaIndexRanksAsBleve(t *testing.T) {
	items := refLibrary(4000, 1)
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Reach the final library through other versions of it, in
	// several batches.
	for i, it := range refLibrary(4000, 2) {
		m.Follow(it, false)
		if i%1000 == 999 {
			mustFind(t, m, MediaQuery{Text: "x", Limit: 1})
		}
	}
	for i, it := range items {
		if i%7 == 0 {
			m.Follow(it, true)
			continue
		}
		m.Follow(it, false)
	}
	for i, it := range items {
		if i%7 == 0 && i%2 == 0 {
			m.Follow(it, false)
		}
	}
	for i := 4000; i < 4100; i++ {
		m.Follow(&media.Item{ID: fmt.Sprintf("id%05d", i), Filename: "gone.jpg"}, false)
		m.Follow(&media.Item{ID: fmt.Sprintf("id%05d", i)}, true)
	}
	var final []*media.Item
	for i, it := range items {
		if i%7 != 0 || i%2 == 0 {
			final = append(final, it)
		}
	}
	ref := newBleveMediaRef(t, final)

	texts := []string{"lake", "la", "l", "lakes", "lakeside", "river", "riv", "snow night", "sun", "s", "1", "12", "123",
		"2999", "dog lake", "café", "ünï", "UNICODE", "peak la", "lake lake", "jpg", "fog sun city", "zzz", "lake zzz",
		"1 lake", "night 2"}
	filters := []MediaQuery{{}, {Folder: "/blog"}, {Type: "image"}, {Folder: "/press/2024", Type: "video"}, {Folder: "/nope"}}
	pages := [][2]int{{0, 24}, {24, 24}, {0, 1}, {100, 50}, {0, 5000}}
	ctx := context.Background()
	// The index is read directly below: first every change must be in it
	// (the background batcher writes it until then), and reads take the
	// lock searches take.
	if err := m.wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		for _, f := range filters {
			for _, rev := range []bool{false, true} {
				q := f
				q.Text, q.Reverse = text, rev
				want, scores := ref.ranking(t, q)
				all := q
				all.All = true
				m.idxMu.RLock()
				got, total, err := m.idx.search(ctx, termsOf(text), MediaQuery{Folder: q.Folder, Type: q.Type, All: true})
				m.idxMu.RUnlock()
				if err != nil {
					t.Fatal(err)
				}
				if total != len(want) || !slices.Equal(sortedCopy(got), sortedCopy(want)) {
					t.Fatalf("%+v all: %d hits, bleve %d", all, total, len(want))
				}
				for _, pg := range pages {
					q.Offset, q.Limit = pg[0], pg[1]
					got, total := mustFind(t, m, q)
					if total != len(want) {
						t.Fatalf("%+v: total %d, bleve %d", q, total, len(want))
					}
					wantN := max(0, min(q.Limit, len(want)-q.Offset))
					if len(got) != wantN {
						t.Fatalf("%+v: %d ids, want %d", q, len(got), wantN)
					}
					seen := map[string]bool{}
					for i, id := range got {
						s, ok := scores[id]
						if !ok || seen[id] {
							t.Fatalf("%+v: %s is no hit of bleve's, or repeated", q, id)
						}
						seen[id] = true
						if ws := scores[want[q.Offset+i]]; !closeTo(s, ws) {
							t.Fatalf("%+v: at %d %s scores %g in bleve, bleve ranks %s (%g) there", q, q.Offset+i, id, s, want[q.Offset+i], ws)
						}
					}
				}
			}
		}
	}
}

func termsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
