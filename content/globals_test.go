package content

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestAssemble_Globals(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"globals.yaml": `siteName: Acme
logoUrl: https://cdn.test/logo.svg
nav:
  - {label: Home, url: /}
  - label: Products
    url: /products
    children: [{label: Tents, url: /products/tents}]
footer:
  copyrightText: © Acme
  links: [{label: Imprint, url: /imprint}]
social:
  - {platform: github, url: https://github.com/acme}
analyticsId: UA-1
siteName2: extra
`,
		"globals.json": `{"siteName": "loses to globals.json? no: globals.json < globals.yaml"}`,
	})
	// globals.json sorts before globals.yaml, so it is the globals file.
	wantProblems(t, probs, map[string]string{"globals.yaml": "globals.json is the globals file already"})
	if site.Globals == nil || site.Globals.SiteName != "loses to globals.json? no: globals.json < globals.yaml" {
		t.Fatalf("globals = %+v", site.Globals)
	}

	site, probs = assemble(t, map[string]string{"globals.yaml": `siteName: Acme
logoUrl: https://cdn.test/logo.svg
nav:
  - {label: Home, url: /}
  - label: Products
    url: /products
    children: [{label: Tents, url: /products/tents}]
footer:
  copyrightText: © Acme
  links: [{label: Imprint, url: /imprint}]
social:
  - {platform: github, url: https://github.com/acme}
analyticsId: UA-1
siteName2: extra
`})
	wantNoProblems(t, probs)
	want := &Globals{
		SiteName: "Acme", LogoURL: "https://cdn.test/logo.svg",
		Nav:    []NavLink{{Label: "Home", URL: "/"}, {Label: "Products", URL: "/products", Children: []NavLink{{Label: "Tents", URL: "/products/tents"}}}},
		Footer: Footer{CopyrightText: "© Acme", Links: []NavLink{{Label: "Imprint", URL: "/imprint"}}},
		Social: []SocialLink{{Platform: "github", URL: "https://github.com/acme"}},
		Extra:  map[string]any{"analyticsId": "UA-1", "siteName2": "extra"},
	}
	if !reflect.DeepEqual(site.Globals, want) {
		t.Errorf("globals = %#v\nwant %#v", site.Globals, want)
	}
	var got map[string]any
	b, _ := json.Marshal(site.Globals)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["siteName"] != "Acme" || got["analyticsId"] != "UA-1" || got["logoUrl"] != "https://cdn.test/logo.svg" || got["footer"].(map[string]any)["copyrightText"] != "© Acme" {
		t.Errorf("JSON = %s", b)
	}
}

func TestGlobals_MarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		g    Globals
		want string
	}{
		{"empty lists", Globals{SiteName: "A"},
			`{"siteName":"A","logoUrl":"","nav":[],"footer":{"copyrightText":""},"social":[]}`},
		{"known fields win over extras", Globals{SiteName: "A", Extra: map[string]any{"siteName": "B", "z": 1, "a": []any{"x"}}},
			`{"siteName":"A","logoUrl":"","nav":[],"footer":{"copyrightText":""},"social":[],"a":["x"],"z":1}`},
		{"nested nav", Globals{Nav: []NavLink{{Label: "a", URL: "/a", Children: []NavLink{{Label: "b", URL: "/b"}}}}},
			`{"siteName":"","logoUrl":"","nav":[{"label":"a","url":"/a","children":[{"label":"b","url":"/b"}]}],"footer":{"copyrightText":""},"social":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.g)
			if err != nil || string(b) != tt.want || !json.Valid(b) {
				t.Errorf("got %s, %v\nwant %s", b, err, tt.want)
			}
		})
	}
}

func TestAssemble_GlobalsProblems(t *testing.T) {
	tests := map[string]string{
		"siteName: [a]\n":                    "globals.yaml:1: siteName: want text",
		"nav: {label: x}\n":                  "nav: want a list, found a map",
		"nav: [x]\n":                         "nav: entry 1: want a map",
		"nav: [{label: x, href: /}]\n":       `nav: entry 1: unknown key "href"`,
		"nav: [{label: x, children: 3}]\n":   "entry 1: want a list",
		"footer: text\n":                     "footer: footer: want a map",
		"footer: {copyright: x}\n":           `unknown key "copyright"`,
		"social: [{platform: x, link: y}]\n": `unknown key "link"`,
		"x: 1\nsocial: [{platform: [a]}]\n":  "globals.yaml:2: social: entry 1: want text",
		"- a\n":                              "expected a map",
	}
	for src, msg := range tests {
		t.Run(msg, func(t *testing.T) {
			site, probs := assemble(t, map[string]string{"globals.yaml": src})
			wantProblems(t, probs, map[string]string{"globals.yaml": msg})
			if site.Globals != nil {
				t.Errorf("globals kept: %+v", site.Globals)
			}
		})
	}
}
