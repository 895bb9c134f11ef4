package content

import (
	"path"
	"strings"
	"time"
)

// commonKeys are the front matter keys that pages and items share, lower
// case, with their Hugo and Jekyll aliases.
var commonKeys = []string{
	"id", "slug", "title",
	"draft", "published", "status",
	"publishedat", "publishdate", "date",
	"updatedat", "lastmod",
	"expiresat", "expirydate",
	"url", // Hugo's: the document's path (Addressed); it stays in data
}

var commonKeySet = newKeySet(commonKeys)

// common is what pages and items share: identity, visibility and times.
type common struct {
	id, slug, title    string
	titleFromFile      bool
	slugSet            bool
	pathSlug           string // the slug the file's path gives
	dateText           string // the date key as written, when text
	url                string // front matter url: (Hugo's)
	zolaPath           string // front matter path: (Zola's)
	zolaPage           bool   // on a Zola site, a page (not a section's _index)
	unrendered         bool   // Hugo's build: {render: never}: no URL of its own (hugobuild.go)
	meta               Meta
	published, updated time.Time
}

// readCommon reads the shared keys. pathSlug is the slug the file's path
// gives; idScope names the id namespace (page or item type) for the
// derived id.
func readCommon(f *fields, file File, pathSlug, idScope string, rules *urlRules) (common, error) {
	c := common{meta: Meta{Path: file.RealPath(), Blob: file.Blob}, pathSlug: pathSlug}
	var nameDate time.Time // the date a Zola page's file name gives
	if rules != nil && rules.zola {
		c.zolaPage = !strings.HasPrefix(path.Base(file.RealPath()), "_index")
		if s, d, ok := zolaDatedName(pathSlug); ok {
			pathSlug, c.pathSlug, nameDate = s, s, d
		}
	}
	if v, ok := f.get("url"); ok {
		c.url, _ = v.(string)
		f.untake("url")
	}
	c.unrendered = hugoUnrendered(f.fm)
	if v, ok := f.fm.value("path"); ok {
		c.zolaPath, _ = v.(string)
	}
	slug, err := f.text("slug")
	if err != nil {
		return c, err
	}
	if slug = strings.Trim(slug, "/"); slug != "" {
		c.slugSet = true
		if !ValidSlug(slug) {
			return c, f.errorf("slug", "%q is not a valid slug: use segments of letters, digits, '.', '_', '~' and '-' joined by '/', no '.' or '..' segment, at most %d characters", slug, MaxSlugLen)
		}
	} else {
		slug = pathSlug
		if !ValidSlug(slug) {
			// A document whose front matter gives its URL (Hugo's url,
			// Zola's path) is not served at its file name: the file's
			// name only tells it apart (the Rust blog's roadmap@0.md,
			// roadmap@1.md), and its slug is the name made valid.
			s, ok := "", false
			switch {
			case c.url != "" || strings.Trim(c.zolaPath, "/") != "":
				s, ok = slugOfName(pathSlug)
			case strings.HasPrefix(file.Source, "src/content/"):
				// an Astro collection's entry: its id is its path
				// slugified (github-slugger), as Astro makes it
				s, ok = astroSlug(pathSlug)
			}
			if !ok {
				return c, problemAt(0, "the file name gives the slug %q, which is not valid: rename the file or set slug (letters, digits, '.', '_', '~', '-')", slug)
			}
			slug = s
		}
	}
	c.slug = slug

	if c.title, err = f.text("title"); err != nil {
		return c, err
	}
	if strings.TrimSpace(c.title) == "" {
		if t := titleFromFile(pathSlug); t != "" {
			c.title, c.titleFromFile = t, true
		}
	}
	if v, ok := f.get("id"); ok && v != nil {
		id, isText := scalarText(v)
		if !isText || !validID(id) {
			return c, f.errorf("id", "%v is not a valid id: use letters, digits, '.', '_', '~', '-' or ':', at most %d characters", v, MaxSlugLen)
		}
		c.id = id
	} else {
		c.id = stableID(idScope, slug)
	}

	draft, _, err := f.boolean("draft")
	if err != nil {
		return c, err
	}
	// published: is a flag (Jekyll's, Astro's), or a date: Hugo's
	// alias of publishDate (vitess.io's blog posts write
	// published: 2018-08-05T07:15:00-07:00).
	c.meta.Draft = draft
	dateKeys := []string{"publishedat", "publishdate", "date"}
	if publishedDate(f) {
		dateKeys = []string{"publishedat", "publishdate", "published", "date"}
	} else {
		published, pubSet, err := f.boolean("published")
		if err != nil {
			return c, err
		}
		c.meta.Draft = draft || pubSet && !published
	}
	// status is folio's only when it says draft or published; any other
	// value (a product's "in-stock") is the author's data.
	if v, ok := f.get("status"); ok {
		s, _ := v.(string)
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "draft":
			c.meta.Draft = true
		case "published":
		default:
			f.untake("status")
		}
	}

	if c.published, c.meta.PublishedSet, err = f.date(dateKeys...); err != nil {
		return c, err
	}
	if !c.meta.PublishedSet && !nameDate.IsZero() {
		c.published, c.meta.PublishedSet = nameDate, true // Zola's date from the file name
	}
	for _, k := range [...]string{"date", "publishdate", "publishedat", "published"} {
		if v, ok := f.get(k); ok {
			c.dateText, _ = v.(string)
			break
		}
	}
	updated, updSet, err := f.date("updatedat", "lastmod")
	if err != nil {
		return c, err
	}
	if k := rules.updatedKey(); !updSet && k != "" {
		// the generator's own key (Zola's updated, Hugo's modified),
		// kept in data as written
		if v, ok := f.fm.value(k); ok && v != nil {
			if updated, err = parseDate(v); err != nil {
				return c, problemAt(f.doc.KeyLines()[k], "%s: %v", k, err)
			}
			updSet = true
		}
	}
	if c.meta.ExpiresAt, _, err = f.date("expiresat", "expirydate"); err != nil {
		return c, err
	}
	c.updated = updated
	if !updSet {
		c.updated = file.Updated.UTC()
	}
	if !c.meta.PublishedSet {
		// The last commit's time, but never after a lastmod the file
		// sets: a page with only lastmod (as Hugo sites write them, and
		// Hugo dates such a page by it) was published by then.
		c.published = file.Updated.UTC()
		if updSet && c.updated.Before(c.published) {
			c.published = c.updated
		}
	}
	return c, nil
}

// publishedDate tells whether f's published: key holds a date, not a
// flag: Hugo's alias of publishDate.
func publishedDate(f *fields) bool {
	v, ok := f.get("published")
	if !ok || v == nil {
		return false
	}
	if _, flag := v.(bool); flag {
		return false
	}
	_, err := parseDate(v)
	return err == nil
}

// addressed is the Addressed of a document read with c, in the site
// whose URL rules and locale prefix env has.
func (c common) addressed(env readEnv, typ string) Addressed {
	d := docInfo{typ: typ, pathSlug: c.pathSlug, slug: c.slug, slugSet: c.slugSet, title: c.title, date: c.published, dateText: c.dateText, url: c.url, zolaPath: c.zolaPath, zolaPage: c.zolaPage}
	rules := env.rules
	if rules == nil {
		rules = &urlRules{}
	}
	if c.unrendered {
		return Addressed{TitleFromFile: c.titleFromFile} // no URL: Hugo writes no page for it
	}
	return Addressed{Path: rules.docPath(d, env.prefix), TitleFromFile: c.titleFromFile}
}

// readEnv is what reading a page or item depends on beside its file: the
// site's URL rules and its locale's path prefix.
type readEnv struct {
	rules  *urlRules
	prefix string
}
