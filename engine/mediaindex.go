package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// mediaIndex is the inverted index of the media library, held in plain
// slices and maps: for every word of the filenames and alt texts, the
// documents holding it and how often. A search reads the postings of its
// words straight from memory and keeps only the page it needs, without
// the per-hit machinery of a general search engine (bleve spent about a
// millisecond of CPU scoring the hits of one search over 100k items).
//
// It ranks as the bleve index it replaced did (bleve's TF-IDF: query
// norm, coordination factor, field norms; exact words boosted), so the
// order of results did not change; mediaindex_test.go checks it against
// bleve. Hits of equal score come in the order the items were indexed.
//
// A document lives in a slot; a changed item gets a new slot at the end,
// so every postings list stays sorted by slot. Free slots are reclaimed by
// renumbering once they are the majority. Not safe for concurrent use:
// MediaSearch guards it.
type mediaIndex struct {
	an analysis.Analyzer

	slots []mediaSlot
	byID  map[string]uint32
	live  int

	postings map[string][]posting // word → the documents holding it, by slot
	terms    []string             // the keys of postings, sorted
	folders  map[string]int       // folder → live documents in it
	kinds    map[string]int       // kind → live documents of it
}

// mediaSlot is one indexed document; id "" is a free slot.
type mediaSlot struct {
	id     string
	folder string
	kind   string
	norm   float64  // bleve's field norm of the text: 1/√(words), through float32
	words  []string // distinct words of the text
}

type posting struct {
	slot uint32
	tf   uint32 // times the word occurs in the text
}

func newMediaIndex(an analysis.Analyzer) *mediaIndex {
	return &mediaIndex{an: an, byID: map[string]uint32{}, postings: map[string][]posting{},
		folders: map[string]int{}, kinds: map[string]int{}}
}

// apply makes the changes of q, in order.
func (x *mediaIndex) apply(q []change) {
	var added []string // words new to postings
	removed := false
	for _, c := range q {
		if s, ok := x.byID[c.id]; ok {
			removed = x.remove(s) || removed
		}
		if c.doc != nil {
			added = x.add(c.id, c.doc, added)
		}
	}
	if len(added) > 0 || removed {
		x.mergeTerms(added)
	}
	if free := len(x.slots) - x.live; free > 1024 && free > x.live {
		x.renumber()
	}
}

// remove empties slot s; it reports whether a word lost its last document.
func (x *mediaIndex) remove(s uint32) bool {
	d := &x.slots[s]
	emptied := false
	for _, w := range d.words {
		pl := x.postings[w]
		i, ok := slices.BinarySearchFunc(pl, s, func(p posting, s uint32) int { return cmpSlot(p.slot, s) })
		if !ok {
			continue
		}
		pl = slices.Delete(pl, i, i+1)
		if len(pl) == 0 {
			delete(x.postings, w)
			emptied = true
		} else {
			x.postings[w] = pl
		}
	}
	decr(x.folders, d.folder)
	decr(x.kinds, d.kind)
	delete(x.byID, d.id)
	*d = mediaSlot{}
	x.live--
	return emptied
}

func cmpSlot(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func decr(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
	} else {
		m[k]--
	}
}

// add indexes doc in a new slot; it appends to added the words new to
// postings.
func (x *mediaIndex) add(id string, doc *mediaDoc, added []string) []string {
	s := uint32(len(x.slots))
	// The words as bleve's analyzer makes them; the field length counts
	// every word, repeats included.
	tokens := x.an.Analyze([]byte(doc.Text))
	words := make([]string, 0, len(tokens))
	tf := make([]uint32, 0, len(tokens))
	for _, t := range tokens {
		if i := slices.Index(words, string(t.Term)); i >= 0 {
			tf[i]++
			continue
		}
		words = append(words, string(t.Term))
		tf = append(tf, 1)
	}
	for i, w := range words {
		pl, ok := x.postings[w]
		if !ok {
			added = append(added, w)
		}
		x.postings[w] = append(pl, posting{slot: s, tf: tf[i]})
	}
	x.slots = append(x.slots, mediaSlot{id: id, folder: doc.Folder, kind: doc.Kind,
		norm: float64(float32(1 / math.Sqrt(float64(len(tokens))))), words: slices.Clip(words)})
	x.byID[id] = s
	x.folders[doc.Folder]++
	x.kinds[doc.Kind]++
	x.live++
	return added
}

