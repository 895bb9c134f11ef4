package content

import (
	"reflect"
	"testing"
	"time"
)

func TestParseSort(t *testing.T) {
	cfg := TypeConfig{Sortable: []string{"rating", "price"}}
	tests := []struct {
		s         string
		cfg       TypeConfig
		field     string
		desc, bad bool
	}{
		{"", TypeConfig{}, "publishedAt", true, false},
		{"", TypeConfig{DefaultSort: "title"}, "title", false, false},
		{"title", cfg, "title", false, false},
		{"-updatedAt", cfg, "updatedAt", true, false},
		{"slug", cfg, "slug", false, false},
		{"-rating", cfg, "rating", true, false},
		{"price", cfg, "price", false, false},
		{"rating", TypeConfig{}, "", false, true},
		{"--title", cfg, "", false, true},
		{"+title", cfg, "", false, true},
		{"Title", cfg, "", false, true},
		{"-", cfg, "", false, true},
		{"body", cfg, "", false, true},
	}
	for _, tt := range tests {
		field, desc, err := ParseSort(tt.s, tt.cfg)
		if (err != nil) != tt.bad || field != tt.field || desc != tt.desc {
			t.Errorf("ParseSort(%q) = %q, %v, %v; want %q, %v, error %v", tt.s, field, desc, err, tt.field, tt.desc, tt.bad)
		}
	}
	if got, want := SortFields(cfg), []string{"publishedAt", "updatedAt", "title", "slug", "rating", "price"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SortFields = %v, want %v", got, want)
	}
}

func TestSortItems(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	items := []*Item{
		{Slug: "a", Title: "banana", PublishedAt: t0.Add(2 * time.Hour), Data: map[string]any{"n": int64(10), "s": "b"}},
		{Slug: "b", Title: "Apple", PublishedAt: t0, Data: map[string]any{"n": 2.5, "s": true}},
		{Slug: "c", Title: "cherry", PublishedAt: t0.Add(time.Hour), Data: map[string]any{"n": int64(2)}},
		{Slug: "d", Title: "apple", PublishedAt: t0, Data: map[string]any{"n": "text", "s": "A"}},
		{Slug: "e", Title: "Éclair", PublishedAt: t0.Add(time.Hour), Data: map[string]any{"n": nil, "s": map[string]any{}}},
		{Slug: "f", Title: "date", PublishedAt: t0.Add(3 * time.Hour), UpdatedAt: t0, Data: map[string]any{}},
	}
	tests := []struct {
		field string
		desc  bool
		want  string
	}{
		{"publishedAt", false, "bdceaf"},
		{"publishedAt", true, "facebd"}, // ties stay by slug
		{"title", false, "bdacfe"},      // case-insensitive, then byte order
		{"title", true, "efcadb"},
		{"slug", true, "fedcba"},
		{"n", false, "cbad" + "ef"}, // numbers, then text; missing last
		{"n", true, "dabc" + "ef"},  // missing last in both directions
		{"s", false, "dab" + "cef"}, // text, then booleans; maps count as missing
		{"updatedAt", false, "abcde" + "f"},
	}
	for _, tt := range tests {
		list := append([]*Item(nil), items...)
		SortItems(list, tt.field, tt.desc)
		got := ""
		for _, it := range list {
			got += it.Slug
		}
		if got != tt.want {
			t.Errorf("sort %s desc=%v: %s, want %s", tt.field, tt.desc, got, tt.want)
		}
	}
}
