package content

import "fmt"

// readGlobals builds the site settings from globals.yaml. A known key with
// the wrong shape is a problem (and the file is left out); unknown keys go
// into Extra and are served beside the known fields.
func readGlobals(doc *Doc) (*Globals, error) {
	g := &Globals{Nav: []NavLink{}, Social: []SocialLink{}, Extra: map[string]any{}}
	line := func(k string) int { return doc.KeyLines()[k] }
	for k, v := range doc.Meta() {
		var err error
		switch k {
		case "siteName":
			g.SiteName, err = wantText(v)
		case "logoUrl":
			g.LogoURL, err = wantText(v)
		case "nav":
			g.Nav, err = readLinks(v, 0)
		case "footer":
			g.Footer, err = readFooter(v)
		case "social":
			g.Social, err = readSocial(v)
		default:
			g.Extra[k] = v
		}
		if err != nil {
			return nil, problemAt(line(k), "%s: %v", k, err)
		}
	}
	return g, nil
}

func wantText(v any) (string, error) {
	s, ok := scalarText(v)
	if !ok {
		return "", fmt.Errorf("want text, found %s", kindOf(v))
	}
	return s, nil
}

func wantMap(v any, what string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a map, found %s", what, kindOf(v))
	}
	return m, nil
}

func wantList(v any) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list, found %s", kindOf(v))
	}
	return l, nil
}

// readLinks reads a list of {label, url, children}; depth bounds submenus.
func readLinks(v any, depth int) ([]NavLink, error) {
	list, err := wantList(v)
	if err != nil {
		return nil, err
	}
	if depth > 8 {
		return nil, fmt.Errorf("menus nested more than 8 levels deep")
	}
	out := make([]NavLink, 0, len(list))
	for i, e := range list {
		m, err := wantMap(e, fmt.Sprintf("entry %d", i+1))
		if err != nil {
			return nil, err
		}
		var l NavLink
		for k, v := range m {
			switch k {
			case "label":
				l.Label, err = wantText(v)
			case "url":
				l.URL, err = wantText(v)
			case "children":
				l.Children, err = readLinks(v, depth+1)
			default:
				err = fmt.Errorf("unknown key %q (known: label, url, children)", k)
			}
			if err != nil {
				return nil, fmt.Errorf("entry %d: %v", i+1, err)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

func readFooter(v any) (Footer, error) {
	var f Footer
	m, err := wantMap(v, "footer")
	if err != nil {
		return f, err
	}
	for k, v := range m {
		switch k {
		case "copyrightText":
			f.CopyrightText, err = wantText(v)
		case "links":
			f.Links, err = readLinks(v, 0)
		default:
			err = fmt.Errorf("unknown key %q (known: copyrightText, links)", k)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

func readSocial(v any) ([]SocialLink, error) {
	list, err := wantList(v)
	if err != nil {
		return nil, err
	}
	out := make([]SocialLink, 0, len(list))
	for i, e := range list {
		m, err := wantMap(e, fmt.Sprintf("entry %d", i+1))
		if err != nil {
			return nil, err
		}
		var s SocialLink
		for k, v := range m {
			switch k {
			case "platform":
				s.Platform, err = wantText(v)
			case "url":
				s.URL, err = wantText(v)
			default:
				err = fmt.Errorf("unknown key %q (known: platform, url)", k)
			}
			if err != nil {
				return nil, fmt.Errorf("entry %d: %v", i+1, err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}
