package content

import "testing"

func TestHugoLanguage(t *testing.T) {
	file := func(p string, meta map[string]any) File { return File{Path: p, Doc: NewDoc(meta)} }
	for _, tc := range []struct {
		name  string
		files []File
		want  string
	}{
		{"languageCode", []File{file("hugo.toml", map[string]any{"languageCode": "en-us"})}, "en"},
		{"case-insensitive key, underscore", []File{file("config.yaml", map[string]any{"languagecode": "pt_BR"})}, "pt"},
		{"script", []File{file("hugo.yaml", map[string]any{"languageCode": "zh-Hans"})}, "zh"},
		{"languageCode before defaultContentLanguage", []File{file("hugo.toml", map[string]any{"defaultContentLanguage": "fr", "languageCode": "de-de"})}, "de"},
		{"defaultContentLanguage", []File{file("config/_default/hugo.toml", map[string]any{"defaultContentLanguage": "fr"})}, "fr"},
		{"hugo.* before config/_default", []File{
			file("config/_default/hugo.toml", map[string]any{"languageCode": "fr"}),
			file("hugo.toml", map[string]any{"languageCode": "it"}),
		}, "it"},
		{"one language", []File{file("hugo.toml", map[string]any{"languages": map[string]any{"sv": map[string]any{}}})}, "sv"},
		{"a language without rules", []File{file("hugo.toml", map[string]any{"languageCode": "eo"})}, ""},
		{"not a code", []File{file("hugo.toml", map[string]any{"languageCode": 7})}, ""},
		{"none", []File{file("hugo.toml", map[string]any{"title": "x"})}, ""},
		{"not a Hugo config", []File{file("data/hugo.toml", map[string]any{"languageCode": "en"})}, ""},
	} {
		if got := hugoLanguage(tc.files); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
