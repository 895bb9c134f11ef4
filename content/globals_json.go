package content

import (
	"bytes"
	"encoding/json"
	"slices"
)

// globalsKnown are the JSON names of Globals' own fields.
var globalsKnown = []string{"siteName", "logoUrl", "nav", "footer", "social"}

// MarshalJSON serves the settings' known fields first, then every other
// top-level key of globals.yaml in key order; a known field wins over an
// extra key of the same name. Missing lists are served as [].
func (g Globals) MarshalJSON() ([]byte, error) {
	type plain Globals
	if g.Nav == nil {
		g.Nav = []NavLink{}
	}
	if g.Social == nil {
		g.Social = []SocialLink{}
	}
	known, err := json.Marshal(plain(g))
	if err != nil || len(g.Extra) == 0 {
		return known, err
	}
	keys := make([]string, 0, len(g.Extra))
	for k := range g.Extra {
		if !slices.Contains(globalsKnown, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.Write(known[:len(known)-1]) // without the closing brace
	for _, k := range keys {
		name, _ := json.Marshal(k)
		v, err := json.Marshal(g.Extra[k])
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
