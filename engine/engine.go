// Package engine turns a Git branch into immutable snapshots of a site and
// keeps them current: it loads a commit off to the side, swaps the new
// snapshot in atomically, and keeps the last good one when a commit fails.
package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/gitauth"
	"github.com/folio-cms/folio/engine/gitsource"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
)

// Config configures an Engine.
type Config struct {
	Site   string // local repository path or remote URL
	Branch string // published branch; when empty, the repository's default (Source.DefaultBranch)
	// Root is the site root, a folder of the repository the site is read
	// from (SourceConfig.Root).
	Root string
	// GitAuth are the credentials of a remote site (SourceConfig.GitAuth).
	GitAuth     gitauth.Options
	DraftBranch string // optional branch served to draft=true requests
	CacheDir    string // clones of remote sites and the parsed-document cache
	// MediaExists, when set, also checks the media references of
	// published documents (content.ReferenceProblems): `folio check
	// --media`. A server leaves it nil: media change without a reload, so
	// a problem list computed at load would go stale.
	MediaExists func(content.Ref) bool
	// MediaBases are the media library's absolute URL bases, each ending
	// in "/" (content.RefReader): a reference written as such a URL
	// names the media item of the storage key that follows, as an
	// "/uploads/<key>" path does. Empty: only /uploads/ paths.
	MediaBases []string
	// Poll is how often a remote site is fetched; 0 disables polling
	// (webhooks and Sync still work). Local repositories are watched.
	Poll   time.Duration
	Logger *slog.Logger
	Now    func() time.Time
	// After is the scheduler's timer (scheduled publishes and expiries)
	// on Now's clock: a channel that receives once Now has moved on by d,
	// and a func that stops it. Default: time.NewTimer's. A test that
	// moves Now by hand sets both, so the instants come when it says.
	After func(d time.Duration) (<-chan time.Time, func() bool)
	// OnSwap, when set, is called after a new snapshot of the published
	// branch has replaced the one served (not for the first load), with
	// both, in the order of the swaps. It runs on the reload path: it must
	// return at once and leave the heavy work (ChangedKeys) to another
	// goroutine.
	OnSwap func(old, new *Snapshot)
	// Search keeps a search index of the content (see Engine.Search),
	// built in the background after Open and following every reload.
	Search bool
	// SearchState, when set (with CacheDir), is the bucket's state area:
	// the box that builds the published branch's search index publishes
	// a snapshot of it there, and a fresh box fetches the newest one and
	// catches up from it instead of building (docs/s3.md).
	SearchState media.StateStore
	// ParseCacheState, when set (with CacheDir), is the bucket's state
	// area for the parse cache: a box whose first load parsed the site
	// publishes its cache there (and again every 64 reloads or so), and
	// a box with no parse cache of its own fetches the newest one before
	// its first load (parsecache_share.go). search.FetchOnly: fetch
	// only (a read-only box).
	ParseCacheState media.StateStore
	// ParseCacheWait bounds the wait for the bucket's parse cache before
	// the first load (default 5 s, plus a second per 25 MB of the
	// object): a slow or failing bucket delays the start by no more.
	ParseCacheWait time.Duration
	// FetchTimeout bounds one fetch of a remote site (default
	// DefaultFetchTimeout): a remote that stops answering fails the fetch,
	// the last good snapshot keeps serving, and the next poll tries again.
	FetchTimeout time.Duration
	// OnReload, when set, is told of every attempt to load a new commit
	// and of every failed fetch (for metrics). It runs on the reload path
	// and must return at once.
	OnReload func(ReloadEvent)
	// Refs bounds the branches and tags that RefSnapshot serves (--refs);
	// empty: all of them, and commits.
	Refs RefPatterns
	// RefCacheBytes bounds the estimated memory of the snapshots of other
	// refs kept at once (--ref-cache-mb); RefIdle drops one unused that
	// long. Defaults: 256 MiB, 10 minutes.
	RefCacheBytes int64
	RefIdle       time.Duration
	// OnSchedule, when set, is told of every scheduled publish or expiry
	// of the published branch as it takes effect (the view is swapped at
	// that instant, not on the next request). It must return at once.
	OnSchedule func(ScheduleEvent)

	// lookupFirstMin is the source's SourceConfig.LookupFirstMin (tests
	// compare the first Load's parallel lookup with the serial one).
	lookupFirstMin int
	// encodeFirstMin is the source's SourceConfig.EncodeFirstMin (tests
	// compare a first start that decodes what it parsed with one that
	// keeps the parsed documents).
	encodeFirstMin int
}