// mergeTerms brings terms in step with postings: the words that lost
// their last document leave, added (new words, maybe repeated or since
// removed) come in.
func (x *mediaIndex) mergeTerms(added []string) {
	old := x.terms[:0:0]
	for _, t := range x.terms {
		if _, ok := x.postings[t]; ok {
			old = append(old, t)
		}
	}
	slices.Sort(added)
	added = slices.Compact(added)
	merged := make([]string, 0, len(old)+len(added))
	i := 0
	for _, a := range added {
		if _, ok := x.postings[a]; !ok {
			continue
		}
		for i < len(old) && old[i] < a {
			merged = append(merged, old[i])
			i++
		}
		if i < len(old) && old[i] == a {
			continue
		}
		merged = append(merged, a)
	}
	x.terms = append(merged, old[i:]...)
}

// renumber packs the live documents into the first slots, in order.
func (x *mediaIndex) renumber() {
	to := make([]uint32, len(x.slots))
	slots := make([]mediaSlot, 0, x.live)
	for s, d := range x.slots {
		if d.id == "" {
			continue
		}
		to[s] = uint32(len(slots))
		x.byID[d.id] = uint32(len(slots))
		slots = append(slots, d)
	}
	x.slots = slots
	for _, pl := range x.postings {
		for i := range pl {
			pl[i].slot = to[pl[i].slot]
		}
	}
}

// expand returns the indexed words that start with t, in byte order.
func (x *mediaIndex) expand(t string) []string {
	i, _ := slices.BinarySearch(x.terms, t)
	j := i
	for j < len(x.terms) && strings.HasPrefix(x.terms[j], t) {
		j++
	}
	return x.terms[i:j]
}

// leaf is one term query of a search as bleve scored it.
type leaf struct {
	postings []posting
	idf      float64
	boost    float64
	weight   float64 // queryWeight: boost × idf × queryNorm
}

// score is bleve's TermQueryScorer.Score for a hit of the leaf.
func (l *leaf) score(p posting, norm float64) float64 {
	var tf float64
	if p.tf == 1 {
		tf = 1
	} else {
		tf = math.Sqrt(float64(p.tf))
	}
	s := tf * norm * l.idf
	if l.weight != 1 {
		s *= l.weight
	}
	return s
}

// wordPart is one word of a search: a disjunction of term queries, with
// bleve's coordination factor (hits of k of n terms score k/n of their
// sum), or a single term query (coord false). sub, if any, is one more
// disjunct: bleve's prefix query, itself a disjunction of leaves.
type wordPart struct {
	leaves []leaf
	coord  bool
	sub    *wordPart
}

// maxPrefixTerms bounds the words one prefix expands to before the
// search takes the shape bleve's fallback had: the exact word, boosted,
// or'ed with a prefix query (a prefix such as "0" can match every item's
// number).
const maxPrefixTerms = 256

// exactBoost makes an exact word match outscore any prefix match: a
// prefix match scores at most about idf (≤ 1+ln N) × √tf, far below it.
const exactBoost = 1000

// idf is bleve's TF-IDF inverse document frequency.
func (x *mediaIndex) idf(df int) float64 {
	return 1.0 + math.Log(float64(x.live)/float64(df+1))
}

func (x *mediaIndex) newLeaf(pl []posting, boost float64) leaf {
	return leaf{postings: pl, idf: x.idf(len(pl)), boost: boost}
}

// wordQuery builds the part of word t; ok false means no indexed word
// starts with t (the search has no hits).
func (x *mediaIndex) wordQuery(t string) (wordPart, bool) {
	exp := x.expand(t)
	boost := func(w string) float64 {
		if w == t {
			return exactBoost
		}
		return 1
	}
	switch {
	case len(exp) == 0:
		return wordPart{}, false
	case len(exp) == 1:
		return wordPart{leaves: []leaf{x.newLeaf(x.postings[exp[0]], boost(exp[0]))}}, true
	case len(exp) <= maxPrefixTerms:
		p := wordPart{coord: true, leaves: make([]leaf, len(exp))}
		for i, w := range exp {
			p.leaves[i] = x.newLeaf(x.postings[w], boost(w))
		}
		return p, true
	}
	sub := &wordPart{coord: true, leaves: make([]leaf, len(exp))}
	for i, w := range exp {
		sub.leaves[i] = x.newLeaf(x.postings[w], 1)
	}
	return wordPart{coord: true, leaves: []leaf{x.newLeaf(x.postings[t], exactBoost)}, sub: sub}, true
}

