package search

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// compactAfter is how many batches (segments) the content index takes
// before it is rebuilt as one; with more documents, a rebuild waits for
// one batch per compactPer documents, so that its cost per batch stays
// flat (each extra segment costs a search a few µs).
const (
	compactAfter = 64
	compactPer   = 1000
)

// indexOnly makes a field searchable and nothing more: no stored value,
// no term vectors, no _all, no doc values. The search indexes rebuild
// from their sources, so none of that is ever read back.
func indexOnly(f *mapping.FieldMapping) *mapping.FieldMapping {
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	return f
}

// newScorchIndex makes an empty index. scorch with no path keeps its
// segments in memory; it indexes a batch several times faster than
// upsidedown's MemOnly store and searches without per-hit key-value
// lookups.
func newScorchIndex(im mapping.IndexMapping) (bleve.Index, error) {
	return bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
}
