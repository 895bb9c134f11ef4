package content

import "testing"

func TestModelFile(t *testing.T) {
	for p, want := range map[string]bool{
		"schemas/post.json":          true,
		"schemas/nested/post.yaml":   true,
		"schemas/post.md":            false,
		"schemas/.hidden.json":       false,
		"static/admin/config.yml":    true,
		"public/admin/Config.YAML":   true,
		"admin/config.yml":           true,
		"a/b/c/admin/config.yml":     false,
		"admin/other.yml":            false,
		"content/admin/config.md":    false,
		"content/posts/admin.md":     false,
		"content/posts/a.md":         false,
		"folio.yaml":                 false,
		"/schemas/post.json":         false,
		"_drafts/admin/config.yml":   false,
		"site/padmin/config.yml":     false,
		"schemas":                    false,
		"static\\admin/config.yml":   false,
		"static/admin/config.yml.md": false,
	} {
		if got := ModelFile(p); got != want {
			t.Errorf("ModelFile(%q) = %v, want %v", p, got, want)
		}
	}
}
