package decap

import _ "embed"

// The editor page's files (server/decap/page): folio serves them at
// /admin/content/.
var (
	//go:embed page/index.html
	IndexHTML []byte
	//go:embed page/editor.js
	EditorJS []byte
	//go:embed page/editor.css
	EditorCSS []byte
)
