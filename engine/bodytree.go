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
// r itself is unchanged. With tm, each image whose URL names a media
// item carries it (content.Markdown.TreeWithMedia), resolved now: the
// body's ETag (of its bytes) changes with the library; tm.Keys name the
// items it embeds.
func (r *Resource) TreeResource(tm *TreeMedia) (*Resource, error) {
	if _, err := r.encode(); err != nil {
		return nil, err
	}
	v, changed, err := withTrees(r.value, tm)
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
func withTrees(v any, tm *TreeMedia) (any, bool, error) {
	switch x := v.(type) {
	case statusItem:
		it, changed, err := itemTrees(x.Item, tm)
		x.Item = it
		return x, changed, err
	case statusPage:
		p, changed, err := pageTrees(x.Page, tm)
		x.Page = p
		return x, changed, err
	case *content.Item:
		return itemTrees(x, tm)
	case *content.Page:
		return pageTrees(x, tm)
	}
	return v, false, nil
}

func dataTrees(d map[string]any, tm *TreeMedia) (map[string]any, bool, error) {
	var out map[string]any
	for k, v := range d {
		m, ok := v.(content.Markdown)
		if !ok {
			continue
		}
		var t json.RawMessage
		var err error
		if tm != nil {
			t, err = m.TreeWithMedia(tm.resolve)
		} else {
			t, err = m.Tree()
		}
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

func itemTrees(it *content.Item, tm *TreeMedia) (*content.Item, bool, error) {
	d, changed, err := dataTrees(it.Data, tm)
	if err != nil || !changed {
		return it, false, err
	}
	c := *it
	c.Data = d
	return &c, true, nil
}

func pageTrees(p *content.Page, tm *TreeMedia) (*content.Page, bool, error) {
	var secs []content.Section
	for i, s := range p.Sections {
		d, changed, err := dataTrees(s.Data, tm)
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
