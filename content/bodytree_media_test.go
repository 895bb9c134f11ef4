package content

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBodyTree_WithMedia: images whose URL the resolver knows carry
// media, each distinct URL is resolved once, and the kept tree is not
// changed.
func TestBodyTree_WithMedia(t *testing.T) {
	m := NewMarkdown("![a](/uploads/a.png) ![b](/uploads/a.png)\n\n> ![c](/x.png)\n\n{{< alert >}}\n![d](/uploads/a.png)\n{{< /alert >}}\n")
	plain, err := m.Tree()
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	got, err := m.TreeWithMedia(func(u string) json.RawMessage {
		asked[u]++
		if u == "/uploads/a.png" {
			return json.RawMessage(`{"id":"a1"}`)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if asked["/uploads/a.png"] != 1 || asked["/x.png"] != 1 || len(asked) != 2 {
		t.Errorf("resolver asked %v", asked)
	}
	if n := strings.Count(string(got), `"media":{"id":"a1"}`); n != 3 {
		t.Errorf("%d images with media, want 3: %s", n, got)
	}
	if strings.Count(string(got), `"media"`) != 3 {
		t.Errorf("an unresolved image has media: %s", got)
	}
	if want := strings.ReplaceAll(string(got), `,"media":{"id":"a1"}`, ""); want != string(plain) {
		t.Errorf("tree with media is not the tree plus media:\n%s\n%s", got, plain)
	}
	if again, _ := m.Tree(); string(again) != string(plain) {
		t.Errorf("kept tree changed: %s", again)
	}
	if h, err := TreeHTML(got); err != nil || h != m.HTML() {
		t.Errorf("round trip with media: %q %v, want %q", h, err, m.HTML())
	}
	none, _ := m.TreeWithMedia(func(string) json.RawMessage { return nil })
	if string(none) != string(plain) {
		t.Errorf("no media resolved, tree differs: %s", none)
	}
}
