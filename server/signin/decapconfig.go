package signin

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// DecapConfig narrows Decap CMS's config.yml to what p may edit: the
// collections of their role, and on a site with locales their locales
// (and the default one, which Decap needs to show beside them). A
// write outside the role is refused by the RPC whatever the config says;
// this only keeps the editor from offering it.
func DecapConfig(b []byte, p *Principal) ([]byte, error) {
	if p.Has(RoleAdmin) || (len(p.Grant.Collections) == 0 && len(p.Grant.Locales) == 0) {
		return b, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return b, nil
	}
	root := doc.Content[0]
	if cols := mapValue(root, "collections"); cols != nil && cols.Kind == yaml.SequenceNode {
		kept := cols.Content[:0]
		for _, c := range cols.Content {
			if n := mapValue(c, "name"); n != nil && p.MayCollection(n.Value) {
				kept = append(kept, c)
			}
		}
		cols.Content = kept
	}
	if i18n := mapValue(root, "i18n"); i18n != nil && len(p.Grant.Locales) > 0 {
		def := ""
		if d := mapValue(i18n, "default_locale"); d != nil {
			def = d.Value
		}
		if locs := mapValue(i18n, "locales"); locs != nil && locs.Kind == yaml.SequenceNode {
			kept := locs.Content[:0]
			for _, l := range locs.Content {
				if l.Value == def || slices.Contains(p.Grant.Locales, l.Value) {
					kept = append(kept, l)
				}
			}
			locs.Content = kept
		}
	}
	return yaml.Marshal(&doc)
}

// mapValue is the value of key in a mapping node, nil without it.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
