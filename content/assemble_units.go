package content

import (
	"runtime"
	"strings"
	"sync/atomic"
)

// unitKey is what a page's or an item's reading depends on.
type unitKey struct {
	path    string
	source  string
	doc     *Doc
	sec     int64 // Updated, as an instant
	nsec    int
	hasTime bool
}

// unit is one file read as a page or an item, before whole-site rules. A
// page is kept as its front matter says (IsHomepage may change later, on a
// copy).
type unit struct {
	page    *Page
	item    *Item
	err     error // the file's problem, when it cannot be read
	homeSet bool
}

// typ is the item's type; "" for a page or a file that cannot be read.
// (Not a field: the unit and its Item are one object of 288 bytes,
// itemUnit, and a string more would make it 320.)
func (u *unit) typ() string {
	if u.item == nil {
		return ""
	}
	return u.item.Type
}

func newUnitKey(f File) unitKey {
	k := unitKey{path: f.Path, source: f.Source, doc: f.Doc}
	if !f.Updated.IsZero() {
		k.sec, k.nsec, k.hasTime = f.Updated.Unix(), f.Updated.Nanosecond(), true
	}
	return k
}

// sameFile tells whether a file reads as it did: the same path, document
// and Updated, or the same problem.
func sameFile(a, b File) bool {
	if a.Doc == b.Doc && a.Updated == b.Updated && a.Err == nil && b.Err == nil && a.Path == b.Path && a.Source == b.Source {
		return true // the usual unchanged file, without the instants' arithmetic
	}
	if newUnitKey(a) != newUnitKey(b) || (a.Err == nil) != (b.Err == nil) {
		return false
	}
	return a.Err == nil || a.Err.Error() == b.Err.Error()
}

// change is a file that is new (old -1), gone (new -1) or read differently:
// its index in the last call's files and in this call's.
type change struct{ old, new int }

// plain tells whether a unit is a page or item that no whole-site rule
// but duplicates concerns: not a failed read, not a homepage candidate.
func (u *unit) plain() bool {
	if u == nil || u.err != nil {
		return false
	}
	if p := u.page; p != nil {
		return !p.IsHomepage && p.Slug != "index" && p.Slug != "home" && !p.TitleFromFile
	}
	return !u.item.TitleFromFile // its problem is the site's
}

// parallelUnits is the number of files to read from which readUnits uses
// every CPU (a cold start; a reload reads a few).
const parallelUnits = 256

// readUnits returns the unit of every page and item file of sorted (nil for
// other files and failed parses): the last call's for files that read as
// they did then, the others read, in parallel when there are many. It also
// returns whether each unit was in the last site, and the relevant files
// that changed, unless there are more than maxPatched (few false).
func (as *Assembler) readUnits(sorted []File) (units []*unit, accepted []bool, changes []change, few bool) {
	units, accepted, changes, few, r := as.readUnitsAsync(sorted)
	r.wait()
	return units, accepted, changes, few
}

// readUnitsAsync is readUnits, the files to read read in the background
// when there are many: units[i] is read once r.ready(i) returns, every
// unit once r.wait does.
func (as *Assembler) readUnitsAsync(sorted []File) (units []*unit, accepted []bool, changes []change, few bool, r *unitReading) {
	units = make([]*unit, len(sorted))
	accepted = make([]bool, len(sorted))
	var last assembly
	if as.last != nil {
		last = *as.last
	}
	var todo []int
	tooMany := false
	changed := func(c change) {
		if len(changes) == maxPatched {
			tooMany = true
			return
		}
		changes = append(changes, c)
	}
	lastFiles := last.files.Slice() // a pass over every file
	lastUnits, lastAccepted := last.units.Slice(), last.accepted.Slice()
	j := 0
	for i, f := range sorted {
		for j < len(lastFiles) && lastFiles[j].Path < f.Path {
			if relevantPlain(lastFiles[j].Path) {
				changed(change{old: j, new: -1})
			}
			j++
		}
		old := -1
		if j < len(lastFiles) && lastFiles[j].Path == f.Path && (i == 0 || sorted[i-1].Path != f.Path) {
			old = j
			if sameFile(lastFiles[j], f) && !as.reread[f.RealPath()] {
				units[i], accepted[i] = lastUnits[j], lastAccepted[j]
				j++
				continue
			}
			j++
		}
		if !relevantPlain(f.Path) {
			continue
		}
		if i > 0 && sorted[i-1].Path == f.Path {
			tooMany = true // two files, one path: no patching
		}
		changed(change{old: old, new: i})
		if f.Err != nil || f.Doc == nil {
			continue
		}
		if strings.HasPrefix(f.Path, "pages/") || strings.HasPrefix(f.Path, "content/") {
			todo = append(todo, i)
		}
	}
	for ; j < len(lastFiles); j++ {
		if relevantPlain(lastFiles[j].Path) {
			changed(change{old: j, new: -1})
		}
	}
	read := func(i int) {
		f := sorted[i]
		f.markup, f.links = as.markup, as.links
		if rel, ok := strings.CutPrefix(f.Path, "pages/"); ok {
			units[i] = readPageUnit(f, rel, as.env)
			return
		}
		// content/<type>/<rel>: todo has no other path
		_, rest, _ := strings.Cut(f.Path, "/")
		typ, rel, _ := strings.Cut(rest, "/")
		units[i] = readItemUnit(f, typ, rel, as.env)
	}
	r = &unitReading{todo: todo}
	if workers := runtime.GOMAXPROCS(0); len(todo) >= parallelUnits && workers > 1 {
		r.start(workers, read)
	} else {
		for _, i := range todo {
			read(i)
		}
		r.next = len(todo)
	}
	if tooMany {
		changes = nil
	}
	return units, accepted, changes, !tooMany, r
}

