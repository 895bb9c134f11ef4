package engine

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/gitsource"
)

// Defaults of the ref snapshot cache (Config.RefCacheBytes, RefIdle).
const (
	defaultRefCacheBytes = 256 << 20
	defaultRefIdle       = 10 * time.Minute
	// refFetchEvery bounds the on-demand fetches of a remote site for a
	// ref it does not have yet.
	refFetchEvery = 5 * time.Second
)

// Estimated cost of a ref snapshot (see refCost): the maps and views of
// every document, and the resources of the documents it does not share
// with the published snapshot.
const (
	refCostPerDoc     = 160
	refCostPerOwnDoc  = 4 << 10
	refCostMinimum    = 64 << 10
	refCostPerProblem = 256
)

// refCache keeps snapshots of refs other than the served branches, by
// commit, bounded by their estimated memory and dropped when idle. A
// snapshot is built once however many requests ask for it at once.
type refCache struct {
	mu      sync.Mutex
	max     int64
	idle    time.Duration
	bytes   int64
	entries map[string]*refEntry // by commit
	lru     list.List            // of *refEntry, most recently used first
	flights map[string]*refFlight

	fetchMu   sync.Mutex
	lastFetch time.Time
}

type refEntry struct {
	commit string
	snap   *Snapshot
	cost   int64
	used   time.Time
	elem   *list.Element
}

type refFlight struct {
	done chan struct{}
	snap *Snapshot
	err  error
}

func newRefCache(max int64, idle time.Duration) *refCache {
	if max <= 0 {
		max = defaultRefCacheBytes
	}
	if idle <= 0 {
		idle = defaultRefIdle
	}
	return &refCache{max: max, idle: idle, entries: map[string]*refEntry{}, flights: map[string]*refFlight{}}
}

// RefStats describes the ref snapshot cache (for status and metrics).
type RefStats struct {
	Snapshots int   `json:"snapshots"`
	Bytes     int64 `json:"estimatedBytes"`
	MaxBytes  int64 `json:"maxBytes"`
}

// RefCached tells whether a ref at that commit is served without a build:
// the published or draft snapshot, or one in the ref cache.
func (e *Engine) RefCached(commit string) bool {
	if p := e.published.Load(); p != nil && p.Commit == commit {
		return true
	}
	if d := e.draft.Load(); d != nil && d.Commit == commit {
		return true
	}
	c := e.refs
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[commit]
	return ok
}

// RefStats reports the ref snapshot cache.
func (e *Engine) RefStats() RefStats {
	c := e.refs
	c.mu.Lock()
	defer c.mu.Unlock()
	return RefStats{Snapshots: len(c.entries), Bytes: c.bytes, MaxBytes: c.max}
}

// Refs lists the branches and tags that may be served (Config.Refs).
func (e *Engine) Refs() ([]Ref, error) {
	all, err := e.src.Refs()
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, r := range all {
		if e.cfg.Refs.Allows(r.Kind, r.Name) {
			out = append(out, r)
		}
	}
	return out, nil
}

// ResolveRef finds a ref that may be served; a remote site is fetched (at
// most every few seconds) for a ref it does not have yet. A client's
// mistake is a fault.Error with a message for the client: fault.Invalid
// for a malformed name (ErrBadRef) or a short hash of several commits
// (AmbiguousRefError), fault.RefNotFound (ErrRefNotFound) for a ref that
// is not served.
func (e *Engine) ResolveRef(ctx context.Context, name string) (Ref, error) {
	ref, err := e.resolveRef(ctx, name)
	if err != nil {
		return Ref{}, refFault(name, err)
	}
	return ref, nil
}

func (e *Engine) resolveRef(ctx context.Context, name string) (Ref, error) {
	ref, err := e.src.ResolveRef(name)
	if errors.Is(err, ErrRefNotFound) && e.src.Remote() && e.refs.fetchAllowed(e.cfg.Now()) {
		if ferr := e.src.Fetch(ctx); ferr != nil {
			e.cfg.Logger.Warn("fetch for a ref", "ref", name, "err", ferr)
		} else {
			ref, err = e.src.ResolveRef(name)
		}
	}
	if err != nil {
		return Ref{}, err
	}
	if !e.cfg.Refs.Allows(ref.Kind, ref.Name) {
		return Ref{}, ErrRefNotFound
	}
	return ref, nil
}

func (c *refCache) fetchAllowed(now time.Time) bool {
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	if now.Sub(c.lastFetch) < refFetchEvery {
		return false
	}
	c.lastFetch = now
	return true
}