// weights adds the squared weights of p's leaves to sum (bleve's
// sumOfSquaredWeights) and sets each leaf's query weight once norm is
// known.
func (p *wordPart) weights(sum float64) float64 {
	for i := range p.leaves {
		w := p.leaves[i].boost * p.leaves[i].idf
		sum += w * w
	}
	if p.sub != nil {
		sum = p.sub.weights(sum)
	}
	return sum
}

func (p *wordPart) setNorm(norm float64) {
	for i := range p.leaves {
		l := &p.leaves[i]
		l.weight = l.boost * l.idf * norm
	}
	if p.sub != nil {
		p.sub.setNorm(norm)
	}
}

// scratch holds per-slot sums of one search; every entry is zero between
// uses.
type scratch struct {
	sum     []float64
	n       []uint32
	touched []uint32
}

var scratchPool sync.Pool

func getScratch(n int) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if len(sc.sum) < n {
		sc.sum, sc.n = make([]float64, n), make([]uint32, n)
	}
	return sc
}

// accumulate adds the scores of p's leaves per slot into sc (scores
// false: only counts them).
func (x *mediaIndex) accumulate(sc *scratch, p *wordPart, scores bool) {
	for i := range p.leaves {
		l := &p.leaves[i]
		for _, ps := range l.postings {
			if sc.n[ps.slot] == 0 {
				sc.touched = append(sc.touched, ps.slot)
			}
			sc.n[ps.slot]++
			if scores {
				sc.sum[ps.slot] += l.score(ps, x.slots[ps.slot].norm)
			}
		}
	}
}

// partScore is the score of slot s for p once accumulate has run: the
// sum times the coordination factor.
func (p *wordPart) partScore(sc *scratch, s uint32) float64 {
	if !p.coord {
		return sc.sum[s]
	}
	return sc.sum[s] * (float64(sc.n[s]) / float64(len(p.leaves)))
}

func (sc *scratch) reset() {
	for _, s := range sc.touched {
		sc.sum[s], sc.n[s] = 0, 0
	}
	sc.touched = sc.touched[:0]
}

// hit is one matching document.
type hit struct {
	slot  uint32
	score float64
}

