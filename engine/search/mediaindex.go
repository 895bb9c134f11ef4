package search

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sort"
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
	// What a search reads per hit, by slot, packed: the interned folder
	// and kind of the slot's document (0 for a free slot).
	folderOf []uint32
	kindOf   []uint32
	names    map[string]uint32 // folder or kind → its number, from 1

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
	// words are the distinct words of the text, packed (packWords): one
	// string rather than one each keeps 100k slots a few hundred
	// thousand heap objects lighter for the garbage collector, which
	// scans them on every cycle while the box serves.
	words string
}

// packWords packs words into one string, each preceded by its length
// (uvarint); eachWord unpacks them.
func packWords(words []string) string {
	n := 0
	for _, w := range words {
		n += binary.MaxVarintLen64 + len(w)
	}
	b := make([]byte, 0, n)
	for _, w := range words {
		b = binary.AppendUvarint(b, uint64(len(w)))
		b = append(b, w...)
	}
	return string(b)
}

func eachWord(packed string, f func(w string)) {
	for len(packed) > 0 {
		var n uint64
		for shift := 0; ; shift += 7 {
			c := packed[0]
			packed = packed[1:]
			n |= uint64(c&0x7f) << shift
			if c < 0x80 {
				break
			}
		}
		f(packed[:n])
		packed = packed[n:]
	}
}

// posting is one document holding a word. tn is bleve's tf × norm for it:
// √(times the word occurs) × the field norm (1/√(words of the text),
// through float32), the part of a hit's score that depends on the
// document.
type posting struct {
	slot uint32
	tn   float64
}

func newMediaIndex(an analysis.Analyzer) *mediaIndex {
	return &mediaIndex{an: an, byID: map[string]uint32{}, postings: map[string][]posting{},
		folders: map[string]int{}, kinds: map[string]int{}, names: map[string]uint32{}}
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
	eachWord(d.words, func(w string) {
		pl := x.postings[w]
		i, ok := slices.BinarySearchFunc(pl, s, func(p posting, s uint32) int { return cmp.Compare(p.slot, s) })
		if !ok {
			return
		}
		pl = slices.Delete(pl, i, i+1)
		if len(pl) == 0 {
			delete(x.postings, w)
			emptied = true
		} else {
			x.postings[w] = pl
		}
	})
	decr(x.folders, d.folder)
	decr(x.kinds, d.kind)
	delete(x.byID, d.id)
	*d = mediaSlot{}
	x.folderOf[s], x.kindOf[s] = 0, 0
	x.live--
	return emptied
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
	norm := float64(float32(1 / math.Sqrt(float64(len(tokens)))))
	for i, w := range words {
		pl, ok := x.postings[w]
		if !ok {
			added = append(added, w)
		}
		x.postings[w] = append(pl, posting{slot: s, tn: math.Sqrt(float64(tf[i])) * norm})
	}
	x.slots = append(x.slots, mediaSlot{id: id, folder: doc.Folder, kind: doc.Kind, words: packWords(words)})
	x.folderOf = append(x.folderOf, x.name(doc.Folder))
	x.kindOf = append(x.kindOf, x.name(doc.Kind))
	x.byID[id] = s
	x.folders[doc.Folder]++
	x.kinds[doc.Kind]++
	x.live++
	return added
}

