package content

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSiteConfig feeds folio.yaml (and a post it configures) to Assemble:
// no panic, every problem names a file and says something, a Config that
// is read sorts its items with ParseSort's answer for any sort= a client
// sends, and the site encodes as JSON.
func FuzzSiteConfig(f *testing.F) {
	for _, s := range []string{
		"types:\n  posts: {public: true, defaultSort: -publishedAt, sortable: [rank]}\n",
		"language: en\ntypes: {posts: {defaultSort: title}}\nimagePresets: {card: {w: 400, h: 300, fit: cover, fm: webp, q: 80}}\n",
		"types: {posts: {sortable: [a, b, c]}}\n", "type: {posts: {public: true}}\n", "types: [1, 2]\n",
		"imagePresets: {x: {w: -1}}\n", "imagePresets: {\"\": {w: 10}}\n", "language: klingon\n", "{}", "",
		"types:\n  posts:\n    defaultSort: rank\n    sortable: [rank]\n", aliasBomb,
		"locales: [en, fr, fr-CA]\nfallback: [fr-CA, fr, en]\nlayout: file\n", "locales: [en, fr]\nlayout: fields\n",
		"locales: [{code: de, contentDir: content/posts}]\nfallback: {de: [en]}\n", "locales: [x_y, '']\ndefaultLocale: q\n",
	} {
		for _, sort := range []string{"", "-publishedAt", "title", "rank", "-", "--title", "\x00"} {
			f.Add(s, sort)
		}
	}
	f.Fuzz(func(t *testing.T, cfg, sort string) {
		files := []File{{Path: "folio.yaml"}, {Path: "content/posts/a.md"}, {Path: "content/posts/b.md"}}
		srcs := []string{cfg, "---\ntitle: A\nrank: 2\npublishedAt: 2026-01-02\n---\nA", "---\ntitle: B\nrank: 1\n---\nB"}
		for i := range files {
			files[i].Doc, files[i].Err = Parse(files[i].Path, []byte(srcs[i]))
		}
		site, problems := Assemble(files)
		for _, p := range problems {
			if p.Path == "" || p.Message == "" {
				t.Fatalf("problem without a path or message: %#v", p)
			}
		}
		if site == nil {
			t.Fatal("Assemble returned no site")
		}
		for name, tc := range site.Config.Types {
			field, desc, err := ParseSort(sort, tc)
			if err != nil {
				if !strings.Contains(err.Error(), "cannot sort by") {
					t.Fatalf("ParseSort(%q) of %s: %v", sort, name, err)
				}
				continue
			}
			if !slices.Contains(SortFields(tc), field) || sort != "" && desc != strings.HasPrefix(sort, "-") {
				t.Fatalf("ParseSort(%q) = %q, %v", sort, field, desc)
			}
			SortItems(site.Items[name], field, desc)
		}
		if _, err := json.Marshal(site.Config); err != nil {
			t.Fatalf("config does not encode: %v", err)
		}
	})
}

// FuzzSlug checks ValidSlug against its definition, and that EscapeSlug
// makes a valid slug a URL path that unescapes to it.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"a", "a/b", "a//b", "./a", "a/..", "..", "-", "~x_y.z", "é", "приватність/关于", "a\u200db", "a b", "\xff", strings.Repeat("a", MaxSlugLen+1), "a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := ValidSlug(s)
		want := s != "" && len(s) <= MaxSlugLen && utf8.ValidString(s)
		for _, seg := range strings.Split(s, "/") {
			if seg == "" || seg == "." || seg == ".." {
				want = false
			}
			for _, r := range seg {
				if r < utf8.RuneSelf && !slugByte(byte(r)) || r >= utf8.RuneSelf && !unicode.In(r, unicode.L, unicode.M, unicode.N) {
					want = false
				}
			}
		}
		if ok != want {
			t.Fatalf("ValidSlug(%q) = %v, want %v", s, ok, want)
		}
		if !ok {
			return
		}
		e := EscapeSlug(s)
		u, err := url.Parse("/api/v1/pages/" + e)
		if err != nil || u.Path != "/api/v1/pages/"+s || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(e, "?# \\") {
			t.Fatalf("EscapeSlug(%q) = %q: parses as %v %v", s, e, u, err)
		}
	})
}