// ReloadEvent is one attempt to load a commit of a branch, or a failed
// fetch of a remote site (Stage "fetch").
type ReloadEvent struct {
	Stage  string // "fetch", "resolve" or "load"
	Branch string
	Commit string
	Took   time.Duration // the load's duration; 0 for fetch and resolve
	Err    error         // nil: the commit was loaded and is served
}

func (e *Engine) reloaded(ev ReloadEvent) {
	if e.cfg.OnReload != nil {
		e.cfg.OnReload(ev)
	}
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.After == nil {
		c.After = func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		}
	}
}

// Engine serves the current snapshots of a site.
type Engine struct {
	cfg Config
	src *gitsource.Source

	published atomic.Pointer[Snapshot]
	draft     atomic.Pointer[Snapshot] // same as published when no draft branch

	reloadMu sync.Mutex // one reload at a time
	snapSeq  uint64     // the seq of the last snapshot loaded; under reloadMu
	// One Assembler per branch (published, draft), used under reloadMu:
	// a reload reads only the files that changed.
	assemblers map[string]*content.Assembler
	// assembledAt is the commit of each Assembler's last call: a Load
	// whose tree names it as its Base is assembled from its changes.
	assembledAt map[string]string
	// loadDiffs are the last Load's changes from the published commit
	// (treediff.go); under reloadMu.
	loadDiffs loadDiffs
	// One RefChecker per branch, used under reloadMu: a reload looks for
	// references only in the documents that changed.
	refCheckers map[string]*content.RefChecker
	// One content model per branch, used under reloadMu: recompiled when
	// a model file changes; only re-parsed documents are validated.
	models map[string]*modelState
	// The case problems of each branch's last load, for its paths
	// (gitsource.Tree.PathsID): a push that only edited files does not
	// fold every path again. Used under reloadMu.
	cases map[string]caseProblems

	failMu  sync.Mutex
	failed  map[string]string // branch -> commit that failed to load
	lastErr atomic.Pointer[loadError]

	wake chan struct{}

	search *contentSearch // nil when Config.Search is off

	parseCache *parseCacheRemote // nil without Config.ParseCacheState

	refs    *refCache        // snapshots of other refs (?ref=)
	history *historyFollower // which commits changed which file

	scheduleWake chan struct{} // a new published snapshot: reschedule

	// The parse cache is written in the background (tens of MB for a large
	// site): a start or a reload does not wait for it. Close does.
	saveMu       sync.Mutex
	saveRunning  bool
	savePending  bool
	saveWG       sync.WaitGroup
	serving      chan struct{} // closed by the first Run: see firstSaveDelay
	servingOnce  sync.Once
	closing      chan struct{} // closed by Close
	searchClosed chan struct{} // closed once Close has stopped the search index
	closeOnce    sync.Once
}

// firstSaveDelay puts off the first write of the parse cache until this
// long after the engine is first Run (the server starts answering), so
// that it does not compete for the CPU and memory with the first requests
// of a cold start: counted from Open's return instead, a collection under
// way could hold the server's start (GOMAXPROCS' stop-the-world) past the
// delay, and the write and the history index's first build (about 0.9 GB
// in flight at a million files) began before the first answer. An engine
// that is never Run writes it at Close.
const firstSaveDelay = 2 * time.Second

// firstSearchDelay puts off, for the same reason, the published branch's
// first search index build (or the opening of its kept copy) after Open;
// the first search starts it at once.
const firstSearchDelay = 2 * time.Second

type loadError struct {
	Commit string
	At     time.Time
	Err    string
}

