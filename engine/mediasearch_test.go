package engine

import (
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
	if got := mustSearch(t, m, "lake", 1); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
}

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
		}, false)
	}
	if _, err := m.Search("warmup", 1); err != nil { // flushes the last batch
		tb.Fatal(err)
	}
	return m
}

// BenchmarkMediaSearch100k measures searches of 24 hits over 100 000
// items: one word, a prefix, two words, a rare number. It reports the
// median (p50) and p99 latency besides the mean, and the start-up cost
// of indexing 100k items.
func BenchmarkMediaSearch100k(b *testing.B) {
	t0 := time.Now()
	m := fillMediaSearch(b, 100_000)
	b.ReportMetric(float64(time.Since(t0).Milliseconds()), "index-ms")
	queries := []string{"lake", "moun", "city night", "004217", "sunset beach dog"}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		if _, err := m.Search(queries[i%len(queries)], 24); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
