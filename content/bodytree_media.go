package content

import (
	"bytes"
	"encoding/json"
)

// TreeWithMedia is Tree with each image node whose URL resolve knows
// carrying what resolve returns as its media (the media library item the
// URL names); the URL stays as written. resolve is called once per
// distinct image URL of the body, and returns nil for a URL that names
// nothing. The kept tree is not changed: the media are resolved per call,
// as the library changes independently of the body. A body without
// images, or whose images name nothing, costs no more than Tree.
func (m Markdown) TreeWithMedia(resolve func(url string) json.RawMessage) (json.RawMessage, error) {
	r, err := m.tree()
	if err != nil {
		return nil, err
	}
	var found map[string]json.RawMessage
	for _, u := range r.images {
		if j := resolve(u); j != nil {
			if found == nil {
				found = make(map[string]json.RawMessage, len(r.images))
			}
			found[u] = j
		}
	}
	if found == nil {
		return json.RawMessage(r.text), nil
	}
	var root TreeNode
	dec := json.NewDecoder(bytes.NewReader([]byte(r.text)))
	dec.UseNumber() // props keep their numbers as written
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	setMedia(&root, found)
	return json.Marshal(&root)
}

// setMedia sets the media of n's image nodes whose URL found has.
func setMedia(n *TreeNode, found map[string]json.RawMessage) {
	if n.Type == "image" && n.URL != nil {
		n.Media = found[*n.URL]
	}
	for _, c := range n.Children {
		setMedia(c, found)
	}
}

// imageURLs is the distinct non-empty URLs of root's image nodes.
func imageURLs(root *TreeNode) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n *TreeNode)
	walk = func(n *TreeNode) {
		if n.Type == "image" && n.URL != nil && *n.URL != "" && !seen[*n.URL] {
			seen[*n.URL] = true
			out = append(out, *n.URL)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return out
}
