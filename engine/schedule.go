package engine

import (
	"sort"
	"time"
)

// ValidUntil is the next instant at which a scheduled publish or expiry
// changes what the view shows; the far future when none is scheduled.
func (v *View) ValidUntil() time.Time { return v.validUntil }

// Scheduled reports whether a scheduled change will happen.
func (v *View) Scheduled() bool { return v.validUntil.Before(farFuture) }

// ScheduleEvent is a scheduled publish or expiry that took effect: at
// instant At, the published view of Commit changed, and Keys name the
// responses that changed with it.
type ScheduleEvent struct {
	Commit string
	At     time.Time
	Keys   []string
}

// runSchedule swaps the published view at each scheduled instant (instead
// of on the first request after it) and reports the change, until closing.
// Every box does this on its own clock.
func (e *Engine) runSchedule(closing <-chan struct{}) {
	defer e.saveWG.Done()
	for {
		snap := e.published.Load()
		now := e.cfg.Now()
		snaps := snap.localeSnapshots()
		views := make([]*View, len(snaps))
		next := farFuture
		for i, s := range snaps {
			views[i] = s.View(false, now)
			if views[i].validUntil.Before(next) {
				next = views[i].validUntil
			}
		}
		var fire <-chan time.Time
		stop := func() bool { return false }
		if next.Before(farFuture) {
			fire, stop = e.cfg.After(max(next.Sub(now), 0))
		}
		select {
		case <-closing:
			stop()
			return
		case <-e.scheduleWake:
			stop()
			continue // a new snapshot: its own schedule
		case <-fire:
		}
		if e.published.Load() != snap {
			continue
		}
		at := next
		keys := map[string]bool{}
		for i, s := range snaps {
			nv := s.View(false, maxTime(e.cfg.Now(), at))
			for _, k := range viewChangedKeys(views[i], nv) {
				keys[k] = true
			}
		}
		if snap.loc != nil {
			spreadLocaleKeys(keys, snap.loc)
		}
		if e.cfg.OnSchedule != nil {
			out := make([]string, 0, len(keys))
			for k := range keys {
				out = append(out, k)
			}
			sort.Strings(out)
			e.cfg.OnSchedule(ScheduleEvent{Commit: snap.Commit, At: at, Keys: out})
		}
		e.cfg.Logger.Info("scheduled change", "commit", snap.Commit, "at", at)
	}
}

// localeSnapshots are the snapshot of each locale of a site with locales
// (the default locale's first), or s alone.
func (s *Snapshot) localeSnapshots() []*Snapshot {
	if s.loc == nil {
		return []*Snapshot{s}
	}
	out := []*Snapshot{s}
	for _, l := range s.loc.i18n.Locales {
		if sub := s.loc.subs[l.Code]; sub != s {
			out = append(out, sub)
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// viewChangedKeys lists the surrogate keys of what differs between two
// published views of one snapshot: pages and items that appeared or went,
// with their lists. Sorted.
func viewChangedKeys(old, new *View) []string {
	keys := map[string]bool{}
	for slug, p := range old.pageBySlug {
		if q, ok := new.pageBySlug[slug]; !ok || q != p {
			keys[localeKey(KeyPages, new.locale)] = true
			sk, _ := p.full.Keys()
			addKeys(keys, sk)
		}
	}
	for slug, p := range new.pageBySlug {
		if _, ok := old.pageBySlug[slug]; !ok {
			keys[localeKey(KeyPages, new.locale)] = true
			sk, _ := p.full.Keys()
			addKeys(keys, sk)
		}
	}
	for name, t := range new.types {
		ot := old.types[name]
		changed := ot == nil || len(ot.items) != len(t.items)
		for slug, it := range t.bySlug.all() {
			if oit, _ := ot.slug(slug); oit == nil || oit.res != it.res {
				sk, _ := it.res.Keys()
				addKeys(keys, sk)
				changed = true
			}
		}
		if ot != nil {
			for slug, it := range ot.bySlug.all() {
				if e, _ := t.bySlug.get(slug); e == nil {
					sk, _ := it.res.Keys()
					addKeys(keys, sk)
					changed = true
				}
			}
		}
		if changed {
			keys[localeKey(TypeKey(name), new.locale)] = true
		}
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// addKeys adds the keys of a Surrogate-Key header value (space-separated,
// as Resource.Keys gives it).
func addKeys(keys map[string]bool, sk []string) {
	for _, v := range sk {
		start := 0
		for i := 0; i <= len(v); i++ {
			if i == len(v) || v[i] == ' ' {
				if i > start {
					keys[v[start:i]] = true
				}
				start = i + 1
			}
		}
	}
}
