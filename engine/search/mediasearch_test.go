package search

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
)

func mustSearch(tb testing.TB, m *MediaSearch, q string, limit int) []string {
	tb.Helper()
	ids, err := m.Search(q, limit)
	if err != nil {
		tb.Fatalf("Search(%q): %v", q, err)
	}
	sort.Strings(ids)
	return ids
}

func TestMediaSearch(t *testing.T) {
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, it := range []*media.Item{
		{ID: "a", Filename: "alpine-lake.jpg", Alt: "A blue lake under snowy peaks"},
		{ID: "b", Filename: "city_night.png", Alt: "Skyline at night"},
		{ID: "c", Filename: "Report.2024.pdf", Alt: ""},
		{ID: "d", Filename: "lakeside.webp", Alt: "Boats"},
	} {
		m.Follow(it, false)
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"lake", []string{"a", "d"}},  // filename part and prefix of "lakeside"
		{"alpine", []string{"a"}},     // part of a dashed name
		{"alp", []string{"a"}},        // prefix
		{"night", []string{"b"}},      // underscore part and alt
		{"SKYLINE", []string{"b"}},    // case
		{"2024", []string{"c"}},       // dotted part
		{"blue lake", []string{"a"}},  // every word must match
		{"blue boats", nil},           // no item has both
		{"report pdf", []string{"c"}}, // extension is a word
		{"snow", []string{"a"}},       // alt prefix
		{"  ", nil},                   // nothing to search
		{"--..__", nil},               // separators only
		{"lake\x00; DROP TABLE", nil}, // garbage is just words
		{"l", []string{"a", "d"}},     // one letter is a prefix too
	} {
		got := mustSearch(t, m, tc.q, 10)
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}

	// An update replaces the old text; a delete removes the item.
	m.Follow(&media.Item{ID: "a", Filename: "alpine-lake.jpg", Alt: "glacier"}, false)
	if got := mustSearch(t, m, "blue", 10); len(got) != 0 {
		t.Errorf("old alt still found: %v", got)
	}
	if got := mustSearch(t, m, "glacier", 10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("new alt: %v", got)
	}
	m.Follow(&media.Item{ID: "d", Filename: "lakeside.webp"}, true)
	if got := mustSearch(t, m, "lake", 10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after delete: %v", got)
	}

	// Title, description and every locale's text are searched too.
	m.Follow(&media.Item{ID: "b", Filename: "city_night.png", Alt: "Skyline at night", Title: "Harbour",
		Description: "Taken from the ferry", AltByLocale: map[string]string{"fr": "Ville la nuit", "de": "Stadt bei Nacht"},
		TitleByLocale: map[string]string{"fr": "Port"}, DescriptionByLocale: map[string]string{"es": "Desde el transbordador"}}, false)
	for q, want := range map[string][]string{"harbour": {"b"}, "ferry": {"b"}, "ville nuit": {"b"}, "stadt": {"b"},
		"port": {"b"}, "transbordador": {"b"}, "glacier": {"a"}, "ville glacier": nil} {
		got := mustSearch(t, m, q, 10)
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %v, want %v", q, got, want)
		}
	}
	m.Follow(&media.Item{ID: "b", Filename: "city_night.png", AltByLocale: map[string]string{"fr": "Ville"}}, false)
	if got := mustSearch(t, m, "stadt", 10); len(got) != 0 {
		t.Errorf("a removed locale's alt still found: %v", got)
	}
	if got := mustSearch(t, m, "lake", 1); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
}

var benchFolders = []string{"/", "/blog", "/products", "/team", "/press/2024"}

var benchTypes = []string{"image/jpeg", "image/png", "image/webp", "application/pdf", "video/mp4"}

var benchWords = []string{"lake", "beach", "city", "night", "portrait", "logo", "team", "office", "sunset", "forest", "river", "mountain", "snow", "dog", "cat", "product"}