// name is the number of a folder or kind; names are few, and kept.
func (x *mediaIndex) name(v string) uint32 {
	n, ok := x.names[v]
	if !ok {
		n = uint32(len(x.names) + 1)
		x.names[v] = n
	}
	return n
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
	x.folderOf, x.kindOf = x.folderOf[:0], x.kindOf[:0]
	for _, d := range slots {
		x.folderOf = append(x.folderOf, x.names[d.folder])
		x.kindOf = append(x.kindOf, x.names[d.kind])
	}
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

// score is bleve's TermQueryScorer.Score for a hit of the leaf, with the
// same operations in the same order.
func (l *leaf) score(p posting) float64 {
	s := p.tn * l.idf
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
	hits    []hit // a buffer for the hits of a search
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
				sc.sum[ps.slot] += l.score(ps)
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
// must match; q.Text is not read again) within q.Folder and q.Type (""
// for any). With q.All it returns every hit, unscored, in no particular
// order; otherwise the page [Offset, Offset+Limit) of the hits by score,
// best first (worst first with Reverse), ties by slot. total counts every
// hit.
func (x *mediaIndex) search(ctx context.Context, terms []string, q MediaQuery) (ids []string, total int, err error) {
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
	var wantFolder, wantKind uint32
	for _, f := range []struct {
		val  string
		df   map[string]int
		want *uint32
	}{{q.Folder, x.folders, &wantFolder}, {q.Type, x.kinds, &wantKind}} {
		if f.val == "" {
			continue
		}
		if f.df[f.val] == 0 {
			return []string{}, 0, nil
		}
		*f.want = x.names[f.val]
		filters = append(filters, leaf{idf: x.idf(f.df[f.val]), boost: 1})
	}
	if !q.All && q.Limit <= 0 {
		return []string{}, 0, nil
	}
	keep := func(s uint32) bool {
		return (wantFolder == 0 || x.folderOf[s] == wantFolder) && (wantKind == 0 || x.kindOf[s] == wantKind)
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
		constant += filters[i].score(posting{tn: 1})
	}

	top := newTopHits(max(q.Offset, 0)+q.Limit, q.Reverse)
	found := func(s uint32, score float64) {
		total++
		if q.All {
			ids = append(ids, x.slots[s].id)
		} else {
			top.push(hit{slot: s, score: score + constant})
		}
	}
	sc := getScratch(len(x.slots))
	defer scratchPool.Put(sc)
	if p := &parts[0]; len(parts) == 1 && p.single() {
		// One word, one term (the common search): straight from its
		// postings.
		l := &p.leaves[0]
		for _, ps := range l.postings {
			if keep(ps.slot) {
				found(ps.slot, l.score(ps))
			}
		}
	} else {
		// The hits of the first word, filtered, then narrowed by each
		// other word in turn: the single terms first, rarest first, by
		// merging postings (both in slot order), then the others.
		slices.SortStableFunc(parts, func(a, b wordPart) int {
			return cmp.Compare(a.postingsOf(), b.postingsOf())
		})
		hits := sc.hits[:0]
		for i := range parts {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			p := &parts[i]
			switch {
			case p.single() && i == 0:
				l := &p.leaves[0]
				for _, ps := range l.postings {
					if keep(ps.slot) {
						hits = append(hits, hit{slot: ps.slot, score: l.score(ps)})
					}
				}
			case p.single():
				hits = intersect(hits, &p.leaves[0])
			default:
				hits = x.narrow(sc, p, i == 0, hits, keep, q.All)
			}
			if len(hits) == 0 {
				break
			}
		}
		for _, h := range hits {
			found(h.slot, h.score)
		}
		sc.hits = hits[:0]
	}
	if q.All {
		if ids == nil {
			ids = []string{}
		}
		return ids, total, nil
	}
	page := top.page(max(q.Offset, 0))
	ids = make([]string, len(page))
	for i, h := range page {
		ids[i] = x.slots[h.slot].id
	}
	return ids, total, nil
}

// single reports whether p is one term query.
func (p *wordPart) single() bool { return p.sub == nil && len(p.leaves) == 1 }

// postingsOf orders the parts of a search: a single term by its
// postings, after it every other part.
func (p *wordPart) postingsOf() int {
	if p.single() {
		return len(p.leaves[0].postings)
	}
	return math.MaxInt
}

// intersect keeps the hits (in slot order) that l matches too, adding its
// score: a merge of the two lists that gallops over the longer stretches
// of l's postings.
func intersect(hits []hit, l *leaf) []hit {
	pl := l.postings
	kept := hits[:0]
	j := 0
	for _, h := range hits {
		if j < len(pl) && pl[j].slot < h.slot {
			// Gallop: the first posting at or after h.slot.
			step := 1
			for j+step < len(pl) && pl[j+step].slot < h.slot {
				j += step
				step *= 2
			}
			hi := min(j+step, len(pl))
			j += 1 + sort.Search(hi-j-1, func(k int) bool { return pl[j+1+k].slot >= h.slot })
		}
		if j == len(pl) {
			break
		}
		if pl[j].slot == h.slot {
			h.score += l.score(pl[j])
			kept = append(kept, h)
			j++
		}
	}
	return kept
}

// narrow adds part p to hits: with first, hits become p's hits that keep
// accepts, else the hits that p matches too, their scores summed (none
// scored with all). sc is clean after.
func (x *mediaIndex) narrow(sc *scratch, p *wordPart, first bool, hits []hit, keep func(uint32) bool, all bool) []hit {
	x.accumulate(sc, p, !all)
	var sub *scratch
	if p.sub != nil {
		sub = getScratch(len(x.slots))
		defer scratchPool.Put(sub)
		x.accumulate(sub, p.sub, !all)
	}
	// The part's score for slot s, if s matches it.
	match := func(s uint32) (float64, bool) {
		inSub := sub != nil && sub.n[s] > 0
		if sc.n[s] == 0 && !inSub {
			return 0, false
		}
		if all {
			return 0, true
		}
		if sub == nil {
			return p.partScore(sc, s), true
		}
		// Bleve's disjunction of the exact word and the prefix query.
		var sum float64
		k := 0
		if sc.n[s] > 0 {
			sum += sc.sum[s]
			k++
		}
		if inSub {
			sum += p.sub.partScore(sub, s)
			k++
		}
		return sum * (float64(k) / 2), true
	}
	if first {
		for _, s := range sc.touched {
			if keep(s) {
				score, _ := match(s)
				hits = append(hits, hit{slot: s, score: score})
			}
		}
		if sub != nil {
			for _, s := range sub.touched {
				if sc.n[s] == 0 && keep(s) {
					score, _ := match(s)
					hits = append(hits, hit{slot: s, score: score})
				}
			}
		}
	} else {
		kept := hits[:0]
		for _, h := range hits {
			if score, ok := match(h.slot); ok {
				h.score += score
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	sc.reset()
	if sub != nil {
		sub.reset()
	}
	return hits
}

// before orders hits as bleve's collector did: by score (best first, or
// worst first with reverse), then by index order.
func before(a, b hit, reverse bool) bool {
	if a.score != b.score {
		return (a.score > b.score) != reverse
	}
	return a.slot < b.slot
}

// topHits keeps the first k hits pushed in the order of before: a heap
// with the last of them on top.
type topHits struct {
	k       int
	reverse bool
	h       []hit
}

func newTopHits(k int, reverse bool) *topHits {
	return &topHits{k: k, reverse: reverse, h: make([]hit, 0, min(max(k, 0), 1024))}
}

// worse reports whether h[i] comes after h[j].
func (t *topHits) worse(i, j int) bool { return before(t.h[j], t.h[i], t.reverse) }

func (t *topHits) push(x hit) {
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.worse(i, p) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if len(t.h) == 0 || !before(x, t.h[0], t.reverse) {
		return
	}
	t.h[0] = x
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(t.h) {
			return
		}
		if r := l + 1; r < len(t.h) && t.worse(r, l) {
			l = r
		}
		if !t.worse(l, i) {
			return
		}
		t.h[i], t.h[l] = t.h[l], t.h[i]
		i = l
	}
}

// page returns the hits kept from offset on, in order.
func (t *topHits) page(offset int) []hit {
	slices.SortFunc(t.h, func(a, b hit) int { return cmpHits(a, b, t.reverse) })
	if offset >= len(t.h) {
		return nil
	}
	return t.h[offset:]
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
