package content

import (
	"slices"
	"strings"

	"github.com/folio-cms/folio/content/chunks"
)

// AssembleChanged is Assemble of files that are the last call's files but
// for the paths in changed (in path order; added, deleted or changed; a
// path in neither is skipped), as
// a loader that diffs two commits' trees knows them. When the last call
// read the files as they are (no locales, no Hugo, Astro or Decap
// renaming) and every changed path is a page or an item (not a model,
// config or section file), only the changed files are read and the last
// site is patched: the work is in proportion to the change, not to the
// site. Otherwise, or when files do not match the last call's with those
// changes, it is Assemble. The result is Assemble's either way.
func (as *Assembler) AssembleChanged(files chunks.List[File], changed []string) (*Site, []Problem) {
	as.mu.Lock()
	site, problems, ok := as.assembleChanged(files, changed)
	as.mu.Unlock()
	if ok {
		return site, problems
	}
	return as.Assemble(files.Slice())
}

// ordinaryPath tells whether p is a page or item file that no whole-site
// pass of Assemble reads (the locales, the Markdown and URL settings, the
// Hugo, Astro and Decap renamings, the model files): content/<type>/…
// (not a Hugo section page) or pages/….
func ordinaryPath(p string) bool {
	if ModelFile(p) || DecapConfigFile(p) {
		return false
	}
	if rest, ok := strings.CutPrefix(p, "content/"); ok {
		return strings.Contains(rest, "/") && !sectionPageLang(rest)
	}
	return strings.HasPrefix(p, "pages/")
}

// assembleChanged is AssembleChanged's patch; ok is false when it does
// not apply (nothing of the last call was changed then).
func (as *Assembler) assembleChanged(files chunks.List[File], changed []string) (*Site, []Problem, bool) {
	last := as.last
	if !as.asRead || as.plain || as.loc != nil || last == nil || as.reread != nil || len(changed) > maxPatched {
		return nil, nil, false
	}
	for _, p := range changed {
		if !ordinaryPath(p) || bundleChange(last.files, files, p) {
			return nil, nil, false
		}
	}
	units, accepted, changes, ok := as.readChanged(files, changed)
	if !ok {
		return nil, nil, false
	}
	next, ok := as.patch(files, units, accepted, changes)
	if ok {
		as.patched++
	} else {
		next = assembleUnits(files.Slice(), slices.Clone(units.Slice()), slices.Clone(accepted.Slice()))
	}
	as.last = next
	as.fromChanges++
	site, problems := as.rereadStale(files, next.site, slices.Clone(next.problems))
	return site, problems, true
}

// readChanged is readUnits of files that are the last call's but for the
// changed paths: the units of the others are the last call's, moved by
// the paths added and deleted before them; ok is false when files and the
// last call's do not differ by exactly those paths.
// The units and accepted flags are the last call's lists patched: only
// their chunks a change falls in are copied.
func (as *Assembler) readChanged(files chunks.List[File], changed []string) (units chunks.List[*unit], accepted chunks.List[bool], changes []change, ok bool) {
	last := as.last
	var steps []chunks.Step
	var read []int // the new units to read, in files
	oi, ni := 0, 0 // the next file of last.files and of files not copied yet
	for _, p := range changed {
		o, inOld := findPath(last.files, p)
		n, inNew := findPath(files, p)
		if !inOld && !inNew {
			continue // in neither: no change (a path of a commit between)
		}
		if o < oi || n < ni || o-oi != n-ni {
			return units, accepted, nil, false
		}
		if o > oi {
			steps = append(steps, chunks.Step{From: oi, To: o})
		}
		c := change{old: -1, new: -1}
		oi, ni = o, n
		if inOld {
			c.old = o
			oi++
		}
		if inNew {
			c.new = n
			ni++
			steps = append(steps, chunks.Step{From: -1})
			read = append(read, n)
		}
		if relevantPlain(p) {
			changes = append(changes, c)
		}
	}
	if last.files.Len()-oi != files.Len()-ni {
		return units, accepted, nil, false
	}
	if n := last.units.Len(); oi < n {
		steps = append(steps, chunks.Step{From: oi, To: n})
	}
	units, accepted = last.units.Patch(steps), last.accepted.Patch(steps)
	for _, i := range read {
		as.readUnit(files, i, &units)
	}
	return units, accepted, changes, true
}

// readUnit reads files[i] into units[i] as readUnits does.
func (as *Assembler) readUnit(files chunks.List[File], i int, units *chunks.List[*unit]) {
	f := files.At(i)
	if !relevantPlain(f.Path) || f.Err != nil || f.Doc == nil {
		return
	}
	f.markup, f.links = as.markup, as.links
	if rel, ok := strings.CutPrefix(f.Path, "pages/"); ok {
		*units.Mut(i) = readPageUnit(f, rel, as.env)
		return
	}
	if segs := strings.SplitN(f.Path, "/", 3); len(segs) == 3 && segs[0] == "content" {
		*units.Mut(i) = readItemUnit(f, segs[1], segs[2], as.env)
	}
}
