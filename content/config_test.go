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
