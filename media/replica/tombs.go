package replica

import "time"

// Tombs are the ids of deleted items with when they were deleted, so that
// a late log entry of an item's earlier write cannot bring it back. They
// are kept in checkpoints for Retain. A Tombs is not safe for concurrent
// use: the library guards it with its index.
type Tombs map[string]time.Time

// TombRetain is how long a deleted id is remembered.
const TombRetain = 7 * 24 * time.Hour

// Bury records the delete of id at at.
func (t Tombs) Bury(id string, at time.Time) { t[id] = at }

// Buried reports whether id was deleted.
func (t Tombs) Buried(id string) bool {
	_, ok := t[id]
	return ok
}

// Recent returns the tombs younger than TombRetain at now, for a
// checkpoint.
func (t Tombs) Recent(now time.Time) map[string]time.Time {
	out := make(map[string]time.Time, len(t))
	for id, at := range t {
		if now.Sub(at) < TombRetain {
			out[id] = at
		}
	}
	return out
}