// fillMediaSearch indexes n items shaped like a real library, through the
// library's hook, as Open does at start.
func fillMediaSearch(tb testing.TB, n int) *MediaSearch {
	tb.Helper()
	m, err := NewMediaSearch()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	for i := range n {
		w1, w2, w3 := benchWords[i%len(benchWords)], benchWords[(i/16)%len(benchWords)], benchWords[(i/256)%len(benchWords)]
		m.Follow(&media.Item{
			ID:       fmt.Sprintf("id%07d", i),
			Filename: fmt.Sprintf("%s-%s_%06d.jpg", w1, w2, i),
			Alt:      fmt.Sprintf("a %s by the %s", w3, w1),
			Folder:   benchFolders[i%len(benchFolders)],
			MimeType: benchTypes[(i/7)%len(benchTypes)],
		}, false)
	}
	if _, err := m.Search("warmup", 1); err != nil { // flushes the last batch
		tb.Fatal(err)
	}
	return m
}

// BenchmarkMediaSearch100k measures searches over 100 000 items shaped as
// GET /api/v1/media asks them: the first page of 24 hits by relevance
// with the total (one word, a prefix, two words, a rare number, three
// words, and a word within one folder and type). It reports the median
// (p50) and p99 latency besides the mean, and the start-up cost of
// indexing 100k items (index-ms: Follow for every item, as Open does, up
// to the first search answered).
func BenchmarkMediaSearch100k(b *testing.B) {
	t0 := time.Now()
	m := fillMediaSearch(b, 100_000)
	indexMS := float64(time.Since(t0).Milliseconds())
	queries := []MediaQuery{
		{Text: "lake"}, {Text: "moun"}, {Text: "city night"}, {Text: "004217"}, {Text: "sunset beach dog"},
		{Text: "forest", Folder: "/blog", Type: "image"},
	}
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		q.Limit = 24
		m.epoch.Add(1) // the search itself, not the result cache
		t := time.Now()
		if _, _, err := m.Find(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		i++
	}
	reportLatency(b, lat)
	b.ReportMetric(indexMS, "index-ms")
}

