// Package content is folio's content model and the parsing of one file or a
// whole site tree into it. It knows nothing of Git, HTTP or media.
package content

import "time"

// Page is one page of the site: a title, SEO data and an ordered tree of sections.
type Page struct {
	ID          string    `json:"id"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	IsHomepage  bool      `json:"isHomepage"`
	Sections    []Section `json:"sections"`
	SEO         SEO       `json:"seo"`
	PublishedAt time.Time `json:"publishedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// Data is the page's other front matter keys (a Gatsby landing
	// page's heading, intro blocks), as an item's data; absent when none.
	Data map[string]any `json:"data,omitempty"`
	Addressed
	Localized

	Meta Meta `json:"-"`
}

// Addressed is where the site's readers find a page or item, and how
// its title came about.
type Addressed struct {
	// Path is the document's URL path on the site, as the site's
	// generator makes it (Hugo's permalinks, url:, slug:, sections):
	// "/2019/01/01/report/". GET /api/v1/resolve finds a document by it.
	Path string `json:"path"`
	// TitleFromFile tells that the front matter has no title and Title
	// is made from the file name, as Hugo shows such a page.
	TitleFromFile bool `json:"titleFromFile,omitempty"`
}

// Localized is what a page or item of a site with locales says of its
// language (all empty, and absent from JSON, in a site without).
type Localized struct {
	// Locale is the locale the document is in.
	Locale string `json:"locale,omitempty"`
	// Fallback tells that the document is served in place of one missing
	// in the locale asked for (Locale is then another).
	Fallback bool `json:"fallback,omitempty"`
	// Translations are the document in every locale it exists in, this
	// one included, by locale code.
	Translations map[string]Translation `json:"translations,omitempty"`
}

// Translation is one locale's version of a document.
type Translation struct {
	Slug string `json:"slug"`
	ID   string `json:"id"`
	URL  string `json:"url"` // its API path, with ?locale=
}

// Section is one node of a page's content tree.
type Section struct {
	ID    string         `json:"id"`
	Type  string         `json:"type"`
	Order int            `json:"order"`
	Data  map[string]any `json:"data"`
}

// SEO is a page's search-engine and social-sharing data.
type SEO struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	OGImage     string `json:"ogImage"`
}

// Item is one content item of a content type (a post, a product, ...).
type Item struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Slug        string         `json:"slug"`
	Data        map[string]any `json:"data"`
	PublishedAt time.Time      `json:"publishedAt"`
	UpdatedAt   time.Time      `json:"updatedAt"`
	Addressed
	Localized

	Meta Meta `json:"-"`

	// refHint is its document's (Doc.RefHint), for the strings of Data.
	refHint RefHint
}

// Meta is what the service needs to know about a page or item but does not
// serve: where it came from and when it is visible.
type Meta struct {
	Path      string    // repository path of the source file
	Blob      string    // Git blob hash of the source file; "" when not known
	ExpiresAt time.Time // zero: never expires
	Draft     bool      // draft: true, published: false or status: draft
	// PublishedSet tells whether PublishedAt came from the file (true) or
	// was filled in from the commit time (false). (Beside Draft: one word
	// for the two, an Item of 248 bytes.)
	PublishedSet bool
}

// Visible tells whether a published (non-draft) view at instant now shows
// the document: not a draft, already published, not yet expired.
func (m Meta) Visible(publishedAt, now time.Time) bool {
	if m.Draft || publishedAt.After(now) {
		return false
	}
	return m.ExpiresAt.IsZero() || now.Before(m.ExpiresAt)
}

// Globals are the site-wide settings of globals.yaml.
type Globals struct {
	SiteName string       `json:"siteName"`
	LogoURL  string       `json:"logoUrl"`
	Nav      []NavLink    `json:"nav"`
	Footer   Footer       `json:"footer"`
	Social   []SocialLink `json:"social"`
	// Extra holds any other top-level keys of globals.yaml; they are served
	// beside the fields above.
	Extra map[string]any `json:"-"`
	// Locale is the locale of the globals in a site with locales.
	Locale string `json:"-"`
	// Blob is the globals file's Git blob hash; "" when not known.
	Blob string `json:"-"`
}

// NavLink is one entry of a navigation menu.
type NavLink struct {
	Label string `json:"label"`
	URL   string `json:"url"`
	// Children is a submenu (drop-down); nav entries may nest.
	Children []NavLink `json:"children,omitempty"`
}

// Footer is the site footer.
type Footer struct {
	CopyrightText string    `json:"copyrightText"`
	Links         []NavLink `json:"links,omitempty"`
}

// SocialLink is one social profile of the site.
type SocialLink struct {
	Platform string `json:"platform"`
	URL      string `json:"url"`
}

