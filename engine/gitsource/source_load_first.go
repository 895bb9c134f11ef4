package gitsource

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/folio-cms/folio/content"
)

// lookupFirstMin is SourceConfig.LookupFirstMin's default: the number of
// files from which the first Load of a Source (a start: no last Load to take documents from) looks its files'
// documents up on every core: a restart at a million files looks up a
// million documents by blob and a million Updated times by path.
const lookupFirstMin = 1 << 14

// lookupFirstRun is the number of files a worker of lookupFirst takes at
// a time.
const lookupFirstRun = 4096

// lookupFirst is the first Load's pass over files (no last Load): each
// file's content.File and its cache entry, with get (the document
// cache's lock held), on every core, each worker taking the next run of
// lookupFirstRun files (so that a worker the machine holds up leaves the
// other the rest, not half of the files). The files whose document is
// not cached are added to misses, by key; it returns the number of hits.
func lookupFirst(get func(docKey) *docEntry, gen uint64, files []gitFile, times *timeMap, out []content.File, entries []*docEntry, misses map[docKey][]int) int {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(files)/(lookupFirstMin/2)))
	if len(files) < lookupFirstMin {
		workers = min(runtime.GOMAXPROCS(0), 2) // a test's small site
	}
	type part struct {
		misses map[docKey][]int // nil when none
		hits   int
	}
	run := max(1, min(lookupFirstRun, len(files)/workers))
	parts := make([]part, (len(files)+run-1)/run)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				w := int(next.Add(1)) - 1
				if w >= len(parts) {
					return
				}
				p := &parts[w]
				at := times.cursor() // the run's files are in path order
				for i := w * run; i < min(len(files), (w+1)*run); i++ {
					f := files[i]
					out[i] = content.File{Path: f.path, Blob: blobName(f.blob), Updated: at.timeOf(f.path)}
					if f.mode == filemode.Symlink {
						// The link target could be anything on this
						// machine (/etc/passwd); it is never resolved or
						// read.
						out[i].Err = content.Problem{Path: f.path, Message: "symlink not followed"}
						continue
					}
					k := newDocKey(f.blob, f.path)
					if e := get(k); e != nil {
						out[i].Doc = e.doc
						entries[i] = e
						p.hits++
						continue
					}
					if p.misses == nil {
						p.misses = map[docKey][]int{}
					}
					p.misses[k] = append(p.misses[k], i)
				}
			}
		})
	}
	wg.Wait()
	// Set here, not by the workers: two files of one blob share an entry.
	for _, e := range entries {
		if e != nil {
			e.used = gen
		}
	}
	hits := 0
	for _, p := range parts {
		hits += p.hits
		for k, idx := range p.misses {
			misses[k] = append(misses[k], idx...) // the parts are in file order
		}
	}
	return hits
}