// BenchmarkMediaSearch100kAll measures the searches of a list with an
// explicit sort: every hit's id, unranked.
func BenchmarkMediaSearch100kAll(b *testing.B) {
	m := fillMediaSearch(b, 100_000)
	queries := []string{"lake", "moun", "city night", "004217", "sunset beach dog"}
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		m.epoch.Add(1) // the search itself, not the result cache
		t := time.Now()
		if _, _, err := m.Find(ctx, MediaQuery{Text: queries[i%len(queries)], All: true}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		i++
	}
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func mustFind(tb testing.TB, m *MediaSearch, q MediaQuery) ([]string, int) {
	tb.Helper()
	ids, total, err := m.Find(context.Background(), q)
	if err != nil {
		tb.Fatalf("Find(%+v): %v", q, err)
	}
	return ids, total
}

func TestMediaSearchFind(t *testing.T) {
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, it := range []*media.Item{
		{ID: "a", Filename: "alpine-lake.jpg", MimeType: "image/jpeg", Folder: "/"},
		{ID: "b", Filename: "lake-map.pdf", MimeType: "application/pdf", Folder: "/docs"},
		{ID: "c", Filename: "lake-tour.mp4", MimeType: "video/mp4", Folder: "/docs"},
		{ID: "d", Filename: "lakeside.png", MimeType: "image/png", Folder: "/docs"},
		{ID: "e", Filename: "river.png", MimeType: "image/png", Folder: "/docs", Alt: "by the lake"},
		{ID: "f", Filename: "lakes-of-the-north.gif", MimeType: "image/gif", Folder: "/docs/sub"},
	} {
		m.Follow(it, false)
	}
	sorted := func(ids []string) []string { ids = slices.Clone(ids); sort.Strings(ids); return ids }

	// Filters run inside the index; the total counts every hit.
	for _, tc := range []struct {
		q    MediaQuery
		want []string
	}{
		{MediaQuery{Text: "lake"}, []string{"a", "b", "c", "d", "e", "f"}},
		{MediaQuery{Text: "lake", Folder: "/docs"}, []string{"b", "c", "d", "e"}},
		{MediaQuery{Text: "lake", Folder: "/docs/sub"}, []string{"f"}},
		{MediaQuery{Text: "lake", Folder: "/nope"}, nil},
		{MediaQuery{Text: "lake", Type: "image"}, []string{"a", "d", "e", "f"}},
		{MediaQuery{Text: "lake", Type: "document"}, []string{"b"}},
		{MediaQuery{Text: "lake", Type: "video", Folder: "/docs"}, []string{"c"}},
		{MediaQuery{Text: "lake", Type: "video", Folder: "/"}, nil},
		{MediaQuery{Text: "lake map", Folder: "/docs"}, []string{"b"}},
		{MediaQuery{Text: "zzz"}, nil},
	} {
		q := tc.q
		q.Limit = 100
		ids, total := mustFind(t, m, q)
		if total != len(tc.want) || !slices.Equal(sorted(ids), tc.want) && len(tc.want) > 0 || len(tc.want) == 0 && len(ids) != 0 {
			t.Errorf("Find(%+v) = %v (total %d), want %v", tc.q, ids, total, tc.want)
		}
		q.All = true
		all, totalAll := mustFind(t, m, q)
		if totalAll != total || !slices.Equal(sorted(all), sorted(ids)) {
			t.Errorf("Find(%+v, All) = %v (total %d), want %v", tc.q, all, totalAll, ids)
		}
	}

	// Exact word matches rank before prefix matches ("lakeside" and
	// "lakes" are rarer words, so they would win on idf alone).
	ids, _ := mustFind(t, m, MediaQuery{Text: "lake", Limit: 100})
	if got := sorted(ids[:4]); !slices.Equal(got, []string{"a", "b", "c", "e"}) {
		t.Errorf("exact matches not first: %v", ids)
	}
	// Pages are slices of the ranking; the total stays; Reverse pages
	// from the other end.
	var paged []string
	for off := 0; off < 6; off += 4 {
		p, total := mustFind(t, m, MediaQuery{Text: "lake", Offset: off, Limit: 4})
		if total != 6 {
			t.Errorf("page at %d: total %d", off, total)
		}
		paged = append(paged, p...)
	}
	if !slices.Equal(paged, ids) {
		t.Errorf("pages %v, whole %v", paged, ids)
	}
	rev, _ := mustFind(t, m, MediaQuery{Text: "lake", Limit: 2, Reverse: true})
	if len(rev) != 2 || !slices.Contains([]string{"d", "f"}, rev[0]) || !slices.Contains([]string{"d", "f"}, rev[1]) {
		t.Errorf("reverse: %v, want the prefix-only matches d and f first", rev)
	}
	if p, total := mustFind(t, m, MediaQuery{Text: "lake", Offset: 10, Limit: 4}); len(p) != 0 || total != 6 {
		t.Errorf("past the end: %v total %d", p, total)
	}

	// A move to another folder is seen by the next search.
	m.Follow(&media.Item{ID: "b", Filename: "lake-map.pdf", MimeType: "application/pdf", Folder: "/"}, false)
	if ids, _ := mustFind(t, m, MediaQuery{Text: "lake", Folder: "/", Limit: 10}); !slices.Equal(sorted(ids), []string{"a", "b"}) {
		t.Errorf("after move: %v", ids)
	}

	// A search whose context ends while it waits for indexing gives up.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Follow(&media.Item{ID: "g", Filename: "g.png"}, false)
	if _, _, err := m.Find(ctx, MediaQuery{Text: "g", Limit: 1}); err != nil && err != context.Canceled {
		t.Errorf("cancelled search: %v", err)
	}
}

// TestMediaSearchSeesEarlierWrites writes from several goroutines while
// searching: every search finds every item whose Follow returned before
// the search began.
func TestMediaSearchSeesEarlierWrites(t *testing.T) {
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const writers, each = 4, 300
	done := make(chan int, writers)
	for w := range writers {
		go func() {
			for i := range each {
				m.Follow(&media.Item{ID: fmt.Sprintf("w%d-%d", w, i), Filename: fmt.Sprintf("shot-w%d.jpg", w), Alt: "burst"}, false)
				if i%50 == 49 {
					// Every write so far of this writer must be found.
					_, total := mustFind(t, m, MediaQuery{Text: fmt.Sprintf("shot w%d", w), Limit: 1})
					if total < i+1 {
						t.Errorf("writer %d: %d found after %d writes", w, total, i+1)
					}
				}
			}
			done <- w
		}()
	}
	for range writers {
		<-done
	}
	if _, total := mustFind(t, m, MediaQuery{Text: "burst", Limit: 1}); total != writers*each {
		t.Errorf("total %d, want %d", total, writers*each)
	}
	if !m.Ready() {
		t.Errorf("not ready after a search")
	}
}

// TestMediaSearchCompacts writes one item per batch, with updates and
// deletes, until the free slots have been reclaimed several times: every
// search stays exact, and the index holds few free slots.
func TestMediaSearchCompacts(t *testing.T) {
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const n = 2000
	for i := range n {
		for range 3 { // the same item again: two slots freed
			m.Follow(&media.Item{ID: fmt.Sprintf("i%04d", i), Filename: fmt.Sprintf("shot-%04d.jpg", i), Folder: "/"}, false)
		}
		if i%3 == 0 && i > 0 {
			// Move the previous one; it must be found in its new folder.
			m.Follow(&media.Item{ID: fmt.Sprintf("i%04d", i-1), Filename: fmt.Sprintf("shot-%04d.jpg", i-1), Folder: "/moved"}, false)
		}
		if i%5 == 0 && i > 0 {
			m.Follow(&media.Item{ID: fmt.Sprintf("i%04d", i-2)}, true)
		}
		ids, total := mustFind(t, m, MediaQuery{Text: fmt.Sprintf("shot %04d", i), Limit: 10})
		if total != 1 || ids[0] != fmt.Sprintf("i%04d", i) {
			t.Fatalf("item %d: %v (total %d)", i, ids, total)
		}
	}
	want := map[string]string{}
	for i := range n {
		want[fmt.Sprintf("i%04d", i)] = "/"
	}
	for i := range n {
		if i%3 == 0 && i > 0 {
			want[fmt.Sprintf("i%04d", i-1)] = "/moved"
		}
		if i%5 == 0 && i > 0 {
			delete(want, fmt.Sprintf("i%04d", i-2))
		}
	}
	for _, f := range []string{"/", "/moved"} {
		ids, total := mustFind(t, m, MediaQuery{Text: "shot", Folder: f, All: true})
		var exp []string
		for id, wf := range want {
			if wf == f {
				exp = append(exp, id)
			}
		}
		sort.Strings(exp)
		sort.Strings(ids)
		if total != len(exp) || !slices.Equal(ids, exp) {
			t.Errorf("folder %s: %d hits, want %d", f, total, len(exp))
		}
	}
	m.idxMu.RLock()
	slots, live := len(m.idx.slots), m.idx.live
	m.idxMu.RUnlock()
	if live != len(want) || slots > 2*live+1024 {
		t.Errorf("%d slots for %d items (want %d)", slots, live, len(want))
	}
}

// TestMediaSearchClosed: after Close, Follow is ignored and a search
// fails instead of waiting.
func TestMediaSearchClosed(t *testing.T) {
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	m.Follow(&media.Item{ID: "a", Filename: "a.jpg"}, false)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	m.Follow(&media.Item{ID: "b", Filename: "b.jpg"}, false)
	if _, _, err := m.Find(context.Background(), MediaQuery{Text: "a", Limit: 1}); err == nil {
		t.Errorf("search after Close succeeded")
	}
}
