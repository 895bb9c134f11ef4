package content

import "testing"

func TestTOMLLines(t *testing.T) {
	src := "title = 'x'\n" + // 1
		"list = [\n  'a = b',\n  'c',\n]\n" + // 2-5
		"text = \"\"\"\nk = v\n\"\"\"\n" + // 6-8
		"# k2 = v\n" + // 9
		"[languages.fr]\n" + // 10
		"  contentDir = 'content_fr' # comment\n" + // 11
		"  params.sub = {a = [1, 2]}\n" + // 12
		"[[menu.main]]\n" + // 13
		"\"quoted.key\" = 1\n" // 14
	d, err := Parse("hugo.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"title": 1, "list": 2, "text": 6, "/languages/fr": 10, "languages": 10,
		"/languages/fr/contentDir": 11, "/languages/fr/params/sub": 12, "/menu/main": 13,
	} {
		if got := d.KeyLines()[path]; got != want {
			t.Errorf("line of %s = %d, want %d", path, got, want)
		}
	}
	for _, path := range []string{"k", "k2", "a = b"} {
		if l, ok := d.KeyLines()[path]; ok {
			t.Errorf("%s has a line (%d): it is inside a value or a comment", path, l)
		}
	}
	if d.LineOf("languages", "fr", "contentDir") != 11 {
		t.Errorf("LineOf = %d", d.LineOf("languages", "fr", "contentDir"))
	}
}
