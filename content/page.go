package content

import (
	"strconv"
	"strings"
)

// pageKeys are the keys a page reads on top of commonKeys.
var pageKeys = append([]string{"ishomepage", "seo", "sections", "description"}, commonKeys...)

var pageKeySet = newKeySet(pageKeys)

// RichTextSection is the section type of a Markdown page body.
const RichTextSection = "richText"

// readPage builds a page from a file under pages/; rel is the path below
// pages/. Keys a page does not know are its data, as an item's.
func readPage(file File, rel string, env readEnv) (*Page, bool, error) {
	var fs fields
	if err := fs.init(file.Doc, pageKeySet); err != nil {
		return nil, false, err
	}
	f := &fs
	c, err := readCommon(f, file, PathSlug(rel), "page", env.rules)
	if err != nil {
		return nil, false, err
	}
	p := &Page{
		ID: c.id, Slug: c.slug, Title: c.title,
		PublishedAt: c.published, UpdatedAt: c.updated, Meta: c.meta,
		Addressed: c.addressed(env, ""),
	}
	home, homeSet, err := f.boolean("ishomepage")
	if err != nil {
		return nil, false, err
	}
	p.IsHomepage = home
	if home && c.url == "" && !c.unrendered {
		p.Path = env.prefix + "/" // the homepage is its locale's root
	}
	if err := readSEO(f, p); err != nil {
		return nil, false, err
	}
	if p.Sections, err = readSections(f, p.ID); err != nil {
		return nil, false, err
	}
	if data := f.rest(); len(data) > 0 {
		p.Data = data
		file.Doc.shareWith(data, false) // as readItem does
	}
	if file.Doc.HasBody {
		i := len(p.Sections)
		p.Sections = append(p.Sections, Section{
			ID: sectionID(p.ID, i), Type: RichTextSection, Order: i,
			Data: map[string]any{"html": file.Doc.Body.inSite(file)}, // a Markdown: encodes as HTML
		})
	}
	return p, homeSet, nil
}

func readSEO(f *fields, p *Page) error {
	desc, err := f.text("description")
	if err != nil {
		return err
	}
	p.SEO = SEO{Title: p.Title, Description: desc}
	v, ok := f.get("seo")
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return f.errorf("seo", "want a map with title, description, ogImage; found %s", kindOf(v))
	}
	for k, v := range m {
		s, ok := scalarText(v)
		if !ok {
			return f.errorf("seo", "%s: want text, found %s", k, kindOf(v))
		}
		switch k {
		case "title":
			if s != "" {
				p.SEO.Title = s
			}
		case "description":
			if s != "" {
				p.SEO.Description = s
			}
		case "ogImage":
			p.SEO.OGImage = s
		default:
			return f.errorf("seo", "unknown key %q (known: title, description, ogImage)", k)
		}
	}
	return nil
}

func readSections(f *fields, pageID string) ([]Section, error) {
	v, _ := f.get("sections")
	if v == nil {
		return []Section{}, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, f.errorf("sections", "want a list, found %s", kindOf(v))
	}
	out := make([]Section, 0, len(list)+1)
	ids := make(map[string]int, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, f.errorf("sections", "section %d: want a map with a type, found %s", i+1, kindOf(e))
		}
		typ, _ := m["type"].(string)
		typeKey := "type"
		if b, isText := m["block"].(string); strings.TrimSpace(typ) == "" && isText && strings.TrimSpace(b) != "" {
			// Hugo Blox's (Wowchemy's) landing page: - block: markdown
			typ, typeKey = b, "block"
		}
		if strings.TrimSpace(typ) == "" {
			return nil, f.errorf("sections", "section %d has no type", i+1)
		}
		s := Section{Type: typ, Order: i}
		if idv, ok := m["id"]; ok && idv != nil {
			id, isText := scalarText(idv)
			if !isText || !validID(id) {
				return nil, f.errorf("sections", "section %d: %v is not a valid id", i+1, idv)
			}
			s.ID = id
		} else {
			s.ID = sectionID(pageID, i)
		}
		if prev, dup := ids[s.ID]; dup {
			return nil, f.errorf("sections", "sections %d and %d have the same id %q", prev+1, i+1, s.ID)
		}
		ids[s.ID] = i
		if d, has := m["data"]; has {
			dm, ok := d.(map[string]any)
			if !ok {
				return nil, f.errorf("sections", "section %d: data must be a map, found %s", i+1, kindOf(d))
			}
			for k := range m {
				if k != "id" && k != typeKey && k != "data" {
					return nil, f.errorf("sections", "section %d has data and also %q: put %q inside data", i+1, k, k)
				}
			}
			s.Data = dm
		} else {
			s.Data = make(map[string]any, len(m))
			for k, v := range m {
				if k != "id" && k != typeKey {
					s.Data[k] = v
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// sectionID is the id of a section that sets none: stable while the page
// id and the section's position stay.
func sectionID(pageID string, i int) string { return pageID + "-" + strconv.Itoa(i) }
