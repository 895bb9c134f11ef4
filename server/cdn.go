package server

import (
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server/notify"
)

// NotifySwaps returns the engine.Config.OnSwap that tells n the surrogate
// keys a content swap changed (engine.ChangedKeys, computed on n's own
// goroutine, never on the reload path); nil when n is nil. Only the
// published branch is told: draft responses are private, no-store, and no
// CDN holds them.
func NotifySwaps(n *notify.Notifier) func(old, new *engine.Snapshot) {
	if n == nil {
		return nil
	}
	return func(old, new *engine.Snapshot) {
		n.SendFunc(notify.Content, new.Commit, func() []string { return engine.ChangedKeys(old, new) })
	}
}

// NotifySchedule returns an engine.Config.OnSchedule that tells n the
// keys of each scheduled publish or expiry as it takes effect.
func NotifySchedule(n *notify.Notifier) func(engine.ScheduleEvent) {
	if n == nil {
		return nil
	}
	return func(ev engine.ScheduleEvent) { n.SendScheduled(ev.Commit, ev.At, ev.Keys) }
}

// mediaChanged tells the notifier that media changed: the lists ("media")
// always, the items named by ids too.
func (s *mediaHandlers) mediaChanged(ids ...string) {
	if s.notifier == nil {
		return
	}
	keys := make([]string, 0, len(ids)+1)
	keys = append(keys, keyMedia)
	for _, id := range ids {
		keys = append(keys, mediaKey(id))
	}
	s.notifier.Send(notify.Media, "", keys)
}
