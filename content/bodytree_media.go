package content

import (
	"bytes"
	"encoding/json"
)

// TreeWithMedia is Tree with each image node whose URL resolve knows
// carrying what resolve returns (compact JSON) as its media: the media
// library item the URL names. The URL stays as written. resolve is
// called once per distinct image URL of the body, and returns nil for a
// URL that names nothing. The kept tree is not changed: the media are
// resolved per call, as the library changes independently of the body.
// A body without images costs what Tree does; one with images a copy of
// its JSON with the media spliced in (the kept tree knows where each
// image node ends).
func (m Markdown) TreeWithMedia(resolve func(url string) json.RawMessage) (json.RawMessage, error) {
	r, err := m.tree()
	if err != nil {
		return nil, err
	}
	var found map[string]json.RawMessage
	extra := 0
	for _, im := range r.images {
		j, seen := found[im.url]
		if !seen {
			if found == nil {
				found = make(map[string]json.RawMessage, len(r.images))
			}
			j = resolve(im.url)
			found[im.url] = j
		}
		if j != nil {
			extra += len(`,"media":`) + len(j)
		}
	}
	if extra == 0 {
		return json.RawMessage(r.text), nil
	}
	out := make([]byte, 0, len(r.text)+extra)
	last := 0
	for _, im := range r.images {
		j := found[im.url]
		if j == nil {
			continue
		}
		out = append(out, r.text[last:im.end]...)
		out = append(out, `,"media":`...)
		out = append(out, j...)
		last = im.end
	}
	return append(out, r.text[last:]...), nil
}

// treeImage is an image node of a tree's JSON: its URL, and the offset
// of the node's closing brace (where its media goes: TreeNode.Media is
// the last field an image node has).
type treeImage struct {
	url string
	end int
}

// imageNodeStart opens each image node of a tree's JSON (encoded from
// TreeNode: type first, then url, always set on an image). It cannot
// occur inside a string, where quotes are escaped.
var imageNodeStart = []byte(`{"type":"image","url":`)

// imagesOf lists the image nodes with a non-empty URL of a tree's JSON
// j, in order.
func imagesOf(j []byte) []treeImage {
	var out []treeImage
	for i := 0; ; {
		k := bytes.Index(j[i:], imageNodeStart)
		if k < 0 {
			return out
		}
		start := i + k + len(imageNodeStart)
		end := stringEnd(j, start)
		var u string
		if err := json.Unmarshal(j[start:end], &u); err != nil {
			return out // not a tree TreeNode encoded: no media
		}
		// the rest are strings (alt, title): the first } outside one
		// closes the node
		p := end
		for p < len(j) && j[p] != '}' {
			if j[p] == '"' {
				p = stringEnd(j, p)
			} else {
				p++
			}
		}
		if p == len(j) {
			return out
		}
		if u != "" {
			out = append(out, treeImage{url: u, end: p})
		}
		i = p
	}
}

// stringEnd is the offset just past the JSON string that opens at
// j[p] (a quote).
func stringEnd(j []byte, p int) int {
	for q := p + 1; q < len(j); q++ {
		switch j[q] {
		case '\\':
			q++
		case '"':
			return q + 1
		}
	}
	return len(j)
}
