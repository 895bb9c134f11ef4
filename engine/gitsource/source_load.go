package gitsource

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
	"github.com/folio-cms/folio/content/fault"
)

// gitFile is one relevant blob (or symlink) of a commit's tree.
type gitFile struct {
	path string
	blob plumbing.Hash
	mode filemode.FileMode
}

// Load reads every relevant file of a commit, taking parsed documents from
// the cache and parsing the rest in parallel. Files that cannot be served
// (symlinks, oversized blobs, parse failures) come back with Err set; an
// error means the commit itself could not be read.
func (s *Source) Load(ctx context.Context, commit string) (*Tree, error) {
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("source: load %q: not a commit hash", commit)
	}
	h := plumbing.NewHash(commit)
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	start := time.Now()

	objects := cache.NewObjectLRU(loadCacheSize)
	st := s.openStorage(objects)
	defer st.Close()
	c, err := object.GetCommit(st, h)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	if s.walkTrees == nil {
		s.walkTrees = &looseTrees{objects: filepath.Join(s.gitDir, "objects")}
	}
	tc := &treeEntries{st: st, loose: s.walkTrees, m: map[plumbing.Hash][]object.TreeEntry{},
		read: map[plumbing.Hash][]object.TreeEntry{}, walked: map[plumbing.Hash]*dirRec{}}
	siteRoot, err := s.siteRootOf(tc, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	tc.root = siteRoot
	if siteRoot != s.SiteRoot() {
		s.lastRoot = nil // another folder: nothing of the last walk applies
	}
	top, err := tc.siteTree(c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	if top.IsZero() {
		return nil, fmt.Errorf("source: load commit %s: the site root %s/ is not a folder of the commit", commit, siteRoot)
	}
	s.siteRoot.Store(&siteRoot)
	root, err := walkDir(tc, top, "", s.lastRoot, s.relevant)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	again, err := s.updateContentDirs(st, root)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	} else if again {
		// the locales read content from other folders now: walk
		// afresh, the folders' relevance changed
		if root, err = walkDir(tc, top, "", nil, s.relevant); err != nil {
			return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
		}
	}
	// A few files changed since the last Load: its lists, patched
	// (source_load_patch.go). Else every file, collected in tree order,
	// which is path order unless a tree is malformed: then they are
	// sorted.
	var prev lastLoad
	if s.last != nil {
		prev = *s.last
	}
	var steps []chunks.Step
	var ch treeChanges
	var files chunks.List[gitFile]
	patched := false
	if !again && prev.root != nil && prev.root == s.lastRoot {
		var ok bool
		if ch, ok = changesSince(prev.root, root, tc.spans); ok {
			if steps, ok = patchPlan(prev.files, ch); ok {
				files = prev.files.Patch(steps)
				for k, i := range chunks.Added(steps) {
					*files.Mut(i) = ch.added[k]
				}
				files.Seal()
				patched = true
			}
		}
	}
	if !patched {
		flat := make([]gitFile, 0, root.total)
		root.collect(&flat)
		if !slices.IsSortedFunc(flat, gitFileOrder) {
			slices.SortFunc(flat, gitFileOrder)
		}
		files = chunks.Of(flat)
	}

	// the paths this commit changed from its parent, when the last Load
	// was of the parent: the walks' diff
	var fromParent []string
	if patched && len(c.ParentHashes) > 0 && c.ParentHashes[0].String() == prev.commit {
		fromParent = ch.changedPaths()
	}
	times, walked, ids, err := s.attribute(ctx, tc, c, files, fromParent)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: history: %w", commit, err)
	}
	// The times are the last Load's but for the paths this commit
	// changed: an unchanged file keeps its Updated, no lookup.
	sameTimes := ids.parent != 0 && ids.parent == prev.timesID
	// Or this commit and the last Load's are children of one parent
	// whose times both took (two branches one commit ahead of the
	// served one): the times are the last Load's but for the paths
	// either changed from the parent, given their time again below
	// (one of the two sets would do: a file one of them changed and
	// the other has alike is changed in both).
	siblings := !sameTimes && ids.parent != 0 && ids.parent == prev.parentTimes && prev.fromParent != nil && ids.fromParent != nil &&
		len(prev.fromParent)+len(ids.fromParent) <= maxPatchedFiles
	patched = patched && (sameTimes || siblings)

	gen := s.docs.begin()
	var out chunks.List[content.File]
	var entries chunks.List[*docEntry]
	misses := map[docKey][]int{} // one parse per distinct blob and extension
	hits := 0
	samePaths := false   // the paths are the last Load's, in order
	var retimed []string // unchanged files whose Updated is not the last Load's
	if patched {
		out = prev.out.Patch(steps)
		entries = prev.docs.Patch(steps)
		samePaths = ch.samePaths()
		// one file that is not the last Load's
		load := func(get func(docKey) *docEntry, i int) {
			f := files.At(i)
			o, e := out.Mut(i), entries.Mut(i)
			*o, *e = loadFile(get, gen, f, timeOf(times, f.path))
			if *e != nil {
				hits++
				s.docs.taken(newDocKey(f.blob, f.path), *e)
			} else if o.Err == nil {
				k := newDocKey(f.blob, f.path)
				misses[k] = append(misses[k], i)
			}
		}
		s.docs.lookup(gen, func(get func(docKey) *docEntry) {
			// The documents of the files gone may be in no list now:
			// the sweep looks at them (and those of the files added
			// are used).
			s.docs.leave(prev.files, prev.docs, ch.gone)
			for _, i := range chunks.Added(steps) {
				load(get, i)
			}
			if siblings {
				for _, set := range []map[string]bool{prev.fromParent, ids.fromParent} {
					for p := range set {
						if i, found := findFile(files, p); found && out.Ptr(i).Updated != timeOf(times, p) {
							out.Mut(i).Updated = timeOf(times, p)
							retimed = append(retimed, p) // a change too
						}
					}
				}
			}
			// Failures are read again: a corrupt object may have
			// been repaired.
			for _, p := range prev.failed {
				i, found := findFile(files, p)
				if found && entries.At(i) == nil && out.Ptr(i).Doc == nil && files.Ptr(i).mode != filemode.Symlink {
					load(get, i)
				}
			}
		})
	} else {
		flatFiles := files.Slice()
		flatOut := make([]content.File, len(flatFiles))
		flatEntries := make([]*docEntry, len(flatFiles))
		if s.last == nil && s.cfg.LookupFirstMin >= 0 && len(flatFiles) >= s.cfg.LookupFirstMin {
			// the first Load of a large site (a start): source_load_first.go
			s.docs.lookup(gen, func(get func(docKey) *docEntry) {
				hits = lookupFirst(get, gen, flatFiles, times, flatOut, flatEntries, misses)
			})
		} else {
			s.docs.lookup(gen, func(get func(docKey) *docEntry) {
				hits, samePaths = lookupAll(get, gen, &prev, flatFiles, times, sameTimes, flatOut, flatEntries, misses)
			})
		}
		out, entries = chunks.Of(flatOut), chunks.Of(flatEntries)
	}
	// the first Load of a large site holds what it parses in the parse
	// cache's form (source_load_encode.go)
	encode := s.last == nil && s.cfg.Parse == nil && s.cfg.EncodeFirstMin >= 0 && len(misses) >= s.cfg.EncodeFirstMin
	parsed, decoded, err := s.parseMisses(ctx, objects, misses, func(i int) *content.File { return out.Mut(i) }, encode)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	s.lastRoot = root
	added := s.docs.finish(gen, parsed, decoded, hits, walked, time.Since(start), !patched)
	for k, idx := range misses {
		if e := added[k]; e != nil {
			for _, i := range idx {
				*entries.Mut(i) = e
			}
		}
	}
	out.Seal()
	entries.Seal()
	s.keepReadTrees(tc)
	pathsID := s.pathsSeq.Add(1)
	if samePaths && s.last != nil {
		pathsID = s.last.pathsID
	}
	var failed []string
	if patched {
		for _, p := range prev.failed {
			if i, found := findFile(files, p); found && entries.At(i) == nil {
				failed = append(failed, p)
			}
		}
		for _, i := range chunks.Added(steps) {
			if entries.At(i) == nil && files.Ptr(i).mode != filemode.Symlink {
				failed = append(failed, files.Ptr(i).path)
			}
		}
		slices.Sort(failed)
	} else {
		for i, e := range entries.All() {
			if *e == nil && files.Ptr(i).mode != filemode.Symlink {
				failed = append(failed, files.Ptr(i).path)
			}
		}
	}
	s.last = &lastLoad{files: files, out: out, docs: entries, failed: failed, root: root, parentTimes: ids.parent, fromParent: ids.fromParent, commit: h.String(), timesID: ids.self, pathsID: pathsID}
	t := &Tree{Commit: h.String(), Time: c.Committer.When.UTC(), Files: out, PathsID: pathsID}
	if patched {
		t.Base, t.Changed = prev.commit, fromParent
		if fromParent == nil {
			t.Changed = ch.changedPaths()
		}
		if len(retimed) > 0 {
			t.Changed = slices.Compact(slices.Sorted(slices.Values(slices.Concat(t.Changed, retimed))))
		}
	}
	return t, nil
}

