package decap

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
)

// decapPlaces are where a repository keeps its own Decap/Sveltia config
// (as content/schema looks for it).
var decapPlaces = []string{"static/admin/config.yml", "public/admin/config.yml", "admin/config.yml"}

// ConfigYAML is the config.yml Decap loads: the repository's own Decap
// config when it has one, else one generated from the content model, with
// the proxy backend pointed at proxyURL and media in folio's library.
func (s *Service) ConfigYAML(ctx context.Context, proxyURL string) ([]byte, error) {
	snap := s.Engine.Published()
	if snap == nil {
		return nil, fmt.Errorf("decap: no snapshot loaded yet")
	}
	// Decap edits the draft branch when the site has one (the write API's
	// default branch; POST /api/v1/publish publishes it), else the
	// published branch.
	edit := s.Engine.Branch()
	if d := s.Engine.DraftBranch(); d != "" {
		edit = d
	}
	backend := map[string]any{"name": "proxy", "proxy_url": proxyURL, "branch": edit}
	own := snap.Site.Config.SchemaFrom
	if own == "" {
		for _, p := range decapPlaces {
			if _, ok := snap.Site.ModelFiles[p]; ok {
				own = p
				break
			}
		}
	}
	if strings.HasSuffix(own, ".yml") || strings.HasSuffix(own, ".yaml") {
		raw, _, err := s.Repo.Read(ctx, snap.Commit, own)
		if err == nil {
			var cfg map[string]any
			if yaml.Unmarshal(raw, &cfg) == nil && cfg != nil {
				cfg["backend"] = backend
				cfg["media_folder"] = MediaFolder
				cfg["public_folder"] = PublicFolder
				delete(cfg, "local_backend")
				return yaml.Marshal(cfg)
			}
		}
	}
	return yaml.Marshal(generate(snap, backend, s.dateFields(ctx, snap)))
}

type decapConfig struct {
	Backend      map[string]any `yaml:"backend"`
	PublishMode  string         `yaml:"publish_mode,omitempty"`
	Editor       map[string]any `yaml:"editor,omitempty"`
	MediaFolder  string         `yaml:"media_folder"`
	PublicFolder string         `yaml:"public_folder"`
	I18n         *i18nConfig    `yaml:"i18n,omitempty"`
	Collections  []collection   `yaml:"collections"`
}

type collection struct {
	Name      string   `yaml:"name"`
	Label     string   `yaml:"label"`
	Folder    string   `yaml:"folder,omitempty"`
	Create    bool     `yaml:"create,omitempty"`
	Extension string   `yaml:"extension,omitempty"`
	Format    string   `yaml:"format,omitempty"`
	Slug      string   `yaml:"slug,omitempty"`
	Nested    any      `yaml:"nested,omitempty"`
	Files     []file   `yaml:"files,omitempty"`
	I18n      bool     `yaml:"i18n,omitempty"`
	Fields    []widget `yaml:"fields,omitempty"`
}

type file struct {
	Name   string   `yaml:"name"`
	Label  string   `yaml:"label"`
	File   string   `yaml:"file"`
	Fields []widget `yaml:"fields"`
}

type widget struct {
	Label        string   `yaml:"label"`
	Name         string   `yaml:"name"`
	Widget       string   `yaml:"widget"`
	Required     *bool    `yaml:"required,omitempty"`
	Hint         string   `yaml:"hint,omitempty"`
	Default      any      `yaml:"default,omitempty"`
	ValueType    string   `yaml:"value_type,omitempty"`
	TimeFormat   *bool    `yaml:"time_format,omitempty"`
	DateFormat   string   `yaml:"date_format,omitempty"`
	Options      []any    `yaml:"options,omitempty"`
	Min          *float64 `yaml:"min,omitempty"`
	Max          *float64 `yaml:"max,omitempty"`
	Pattern      []string `yaml:"pattern,omitempty"`
	Collection   string   `yaml:"collection,omitempty"`
	SearchFields []string `yaml:"search_fields,omitempty"`
	ValueField   string   `yaml:"value_field,omitempty"`
	Field        *widget  `yaml:"field,omitempty"`
	Fields       []widget `yaml:"fields,omitempty"`
	Multiple     bool     `yaml:"multiple,omitempty"`
	I18n         any      `yaml:"i18n,omitempty"` // true or "duplicate" (i18n.go)
}

var falsy = false