// Open opens the site and loads its first snapshot. It fails when the
// published branch cannot be loaded at all: there is no last good snapshot
// to fall back on yet.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	cfg.setDefaults()
	src, err := gitsource.OpenSource(ctx, gitsource.SourceConfig{Site: cfg.Site, CacheDir: cfg.CacheDir, Logger: cfg.Logger, FetchTimeout: cfg.FetchTimeout, Root: cfg.Root, GitAuth: cfg.GitAuth,
		LookupFirstMin: cfg.lookupFirstMin, EncodeFirstMin: cfg.encodeFirstMin})
	if err != nil {
		return nil, err
	}
	if cfg.Branch == "" {
		cfg.Branch = src.DefaultBranch(ctx)
	}
	e := &Engine{cfg: cfg, src: src, failed: map[string]string{}, wake: make(chan struct{}, 1), assemblers: map[string]*content.Assembler{},
		refCheckers: map[string]*content.RefChecker{}, models: map[string]*modelState{},
		closing: make(chan struct{}), searchClosed: make(chan struct{}), serving: make(chan struct{}),
		refs: newRefCache(cfg.RefCacheBytes, cfg.RefIdle), history: newHistoryFollower(src.RelevantInRepo, src.LooseTree),
		scheduleWake: make(chan struct{}, 1)}
	if cfg.Search {
		var dir string
		if cfg.CacheDir != "" {
			dir = searchStoreDir(cfg.CacheDir, src.SiteID(), cfg.Branch)
		}
		e.search = &contentSearch{pub: search.NewHeldContentIndex(cfg.Logger.With("index", "search"), cfg.Now, dir, cfg.SearchState)}
	}
	if cfg.CacheDir != "" {
		e.parseCache = newParseCacheRemote(cfg.ParseCacheState, cfg.Now, cfg.ParseCacheWait)
		// The published branch's first load takes the validation results
		// the last run kept (validcache.go), read meanwhile.
		pending := make(chan *persistedResults, 1)
		go func() { pending <- loadValidation(src) }()
		e.models[cfg.Branch] = &modelState{pending: pending}
	}
	e.saveMu.Lock()
	e.saveRunning = true // the first save waits; see firstSaveDelay
	e.saveMu.Unlock()
	e.fetchParseCache(ctx)
	if err := e.Reload(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.parseCacheLoaded()
	if e.published.Load() == nil {
		e.Close()
		if le := e.lastErr.Load(); le != nil {
			return nil, fmt.Errorf("load branch %q: %s", cfg.Branch, le.Err)
		}
		return nil, fmt.Errorf("load branch %q: no snapshot", cfg.Branch)
	}
	e.history.wg.Add(1)
	go e.runHistory(e.closing)
	e.saveWG.Add(1)
	go e.runSchedule(e.closing)
	e.history.follow(e.published.Load().Commit)
	if e.search != nil {
		e.saveWG.Add(1)
		go func() {
			defer e.saveWG.Done()
			t := time.NewTimer(firstSearchDelay)
			defer t.Stop()
			select {
			case <-t.C:
				e.search.pub.Start()
			case <-e.closing:
			}
		}()
	}
	e.saveWG.Add(1)
	go func() {
		defer e.saveWG.Done()
		if !e.afterServing(firstSaveDelay, nil) {
			return // Close writes the cache
		}
		e.saveMu.Lock()
		e.saveRunning, e.savePending = false, false
		e.saveMu.Unlock()
		e.saveCacheLater()
	}()
	return e, nil
}

// Close waits for a parse-cache write under way and releases the
// repository, writing what the cache still lacks. The search index is
// stopped meanwhile (a build under way stops after its batch): the cache
// is what the next start needs, so it is written first, not after a
// build that may have a minute to go.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		close(e.closing)
		go func() {
			defer close(e.searchClosed)
			if e.search != nil {
				e.search.close()
			}
		}()
	})
	e.saveWG.Wait()
	e.history.wg.Wait()
	if e.published.Load() != nil {
		if err := e.saveValidation(true); err != nil {
			e.cfg.Logger.Warn("save validation cache", "err", err)
		}
	}
	err := e.src.Close()
	<-e.searchClosed
	return err
}

// saveCacheLater writes the parse cache in the background, one write at a
// time; a request during a write makes one more write after it.
func (e *Engine) saveCacheLater() {
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	if e.saveRunning {
		e.savePending = true
		return
	}
	e.saveRunning = true
	e.saveWG.Add(1)
	go func() {
		defer e.saveWG.Done()
		for {
			if err := e.src.SaveCache(); err != nil {
				e.cfg.Logger.Warn("save parse cache", "err", err)
			}
			e.publishParseCache()
			if err := e.saveValidation(false); err != nil {
				e.cfg.Logger.Warn("save validation cache", "err", err)
			}
			e.saveMu.Lock()
			if !e.savePending {
				e.saveRunning = false
				e.saveMu.Unlock()
				return
			}
			e.savePending = false
			e.saveMu.Unlock()
		}
	}()
}

