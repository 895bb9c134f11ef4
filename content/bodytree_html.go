package content

import (
	"encoding/json"
	"html"
	"strconv"
	"strings"
)

// TreeHTML renders a body tree (Markdown.Tree's JSON) to HTML: the HTML
// the body serves. It is what a front end that maps the tree onto its
// own components does, with folio's choices, and shows that the tree
// holds the whole body.
func TreeHTML(tree []byte) (string, error) {
	var root TreeNode
	if err := json.Unmarshal(tree, &root); err != nil {
		return "", err
	}
	var b strings.Builder
	treeChildrenHTML(&b, &root)
	return b.String(), nil
}

func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func writeAttrs(b *strings.Builder, attrs [][2]string) {
	for _, a := range attrs {
		b.WriteString(" " + a[0] + `="` + escapeText(a[1]) + `"`)
	}
}

func treeChildrenHTML(b *strings.Builder, n *TreeNode) {
	for i, c := range n.Children {
		treeNodeHTML(b, c, n, i)
	}
}

func val(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func treeNodeHTML(b *strings.Builder, n, parent *TreeNode, idx int) {
	switch n.Type {
	case "paragraph":
		// a paragraph of a tight list's item is written without <p>
		if parent != nil && parent.Type == "listItem" && parent.tightList {
			treeChildrenHTML(b, n)
			if idx < len(parent.Children)-1 && len(n.Children) > 0 {
				b.WriteString("\n")
			}
			return
		}
		b.WriteString("<p")
		writeAttrs(b, n.Attrs)
		b.WriteString(">")
		treeChildrenHTML(b, n)
		b.WriteString("</p>\n")
	case "heading":
		h := "h" + strconv.Itoa(n.Depth)
		b.WriteString("<" + h)
		writeAttrs(b, n.Attrs)
		b.WriteString(">")
		treeChildrenHTML(b, n)
		b.WriteString("</" + h + ">\n")
	case "thematicBreak":
		b.WriteString("<hr")
		writeAttrs(b, n.Attrs)
		b.WriteString(">\n")
	case "blockquote":
		b.WriteString("<blockquote")
		writeAttrs(b, n.Attrs)
		if len(n.Attrs) == 0 {
			b.WriteString(">\n")
		} else {
			b.WriteString(">") // as goldmark writes it
		}
		treeChildrenHTML(b, n)
		b.WriteString("</blockquote>\n")
	case "alert":
		b.WriteString(alertOpen(n.Kind))
		treeChildrenHTML(b, n)
		b.WriteString("</div>\n")
	case "list":
		tag := "ul"
		if n.Ordered {
			tag = "ol"
		}
		b.WriteString("<" + tag)
		if n.Ordered && n.Start != nil && *n.Start != 1 {
			b.WriteString(` start="` + strconv.Itoa(*n.Start) + `"`)
		}
		writeAttrs(b, n.Attrs)
		b.WriteString(">\n")
		tight := n.Spread != nil && !*n.Spread
		for i, c := range n.Children {
			c.tightList = tight
			treeNodeHTML(b, c, n, i)
		}
		b.WriteString("</" + tag + ">\n")
	case "listItem":
		b.WriteString("<li")
		writeAttrs(b, n.Attrs)
		b.WriteString(">")
		if len(n.Children) > 0 && !(n.tightList && n.Children[0].Type == "paragraph") {
			b.WriteString("\n")
		}
		treeChildrenHTML(b, n)
		b.WriteString("</li>\n")
	case "checkbox":
		if n.Checked != nil && *n.Checked {
			b.WriteString(`<input checked="" disabled="" type="checkbox"> `)
		} else {
			b.WriteString(`<input disabled="" type="checkbox"> `)
		}
	case "code":
		b.WriteString("<pre><code")
		if n.Lang != "" {
			b.WriteString(` class="language-` + escapeText(n.Lang) + `"`)
		}
		b.WriteString(">" + escapeText(val(n.Value)) + "</code></pre>\n")
	case "html":
		b.WriteString(val(n.Value))
	case "text":
		b.WriteString(escapeText(val(n.Value)))
	case "break":
		b.WriteString("<br>\n")
	case "emphasis", "strong", "delete":
		tag := map[string]string{"emphasis": "em", "strong": "strong", "delete": "del"}[n.Type]
		b.WriteString("<" + tag + ">")
		treeChildrenHTML(b, n)
		b.WriteString("</" + tag + ">")
	case "inlineCode":
		b.WriteString("<code>" + escapeText(val(n.Value)) + "</code>")
	case "link":
		b.WriteString(`<a href="` + escapeText(val(n.URL)) + `"`)
		if n.Title != nil {
			b.WriteString(` title="` + escapeText(*n.Title) + `"`)
		}
		b.WriteString(">")
		treeChildrenHTML(b, n)
		b.WriteString("</a>")
	case "image":
		b.WriteString(`<img src="` + escapeText(val(n.URL)) + `" alt="` + escapeText(val(n.Alt)) + `"`)
		if n.Title != nil {
			b.WriteString(` title="` + escapeText(*n.Title) + `"`)
		}
		b.WriteString(">")
	case "table":
		b.WriteString("<table")
		writeAttrs(b, n.Attrs)
		b.WriteString(">\n")
		for i, row := range n.Children {
			if i == 0 {
				b.WriteString("<thead>\n<tr>\n")
			} else {
				b.WriteString("<tr>\n")
			}
			tag := "td"
			if i == 0 {
				tag = "th"
			}
			for _, cell := range row.Children {
				b.WriteString("<" + tag)
				if cell.TextAlign != "" {
					b.WriteString(` style="text-align:` + cell.TextAlign + `"`)
				}
				b.WriteString(">")
				treeChildrenHTML(b, cell)
				b.WriteString("</" + tag + ">\n")
			}
			b.WriteString("</tr>\n")
			if i == 0 {
				b.WriteString("</thead>\n")
				if len(n.Children) > 1 {
					b.WriteString("<tbody>\n")
				}
			} else if i == len(n.Children)-1 {
				b.WriteString("</tbody>\n")
			}
		}
		b.WriteString("</table>\n")
	case "component":
		if n.HTML != "" {
			b.WriteString(n.HTML)
		} else if n.Name == "details" && n.Syntax != syntaxJSX {
			b.WriteString("<details")
			if s, _ := n.Props["open"].(string); s == "true" {
				b.WriteString(" open")
			}
			b.WriteString("><summary>")
			s, _ := n.Props["summary"].(string)
			if s == "" {
				s = "Details"
			}
			b.WriteString(html.EscapeString(s) + "</summary>\n")
			treeChildrenHTML(b, n)
			b.WriteString("</details>")
		} else {
			b.WriteString(`<folio-component name="` + html.EscapeString(n.Name) + `"`)
			if len(n.Props) > 0 {
				j, _ := json.Marshal(n.Props)
				b.WriteString(` data-props="` + html.EscapeString(string(j)) + `"`)
			}
			if len(n.Args) > 0 {
				j, _ := json.Marshal(n.Args)
				b.WriteString(` data-args="` + html.EscapeString(string(j)) + `"`)
			}
			b.WriteString(">")
			// a block's content starts on a line of its own, unless it
			// is empty (as componentHTML: children may render to
			// nothing, raw HTML the sanitizer drops)
			var in strings.Builder
			treeChildrenHTML(&in, n)
			if !n.Inline && in.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(in.String())
			b.WriteString("</folio-component>")
		}
		if !n.Inline {
			b.WriteString("\n")
		}
	}
}
