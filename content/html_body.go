package content

import (
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
)

// IsHTMLExt tells whether a document file of extension ext (any case)
// has an HTML body: Hugo's HTML content format.
func IsHTMLExt(ext string) bool {
	return strings.EqualFold(ext, ".html") || strings.EqualFold(ext, ".htm")
}

// htmlPolicy is what an HTML body keeps: bluemonday's policy for user
// content (formatting, links, images, lists, tables, figures; links get
// rel="nofollow" off, since the site's own team wrote them), plus the
// class and id attributes pages style and link by. Scripts, styles,
// frames, forms, event handlers and javascript: URLs go, the text of
// script and style elements with them.
var htmlPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	p.AllowAttrs("class").Globally()
	p.AllowAttrs("id").Globally()
	return p
})

// sanitizeHTML is src as an HTML body serves it. bluemonday reads with
// golang.org/x/net/html's tokenizer: linear in the size of src.
func sanitizeHTML(src string) string { return htmlPolicy().Sanitize(src) }
