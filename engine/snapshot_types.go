package engine

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/folio-cms/folio/content"
)

// parallelTypesMin is the number of items from which a snapshot's
// per-type work (the items' resources, a view's lists) is spread over
// the CPUs, a type to each in turn: a start, not a push's patch.
const parallelTypesMin = 4096

// typesBySize is the site's item types, the largest first (then by
// name): the order workers take them in, so that the last one taken is a
// small one.
func typesBySize(items map[string][]*content.Item) (names []string, total int) {
	names = make([]string, 0, len(items))
	for name, list := range items {
		names = append(names, name)
		total += len(list)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(items[b]), len(items[a])), cmp.Compare(a, b))
	})
	return names, total
}

// eachType calls fn for each of names, on every CPU when there are many
// items (total), each call on one goroutine; fn's results are kept by
// index, so that the outcome does not depend on which worker ran which.
func eachType(names []string, total int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), len(names))
	if total < parallelTypesMin || workers < 2 {
		for i := range names {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