// afterServing waits until delay after the engine is first Run, or until
// sooner receives: true, or false once the engine closes.
func (e *Engine) afterServing(delay time.Duration, sooner <-chan struct{}) bool {
	select {
	case <-e.closing:
		return false
	case <-sooner:
		return true
	case <-e.serving:
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-e.closing:
		return false
	case <-sooner:
	case <-t.C:
	}
	return true
}

// Published is the snapshot of the published branch.
func (e *Engine) Published() *Snapshot { return e.published.Load() }

// View is the current view of the site: the published one, or with draft
// the draft branch (or published branch) with drafts and scheduled items.
func (e *Engine) View(draft bool) *View {
	if draft {
		return e.draft.Load().View(true, e.cfg.Now())
	}
	return e.published.Load().View(false, e.cfg.Now())
}

// Run keeps the snapshots current until ctx is done: it watches a local
// repository's refs, polls a remote one every Config.Poll, and serves
// Trigger requests. Its first call also lets the start's background work
// begin (firstSaveDelay): a server calls it as it starts answering.
func (e *Engine) Run(ctx context.Context) error {
	e.servingOnce.Do(func() { close(e.serving) })
	if !e.src.Remote() {
		go func() {
			if err := e.src.Watch(ctx, e.Trigger); err != nil && ctx.Err() == nil {
				e.cfg.Logger.Error("watch repository", "err", err)
			}
		}()
	}
	var tick <-chan time.Time
	if e.src.Remote() && e.cfg.Poll > 0 {
		t := time.NewTicker(e.cfg.Poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		case <-e.wake:
		}
		if err := e.Sync(ctx); err != nil && ctx.Err() == nil {
			e.cfg.Logger.Error("sync", "err", err)
		}
	}
}

// Trigger asks Run to fetch and reload soon; calls coalesce.
func (e *Engine) Trigger() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Sync fetches a remote site and reloads what changed.
func (e *Engine) Sync(ctx context.Context) error {
	if e.src.Remote() {
		if err := e.src.Fetch(ctx); err != nil {
			e.recordError("", err)
			if ctx.Err() == nil {
				e.reloaded(ReloadEvent{Stage: "fetch", Branch: e.cfg.Branch, Err: err})
			}
			return err
		}
	}
	return e.Reload(ctx)
}

// Reload loads the branches' current commits, when they changed, and swaps
// the new snapshots in. A commit that fails keeps the last good snapshot and
// is not retried until the branch moves.
func (e *Engine) Reload(ctx context.Context) error {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	pub, err := e.reloadBranch(ctx, e.cfg.Branch, e.published.Load())
	if err != nil {
		return err
	}
	if pub != nil {
		// The index is told first: a search that sees the new snapshot
		// then waits for the index to reach it (or a later one).
		e.followSearch(pub, false)
		old := e.published.Swap(pub)
		e.history.follow(pub.Commit)
		select {
		case e.scheduleWake <- struct{}{}:
		default:
		}
		if e.cfg.DraftBranch == "" {
			e.draft.Store(pub)
		}
		if old != nil && e.cfg.OnSwap != nil {
			e.cfg.OnSwap(old, pub)
		}
	}
	if e.cfg.DraftBranch != "" {
		d, err := e.reloadBranch(ctx, e.cfg.DraftBranch, e.draft.Load())
		if err != nil {
			return err
		}
		if d != nil {
			e.followSearch(d, true)
			e.draft.Store(d)
		} else if e.draft.Load() == nil {
			// No draft branch yet: preview the published branch.
			e.draft.Store(e.published.Load())
		}
	}
	if pub != nil {
		e.parseCacheReloaded()
		e.saveCacheLater()
	}
	return nil
}

