package engine

import "github.com/folio-cms/folio/content"

// resMap is the resource of each item of one type. A reload that changed
// a few items of a type makes its map from the last snapshot's without
// copying it (a layerMap over the last one's).
type resMap = layerMap[*content.Item, *Resource]

// maxResLayer is the number of keys set and gone above a base map from
// which a layerMap is merged into a new base.
const maxResLayer = 4096

func newResMap(m map[*content.Item]*Resource) *resMap { return newLayerMap(m) }

// patchedRes is m without the items of gone and with those of added, each
// given its resource by res.
func patchedRes(m *resMap, gone, added []*content.Item, res func(*content.Item) *Resource) *resMap {
	set := make(map[*content.Item]*Resource, len(added))
	for _, it := range added {
		set[it] = res(it)
	}
	return m.with(gone, set)
}