// loadFile is the content.File of f, a file that is not the last Load's,
// and its cache entry (get's, marked used by gen), nil when its document
// is not cached (to parse) or it is a symlink (Err set).
func loadFile(get func(docKey) *docEntry, gen uint64, f gitFile, updated time.Time) (content.File, *docEntry) {
	out := content.File{Path: f.path, Blob: blobName(f.blob), Updated: updated}
	if f.mode == filemode.Symlink {
		// The link target could be anything on this machine
		// (/etc/passwd); it is never resolved or read.
		out.Err = content.Problem{Path: f.path, Message: "symlink not followed"}
		return out, nil
	}
	e := get(newDocKey(f.blob, f.path))
	if e != nil {
		e.used = gen
		out.Doc = e.doc
	}
	return out, e
}

// lookupAll is a Load's pass over every file when it does not patch the
// last one's lists: a file the last Load had the same takes its
// content.File and entry, the others are looked up (misses: those to
// parse). It returns the hits and whether the paths are the last Load's.
func lookupAll(get func(docKey) *docEntry, gen uint64, prev *lastLoad, files []gitFile, times *timeMap, sameTimes bool, out []content.File, entries []*docEntry, misses map[docKey][]int) (hits int, samePaths bool) {
	at := times.cursor() // the files are in path order
	load := func(i int) {
		f := files[i]
		out[i], entries[i] = loadFile(get, gen, f, at.timeOf(f.path))
		if entries[i] != nil {
			hits++
		} else if out[i].Err == nil {
			k := newDocKey(f.blob, f.path)
			misses[k] = append(misses[k], i)
		}
	}
	prevFiles, prevOut, prevDocs := prev.files.Slice(), prev.out.Slice(), prev.docs.Slice()
	samePaths = len(files) == len(prevFiles)
	j := 0
	for i, f := range files {
		for j < len(prevFiles) && prevFiles[j].path < f.path {
			j++
		}
		samePaths = samePaths && j == i && prevFiles[j].path == f.path
		unchanged := j < len(prevFiles) && prevFiles[j] == f
		// A file the last Load had the same (path, blob, mode) has the
		// same document: no lookup by key. Both lists are in path
		// order.
		if !unchanged || prevDocs[j] == nil {
			load(i)
			if unchanged && sameTimes {
				out[i].Updated = prevOut[j].Updated
			}
			continue
		}
		out[i] = prevOut[j] // no hex string per file per push
		if !sameTimes {
			out[i].Updated = at.timeOf(f.path)
		}
		prevDocs[j].used = gen
		entries[i] = prevDocs[j]
		hits++
	}
	return hits, samePaths
}

