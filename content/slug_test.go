package content

import (
	"strings"
	"testing"
	"time"
)

func TestValidSlug(t *testing.T) {
	tests := map[string]bool{
		"hello": true, "guides/install": true, "a.b_c~d-e": true, "CamelCase": true, "2024/01/post": true,
		"...": true, "a..b": true, strings.Repeat("a", 200): true,
		"": false, "/": false, "/a": false, "a/": false, "a//b": false, ".": false, "..": false, "a/../b": false,
		"../etc": false, "a/./b": false, "a b": false, "a?b": false, "a%2e": false, "caf\u00e9": false,
		"a\\b": false, "a\x00": false, strings.Repeat("a", 201): false,
	}
	for s, want := range tests {
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestValidType(t *testing.T) {
	tests := map[string]bool{
		"posts": true, "blog-posts": true, "blog_posts": true, "2024": true, "a": true, strings.Repeat("a", 64): true,
		"": false, "Posts": false, "-posts": false, "_posts": false, "blog posts": false, "blog.posts": false,
		"é": false, strings.Repeat("a", 65): false,
	}
	for s, want := range tests {
		if got := ValidType(s); got != want {
			t.Errorf("ValidType(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPathSlug(t *testing.T) {
	tests := map[string]string{
		"about.md": "about", "guides/install.md": "guides/install", "x/index.md": "x", "a/b/index.yaml": "a/b",
		"index.md": "index", "v1.2.md": "v1.2", "archive.tar.json": "archive.tar",
	}
	for rel, want := range tests {
		if got := pathSlug(rel); got != want {
			t.Errorf("pathSlug(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestParseDate(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in   any
		want time.Time
	}{
		{"2024-03-01", utc(2024, 3, 1, 0, 0, 0, 0)},
		{"2024-03-01T10:20:30Z", utc(2024, 3, 1, 10, 20, 30, 0)},
		{"2024-03-01T10:20:30.5+02:00", utc(2024, 3, 1, 8, 20, 30, 5e8)},
		{"2024-03-01t10:20:30z", utc(2024, 3, 1, 10, 20, 30, 0)},
		{"2024-03-01 10:20:30", utc(2024, 3, 1, 10, 20, 30, 0)},
		{"2024-03-01T10:20:30", utc(2024, 3, 1, 10, 20, 30, 0)},
		{"2024-03-01 10:20:30 -0500", utc(2024, 3, 1, 15, 20, 30, 0)},
		{"2024-03-01 10:20:30 +01:00", utc(2024, 3, 1, 9, 20, 30, 0)},
		{"2024-03-01 10:20:30-05:00", utc(2024, 3, 1, 15, 20, 30, 0)},
		{"2024-03-01 10:20", utc(2024, 3, 1, 10, 20, 0, 0)},
		{" 2024-03-01 ", utc(2024, 3, 1, 0, 0, 0, 0)},
		{time.Date(2024, 3, 1, 1, 0, 0, 0, time.FixedZone("X", 3600)), utc(2024, 3, 1, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		got, err := parseDate(tt.in)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("parseDate(%v) = %v, %v; want %v UTC", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []any{"yesterday", "2024-13-01", "2024-02-30", "01/02/2024", "", "2024-03-01T25:00:00Z", int64(1700000000), true, []any{"2024-01-01"}} {
		if got, err := parseDate(bad); err == nil {
			t.Errorf("parseDate(%#v) = %v, want an error", bad, got)
		}
	}
}
