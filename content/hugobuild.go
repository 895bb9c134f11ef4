package content

import "strings"

// Hugo's build options: a document whose front matter says
// build: {render: never} (or _build, Hugo's older spelling; render: false
// before Hugo 0.76) is one Hugo writes no page for: it is in the site's
// page collections (list: always, the default) but has no URL. folio
// serves it as it does any document, in lists and by slug, with an empty
// path, which GET /api/v1/resolve does not find. list: never (a page
// Hugo leaves out of its collections) and publishResources are not read:
// folio's lists are the site's documents, and build stays in data as
// written for a front end to filter on. A cascade of build options (in a
// section's _index.md, or the site configuration's cascade) is not read.

// hugoUnrendered tells whether front matter fm says build: {render:
// never} (or _build, any case; render: false).
func hugoUnrendered(fm *frontMatter) bool {
	if fm == nil {
		return false
	}
	for _, k := range []string{"build", "_build"} {
		v, ok := fm.value(k)
		if !ok {
			continue
		}
		m, _ := v.(map[string]any)
		r, _, ok := lowerKey(m, "render")
		if !ok {
			continue
		}
		switch r := r.(type) {
		case string:
			return strings.EqualFold(strings.TrimSpace(r), "never") || strings.EqualFold(strings.TrimSpace(r), "false")
		case bool:
			return !r
		}
	}
	return false
}
