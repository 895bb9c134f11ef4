package engine

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/history"
)

// ErrHistoryPending is returned while the history index has not reached the
// served commit yet (its first build after a start, or a rebuild after a
// force push).
var ErrHistoryPending error = &fault.Error{Code: fault.HistoryBuilding, Message: "the history index is being built; retry shortly"}

// historyWait is how long a history request waits for the index to reach
// the served commit before it is told to come back.
const historyWait = 2 * time.Second

// firstHistoryDelay puts off the first build of the history index until
// this long after the engine is first Run (the server starts answering),
// so that it does not compete for the CPU and memory with the first
// requests (see firstSaveDelay); a history request starts it at once.
const firstHistoryDelay = 2 * time.Second

// historyCacheSize is the object cache of one index update.
const historyCacheSize = 32 << 20

// historyFollower keeps the history index at the published commit, in the
// background: start-up and reloads never wait for it.
type historyFollower struct {
	ix   *history.Index
	wake chan struct{}
	kick chan struct{} // a history request: start the first build now

	mu      sync.Mutex
	target  string        // the commit to reach
	err     error         // the last update's failure
	reached chan struct{} // closed and replaced after each update
	wg      sync.WaitGroup
}

func newHistoryFollower(relevant func(string) bool, readTree func(plumbing.Hash) ([]object.TreeEntry, bool)) *historyFollower {
	return &historyFollower{ix: history.New(relevant).ReadTreesWith(readTree), wake: make(chan struct{}, 1), kick: make(chan struct{}, 1), reached: make(chan struct{})}
}

// follow asks the follower to bring the index to commit.
func (h *historyFollower) follow(commit string) {
	h.mu.Lock()
	h.target = commit
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run updates the index whenever follow is called, until closing.
func (e *Engine) runHistory(closing <-chan struct{}) {
	h := e.history
	defer h.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-closing
		cancel()
	}()
	// The first build waits until the start's first requests are served
	// (as the parse cache's first write does), unless a history request
	// asks for it sooner.
	if !e.afterServing(firstHistoryDelay, h.kick) {
		return
	}
	for {
		select {
		case <-closing:
			return
		case <-h.wake:
		}
		h.mu.Lock()
		target := h.target
		h.mu.Unlock()
		start := time.Now()
		st := e.src.OpenObjects(historyCacheSize)
		err := h.ix.Update(ctx, st, target)
		st.Close()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			e.cfg.Logger.Error("history index", "commit", target, "err", err)
		} else {
			e.cfg.Logger.Debug("history index updated", "commit", target, "commits", h.ix.Commits(), "took", time.Since(start).Round(time.Millisecond))
		}
		h.mu.Lock()
		h.err = err
		close(h.reached)
		h.reached = make(chan struct{})
		h.mu.Unlock()
	}
}

// History returns the commits that changed the file of a document of the
// published branch (path as in content.Meta.Path), newest first, following
// renames; total counts them all. It waits a little for the index to reach
// the served commit, then returns ErrHistoryPending.
func (e *Engine) History(ctx context.Context, path string, limit, offset int) ([]history.Entry, int, error) {
	if err := e.historyAtServed(ctx); err != nil {
		return nil, 0, err
	}
	entries, total, _ := e.history.ix.Log(e.src.RepoPath(path), limit, offset)
	return entries, total, nil
}

// InPublishedHistory tells whether commit (a full hash) is the published
// commit or one of its ancestors: a commit a client may have been
// served. It waits a little for the index to reach the served commit,
// then returns ErrHistoryPending.
func (e *Engine) InPublishedHistory(ctx context.Context, commit string) (bool, error) {
	if err := e.historyAtServed(ctx); err != nil {
		return false, err
	}
	return e.history.ix.Contains(commit), nil
}

