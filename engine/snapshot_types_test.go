package engine

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/gitsource"
)

// eachType runs the types on two goroutines at once when there are many
// items: the first type's call waits for the second's to begin.
func TestEachType_BothCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	second := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		eachType([]string{"a", "b"}, parallelTypesMin, func(i int) {
			if i == 1 {
				close(second)
				return
			}
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				t.Error("the second type waited for the first")
			}
		})
	}()
	<-done
}

// A snapshot whose types are made on two cores is the one made on one:
// each type's items, their resources, the views' validity (the earliest
// publish or expiry instant after now, the latest before) and ID, the
// published and the draft view.
func TestSnapshot_TypesInParallelSameViews(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	site := &content.Site{Items: map[string][]*content.Item{}, Config: content.Config{Types: map[string]content.TypeConfig{"empty": {}}}}
	for ti, n := range []int{3000, 2000, 1500} {
		typ := fmt.Sprintf("t%d", ti)
		for i := range n {
			it := &content.Item{ID: fmt.Sprintf("%s-%d", typ, i), Type: typ, Slug: fmt.Sprintf("s%05d", i), Title: "x",
				PublishedAt: now.Add(time.Duration((i*7919+ti*131)%20000-10000) * time.Minute)}
			if i%11 == 0 {
				it.Meta.ExpiresAt = now.Add(time.Duration((i*104729+ti)%30000-15000) * time.Minute)
			}
			site.Items[typ] = append(site.Items[typ], it)
		}
	}
	snap := func(procs int) *Snapshot {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s := newSnapshot("main", &gitsource.Tree{Commit: "a"}, site, nil, now, nil)
		s.View(true, now) // the draft view, built now on procs
		return s
	}
	one, two := snap(1), snap(2)
	for _, draft := range []bool{false, true} {
		v1, v2 := one.View(draft, now), two.View(draft, now)
		if v1.ID != v2.ID || !v1.validFrom.Equal(v2.validFrom) || !v1.validUntil.Equal(v2.validUntil) {
			t.Fatalf("draft %v: view %s [%v, %v) against %s [%v, %v)", draft, v2.ID, v2.validFrom, v2.validUntil, v1.ID, v1.validFrom, v1.validUntil)
		}
		if v1.validUntil.Equal(farFuture) || v1.validFrom.IsZero() {
			t.Fatalf("draft %v: the view's validity [%v, %v) is not narrowed by the items", draft, v1.validFrom, v1.validUntil)
		}
		if fmt.Sprint(v1.TypeNames()) != fmt.Sprint(v2.TypeNames()) {
			t.Fatalf("types %v against %v", v2.TypeNames(), v1.TypeNames())
		}
		for _, name := range v1.TypeNames() {
			l1, _ := v1.Type(name)
			l2, _ := v2.Type(name)
			if l1.Len() != l2.Len() || (name != "empty" && (l1.Len() == 0 || (!draft && l1.Len() == len(site.Items[name])))) {
				t.Fatalf("draft %v: type %s: %d items against %d (of %d)", draft, name, l2.Len(), l1.Len(), len(site.Items[name]))
			}
			for i, e := range l1.items {
				f := l2.items[i]
				if e.item != f.item || !reflect.DeepEqual(e.res.value, f.res.value) || (!draft && e.res.value != any(e.item)) {
					t.Fatalf("draft %v: type %s: item %d differs", draft, name, i)
				}
				if g, ok := l2.bySlug.get(e.item.Slug); !ok || g != f {
					t.Fatalf("draft %v: type %s: slug %s not found", draft, name, e.item.Slug)
				}
			}
		}
	}
}