// unitReading is readUnitsAsync's reading of the files in todo (indexes
// of its files, increasing), by workers that take them a run of
// unitReadRun at a time in order: the caller goes over the units in
// order while the later ones are read (assembleUnits), the two cores
// busy with both.
type unitReading struct {
	todo []int
	done []chan struct{} // of each run of todo, closed once read
	next int             // the todo entries before it are read (as ready knows)
}

// unitReadRun is the number of files a worker reads at a time.
const unitReadRun = 64

func (r *unitReading) start(workers int, read func(i int)) {
	runs := (len(r.todo) + unitReadRun - 1) / unitReadRun
	r.done = make([]chan struct{}, runs)
	for k := range r.done {
		r.done[k] = make(chan struct{})
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= runs {
					return
				}
				for _, i := range r.todo[k*unitReadRun : min(len(r.todo), (k+1)*unitReadRun)] {
					read(i)
				}
				close(r.done[k])
			}
		}()
	}
}

// ready waits until the unit of file i is read (one goroutine's).
func (r *unitReading) ready(i int) {
	for r.next < len(r.todo) && r.todo[r.next] <= i {
		k := r.next / unitReadRun
		<-r.done[k]
		r.next = min(len(r.todo), (k+1)*unitReadRun)
	}
}

// wait waits until every unit is read.
func (r *unitReading) wait() {
	if len(r.todo) > 0 {
		r.ready(r.todo[len(r.todo)-1])
	}
}

// counts are the pages and items of each type among units once read,
// at most (a file whose reading fails is counted): from the paths of
// the files still to read, so known before they are.
func (r *unitReading) counts(sorted []File, units []*unit) (pages int, items map[string]int) {
	items = map[string]int{}
	k := r.next // the todo entries from k on may be under way
	for i := range units {
		// units[i] is not read for a file still to read: a worker writes it
		if k < len(r.todo) && r.todo[k] == i {
			k++
			if rest, ok := strings.CutPrefix(sorted[i].Path, "content/"); ok {
				typ, _, _ := strings.Cut(rest, "/")
				items[typ]++
			} else {
				pages++
			}
			continue
		}
		pages += units[i].count(items)
	}
	return pages, items
}

// readPageUnit reads a file under pages/; rel is the path below pages/.
func readPageUnit(f File, rel string, env readEnv) *unit {
	p, homeSet, err := readPage(f, rel, env)
	return &unit{page: p, homeSet: homeSet, err: err}
}

// readItemUnit reads a file under content/<typ>/; rel is the path below.
func readItemUnit(f File, typ, rel string, env readEnv) *unit {
	if !ValidType(typ) {
		return &unit{err: problemAt(0, "content type folder %q is not a valid type name: use lower-case letters, digits, '_' and '-', starting with a letter or digit, at most %d characters", typ, MaxTypeLen)}
	}
	iu := new(itemUnit) // the unit and its item: one object
	it := &iu.it
	if err := readItemTo(it, f, typ, rel, env); err != nil {
		return &unit{err: err}
	}
	iu.u = unit{item: it}
	return &iu.u
}
