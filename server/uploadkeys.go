package server

import (
	"sync"

	"github.com/folio-cms/folio/media"
)

// UploadIndex maps the storage keys of local media files (originals and
// derivatives) to the id of the item that owns them, so that a file served
// under /uploads/ names its item in the surrogate key "media:<id>": a CDN
// that purges that key on a delete drops the files too. Feed it every
// change of the library (media.Config.OnChange); an item's keys never
// change while it lives (moving it keeps its URL). It costs a map entry per
// file, so only local storage, which serves /uploads/, needs one.
type UploadIndex struct {
	mu  sync.RWMutex
	ids map[string]string
}

// NewUploadIndex makes an empty index.
func NewUploadIndex() *UploadIndex { return &UploadIndex{ids: map[string]string{}} }

// Follow records a change of the library; it fits media.Config.OnChange.
func (x *UploadIndex) Follow(it *media.Item, deleted bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	set := func(k string) {
		if k == "" {
			return
		}
		if deleted {
			if x.ids[k] == it.ID {
				delete(x.ids, k)
			}
			return
		}
		x.ids[k] = it.ID
	}
	set(it.Key)
	for _, s := range it.Sizes {
		set(s.Key)
	}
}

// id returns the item owning the storage key, if known.
func (x *UploadIndex) id(key string) (string, bool) {
	if x == nil {
		return "", false
	}
	x.mu.RLock()
	id, ok := x.ids[key]
	x.mu.RUnlock()
	return id, ok
}