// generate builds a config from the model: a folder collection per content
// type (in content/<type>, in the type's most common file format), one for
// pages and a file collection for the globals file; dates are the date
// keys the documents use (dateFields).
func generate(snap *engine.Snapshot, backend map[string]any, dates map[string]dateField) decapConfig {
	cfg := decapConfig{Backend: backend, MediaFolder: MediaFolder, PublicFolder: PublicFolder}
	if dc := snap.Site.Config.Decap; dc != nil && dc.PublishMode == "editorial_workflow" {
		cfg.PublishMode = dc.PublishMode
		// Notes on unpublished entries (notes.go).
		cfg.Editor = map[string]any{"notes": true}
	}
	site, model := snap.Site, snap.Model
	types := map[string]bool{}
	for t := range site.Items {
		types[t] = true
	}
	for t := range site.Config.Types {
		types[t] = true
	}
	if model != nil {
		for t := range model.Types {
			types[t] = true
		}
	}
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		var paths []string
		for _, it := range site.Items[t] {
			paths = append(paths, it.Meta.Path)
		}
		ext := commonExt(paths)
		c := collection{Name: t, Label: label(t), Folder: "content/" + t, Create: true, Extension: ext,
			Format: format(ext), Slug: "{{slug}}"}
		c.Fields = fields(model.Of(t), ext, dates[t])
		cfg.Collections = append(cfg.Collections, c)
	}
	var pageType *schema.Type
	var globalsType *schema.Type
	if model != nil {
		pageType, globalsType = model.Pages, model.Globals
	}
	var pagePaths []string
	for _, p := range site.Pages {
		pagePaths = append(pagePaths, p.Meta.Path)
	}
	pext := commonExt(pagePaths)
	cfg.Collections = append(cfg.Collections, collection{Name: "pages", Label: "Pages", Folder: "pages", Create: true,
		Extension: pext, Format: format(pext), Slug: "{{slug}}", Fields: fields(pageType, pext, dates[""])})
	if site.GlobalsPath != "" || globalsType != nil {
		gp := site.GlobalsPath
		if gp == "" {
			gp = "globals.yaml"
		}
		gf := fields(globalsType, path.Ext(gp)[1:], dateField{})
		if globalsType == nil {
			gf = []widget{{Label: "Site name", Name: "siteName", Widget: "string"}}
		}
		cfg.Collections = append(cfg.Collections, collection{Name: "globals", Label: "Globals",
			Files: []file{{Name: "globals", Label: "Globals", File: gp, Fields: gf}}})
	}
	addI18n(&cfg, site.I18n)
	return cfg
}

// commonExt is the most common extension of paths ("md" when none).
func commonExt(paths []string) string {
	n := map[string]int{}
	best := "md"
	for _, p := range paths {
		e := strings.TrimPrefix(path.Ext(p), ".")
		n[e]++
		if n[e] > n[best] || (n[e] == n[best] && e < best) {
			best = e
		}
	}
	return best
}

func format(ext string) string {
	switch ext {
	case "md", "markdown":
		return "frontmatter"
	case "yaml", "yml":
		return "yml"
	case "json":
		return "json"
	case "toml":
		return "toml"
	}
	return "frontmatter"
}

