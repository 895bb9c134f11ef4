package content

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestValidSlug(t *testing.T) {
	tests := map[string]bool{
		"hello": true, "guides/install": true, "a.b_c~d-e": true, "CamelCase": true, "2024/01/post": true,
		"...": true, "a..b": true, strings.Repeat("a", 200): true,
		"": false, "/": false, "/a": false, "a/": false, "a//b": false, ".": false, "..": false, "a/../b": false,
		"../etc": false, "a/./b": false, "a b": false, "a?b": false, "a%2e": false,
		// Letters, marks and digits of every script; no space, punctuation,
		// symbol or invisible character, no broken UTF-8.
		"caf\u00e9": true, "приватність": true, "关于/团队": true, "हिंदी": true, "ไทย": true, "٣-أخبار": true,
		"a\u200db": false, "a\u202eb": false, "a\u00a0b": false, "a\uff0fb": false, "a\u3000b": false, "a\u2028b": false,
		"a\u00bfb": false, "\u2603": false, "a\xffb": false, "a\xd0": false,
		"a\\b": false, "a\x00": false, strings.Repeat("a", 201): false,
	}
	for s, want := range tests {
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestEscapeSlug(t *testing.T) {
	for s, want := range map[string]string{
		"hello": "hello", "guides/a.b_c~d-e": "guides/a.b_c~d-e",
		"приватність": "%D0%BF%D1%80%D0%B8%D0%B2%D0%B0%D1%82%D0%BD%D1%96%D1%81%D1%82%D1%8C",
		"关于/team":     "%E5%85%B3%E4%BA%8E/team",
	} {
		if got := EscapeSlug(s); got != want {
			t.Errorf("EscapeSlug(%q) = %q, want %q", s, got, want)
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
		"cloud native apps.md": "cloud-native-apps", "my guides/a\u00a0b.md": "my-guides/a-b",
	}
	for rel, want := range tests {
		if got := PathSlug(rel); got != want {
			t.Errorf("PathSlug(%q) = %q, want %q", rel, got, want)
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

// TestStableID_OneAllocation: an id is the first 8 bytes of the SHA-256
// of its parts, each ended by a zero byte, in hex, as it always was (ids
// are in every response and every client's links), made in one
// allocation (the id; four with a hash state made each time: garbage of
// every document at every start).
func TestStableID_OneAllocation(t *testing.T) {
	old := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	long := strings.Repeat("a-long-slug/", 40) // past the stack buffer
	for _, parts := range [][]string{{"item\x00posts", "hello"}, {"page", "home"}, {""}, {"item\x00posts", long}, {long, long}} {
		if got, want := stableID(parts...), old(parts...); got != want {
			t.Fatalf("stableID(%q) = %s, want %s", parts, got, want)
		}
	}
	var id string
	if n := testing.AllocsPerRun(100, func() { id = stableID("item\x00posts", "a-post-of-the-site-0042") }); n != 1 {
		t.Fatalf("stableID made %.0f allocations, want 1", n)
	}
	_ = id
}