// findFile is the index of path p in files, and whether it is there.
func findFile(files chunks.List[gitFile], p string) (int, bool) {
	return files.Search(func(f *gitFile) int { return strings.Compare(f.path, p) })
}

// keepReadTrees keeps the trees tc decoded for LooseTree, when they are
// few (a push's). It keeps a pointer to the map, not to tc's field:
// that would keep all of tc alive until the next Load (the Load's trees,
// its storage, its object cache with the packed trees' bytes, the pack's
// index: 1.7 MB at ready of a 10k restart).
func (s *Source) keepReadTrees(tc *treeEntries) {
	if len(tc.read)+len(tc.walked) >= maxReadTrees {
		s.loadedTrees.Store(nil)
		return
	}
	s.loadedTrees.Store(&readTrees{flat: tc.read, recs: tc.walked})
}

// readTrees are the trees a Load decoded: read whole (flat) or by parts
// (recs, their entries made one slice when asked for).
type readTrees struct {
	flat map[plumbing.Hash][]object.TreeEntry
	recs map[plumbing.Hash]*dirRec
}

// lastLoad is what the last Load read: its files in path order, the cache
// entry of each one's document (nil: none, e.g. a parse failure), their
// Updated times, and the id of the stored attribution those are.
type lastLoad struct {
	files  chunks.List[gitFile]
	out    chunks.List[content.File] // Tree.Files: each file's blob in hex, document, Updated
	docs   chunks.List[*docEntry]
	failed []string // the paths of files whose document failed (not symlinks), in path order
	root   *dirRec  // the walk the files are of
	// parentTimes is the id of the parent's times this Load's were made
	// from (0: none), fromParent the paths whose time is not the
	// parent's.
	parentTimes uint64
	fromParent  map[string]bool
	commit      string
	timesID     uint64
	pathsID     uint64 // Tree.PathsID
}

