package content

import (
	"strings"
	"testing"
	"time"
)

// A document's updatedAt comes from its generator's own key when it has
// no updatedAt or lastmod: Zola's updated, Hugo's modified (its alias of
// lastmod). The key stays in data as written. On other sites, and for
// the other generator's key, it is data only and updatedAt is the last
// commit's time; lastmod still wins over modified. A bad date is a
// problem, as a bad lastmod is.
func TestUpdatedPerGenerator(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	for _, c := range []struct {
		name   string
		config map[string]string
		fm     string
		want   time.Time
	}{
		{"zola updated", map[string]string{"config.toml": "base_url = \"https://z/\"\n"}, "+++\ntitle = \"A\"\ndate = 2020-01-01\nupdated = 2021-02-03\n+++\n", day("2021-02-03")},
		{"zola modified is data", map[string]string{"config.toml": "base_url = \"https://z/\"\n"}, "+++\ntitle = \"A\"\nmodified = 2021-02-03\n+++\n", commitTime},
		{"hugo modified", map[string]string{"hugo.toml": "title = \"x\"\n"}, "---\ntitle: A\nmodified: 2021-02-03\n---\n", day("2021-02-03")},
		{"hugo lastmod wins", map[string]string{"hugo.toml": "title = \"x\"\n"}, "---\ntitle: A\nlastmod: 2022-01-01\nmodified: 2021-02-03\n---\n", day("2022-01-01")},
		{"hugo updated is data", map[string]string{"hugo.toml": "title = \"x\"\n"}, "---\ntitle: A\nupdated: 2021-02-03\n---\n", commitTime},
		{"no generator", nil, "---\ntitle: A\nupdated: 2021-02-03\nmodified: 2021-02-03\n---\n", commitTime},
	} {
		files := map[string]string{"content/posts/a.md": c.fm}
		for k, v := range c.config {
			files[k] = v
		}
		s, probs := assemble(t, files)
		wantNoProblems(t, probs)
		its := s.Items["posts"]
		if len(its) != 1 {
			t.Fatalf("%s: items %v", c.name, its)
		}
		if got := its[0].UpdatedAt; !got.Equal(c.want) {
			t.Errorf("%s: updatedAt %v, want %v", c.name, got, c.want)
		}
		if _, ok := its[0].Data["updated"]; strings.Contains(c.fm, "updated") && !ok {
			t.Errorf("%s: updated not in data: %v", c.name, its[0].Data)
		}
		if _, ok := its[0].Data["modified"]; strings.Contains(c.fm, "modified") && !ok {
			t.Errorf("%s: modified not in data: %v", c.name, its[0].Data)
		}
	}
	_, probs := assemble(t, map[string]string{"config.toml": "base_url = \"https://z/\"\n",
		"content/posts/a.md": "+++\ntitle = \"A\"\nupdated = \"soon\"\n+++\n"})
	if len(probs) != 1 || !strings.Contains(probs[0].Message, "updated:") {
		t.Fatalf("bad updated: %v", probs)
	}
}