func label(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// fields are a type's widgets: title first, the publication date (under
// the key the documents use, df), the declared fields, and the Markdown
// body of a Markdown type.
func fields(t *schema.Type, ext string, df dateField) []widget {
	var out []widget
	declared := map[string]bool{}
	var fs []*schema.Field
	if t != nil {
		fs = t.Fields
	}
	dated := false
	for _, f := range fs {
		declared[f.Name] = true
		dated = dated || rank(f.Name) < len(dateKeys)
	}
	title := widget{Label: "Title", Name: "title", Widget: "string"}
	for _, f := range fs {
		if f.Name == "title" {
			if w, ok := widgetOf(f, 0); ok {
				title = w
			}
		}
	}
	out = append(out, title)
	if !dated && (t == nil || t.Kind != schema.KindGlobals) {
		// The key the site's documents use (Hugo's date or publishDate,
		// Astro's pubDate), so that a document opens with its date.
		w := widget{Label: "Published at", Name: "publishedAt", Widget: "datetime", Required: &falsy}
		if df.Key != "" {
			w.Name, w.Label = df.Key, dateLabel(df.Key)
		}
		if df.DateOnly {
			w.TimeFormat, w.DateFormat = &falsy, "YYYY-MM-DD"
		}
		out = append(out, w)
	}
	for _, f := range fs {
		if f.Name == "body" || f.Name == "title" {
			continue
		}
		if w, ok := widgetOf(f, 0); ok {
			out = append(out, w)
		}
	}
	if ext == "md" || ext == "markdown" {
		w := widget{Label: "Body", Name: "body", Widget: "markdown"}
		for _, f := range fs {
			if f.Name == "body" && !f.Required {
				w.Required = &falsy
			}
		}
		if !declared["body"] {
			w.Required = &falsy
		}
		out = append(out, w)
	}
	return out
}

// widgetOf maps a folio field back to a Decap widget (the inverse of the
// table in docs/content-model.md).
func widgetOf(f *schema.Field, depth int) (widget, bool) {
	w := widget{Label: label(f.Name), Name: f.Name, Hint: f.Description, Default: f.Default}
	if !f.Required {
		w.Required = &falsy
	}
	switch f.Kind {
	case "string", "url", "email", "slug":
		w.Widget = "string"
		w.Pattern = textPattern(f)
	case "text":
		w.Widget = "text"
		w.Pattern = textPattern(f)
	case "markdown":
		w.Widget = "markdown"
		w.Pattern = textPattern(f)
	case "number":
		w.Widget, w.ValueType = "number", "float"
		w.Min, w.Max = f.Min, f.Max
	case "integer":
		w.Widget, w.ValueType = "number", "int"
		w.Min, w.Max = f.Min, f.Max
	case "boolean":
		w.Widget = "boolean"
	case "date":
		w.Widget = "datetime"
		w.TimeFormat, w.DateFormat = &falsy, "YYYY-MM-DD"
	case "datetime":
		w.Widget = "datetime"
	case "enum":
		w.Widget, w.Options = "select", f.Values
	case "reference":
		to := "pages"
		if len(f.To) > 0 {
			to = f.To[0]
		}
		w.Widget, w.Collection, w.SearchFields, w.ValueField = "relation", to, []string{"title"}, "{{slug}}"
	case "media":
		w.Widget = "file"
		if len(f.Accept) > 0 && f.Accept[0] == "image" {
			w.Widget = "image"
		}
	case "object":
		w.Widget = "object"
		for _, sub := range f.Fields {
			if sw, ok := widgetOf(sub, depth+1); ok {
				w.Fields = append(w.Fields, sw)
			}
		}
	case "list":
		w.Widget = "list"
		w.Min, w.Max = f.Min, f.Max
		if f.Of != nil && depth < 8 {
			if f.Of.Kind == "object" {
				for _, sub := range f.Of.Fields {
					if sw, ok := widgetOf(sub, depth+1); ok {
						w.Fields = append(w.Fields, sw)
					}
				}
			} else if f.Of.Kind == "enum" {
				w.Widget, w.Options, w.Multiple = "select", f.Of.Values, true
			} else if sw, ok := widgetOf(f.Of, depth+1); ok {
				sw.Name, sw.Label = f.Name, label(f.Name)
				w.Field = &sw
			}
		}
	default:
		return widget{}, false // any: left as written
	}
	return w, true
}

// textPattern is Decap's pattern ([regex, message]) for a text field's
// pattern and length (minLength, maxLength): Decap refuses to save a
// value it does not match, with the message. nil when there is none, or
// the pattern is one JavaScript cannot write (jsPattern): folio's check
// on save is then the only one.
func textPattern(f *schema.Field) []string {
	var re, msg []string
	lo, hi := 0, -1
	if f.MinLength != nil {
		lo = *f.MinLength
	}
	if f.MaxLength != nil {
		hi = *f.MaxLength
	}
	switch {
	case f.MinLength != nil && f.MaxLength != nil:
		msg = append(msg, fmt.Sprintf("%d to %d characters", lo, hi))
	case f.MaxLength != nil:
		msg = append(msg, fmt.Sprintf("at most %d characters", hi))
	case f.MinLength != nil:
		msg = append(msg, fmt.Sprintf("at least %d characters", lo))
	}
	if len(msg) > 0 {
		re = append(re, lengthPattern(lo, hi))
	}
	if f.Pattern != "" {
		if js, ok := jsPattern(f.Pattern); ok {
			re = append(re, js)
			msg = append(msg, "must match "+f.Pattern)
		}
	}
	switch len(re) {
	case 0:
		return nil
	case 1:
		return []string{re[0], strings.Join(msg, "")}
	}
	// Both: the length, and the pattern found anywhere (as Go's and
	// Decap's unanchored tests find it).
	return []string{"^(?=[\\s\\S]*?(?:" + re[1] + "))" + strings.TrimPrefix(re[0], "^"), strings.Join(msg, ", and ")}
}

// dateLabel is the label of a date key.
func dateLabel(k string) string {
	switch strings.ToLower(k) {
	case "publishedat":
		return "Published at"
	case "publishdate":
		return "Publish date"
	case "pubdate":
		return "Publication date"
	}
	return label(k)
}