func gitFileOrder(a, b gitFile) int { return strings.Compare(a.path, b.path) }

// dirRec is one folder of the last loaded commit: its tree and the relevant
// files directly in it, and its subfolders, in parts (dirPart,
// source_tree_parts.go). A Load keeps the records of the previous one, so
// a folder whose tree hash did not change is not read again: a one-file
// push decodes only the trees on that file's path, and in those it takes
// the parts whose bytes did not change as they are, and the path (and
// relevance) of every other entry the previous tree had under the same
// name and mode from the previous record.
type dirRec struct {
	hash  plumbing.Hash
	parts []*dirPart // each with at least one entry
	total int        // relevant files here and below
	// sorted tells that the files were found in path order (diffRecs).
	sorted bool
	// zs is the tree's loose stream when it was big and deflated, for
	// the next read of the folder to resume from (source_tree_resume.go).
	zs *zStream
}

// collect appends the files here and below in tree order. Git orders a
// folder as if its name ended in "/", so tree order is the order of the
// full paths, as long as the trees are well-formed.
func (d *dirRec) collect(out *[]gitFile) {
	for _, p := range d.parts {
		i := 0
		for k, kid := range p.dirs {
			*out = append(*out, p.files[i:p.before[k]]...)
			i = int(p.before[k])
			kid.collect(out)
		}
		*out = append(*out, p.files[i:]...)
	}
}

// maxPathLen bounds the paths of a tree (a folder's path is held while
// its subfolders are walked: a tree nested 100000 deep held 10 GB of
// paths). No file system checks out a longer one (Linux's PATH_MAX is
// 4096).
const maxPathLen = 4096

// errPathTooLong is Unprocessable: a listing of the files (an editor's
// request) that meets such a path is a 422, not a 500.
var errPathTooLong = fault.New(fault.Unprocessable, "a path longer than %d bytes", maxPathLen)

// checkPathLen is an error when the path prefix+name is over
// maxPathLen: the walks of trees (a Load's, the history's, a listing's)
// check each entry before they go into it.
func checkPathLen(prefix, name string) error {
	if len(prefix)+len(name) < maxPathLen {
		return nil
	}
	return fmt.Errorf("tree %s: %w", shortPath(prefix+name), errPathTooLong)
}

// shortPath is p, cut to its start and end when it is long.
func shortPath(p string) string {
	if len(p) <= 120 {
		return p
	}
	return p[:60] + "…" + p[len(p)-60:]
}

// walkDir lists the relevant regular files and symlinks below tree h at
// prefix, reusing old (the record at the same place in the previous Load)
// when its tree is the same, and its parts and its entries' paths and
// relevance otherwise. Submodules are skipped: their commits are not in
// this repository. The trees it reads, and those of old along the way, go
// into tc for the history walk.
func walkDir(tc *treeEntries, h plumbing.Hash, prefix string, old *dirRec, relevant func(string) bool) (*dirRec, error) {
	if old != nil {
		tc.putRec(old)
		if old.hash == h {
			return old, nil
		}
	}
	if d, ok, err := walkLoose(tc, h, prefix, old, relevant); err != nil || ok {
		return d, err
	}
	entries, err := tc.get(h)
	if err != nil {
		return nil, fmt.Errorf("tree %s%s: %w", prefix, h, err)
	}
	d := &dirRec{hash: h, parts: cutParts(entries, "", nil)}
	var cur *dirParts
	if old != nil {
		cur = &dirParts{parts: old.parts}
	}
	for _, p := range d.parts {
		if err := p.fill(tc, prefix, cur, relevant); err != nil {
			return nil, err
		}
	}
	d.count()
	return d, nil
}

