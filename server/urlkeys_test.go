package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestURLKeysServedAsWritten: a Zola site's (the Rust blog's) path and
// aliases, and Hugo's url, name URLs of the site, not items, even when
// their first segment is a content type of the site: ?expand=* serves
// them as written (they expanded to the item they seemed to name, or to
// null), the referrers of an item do not list them, and the status has
// no problem for them. A reference under another key still expands.
func TestURLKeysServedAsWritten(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"config.toml": "base_url = \"https://blog.example.com\"\n",
		"content/inside-rust/a.md": "+++\npath = \"inside-rust/2019/12/20/a\"\ntitle = \"A\"\n" +
			"aliases = [\"inside-rust/b\", \"inside-rust/2019/12/20/a.html\"]\nurl = \"inside-rust/b\"\n\n" +
			"[extra]\nsee = \"inside-rust/b\"\n+++\nBody.\n",
		"content/inside-rust/b.md": "+++\npath = \"inside-rust/2019/12/21/b\"\ntitle = \"B\"\n+++\nB.\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	url := func(p string) string { return ts.URL + p }
	data := func(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }

	r := get(t, url("/api/v1/content/inside-rust/a?expand=*"), key)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := data(r.json(t))
	if d["path"] != "inside-rust/2019/12/20/a" || d["url"] != "inside-rust/b" ||
		fmt.Sprint(d["aliases"]) != "[inside-rust/b inside-rust/2019/12/20/a.html]" {
		t.Fatalf("URL keys not as written: path %v url %v aliases %v", d["path"], d["url"], d["aliases"])
	}
	extra, _ := d["extra"].(map[string]any)
	if see, ok := extra["see"].(map[string]any); !ok || see["title"] != "B" {
		t.Fatalf("extra.see not expanded: %v", extra["see"])
	}

	got, _ := referrersOf(t, get(t, url("/api/v1/content/inside-rust/b/referrers"), key))
	if want := "item inside-rust/a A data.extra.see"; got != want {
		t.Fatalf("referrers of b:\n%s\nwant\n%s", got, want)
	}

	st := get(t, url("/api/v1/status"), key).json(t)
	if probs := fmt.Sprint(st["problems"]); strings.Contains(probs, "reference") {
		t.Fatalf("problems = %s", probs)
	}
}
