package repr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/folio-cms/folio/engine"
)

// Expand is a parsed `expand` parameter: what engine.View.ExpandBody
// replaces, and the canonical form of the parameter for ETags.
type Expand struct {
	engine.Expand
	key string // canonical: sorted, deduplicated values
}

// Key is the canonical form of e; "" for nil.
func (e *Expand) Key() string {
	if e == nil {
		return ""
	}
	return e.key
}

// ParseExpand reads `expand`: comma-separated values, each "media", "*" or
// a content type of v (a public one when publicOnly). An empty raw is nil:
// references come back as written. An unknown value is an error.
func ParseExpand(raw string, v *engine.View, publicOnly bool) (*Expand, error) {
	if raw == "" {
		return nil, nil
	}
	e := &Expand{Expand: engine.Expand{Types: map[string]bool{}, PublicOnly: publicOnly, Max: engine.MaxExpanded}}
	var vals []string
	for p := range strings.SplitSeq(raw, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "*":
			e.All = true
		case p == "media":
			e.Media = true
		default:
			t, ok := v.Type(p)
			if !ok || (publicOnly && !t.Config.Public) {
				return nil, fmt.Errorf("unknown value %q: use media, * or a content type (%s)", p, strings.Join(expandable(v, publicOnly), ", "))
			}
			e.Types[p] = true
		}
		if !slices.Contains(vals, p) {
			vals = append(vals, p)
		}
	}
	slices.Sort(vals)
	e.key = strings.Join(vals, ",")
	return e, nil
}

// expandable are the types of v that expand.
func expandable(v *engine.View, publicOnly bool) []string {
	var out []string
	for _, n := range v.TypeNames() {
		if t, _ := v.Type(n); !publicOnly || t.Config.Public {
			out = append(out, n)
		}
	}
	return out
}
