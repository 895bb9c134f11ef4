package content

import (
	"reflect"
	"testing"
)

func TestAssemble_Config(t *testing.T) {
	site, probs := assemble(t, map[string]string{"folio.yaml": `language: en
types:
  posts:
    public: true
    sortable: [rating, price_eur]
    defaultSort: -rating
  docs:
  pages-x: {public: false}
`})
	wantNoProblems(t, probs)
	want := Config{Language: "en", Types: map[string]TypeConfig{
		"posts":   {Public: true, Sortable: []string{"rating", "price_eur"}, DefaultSort: "-rating"},
		"docs":    {},
		"pages-x": {},
	}}
	if !reflect.DeepEqual(site.Config, want) {
		t.Errorf("config = %+v, want %+v", site.Config, want)
	}
	site, probs = assemble(t, map[string]string{})
	wantNoProblems(t, probs)
	if site.Config.Types == nil || len(site.Config.Types) != 0 || site.Items == nil {
		t.Errorf("empty site: %+v", site)
	}
}

func TestAssemble_ConfigDecap(t *testing.T) {
	site, probs := assemble(t, map[string]string{"folio.yaml": "decap: {version: 3.16.3, url: \"/js/decap-{version}.js\", publishMode: editorial_workflow}\n"})
	wantNoProblems(t, probs)
	if want := (DecapConfig{Version: "3.16.3", URL: "/js/decap-{version}.js", PublishMode: "editorial_workflow"}); site.Config.Decap == nil || *site.Config.Decap != want {
		t.Errorf("decap = %+v, want %+v", site.Config.Decap, want)
	}
}

func TestAssemble_ConfigProblems(t *testing.T) {
	tests := map[string]string{
		"type: {posts: {public: true}}\n":           `folio.yaml:1: unknown key "type"`,
		"types: [posts]\n":                          "types: want a map",
		"types:\n  Posts: {public: true}\n":         "types.Posts: not a valid content type name",
		"types:\n  posts: {public: yes}\n":          "public: want true or false",
		"types:\n  posts: {sortable: rating}\n":     "sortable: want a list",
		"types:\n  posts: {sortable: [a.b]}\n":      "sortable: a.b is not a field name",
		"types:\n  posts: {sortable: [1]}\n":        "sortable: 1 is not a field name",
		"types:\n  posts: {defaultSort: -rating}\n": `defaultSort: cannot sort by "rating"`,
		"types:\n  posts: {defaultSort: [x]}\n":     "defaultSort: want text",
		"types:\n  posts: {publik: true}\n":         `unknown key "publik"`,
		"types:\n  posts: true\n":                   "options: want a map",
		"language: english\n":                       "language: want one of ar, ckb,",
		"language: [en]\n":                          "language: want one of",
		"decap: 3\n":                                "decap: want a map",
		"decap: {version: \"3 beta\"}\n":            "decap: version: want a version",
		"decap: {url: \"javascript:alert(1)\"}\n":   "decap: url: want an http(s) or root-relative URL",
		"decap: {url: \"/a\\\"><script>\"}\n":       "decap: url: want",
		"decap: {publishMode: yolo}\n":              "decap: publishMode: want simple or editorial_workflow",
		"decap: {versoin: 3.16.3}\n":                `decap: unknown key "versoin"`,
	}
	for src, msg := range tests {
		t.Run(msg, func(t *testing.T) {
			site, probs := assemble(t, map[string]string{"folio.yaml": src})
			wantProblems(t, probs, map[string]string{"folio.yaml": msg})
			if len(site.Config.Types) != 0 {
				t.Errorf("config kept: %+v", site.Config)
			}
		})
	}
	_, probs := assemble(t, map[string]string{"folio.yaml": "", "folio.yml": ""})
	wantProblems(t, probs, map[string]string{"folio.yml": "folio.yaml is the folio config already"})
}

func TestAssemble_ConfigImagePresets(t *testing.T) {
	site, probs := assemble(t, map[string]string{"folio.yaml": `imagePresets:
  card: {w: 1200, h: 675, fit: cover, fm: webp, q: 80}
  thumb: {w: 300}
  box: {w: 400, h: 400, fit: contain, fm: png}
`})
	wantNoProblems(t, probs)
	want := map[string]ImagePreset{
		"card":  {W: 1200, H: 675, Fit: "cover", Format: "webp", Quality: 80},
		"thumb": {W: 300, Fit: "cover", Format: "webp", Quality: 80},
		"box":   {W: 400, H: 400, Fit: "contain", Format: "png", Quality: 80},
	}
	if !reflect.DeepEqual(site.Config.ImagePresets, want) {
		t.Errorf("presets = %+v, want %+v", site.Config.ImagePresets, want)
	}
	bad := map[string]string{
		"imagePresets: [card]\n":                        "folio.yaml:1: imagePresets: want a map",
		"language: en\nimagePresets:\n  Card: {w: 1}\n": "folio.yaml:2: imagePresets.Card: not a valid preset name",
		"imagePresets:\n  card: {w: 0}\n":               "imagePresets.card: w: want a whole number from 1 to 4096, found 0",
		"imagePresets:\n  card: {w: 5000}\n":            "w: want a whole number from 1 to 4096, found 5000",
		"imagePresets:\n  card: {w: 1.5}\n":             "w: want a whole number",
		"imagePresets:\n  card: {w: x}\n":               "w: want a whole number from 1 to 4096, found text",
		"imagePresets:\n  card: {fit: cover}\n":         "give w, h or both",
		"imagePresets:\n  card: {w: 1, fit: fill}\n":    "fit: want cover or contain",
		"imagePresets:\n  card: {w: 1, fm: gif}\n":      "fm: want webp, jpeg, png or avif",
		"imagePresets:\n  card: {w: 1, q: 101}\n":       "q: want a whole number from 1 to 100",
		"imagePresets:\n  card: {w: 1, x: 1}\n":         `unknown key "x"`,
		"imagePresets:\n  card: 3\n":                    "imagePresets.card: preset: want a map",
	}
	for src, msg := range bad {
		t.Run(msg, func(t *testing.T) {
			site, probs := assemble(t, map[string]string{"folio.yaml": src})
			wantProblems(t, probs, map[string]string{"folio.yaml": msg})
			if site.Config.ImagePresets != nil {
				t.Errorf("presets kept: %+v", site.Config.ImagePresets)
			}
		})
	}
}