// reloadBranch returns a new snapshot of branch, or nil when nothing changed
// or the commit cannot be loaded (then the error is recorded, not returned:
// serving goes on). Only a cancelled ctx is returned as an error.
func (e *Engine) reloadBranch(ctx context.Context, branch string, cur *Snapshot) (*Snapshot, error) {
	commit, err := e.src.Resolve(branch)
	if err != nil {
		err = fmt.Errorf("resolve branch %q: %w", branch, err)
		e.recordError("", err)
		e.reloaded(ReloadEvent{Stage: "resolve", Branch: branch, Err: err})
		return nil, nil
	}
	if cur != nil && cur.Commit == commit && cur.Branch == branch {
		return nil, nil
	}
	e.failMu.Lock()
	failedBefore := e.failed[branch] == commit
	e.failMu.Unlock()
	if failedBefore {
		return nil, nil
	}
	start := time.Now()
	tree, err := e.src.Load(ctx, commit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e.failMu.Lock()
		e.failed[branch] = commit
		e.failMu.Unlock()
		e.recordError(commit, err)
		e.reloaded(ReloadEvent{Stage: "load", Branch: branch, Commit: commit, Took: time.Since(start), Err: err})
		e.cfg.Logger.Error("load commit, keeping the last good snapshot", "branch", branch, "commit", commit, "err", err)
		return nil, nil
	}
	as := e.assemblers[branch]
	if as == nil {
		as = new(content.Assembler)
		e.assemblers[branch] = as
	}
	pubCommit := ""
	if p := e.published.Load(); p != nil {
		pubCommit = p.Commit
	}
	td := e.loadDiffs.next(tree, pubCommit)
	site, problems := e.assemble(as, branch, tree, td)
	ms := e.models[branch]
	if ms == nil {
		ms = new(modelState)
		e.models[branch] = ms
	}
	ms.update(site, tree.Files) // the references the model declares are checked as such
	rc := e.refCheckers[branch]
	if rc == nil {
		rc = &content.RefChecker{MediaBases: e.cfg.MediaBases}
		e.refCheckers[branch] = rc
	}
	rc.URLRefs = urlRefs(ms.model)
	// The references are checked while the model is applied, on the
	// other core: both read the assembled site, neither changes it (the
	// model's fill-ins and held documents are copies), and each keeps
	// state of its own (rc and e.cases; ms).
	var refs []content.Problem
	refsDone := make(chan struct{})
	go func() {
		defer close(refsDone)
		refs = rc.ProblemsOf(site, tree.Files, e.cfg.MediaExists)
		if cases := e.caseProblems(branch, tree); len(cases) > 0 {
			refs = slices.Concat(refs, cases)
		}
	}()
	ms.diff = ms.diffFrom(td)
	served, modelProblems, held := ms.applyModel(site, tree.Files, cur, commit)
	<-refsDone
	site = served
	if len(refs) > 0 {
		problems = slices.Concat(problems, refs)
		slices.SortStableFunc(problems, func(a, b content.Problem) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
		})
	}
	if len(modelProblems) > 0 {
		problems = slices.Concat(problems, modelProblems)
		slices.SortStableFunc(problems, func(a, b content.Problem) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
		})
	}
	snap := newSnapshot(branch, tree, site, problems, e.cfg.Now(), cur)
	snap.Held, snap.Model, snap.mediaBases = held, ms.model, e.cfg.MediaBases
	snap.indexRefs(cur)
	e.reloaded(ReloadEvent{Stage: "load", Branch: branch, Commit: commit, Took: time.Since(start)})
	e.snapSeq++
	model := snap.Model
	refFields := func(typ string) map[string][]string { return model.Of(typ).References() }
	snap.forSearch = &search.Snapshot{Seq: e.snapSeq, Commit: snap.Commit, Site: snap.Site, RefFields: refFields}
	if snap.loc != nil {
		for _, sub := range snap.loc.subs {
			if sub != snap {
				sub.forSearch = &search.Snapshot{Seq: e.snapSeq, Commit: sub.Commit, Site: sub.Site, RefFields: refFields}
				sub.Model, sub.mediaBases = snap.Model, snap.mediaBases
			}
		}
	}
	e.cfg.Logger.Info("snapshot loaded", "branch", branch, "commit", commit,
		"files", tree.Files.Len(), "problems", len(problems), "took", time.Since(start).Round(time.Microsecond))
	for _, p := range problems {
		e.cfg.Logger.Warn("content problem", "branch", branch, "problem", p.String())
	}
	return snap, nil
}

// assemble is as.Assemble of tree, from the changes since the
// Assembler's last call when they are known (a push of a few files, a
// branch a few files away); as is branch's, or a fork of it.
func (e *Engine) assemble(as *content.Assembler, branch string, tree *gitsource.Tree, td treeDiff) (*content.Site, []content.Problem) {
	if e.assembledAt == nil {
		e.assembledAt = map[string]string{}
	}
	at := e.assembledAt[branch]
	if as == e.assemblers[branch] {
		e.assembledAt[branch] = tree.Commit
	}
	if changed, ok := td.since(at); ok {
		return as.AssembleChanged(tree.Files, changed)
	}
	return as.Assemble(tree.Files.Slice())
}