// Config is folio.yaml: the site's language and per content type options.
type Config struct {
	// Language is the site's language (one of Languages), for search:
	// words are stemmed and stop words dropped by its rules. "" is no
	// particular language (words are only lower-cased).
	Language string                `yaml:"language" json:"language,omitempty"`
	Types    map[string]TypeConfig `yaml:"types" json:"types"`
	// ImagePresets are the named image variants /uploads/<key>?preset=
	// serves without a signed URL (see ImagePreset).
	ImagePresets map[string]ImagePreset `yaml:"imagePresets" json:"imagePresets,omitempty"`
	// Pages and Globals declare the fields of pages and of the globals
	// file (nil: none declared); each type's are in its TypeConfig.
	Pages   *ModelDecl `yaml:"pages" json:"-"`
	Globals *ModelDecl `yaml:"globals" json:"-"`
	// SchemaFrom names the Decap/Sveltia CMS config.yml to take the
	// fields of types without their own from ("" : the usual places).
	SchemaFrom string `yaml:"schemaFrom" json:"-"`
	// Decap pins the Decap CMS editor /admin/content/ loads (nil: the
	// defaults, see DecapConfig).
	Decap *DecapConfig `yaml:"decap" json:"-"`
}

// DecapConfig is folio.yaml's decap: the version of the decap-cms package
// the editor page loads and the URL it is loaded from, a template in which
// {version} is replaced (docs/decap.md gives the package's public CDN
// path). folio's --decap-dir serves a local copy instead.
type DecapConfig struct {
	Version string `yaml:"version"`
	URL     string `yaml:"url"`
	// PublishMode is the generated config's publish_mode: "simple" (the
	// default: a save commits to the published branch) or
	// "editorial_workflow" (drafts on cms/<collection>/<slug> branches).
	PublishMode string `yaml:"publishMode"`
}

// ModelDecl is what folio.yaml declares of one type's content model, as
// written: package content/schema compiles it. At is where the
// declaration sits in folio.yaml ("types", "posts"), for the lines of
// its problems.
type ModelDecl struct {
	Fields           any    // the fields: block, a map of name to kind or options
	Schema           string // a JSON Schema file (repository path)
	AdditionalFields string // "allow" (default), "warn" or "reject"
	OnInvalid        string // "serve" (default) or "reject"
	At               []string
}

// ImagePreset is one entry of folio.yaml's imagePresets: a size of a
// raster image that anyone may ask /uploads/ for. W or H may be 0 (the
// other follows the image's aspect ratio), not both.
type ImagePreset struct {
	W       int    `yaml:"w" json:"w,omitempty"`
	H       int    `yaml:"h" json:"h,omitempty"`
	Fit     string `yaml:"fit" json:"fit"` // "cover" (default) or "contain"
	Format  string `yaml:"fm" json:"fm"`   // "webp" (default), "jpeg" or "png"
	Quality int    `yaml:"q" json:"q"`     // 1 to 100, default 80
}

// Image preset bounds and defaults.
const (
	MaxPresetSide      = 4096
	DefaultPresetFit   = "cover"
	DefaultPresetFm    = "webp"
	DefaultPresetQ     = 80
	maxPresetNameLen   = 32
	maxImagePresetsLen = 32
)

// Languages are the values folio.yaml's language accepts: the languages
// whose stemming rules the search index has (bleve's analyzers).
var Languages = []string{"ar", "ckb", "da", "de", "en", "es", "fa", "fi", "fr", "hi", "hr",
	"hu", "it", "ja", "ko", "nl", "no", "pt", "ro", "ru", "sv", "tr", "zh"}

// TypeConfig holds the options of one content type.
type TypeConfig struct {
	// Public types are also served without a key under /api/v1/public/collections.
	Public bool `yaml:"public" json:"public"`
	// Sortable lists the data fields that `sort` accepts on top of
	// publishedAt, updatedAt, title and slug.
	Sortable []string `yaml:"sortable" json:"sortable"`
	// DefaultSort is the sort of a list without `sort`; "-publishedAt" if empty.
	DefaultSort string `yaml:"defaultSort" json:"defaultSort"`
	// NoListBody is `listBody: false`: the type's lists leave out each
	// item's HTML body (data.body) unless `fields` asks for it.
	NoListBody bool `yaml:"-" json:"noListBody,omitempty"`
	// Format is the front matter format of the documents the write API
	// creates: "yaml" (default), "toml" or "json".
	Format string `yaml:"format" json:"format,omitempty"`
	// Model is the type's declared content model; nil when folio.yaml
	// declares none.
	Model *ModelDecl `yaml:"-" json:"-"`
}

// Problem is something wrong with one file of the site, positioned for the
// site author. A file with a problem is left out; the rest is served.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"` // 1-based; 0 when not known
	Message string `json:"message"`
	// Level is LevelWarn for a sign that the site may be read otherwise
	// than its generator reads it, the file being served all the same
	// (a title made from the file name, a slug taken); "" for a file, or
	// part of one, left out.
	Level string `json:"level,omitempty"`
}

// LevelWarn is the Level of a problem whose file is served.
const LevelWarn = "warn"

func (p Problem) String() string {
	if p.Line > 0 {
		return p.Path + ":" + itoa(p.Line) + ": " + p.Message
	}
	return p.Path + ": " + p.Message
}

func (p Problem) Error() string { return p.String() }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
