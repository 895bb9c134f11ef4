package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/folio-cms/folio/content"
)

// TreeResource is r with each Markdown body (an item's data.body, a
// page's richText section's data.html) as its body tree
// (content.Markdown.Tree) instead of HTML: the representation of
// ?body=tree. It is made per request from the trees the bodies keep;
// r itself is unchanged.
func (r *Resource) TreeResource() (*Resource, error) {
	if err := r.encode(); err != nil {
		return nil, err
	}
	v, changed, err := withTrees(r.value)
	if err != nil {
		return nil, fmt.Errorf("body tree of %s: %w", r.path(), err)
	}
	if !changed {
		return r, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	body := bytes.TrimRight(buf.Bytes(), "\n")
	return r.WithBody(body, ETag(body))
}

// withTrees is v with its Markdown values as trees; changed false when
// it has none.
func withTrees(v any) (any, bool, error) {
	switch x := v.(type) {
	case statusItem:
		it, changed, err := itemTrees(x.Item)
		x.Item = it
		return x, changed, err
	case statusPage:
		p, changed, err := pageTrees(x.Page)
		x.Page = p
		return x, changed, err
	case *content.Item:
		return itemTrees(x)
	case *content.Page:
		return pageTrees(x)
	}
	return v, false, nil
}

func dataTrees(d map[string]any) (map[string]any, bool, error) {
	var out map[string]any
	for k, v := range d {
		m, ok := v.(content.Markdown)
		if !ok {
			continue
		}
		t, err := m.Tree()
		if err != nil {
			return nil, false, err
		}
		if out == nil {
			out = maps.Clone(d)
		}
		out[k] = t
	}
	if out == nil {
		return d, false, nil
	}
	return out, true, nil
}

func itemTrees(it *content.Item) (*content.Item, bool, error) {
	d, changed, err := dataTrees(it.Data)
	if err != nil || !changed {
		return it, false, err
	}
	c := *it
	c.Data = d
	return &c, true, nil
}

func pageTrees(p *content.Page) (*content.Page, bool, error) {
	var secs []content.Section
	for i, s := range p.Sections {
		d, changed, err := dataTrees(s.Data)
		if err != nil {
			return p, false, err
		}
		if !changed {
			continue
		}
		if secs == nil {
			secs = slices.Clone(p.Sections)
		}
		secs[i].Data = d
	}
	if secs == nil {
		return p, false, nil
	}
	c := *p
	c.Sections = secs
	return &c, true, nil
}
