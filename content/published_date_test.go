package content

import "testing"

// TestAssemble_PublishedDate: vitess.io's blog posts date themselves with
// published: 2018-08-05T07:15:00-07:00, Hugo's alias of publishDate: the
// post is published at that time (after publishDate, before date, as
// Hugo ranks them), not a problem ("want true or false") left out, and
// published: false stays a draft flag.
func TestAssemble_PublishedDate(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"config.toml":                 "baseURL = \"https://vitess.io\"\n",
		"content/blog/digest.md":      "---\nauthor: \"Adrianna Tan\"\npublished: 2018-08-05T07:15:00-07:00\nslug: \"2018-08-24-vitess-weekly-digest\"\ntitle: \"Vitess Weekly Digest\"\n---\nHi.\n",
		"content/blog/ranked.md":      "---\ntitle: Ranked\ndate: 2020-01-01\npublished: 2019-01-01\npublishDate: 2021-01-01\n---\n",
		"content/blog/under-date.md":  "---\ntitle: Under\ndate: 2020-01-01\npublished: 2019-01-01\n---\n",
		"content/blog/hidden.md":      "---\ntitle: Hidden\npublished: false\n---\n",
		"content/blog/quoted-date.md": "---\ntitle: Quoted\npublished: \"2018-09-10\"\n---\n",
	})
	wantNoProblems(t, probs)
	d := itemBySlug(t, site, "blog", "2018-08-24-vitess-weekly-digest")
	if !d.PublishedAt.Equal(day(2018, 8, 5, 14, 15)) || d.Meta.Draft {
		t.Errorf("digest = %v draft %v, want 2018-08-05 14:15 UTC, published", d.PublishedAt, d.Meta.Draft)
	}
	if _, left := d.Data["published"]; left {
		t.Errorf("published left in data: %v", d.Data)
	}
	if r := itemBySlug(t, site, "blog", "ranked"); !r.PublishedAt.Equal(day(2021, 1, 1, 0, 0)) {
		t.Errorf("ranked = %v, want publishDate over published", r.PublishedAt)
	}
	if u := itemBySlug(t, site, "blog", "under-date"); !u.PublishedAt.Equal(day(2019, 1, 1, 0, 0)) {
		t.Errorf("under-date = %v, want published over date", u.PublishedAt)
	}
	if q := itemBySlug(t, site, "blog", "quoted-date"); !q.PublishedAt.Equal(day(2018, 9, 10, 0, 0)) || q.Meta.Draft {
		t.Errorf("quoted-date = %v draft %v", q.PublishedAt, q.Meta.Draft)
	}
	if h := itemBySlug(t, site, "blog", "hidden"); !h.Meta.Draft {
		t.Errorf("published: false is not a draft")
	}
}
