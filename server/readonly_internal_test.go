package server

import "testing"

func TestMatchPattern(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"/api/v1/media", "/api/v1/media", true},
		{"/api/v1/media", "/api/v1/media/", false},
		{"/api/v1/media/:id", "/api/v1/media/abc", true},
		{"/api/v1/media/:id", "/api/v1/media/", false},
		{"/api/v1/media/:id", "/api/v1/media/a/b", false},
		{"/api/v1/media/folders", "/api/v1/media/folder", false},
		{"/api/v1/pages/*slug", "/api/v1/pages/guides/install", true},
		{"/api/v1/pages/*slug", "/api/v1/pages/", true},
		{"/api/v1/pages/*slug", "/api/v1/pages", false},
		{"/uploads/*key", "/uploads/2026/01/a.png", true},
		{"/api/v1/content/:type/*slug", "/api/v1/content/posts/a", true},
		{"/api/v1/content/:type", "/api/v1/content/posts/a", false},
	}
	for _, c := range cases {
		if got := matchPattern(c.pattern, c.path); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %t, want %t", c.pattern, c.path, got, c.want)
		}
	}
}