// modelDiff is td's changes from the commit ms last checked, when known.
func (ms *modelState) diffFrom(td treeDiff) modelDiff {
	if paths, ok := td.since(ms.checkedAt); ok {
		return modelDiff{base: ms.checkedAt, paths: paths}
	}
	return modelDiff{}
}

// caseProblems is content.CaseProblems of tree's files, made again only
// when its paths are not those of the branch's last load.
type caseProblems struct {
	pathsID  uint64
	problems []content.Problem
}

func (e *Engine) caseProblems(branch string, tree *gitsource.Tree) []content.Problem {
	if c, ok := e.cases[branch]; ok && c.pathsID == tree.PathsID {
		return c.problems
	}
	probs := content.CaseProblemsOf(tree.Files)
	if e.cases == nil {
		e.cases = map[string]caseProblems{}
	}
	e.cases[branch] = caseProblems{pathsID: tree.PathsID, problems: probs}
	return probs
}

func (e *Engine) recordError(commit string, err error) {
	e.lastErr.Store(&loadError{Commit: commit, At: e.cfg.Now().UTC(), Err: err.Error()})
}

// Status describes what the engine serves.
type Status struct {
	Branch      string            `json:"branch"`
	Commit      string            `json:"commit"`
	CommitTime  time.Time         `json:"commitTime"`
	LoadedAt    time.Time         `json:"loadedAt"`
	DraftBranch string            `json:"draftBranch,omitempty"`
	DraftCommit string            `json:"draftCommit,omitempty"`
	Problems    []content.Problem `json:"problems"`
	// Held are the documents held back for breaking their type's model
	// (onInvalid: reject); absent when none is.
	Held      []HeldDoc    `json:"held,omitempty"`
	LastError *StatusError `json:"lastError,omitempty"`
	// LastFetch is when the last fetch of a remote site succeeded (nil for
	// a local site): with LastError, how stale the served commit may be
	// when the remote cannot be reached.
	LastFetch *time.Time `json:"lastFetch,omitempty"`
	// Search is the published branch's search index; nil when search is
	// off.
	Search *search.SearchStatus `json:"search,omitempty"`
}

// StatusError is the last failure to fetch or load a commit.
type StatusError struct {
	Commit  string    `json:"commit,omitempty"`
	At      time.Time `json:"at"`
	Message string    `json:"message"`
}

// Status reports the served commits, their problems and the last failure.
func (e *Engine) Status() Status {
	p := e.published.Load()
	st := Status{Branch: p.Branch, Commit: p.Commit, CommitTime: p.CommitTime, LoadedAt: p.LoadedAt, Problems: p.Problems, Held: p.Held}
	if st.Problems == nil {
		st.Problems = []content.Problem{}
	}
	if e.cfg.DraftBranch != "" {
		st.DraftBranch = e.cfg.DraftBranch
		if d := e.draft.Load(); d != nil && d.Branch == e.cfg.DraftBranch {
			st.DraftCommit = d.Commit
		}
	}
	if le := e.lastErr.Load(); le != nil {
		st.LastError = &StatusError{Commit: le.Commit, At: le.At, Message: le.Err}
	}
	if e.src.Remote() {
		if t := e.src.LastFetch(); !t.IsZero() {
			st.LastFetch = &t
		}
	}
	if e.search != nil {
		st.Search = e.search.pub.Status(p.forSearch)
	}
	return st
}

// ErrBadSort is returned for a sort that a content type does not allow.
var ErrBadSort error = &fault.Error{Code: fault.Invalid, Message: "bad sort"}

// Site is the configured site: a local repository path or a remote URL
// (without the password it may hold).
func (e *Engine) Site() string { return e.src.URL() }

// GitEnv is the environment of a git command that talks to a remote
// site: its credentials (gitauth.Auth.Env).
func (e *Engine) GitEnv() []string { return e.src.GitEnv() }

// Redact is s with a remote site's credentials taken out.
func (e *Engine) Redact(s string) string { return e.src.Redact(s) }