// historyAtServed waits until the history index has reached the served
// commit: ErrHistoryPending after historyWait, or ctx's error.
func (e *Engine) historyAtServed(ctx context.Context) error {
	h := e.history
	select {
	case h.kick <- struct{}{}:
	default:
	}
	timer := time.NewTimer(historyWait)
	defer timer.Stop()
	for {
		h.mu.Lock()
		reached := h.reached
		h.mu.Unlock()
		if h.ix.Head() == e.published.Load().Commit {
			return nil
		}
		select {
		case <-reached:
		case <-timer.C:
			return ErrHistoryPending
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// HistoryStats describes the history index.
type HistoryStats struct {
	Commit  string `json:"commit"`  // the commit reached; "" while the first build runs
	Commits int    `json:"commits"` // commits indexed
}

// HistoryStats reports the history index.
func (e *Engine) HistoryStats() HistoryStats {
	return HistoryStats{Commit: e.history.ix.Head(), Commits: e.history.ix.Commits()}
}

// Changes lists the content files that differ between commit since (a full
// or short commit hash, or a branch or tag) and the published commit.
func (e *Engine) Changes(ctx context.Context, since string) (Ref, []history.FileChange, error) {
	ref, err := e.ResolveRef(ctx, since)
	if err != nil {
		return Ref{}, nil, err
	}
	st := e.src.OpenObjects(historyCacheSize)
	defer st.Close()
	chs, err := e.history.ix.Between(ctx, st, ref.Commit, e.published.Load().Commit)
	if err != nil || e.src.SiteRoot() == "" {
		return ref, chs, err
	}
	out := chs[:0]
	for _, c := range chs {
		p, ok := e.src.SitePath(c.Path)
		if !ok {
			continue
		}
		c.Path = p
		if c.From != "" {
			c.From, _ = e.src.SitePath(c.From)
		}
		out = append(out, c)
	}
	return ref, out, nil
}

// DocChange is one content file that differs between two commits, with
// the document it holds (in the newer commit, or the older one for a
// deleted file) and that document's surrogate keys.
type DocChange struct {
	Change history.Kind `json:"change"`
	Path   string       `json:"path"`
	From   string       `json:"from,omitempty"`
	Kind   string       `json:"kind,omitempty"` // page, item or globals; "" for another file (folio.yaml, a broken file)
	Type   string       `json:"type,omitempty"`
	Slug   string       `json:"slug,omitempty"`
	ID     string       `json:"id,omitempty"`
	Keys   []string     `json:"keys"`
}

// ChangeSet is what changed between a commit and the published one.
type ChangeSet struct {
	Since  string      `json:"since"`
	Commit string      `json:"commit"`
	Items  []DocChange `json:"items"`
	// Keys are every surrogate key whose responses differ (ChangedKeys):
	// a front end revalidates exactly these.
	Keys []string `json:"keys"`
}

// ChangesSince lists the content files that differ between since (a
// commit, branch or tag) and the published commit, with their documents
// and surrogate keys. When every changed file is a document that the
// published snapshot holds (added or modified), that is all it reads; a
// deletion, a rename or another file (folio.yaml) builds the snapshot of
// since too, to name what went and every response the change touched
// (ChangedKeys).
func (e *Engine) ChangesSince(ctx context.Context, since string) (ChangeSet, error) {
	pub := e.published.Load()
	ref, files, err := e.Changes(ctx, since)
	if err != nil {
		return ChangeSet{}, err
	}
	cs := ChangeSet{Since: ref.Commit, Commit: pub.Commit, Items: []DocChange{}, Keys: []string{}}
	if ref.Commit == pub.Commit {
		return cs, nil
	}
	newDocs := docsByPath(pub)
	simple := true
	for _, f := range files {
		if _, ok := newDocs[f.Path]; !ok || f.Kind == history.Deleted || f.Kind == history.Renamed {
			simple = false
			break
		}
	}
	var oldDocs map[string]docRef
	keys := map[string]bool{}
	if !simple {
		old, err := e.RefSnapshot(ctx, ref)
		if err != nil {
			return ChangeSet{}, err
		}
		oldDocs = docsByPath(old)
		for _, k := range ChangedKeys(old, pub) {
			keys[k] = true
		}
	}
	for _, f := range files {
		dc := DocChange{Change: f.Kind, Path: f.Path, From: f.From, Keys: []string{}}
		d, ok := newDocs[f.Path]
		if !ok {
			d, ok = oldDocs[cmpOr(f.From, f.Path)]
		}
		if ok {
			dc.Kind, dc.Type, dc.Slug, dc.ID, dc.Keys = d.kind, d.typ, d.slug, d.id, d.keys
			for _, k := range d.keys {
				keys[k] = true
			}
		}
		cs.Items = append(cs.Items, dc)
	}
	if pub.loc != nil {
		// a locale's lists and globals show its fallbacks' documents
		spreadLocaleKeys(keys, pub.loc)
	}
	for k := range keys {
		cs.Keys = append(cs.Keys, k)
	}
	slices.Sort(cs.Keys)
	return cs, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// docRef names the document a file holds.
type docRef struct {
	kind, typ, slug, id string
	keys                []string
}

// docsByPath maps the source path of every document of a snapshot to it,
// in every locale of a site with locales (with the fields layout, one file
// is a document of each locale: its keys are those of each).
func docsByPath(s *Snapshot) map[string]docRef {
	m := make(map[string]docRef, len(s.pageRes)+8)
	add := func(p string, d docRef) {
		if old, ok := m[p]; ok {
			old.keys = append(old.keys, d.keys...)
			m[p] = old
			return
		}
		m[p] = d
	}
	sites := []*content.Site{s.Site}
	if s.loc != nil {
		for _, l := range s.loc.i18n.Locales {
			if sub := s.loc.subs[l.Code]; sub != nil && sub != s {
				sites = append(sites, sub.Site)
			}
		}
	}
	for _, site := range sites {
		for _, p := range site.Pages {
			add(p.Meta.Path, docRef{kind: "page", slug: p.Slug, id: p.ID, keys: []string{localeKey(PageKey(p.ID), p.Locale), localeKey(KeyPages, p.Locale)}})
		}
		for typ, items := range site.Items {
			for _, it := range items {
				add(it.Meta.Path, docRef{kind: "item", typ: typ, slug: it.Slug, id: it.ID, keys: []string{localeKey(ItemKey(typ, it.ID), it.Locale), localeKey(TypeKey(typ), it.Locale)}})
			}
		}
	}
	if s.Site.Globals != nil {
		for _, p := range globalsPaths {
			m[p] = docRef{kind: "globals", keys: []string{localeKey(KeyGlobals, s.Site.Locale)}}
		}
	}
	return m
}

// globalsPaths are the files the site settings may come from (content:
// globals.* at the root).
var globalsPaths = []string{"globals.yaml", "globals.yml", "globals.json"}

// GlobalsHistory is History for the site settings file.
func (e *Engine) GlobalsHistory(ctx context.Context, limit, offset int) ([]history.Entry, int, error) {
	var last error
	for _, p := range globalsPaths {
		entries, total, err := e.History(ctx, p, limit, offset)
		if err != nil || total > 0 {
			return entries, total, err
		}
		last = err
	}
	return []history.Entry{}, 0, last
}
