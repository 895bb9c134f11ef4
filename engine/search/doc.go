// Package search is folio's search: the bleve index of a branch's content
// (ContentIndex, fed with the engine's snapshots and asked on behalf of a
// reader's view) and the hand-written media index (MediaSearch, fed by
// the media library's change callback). It knows content and media, not
// the engine: the engine hands it a Snapshot and a View.
package search
