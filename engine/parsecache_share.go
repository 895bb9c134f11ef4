package engine

import (
	"context"
	"time"
)

// When a box fetches and publishes its parse cache (the bucket's side is
// parsecache_remote.go): before its first load when it has none of its
// own; with its first save when that load parsed the site; then every
// parseCachePublishEvery reloads.

// fetchParseCache has a box with no parse cache of its own (a fresh
// box, or a new build's first start) adopt the bucket's before its first
// load, waiting parseCacheWait at most (and a second per 25 MB).
func (e *Engine) fetchParseCache(ctx context.Context) {
	r := e.parseCache
	if r == nil {
		return
	}
	if st := e.src.Stats(); st.LoadedFromDisk > 0 || st.Loads > 0 {
		return
	}
	start := time.Now()
	hdr, docs, ok, err := r.fetch(ctx, e.src)
	switch {
	case err != nil:
		e.cfg.Logger.Warn("parse cache from the bucket not used: this box parses the site", "err", err, "took", time.Since(start).Round(time.Millisecond))
	case ok:
		e.cfg.Logger.Info("parse cache from the bucket", "commit", hdr.Commit, "documents", docs, "took", time.Since(start).Round(time.Millisecond))
	}
}

// parseCacheLoaded, after the first load: a box that parsed the site
// (no cache of its own, none from the bucket) publishes its cache with
// its first save.
func (e *Engine) parseCacheLoaded() {
	r := e.parseCache
	if r == nil || r.fetchOnly {
		return
	}
	if st := e.src.Stats(); st.LoadedFromDisk == 0 && st.Adopted == 0 && st.Parsed > 0 {
		r.due.Store(true)
	}
}

// parseCacheReloaded counts a reload of the published branch: every
// parseCachePublishEvery (or one per 1000 documents), the next save
// publishes.
func (e *Engine) parseCacheReloaded() {
	r := e.parseCache
	if r == nil || r.fetchOnly {
		return
	}
	every := max(parseCachePublishEvery, int64(e.src.Stats().CachedDocs/1000))
	if r.reloads.Add(1) >= every {
		r.reloads.Store(0)
		r.due.Store(true)
	}
}

// publishParseCache publishes the parse cache when it is due; it runs
// with the saves, in the background, and gives up when the engine
// closes.
func (e *Engine) publishParseCache() {
	r := e.parseCache
	if r == nil || !r.due.Swap(false) {
		return
	}
	pub := e.published.Load()
	if pub == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-e.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := r.publish(ctx, e.src, pub.Commit); err != nil {
		e.cfg.Logger.Warn("publish parse cache", "commit", pub.Commit, "err", err)
		return
	}
	r.published.Add(1)
}