// RefSnapshot returns the snapshot of a resolved ref: the served one when
// the ref points at the published or draft commit, else one built from the
// Git objects (sharing the parse cache and the unchanged documents of the
// published snapshot) and kept in the ref cache.
func (e *Engine) RefSnapshot(ctx context.Context, ref Ref) (*Snapshot, error) {
	if p := e.published.Load(); p != nil && p.Commit == ref.Commit {
		return p, nil
	}
	if d := e.draft.Load(); d != nil && d.Commit == ref.Commit {
		return d, nil
	}
	c := e.refs
	now := e.cfg.Now()
	c.mu.Lock()
	c.dropIdle(now)
	if en := c.entries[ref.Commit]; en != nil {
		en.used = now
		c.lru.MoveToFront(en.elem)
		c.mu.Unlock()
		return en.snap, nil
	}
	f := c.flights[ref.Commit]
	if f == nil {
		f = &refFlight{done: make(chan struct{})}
		c.flights[ref.Commit] = f
		c.mu.Unlock()
		go e.buildRef(ref, f)
	} else {
		c.mu.Unlock()
	}
	select {
	case <-f.done:
		return f.snap, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// buildRef builds the snapshot of ref and settles the flight. It runs on
// its own, not under a request's context: the requests waiting for it may
// go away, and the next one would start it again.
func (e *Engine) buildRef(ref Ref, f *refFlight) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	snap, err := e.loadRef(ctx, ref)
	c := e.refs
	c.mu.Lock()
	delete(c.flights, ref.Commit)
	if err == nil {
		en := &refEntry{commit: ref.Commit, snap: snap, cost: refCost(snap, e.published.Load()), used: e.cfg.Now()}
		en.elem = c.lru.PushFront(en)
		c.entries[ref.Commit] = en
		c.bytes += en.cost
		c.evict()
	}
	c.mu.Unlock()
	f.snap, f.err = snap, err
	close(f.done)
}

func (e *Engine) loadRef(ctx context.Context, ref Ref) (*Snapshot, error) {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	start := time.Now()
	tree, err := e.src.Load(ctx, ref.Commit)
	if err != nil {
		return nil, err
	}
	as := new(content.Assembler)
	if pub := e.assemblers[e.cfg.Branch]; pub != nil {
		as = pub.Fork()
	}
	pub := e.published.Load()
	pubCommit := ""
	if pub != nil {
		pubCommit = pub.Commit
	}
	td := e.loadDiffs.next(tree, pubCommit)
	site, problems := e.assemble(as, e.cfg.Branch, tree, td)
	ms := e.models[e.cfg.Branch].fork()
	ms.diff = ms.diffFrom(td)
	site, modelProblems, held := ms.applyModel(site, tree.Files, pub, ref.Commit)
	if len(modelProblems) > 0 {
		problems = slices.Concat(problems, modelProblems)
		slices.SortStableFunc(problems, func(a, b content.Problem) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
		})
	}
	snap := newSnapshot(ref.Name, tree, site, problems, e.cfg.Now(), pub)
	snap.Held, snap.Model, snap.mediaBases = held, ms.model, e.cfg.MediaBases
	e.cfg.Logger.Info("ref snapshot built", "ref", ref.Name, "commit", ref.Commit,
		"files", tree.Files.Len(), "problems", len(problems), "took", time.Since(start).Round(time.Microsecond))
	return snap, nil
}

// refCost estimates what a ref snapshot holds beyond what it shares with
// the published one.
func refCost(s, pub *Snapshot) int64 {
	docs, own := len(s.pageRes), 0
	for p, en := range s.pageRes {
		if pub == nil || pub.pageRes[p] != en {
			own++
		}
	}
	for typ, m := range s.itemRes {
		docs += m.len()
		var pm *resMap
		if pub != nil {
			pm = pub.itemRes[typ]
		}
		for it, r := range m.all() {
			if pr, _ := pm.get(it); pr != r {
				own++
			}
		}
	}
	return refCostMinimum + int64(docs)*refCostPerDoc + int64(own)*refCostPerOwnDoc + int64(len(s.Problems))*refCostPerProblem
}

// evict drops the least recently used snapshots while over the bound
// (keeping the newest one, whatever its size); under c.mu.
func (c *refCache) evict() {
	for c.bytes > c.max && c.lru.Len() > 1 {
		c.remove(c.lru.Back().Value.(*refEntry))
	}
}

// dropIdle drops the snapshots unused for the idle time; under c.mu.
func (c *refCache) dropIdle(now time.Time) {
	for el := c.lru.Back(); el != nil; {
		en := el.Value.(*refEntry)
		if now.Sub(en.used) < c.idle {
			return
		}
		el = el.Prev()
		c.remove(en)
	}
}

func (c *refCache) remove(en *refEntry) {
	c.lru.Remove(en.elem)
	delete(c.entries, en.commit)
	c.bytes -= en.cost
}

// SourcePath is the repository path of the file a page or item resource
// was read from; "" for other resources.
func (r *Resource) SourcePath() string {
	switch v := docValue(r.value).(type) {
	case *content.Page:
		return v.Meta.Path
	case *content.Item:
		return v.Meta.Path
	}
	return ""
}

// fork copies the model state of a branch for a snapshot of another ref:
// the compiled model and the validation results of the documents both
// share are reused; the two go on independently. nil forks to an empty
// state.
func (ms *modelState) fork() *modelState {
	if ms == nil {
		return new(modelState)
	}
	// The results are shared, not copied: they are by document and type
	// model, the same for any branch with this model (a fork whose
	// model files differ compiles its own and starts a map of its own),
	// and every load that adds to them holds the engine's reloadMu. The
	// last checks are only read.
	return &modelState{
		files: maps.Clone(ms.files), model: ms.model, problems: slices.Clone(ms.problems),
		results: ms.results, typeSlices: maps.Clone(ms.typeSlices),
		lastChecks: ms.lastChecks, lastFound: ms.lastFound, checkedAt: ms.checkedAt, checkedModel: ms.checkedModel,
		lastResources: ms.lastResources,
	}
}

// refFault is err, an error of resolving the ref name, as the client is
// told it (the cause stays in the chain for errors.Is and errors.As).
func refFault(name string, err error) error {
	var amb *AmbiguousRefError
	switch {
	case errors.Is(err, ErrBadRef):
		return fault.Wrap(fault.Invalid, err, "ref: not a branch, tag or commit name (at most %d characters, no '..', spaces, control characters or any of ~^:?*[\\)", gitsource.MaxRefName)
	case errors.As(err, &amb):
		return fault.Wrap(fault.Invalid, err, "ref: %d commits start with %q; give more digits", amb.Candidates, amb.Ref)
	case errors.Is(err, ErrRefNotFound):
		return fault.Wrap(fault.RefNotFound, err, "no branch, tag or commit %q is served", clip(name, 80))
	}
	return err
}

// clip shortens s to at most n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
