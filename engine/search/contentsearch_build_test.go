package search

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/folio-cms/folio/content"
)

// TestIndexDocsBuild: a build of several batches (made one ahead of the
// one scorch indexes) holds every document, deletes included; once stop
// is closed, no batch is indexed and the build says why.
func TestIndexDocsBuild(t *testing.T) {
	n := 2*buildBatch + 500 // three batches: a build
	changed := map[string]any{}
	for i := range n {
		it := &content.Item{ID: fmt.Sprint(i), Type: "note", Title: fmt.Sprintf("glacier note %d", i),
			Data: map[string]any{"body": "a walk along the canyon"}}
		changed[itemDocID(it)] = it
	}
	now := time.Now()
	idx, err := newContentIndexFor("")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := indexDocs(idx, changed, nil, now, nil, make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	count := func(idx bleve.Index, word string) uint64 {
		t.Helper()
		q := bleve.NewMatchQuery(word)
		q.SetField(csText)
		res, err := idx.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if c, _ := idx.DocCount(); c != uint64(n) {
		t.Errorf("%d documents indexed, want %d", c, n)
	}
	if got := count(idx, "canyon"); got != uint64(n) {
		t.Errorf("canyon: %d hits, want %d", got, n)
	}
	// A second pass: every document again, 10 deleted.
	var gone []string
	for id := range changed {
		if len(gone) == 10 {
			break
		}
		gone = append(gone, id)
		delete(changed, id)
	}
	if err := indexDocs(idx, changed, gone, now, nil, make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if c, _ := idx.DocCount(); c != uint64(n-10) {
		t.Errorf("after deletes: %d documents, want %d", c, n-10)
	}

	stopped, err := newContentIndexFor("")
	if err != nil {
		t.Fatal(err)
	}
	defer stopped.Close()
	stop := make(chan struct{})
	close(stop)
	if err := indexDocs(stopped, changed, nil, now, nil, stop); !errors.Is(err, errIndexStopped) {
		t.Errorf("stopped build: %v, want errIndexStopped", err)
	}
	if c, _ := stopped.DocCount(); c != 0 {
		t.Errorf("stopped build indexed %d documents", c)
	}
}