// relevant tells whether a Load reads path p: SourceConfig.Relevant's
// files, and those in the folders outside content/ the site's locales
// read their content from (content.ContentDirs).
func (s *Source) relevant(p string) bool {
	if s.cfg.Relevant(p) {
		return true
	}
	if d := s.contentDirs.Load(); d != nil {
		return content.RelevantIn(p, *d)
	}
	return false
}

// updateContentDirs reads the locale configuration files of the walked
// tree (content.LocaleConfigFile) when they are not those of the last
// Load, and tells whether the folders the locales read content from
// changed (then the tree must be walked again).
func (s *Source) updateContentDirs(st storer.EncodedObjectStorer, root *dirRec) (bool, error) {
	// Only folio.yaml and a Hugo config name contentDirs: the root's
	// files and those of config/_default/ (a Decap config has none).
	var cfg []gitFile
	add := func(f *gitFile) { cfg = append(cfg, *f) }
	root.eachFile(add)
	if c := root.kid("config"); c != nil {
		if d := c.kid("_default"); d != nil {
			d.eachFile(add)
		}
	}
	cfg = slices.DeleteFunc(cfg, func(f gitFile) bool { return !content.LocaleConfigFile(f.path) })
	// An Astro content config places collections outside src/content/
	// (a glob() loader's base)
	if src := root.kid("src"); src != nil {
		addAstro := func(f *gitFile) {
			if content.AstroConfigFile(f.path) {
				cfg = append(cfg, *f)
			}
		}
		src.eachFile(addAstro)
		if c := src.kid("content"); c != nil {
			c.eachFile(addAstro)
		}
	}
	// A Decap config places collections outside content/ and pages/:
	// the admin/ folders a Decap config may be in.
	root.adminConfigs(0, &cfg)
	if s.localeCfg != nil && slices.Equal(*s.localeCfg, cfg) {
		return false, nil
	}
	files := make([]content.File, 0, len(cfg))
	for _, f := range cfg {
		if f.mode == filemode.Symlink {
			continue
		}
		b, err := object.GetBlob(st, f.blob)
		if err != nil {
			if corruptObject(err) {
				continue
			}
			return false, err
		}
		if b.Size > content.MaxFileSize {
			continue
		}
		r, err := b.Reader()
		if err != nil {
			return false, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return false, err
		}
		doc, _ := content.Parse(f.path, data)
		files = append(files, content.File{Path: f.path, Doc: doc})
	}
	slices.SortFunc(files, func(a, b content.File) int { return strings.Compare(a.Path, b.Path) })
	s.localeCfg = &cfg
	dirs := content.ContentDirs(files)
	old := s.contentDirs.Load()
	if old == nil && len(dirs) == 0 || old != nil && slices.Equal(*old, dirs) {
		return false, nil
	}
	if len(dirs) == 0 {
		s.contentDirs.Store(nil)
	} else {
		s.contentDirs.Store(&dirs)
	}
	return true, nil
}

// adminConfigs appends the Decap configs (content.DecapConfigFile) of d
// at depth (0 for the root) and below, down to admin/ folders three
// deep, in path order.
func (d *dirRec) adminConfigs(depth int, out *[]gitFile) {
	if depth > 3 {
		return
	}
	if first := d.firstFile(); depth == 0 || first == nil || !strings.Contains(path.Dir(first.path)+"/", "admin/") {
		// none of the files here is in an admin/ folder: only the
		// subfolders are looked into (not each of the entries of a
		// folder of 50k posts)
		for _, p := range d.parts {
			for _, kid := range p.dirs {
				kid.adminConfigs(depth+1, out)
			}
		}
		return
	}
	for _, p := range d.parts {
		for i, e := range p.entries {
			switch {
			case e.Mode == filemode.Dir && p.slot[i] >= 0:
				p.dirs[p.slot[i]].adminConfigs(depth+1, out)
			case p.slot[i] >= 0 && e.Mode != filemode.Dir:
				if f := p.files[p.slot[i]]; content.DecapConfigFile(f.path) {
					*out = append(*out, f)
				}
			}
		}
	}
}

// kid is the subfolder name of d; nil when it has none.
func (d *dirRec) kid(name string) *dirRec {
	if p, i := d.entry(name, filemode.Dir); p != nil && p.slot[i] >= 0 {
		return p.dirs[p.slot[i]]
	}
	return nil
}
