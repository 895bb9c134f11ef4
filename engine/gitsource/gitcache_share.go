package gitsource

import (
	"debug/elf"
	"errors"
	"os"
	"strconv"
	"strings"
)

// A box shares its parse cache with the boxes that start after it: the
// engine publishes the cache file to the bucket and a fresh box adopts
// it before its first Load (engine/parsecache_remote.go). The cache is
// keyed by blob and extension, so a document of another box's cache is
// the one this box would parse from that blob, whatever commit or
// repository the other box served; what must match is how it was parsed
// (the build) and what the recent Updated times are relative to (the
// site root, the history limit): SharedKey.

// SharedKey names the caches this source can adopt from another box:
// the cache format, the build that parses (SourceConfig.CacheKey when
// set, else the executable's Go build ID, which two copies of one build
// share, unlike the size and time of the file that name the local
// cache), the site root as configured and the history limit.
func (s *Source) SharedKey() string {
	return strings.TrimSpace(cacheMagic) + "|" + s.buildKey + "|root=" + s.cfg.Root + "|history=" + strconv.Itoa(s.cfg.HistoryLimit)
}

// SavedCache writes the cache file if it lacks anything and returns its
// bytes, as AdoptCache takes them, at buf[room:]: the caller may write
// before them (a header) without a copy of the whole (370 MB at a
// million files). nil when there is no cache dir.
func (s *Source) SavedCache(room int) (buf []byte, err error) {
	if s.cache == "" {
		return nil, nil
	}
	if err := s.saveCache(true); err != nil {
		return nil, err
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	return readCacheFileAfter(s.cache, room)
}

// errAdopt: the source holds documents already.
var errAdopt = errors.New("source: a parse cache is adopted only before the first load, by a source without one")

// AdoptCache takes another box's cache file (the bytes SavedCache
// returned on a box of the same SharedKey, which the caller checked) as
// this source's cache, before its first Load, and returns how many
// documents it holds. A file of another format, or not whole (its
// CRC-32), is refused, and so is any when the source read its own cache
// file or loaded already. The next save writes it as this box's cache.
func (s *Source) AdoptCache(data []byte) (int, error) {
	s.loadMu.Lock() // no Load meanwhile
	defer s.loadMu.Unlock()
	if !s.empty() {
		return 0, errAdopt
	}
	dc, err := s.decodeCache(data, func(string, string) bool { return true })
	if err != nil {
		return 0, err
	}
	if !s.empty() {
		return 0, errAdopt
	}
	s.installCache(dc, true)
	return dc.docs.len(), nil
}

// empty tells whether the source holds no document and never loaded.
func (s *Source) empty() bool {
	c := s.docs
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen == 0 && c.docs.len() == 0 && len(c.times) == 0
}

// buildKeyOf is the parser generation two boxes share: key when set
// (SourceConfig.CacheKey), else the running executable's Go build ID
// (a hash of the build's inputs and output), else the local key.
func buildKeyOf(key string) string {
	if key != "" {
		return key
	}
	if id := goBuildID(); id != "" {
		return "go:" + id
	}
	return executableKey()
}

// goBuildID reads the Go build ID note of the running executable (an
// ELF file); "" when there is none.
func goBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	note, err := sec.Data()
	if err != nil || len(note) < 16 {
		return ""
	}
	// namesz, descsz, type (4: the Go build ID), "Go\x00\x00", the ID
	bo := f.ByteOrder
	nameSize, descSize, typ := bo.Uint32(note), bo.Uint32(note[4:]), bo.Uint32(note[8:])
	if nameSize != 4 || typ != 4 || string(note[12:16]) != "Go\x00\x00" || uint64(descSize) > uint64(len(note)-16) {
		return ""
	}
	return string(note[16 : 16+descSize])
}
