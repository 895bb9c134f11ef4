package content

import "time"

// Doc is the path-independent result of parsing one file: its front matter
// (or whole YAML/JSON document) and its Markdown body, rendered to HTML on
// first use (see Markdown).
// The engine caches Docs by Git blob hash, so a Doc must not depend on the
// file's path and must never be modified after Parse returns it.
type Doc struct {
	Meta    map[string]any // front matter / document keys
	Body    Markdown       // Markdown body; empty when none
	HasBody bool           // the file had a Markdown body
	Line    int            // line where the body starts (for problems)
	// Lines is the file line of each top-level key, when the format tells
	// (YAML documents and YAML front matter); nil otherwise.
	Lines map[string]int
}

// File is one file of a site tree handed to Assemble.
type File struct {
	Path string // slash-separated repository path, e.g. "content/posts/hello.md"
	Doc  *Doc   // nil when Err is set
	Err  error  // parse failure; a Problem when the position is known
	// Updated is the time of the last commit that touched the file; it is
	// updatedAt when front matter has none, and publishedAt as a last resort.
	Updated time.Time
}

// Site is one whole, assembled site: every page and item including drafts,
// scheduled and expired ones. Views filter it.
type Site struct {
	Pages   []*Page            // sorted by slug
	Items   map[string][]*Item // by type slug, each sorted by slug
	Globals *Globals           // nil when the site has no globals file
	Config  Config
}
