package content

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkRoundTrip: the body's tree renders back to its HTML.
func checkRoundTrip(t testing.TB, m Markdown) {
	t.Helper()
	h, err := m.Render()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.Tree()
	if err != nil {
		t.Fatal(err)
	}
	back, err := TreeHTML(tr)
	if err != nil {
		t.Fatal(err)
	}
	if back != h {
		t.Fatalf("tree renders to\n%q\nnot\n%q\ntree %s", back, h, tr)
	}
	checkMediaSplice(t, m, tr)
}

// checkMediaSplice: TreeWithMedia, every image naming an item, is the
// tree with media on each image node with a URL, and nothing else.
func checkMediaSplice(t testing.TB, m Markdown, tr []byte) {
	t.Helper()
	withMedia, err := m.TreeWithMedia(func(string) json.RawMessage { return json.RawMessage(`{"id":"x\"}"}`) })
	if err != nil {
		t.Fatal(err)
	}
	var got, want TreeNode
	if err := json.Unmarshal(withMedia, &got); err != nil {
		t.Fatalf("tree with media is not JSON: %v\n%s", err, withMedia)
	}
	if err := json.Unmarshal(tr, &want); err != nil {
		t.Fatal(err)
	}
	var set func(n *TreeNode)
	set = func(n *TreeNode) {
		if n.Type == "image" && n.URL != nil && *n.URL != "" {
			n.Media = json.RawMessage(`{"id":"x\"}"}`)
		}
		for _, c := range n.Children {
			set(c)
		}
	}
	set(&want)
	g, _ := json.Marshal(&got)
	w, _ := json.Marshal(&want)
	if !bytes.Equal(g, w) {
		t.Fatalf("tree with media\n%s\nwant\n%s", g, w)
	}
}

// treeCorpus covers every node type the tree has.
var treeCorpus = []string{
	"# Title {#custom .c}\n\n## Sub *em* `code`\n\nSetext\n===\n",
	"Para with **strong**, *em*, ~~del~~, `a  b`, a\\\nhard break and a\nsoft one; &amp; &copy; \\* <https://x.org> <me@x.org>.\n",
	"![a } \\\"x\\\" {\"type\":\"image\",\"url\":\"/u\"}](/uploads/a.png \"t}\\\"\") `{\"type\":\"image\",\"url\":\"/v\"}`\n\n[link](/a \"T\") [ref][r] ![alt *x*](/i.png \"it\") [bad](javascript:x) [sp](/a%20b /c)\n\n[r]: https://r.org\n",
	"- a\n- [x] done\n- [ ] todo\n  - nested\n\n1. x\n\n3. y\n\n7) z\n",
	"> quote\n>\n> > nested\n\n***\n\n    indented code\n\n```go {linenos=true}\nx := 1 < 2\n```\n",
	"| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 |\n| `x` | **y** | z | extra |\n",
	"> [!TIP]\n> tip\n\n> [!CAUTION]\n\nfoot[^1]\n\n[^1]: the note\n",
	"<div>raw</div>\n\n<!-- c -->\n\ninline <b>b</b>\n",
	"{{< alert color=\"x\" >}}\n# In\n{{% inner %}}*md*{{% /inner %}}\n{{< /alert >}}\n\nText {{< kbd >}}K{{< /kbd >}} {{< icon star >}}.\n\n{{< figure src=\"/a.png\" caption=\"c\" >}}\n\n{{< youtube abc >}}\n\n{{< details >}}\nx\n{{< /details >}}\n\n- {{< alert >}}in list{{< /alert >}}\n\n`{{< x >}}`\n\n{{< tab lang=go >}}\nx\n{{< /tab >}}\n",
	"Term\n: Def\n\nA para.\n{.lead}\n",
}

func TestBodyTree_RoundTrip(t *testing.T) {
	for _, mk := range []*Markup{nil, {Unsafe: true, HeadingAttributes: true, BlockAttributes: true, DefinitionLists: true, key: "all"}} {
		for _, src := range treeCorpus {
			checkRoundTrip(t, NewMarkdown(src).WithSite(mk, nil))
		}
	}
	checkRoundTrip(t, NewMDX(starlightPage))
	checkRoundTrip(t, NewHTML("<p onclick=x>hi</p>"))
}

func TestBodyTree_Shape(t *testing.T) {
	m := NewMarkdown("## Hello *you*\n\n{{< alert color=\"warning\" >}}\nIn **bold**.\n{{< /alert >}}\n\n![a](/uploads/2024/01/a.png)\n\n```go\nx\n```\n")
	tr, err := m.Tree()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"root","children":[` +
		`{"type":"heading","children":[{"type":"text","value":"Hello "},{"type":"emphasis","children":[{"type":"text","value":"you"}]}],"depth":2,"id":"hello-you","attributes":[["id","hello-you"]]},` +
		`{"type":"component","children":[{"type":"paragraph","children":[{"type":"text","value":"In "},{"type":"strong","children":[{"type":"text","value":"bold"}]},{"type":"text","value":"."}]}],"name":"alert","props":{"color":"warning"},"syntax":"shortcode"},` +
		`{"type":"paragraph","children":[{"type":"image","url":"/uploads/2024/01/a.png","alt":"a"}]},` +
		`{"type":"code","value":"x\n","lang":"go"}]}`
	if string(tr) != want {
		t.Errorf("tree\n%s\nwant\n%s", tr, want)
	}
	var v any
	if err := json.Unmarshal(tr, &v); err != nil {
		t.Fatal(err)
	}
}

// TestBodyTree_Lazy: a tree is made only when asked for, once, and the
// HTML does not make one.
func TestBodyTree_Lazy(t *testing.T) {
	m := NewMarkdown("# x\n")
	_ = m.HTML()
	if m.b.tree() != nil {
		t.Fatal("HTML made the tree")
	}
	a, _ := m.Tree()
	b, _ := m.Tree()
	if &a[0] != &b[0] && string(a) != string(b) {
		t.Fatal("trees differ")
	}
}

func FuzzBodyTree(f *testing.F) {
	for _, s := range treeCorpus {
		f.Add(s, false)
	}
	f.Add(starlightPage, true)
	f.Add("{{< a >}}{{< a >}}{{< /a >}}{{% b `x` y=\"z\" /%}}<C d={{e:1}}>f</C>", true)
	all := &Markup{Unsafe: true, HeadingAttributes: true, BlockAttributes: true, DefinitionLists: true, key: "all"}
	f.Fuzz(func(t *testing.T, src string, mdx bool) {
		if len(src) > 4096 || strings.ContainsRune(src, 0) || !utf8.ValidString(src) { // as Parse refuses
			return
		}
		m := NewMarkdown(src)
		if mdx {
			m = NewMDX(src)
		}
		checkRoundTrip(t, m.WithSite(all, nil))
	})
}
