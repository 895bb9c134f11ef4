package content

// A document of one locale made from its translations and the default
// locale's (localized fields, merged globals).

import (
	"slices"
	"strings"
)

// localize is a document of the fields layout as it reads in locale loc:
// each top-level value that is a map of locale codes ({en: …, fr: …})
// replaced by loc's value (the default locale's when loc has none), and
// Decap's top-level locale maps (en: {title: …}) merged in, loc's over
// the default locale's. A body among the values (body: {en: …, fr: …},
// or fr: {body: …}, which is where Decap's single_file writes it) is the
// document's Markdown body in loc, in place of the file's. The lines of
// the values are those of loc's. in is false when the document has
// localized values but none for loc.
func (st *localeState) localize(d *Doc, loc string, cfg *I18n) (*Doc, bool) {
	k := derivedKey{d, loc}
	if out, ok := st.derived[k]; ok {
		return out, out != nil
	}
	out := localizeDoc(d, loc, cfg)
	if len(st.derived) > 1<<20 {
		clear(st.derived)
	}
	st.derived[k] = out
	return out, out != nil
}

// LocaleMap tells whether a value of a fields-layout file is a map of
// locale codes ({en: …, fr: …}: every key a locale of c), and returns it.
func (c *I18n) LocaleMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, false
	}
	for k := range m {
		if _, known := c.Locale(k); !known {
			return nil, false
		}
	}
	return m, true
}

// Localize is a document of a site with the fields layout (cfg) as it
// reads in locale loc, as the site serves it (see localize): its values
// and body in loc. in is false when the document has localized values
// but none for loc. A document with no localized values is d itself.
func Localize(d *Doc, loc string, cfg *I18n) (out *Doc, in bool) {
	out = localizeDoc(d, loc, cfg)
	return out, out != nil
}

// localizeDoc is localize without its cache; nil when the document is
// not in loc.
func localizeDoc(d *Doc, loc string, cfg *I18n) *Doc {
	isLocaleMap := cfg.LocaleMap
	localized, has := false, false
	for key, v := range d.Fields() {
		if _, code := cfg.Locale(key); code {
			if _, ok := v.(map[string]any); ok {
				localized = true
				if key == loc {
					has = true
				}
			}
			continue
		}
		if m, ok := isLocaleMap(v); ok {
			localized = true
			if _, ok := m[loc]; ok {
				has = true
			}
		}
	}
	if !localized {
		return d
	}
	if !has {
		return nil
	}
	lines := d.KeyLines()
	nd := d.clone()
	meta := make(map[string]any, d.Len())
	nd.setMeta(meta)
	nd.Lines = make(map[string]int, len(lines))
	body, bodyLine, bodySet := "", 0, false
	for key, v := range d.Fields() {
		if _, code := cfg.Locale(key); code {
			if _, ok := v.(map[string]any); ok {
				continue
			}
		}
		if m, ok := isLocaleMap(v); ok {
			from := loc
			lv, ok := m[loc]
			if !ok {
				from = cfg.Default
				lv, ok = m[cfg.Default]
			}
			if !ok {
				continue
			}
			line := d.LineOf(key, from)
			if s, isText := lv.(string); isText && key == "body" {
				body, bodyLine, bodySet = s, line, true
				continue
			}
			meta[key] = lv
			nd.Lines[key] = line
			continue
		}
		meta[key] = v
		if l, ok := lines[key]; ok {
			nd.Lines[key] = l
		}
	}
	// Decap's maps: the default locale's, then loc's over them
	froms := []string{cfg.Default, loc}
	if loc == cfg.Default {
		froms = froms[:1]
	}
	for _, from := range froms {
		v, _ := d.Value(from)
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for key, v := range m {
			line := d.LineOf(from, key)
			if s, isText := v.(string); isText && key == "body" {
				body, bodyLine, bodySet = s, line, true
				continue
			}
			meta[key] = v
			nd.Lines[key] = line
		}
	}
	// the lines of nested values of Decap's maps: /fr/price/x is
	// /price/x (loc's over the default's)
	for p, l := range lines {
		if p == "" || p[0] != '/' {
			continue
		}
		first, tail, ok := strings.Cut(p[1:], "/")
		if !ok || !strings.Contains(tail, "/") {
			continue
		}
		if first == loc {
			nd.Lines["/"+tail] = l
		} else if first == cfg.Default {
			if _, mine := lines["/"+loc+"/"+tail]; !mine {
				nd.Lines["/"+tail] = l
			}
		}
	}
	if bodySet {
		delete(meta, "body")
		if markdownTooDeep([]byte(body)) > 0 || strings.TrimSpace(body) == "" {
			// as a Markdown body would be: not rendered (too deep), or none
			nd.Body, nd.HasBody = Markdown{}, false
			if strings.TrimSpace(body) != "" {
				meta["body"] = body
			}
		} else {
			nd.Body, nd.HasBody = NewMarkdown(body), true
		}
		nd.Line = bodyLine
	}
	return nd
}

// mergeGlobals is the globals of one locale: the documents of its chain,
// the default locale's first, each over the one before, key by key.
func (st *localeState) mergeGlobals(loc string, from []*Doc) *Doc {
	if m, ok := st.globals[loc]; ok && slices.Equal(m.from, from) {
		return m.doc
	}
	top := from[len(from)-1]
	nd := top.clone()
	meta := map[string]any{}
	nd.setMeta(meta)
	nd.Lines = map[string]int{}
	for _, d := range from {
		for k, v := range d.Fields() {
			meta[k] = v
			// lines only make sense in the locale's own file
			delete(nd.Lines, k)
		}
	}
	for k, v := range top.KeyLines() {
		nd.Lines[k] = v
	}
	st.globals[loc] = mergedGlobals{from: slices.Clone(from), doc: nd}
	return nd
}