// search runs the words of terms (each matches as a prefix, every one
// must match) within folder and kind ("" for any). With all it returns
// every hit, unscored, in no particular order; otherwise the page [offset, offset+limit)
// of the hits by score, best first (worst first with reverse), ties by
// slot. total counts every hit.
func (x *mediaIndex) search(ctx context.Context, terms []string, folder, kind string, offset, limit int, reverse, all bool) (ids []string, total int, err error) {
	parts := make([]wordPart, 0, len(terms))
	for _, t := range terms {
		p, ok := x.wordQuery(t)
		if !ok {
			return []string{}, 0, nil
		}
		parts = append(parts, p)
	}
	// The filters: term queries of their own in bleve, which add the
	// same score to every hit.
	var filters []leaf
	for _, f := range []struct {
		val string
		df  map[string]int
	}{{folder, x.folders}, {kind, x.kinds}} {
		if f.val == "" {
			continue
		}
		if f.df[f.val] == 0 {
			return []string{}, 0, nil
		}
		filters = append(filters, leaf{idf: x.idf(f.df[f.val]), boost: 1})
	}
	if !all && limit <= 0 {
		return []string{}, 0, nil
	}

	sumSq := 0.0
	for i := range parts {
		sumSq = parts[i].weights(sumSq)
	}
	for _, f := range filters {
		sumSq += f.idf * f.idf
	}
	qnorm := 1 / math.Sqrt(sumSq)
	for i := range parts {
		parts[i].setNorm(qnorm)
	}
	constant := 0.0
	for i := range filters {
		filters[i].weight = filters[i].idf * qnorm
		constant += filters[i].score(posting{tf: 1}, 1)
	}

	// The hits of the first word, filtered, then narrowed by each other
	// word in turn.
	sc := getScratch(len(x.slots))
	defer scratchPool.Put(sc)
	var hits []hit
	for i := range parts {
		if ctx.Err() != nil {
			sc.reset()
			return nil, 0, ctx.Err()
		}
		p := &parts[i]
		if i == 0 && p.sub == nil && len(p.leaves) == 1 {
			l := &p.leaves[0]
			hits = make([]hit, 0, len(l.postings))
			for _, ps := range l.postings {
				d := &x.slots[ps.slot]
				if folder != "" && d.folder != folder || kind != "" && d.kind != kind {
					continue
				}
				h := hit{slot: ps.slot}
				if !all {
					h.score = l.score(ps, d.norm)
				}
				hits = append(hits, h)
			}
			continue
		}
		x.accumulate(sc, p, !all)
		var subSc *scratch
		if p.sub != nil {
			subSc = getScratch(len(x.slots))
			x.accumulate(subSc, p.sub, !all)
		}
		// The part's score for slot s, if s matches it.
		match := func(s uint32) (float64, bool) {
			var inSub bool
			if subSc != nil {
				inSub = subSc.n[s] > 0
			}
			if sc.n[s] == 0 && !inSub {
				return 0, false
			}
			if all {
				return 0, true
			}
			if subSc == nil {
				return p.partScore(sc, s), true
			}
			// Disjunction of the exact word and the prefix query.
			var sum float64
			k := 0
			if sc.n[s] > 0 {
				sum += sc.sum[s]
				k++
			}
			if inSub {
				sum += p.sub.partScore(subSc, s)
				k++
			}
			return sum * (float64(k) / 2), true
		}
		if i == 0 {
			var cands []uint32
			cands = append(cands, sc.touched...)
			if subSc != nil {
				for _, s := range subSc.touched {
					if sc.n[s] == 0 {
						cands = append(cands, s)
					}
				}
			}
			hits = make([]hit, 0, len(cands))
			for _, s := range cands {
				d := &x.slots[s]
				if folder != "" && d.folder != folder || kind != "" && d.kind != kind {
					continue
				}
				score, _ := match(s)
				hits = append(hits, hit{slot: s, score: score})
			}
		} else {
			kept := hits[:0]
			for _, h := range hits {
				if s, ok := match(h.slot); ok {
					h.score += s
					kept = append(kept, h)
				}
			}
			hits = kept
		}
		sc.reset()
		if subSc != nil {
			subSc.reset()
			scratchPool.Put(subSc)
		}
		if len(hits) == 0 {
			break
		}
	}
	total = len(hits)
	if all {
		ids = make([]string, len(hits))
		for i, h := range hits {
			ids[i] = x.slots[h.slot].id
		}
		return ids, total, nil
	}
	if constant != 0 {
		for i := range hits {
			hits[i].score += constant
		}
	}
	page := topHits(hits, max(offset, 0), limit, reverse)
	ids = make([]string, len(page))
	for i, h := range page {
		ids[i] = x.slots[h.slot].id
	}
	return ids, total, nil
}

// before orders hits as bleve's collector did: by score (best first, or
// worst first with reverse), then by index order.
func before(a, b hit, reverse bool) bool {
	if a.score != b.score {
		return (a.score > b.score) != reverse
	}
	return a.slot < b.slot
}

// topHits returns hits[offset:offset+limit] of hits in the order of
// before, keeping only the first offset+limit in a heap on the way.
func topHits(hits []hit, offset, limit int, reverse bool) []hit {
	k := offset + limit
	if offset >= len(hits) {
		return nil
	}
	if k >= len(hits) || k <= 0 {
		slices.SortFunc(hits, func(a, b hit) int { return cmpHits(a, b, reverse) })
		return hits[offset:min(len(hits), offset+limit)]
	}
	// A heap of the best k so far, the worst of them on top.
	h := make([]hit, 0, k)
	worse := func(i, j int) bool { return before(h[j], h[i], reverse) }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && worse(r, l) {
				l = r
			}
			if !worse(l, i) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for _, x := range hits {
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(i, p) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if before(x, h[0], reverse) {
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b hit) int { return cmpHits(a, b, reverse) })
	return h[offset:]
}

func cmpHits(a, b hit, reverse bool) int {
	switch {
	case before(a, b, reverse):
		return -1
	case before(b, a, reverse):
		return 1
	}
	return 0
}
