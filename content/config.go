package content

import (
	"fmt"
	"slices"
	"strings"
)

// BuiltinSortFields are the fields every content type sorts by.
var builtinSortFields = []string{"publishedAt", "updatedAt", "title", "slug"}

// DefaultSort is the sort of a list when neither the request nor
// folio.yaml names one.
const DefaultSort = "-publishedAt"

// readConfig builds Config from folio.yaml. It is strict: an unknown key
// or a bad value is a problem and the whole file is left out, so a typo
// never silently makes a private type public or the other way round.
func readConfig(doc *Doc) (Config, error) {
	cfg := Config{Types: map[string]TypeConfig{}}
	for k, v := range doc.Meta() {
		if k == "language" {
			lang, ok := v.(string)
			if !ok || !slices.Contains(Languages, lang) {
				return Config{}, problemAt(doc.KeyLines()[k], "language: want one of %s, found %v", strings.Join(Languages, ", "), v)
			}
			cfg.Language = lang
			continue
		}
		if k == "imagePresets" {
			ps, err := readImagePresets(v)
			if err != nil {
				return Config{}, problemAt(doc.KeyLines()[k], "imagePresets%v", err)
			}
			cfg.ImagePresets = ps
			continue
		}
		switch k {
		case "pages", "globals":
			md, err := readModelDecl(v, nil, []string{k})
			if err != nil {
				return Config{}, problemAt(doc.KeyLines()[k], "%s: %v", k, err)
			}
			if k == "pages" {
				cfg.Pages = md
			} else {
				cfg.Globals = md
			}
			continue
		case "decap":
			dc, err := readDecapConfig(v)
			if err != nil {
				return Config{}, problemAt(doc.KeyLines()[k], "decap: %v", err)
			}
			cfg.Decap = dc
			continue
		case "schemaFrom":
			s, ok := v.(string)
			if !ok || !ModelFile(s) {
				return Config{}, problemAt(doc.KeyLines()[k], "schemaFrom: want the repository path of a Decap/Sveltia config, a file named config.yml under an admin/ folder or a file under schemas/, found %v", v)
			}
			cfg.SchemaFrom = s
			continue
		}
		if i18nKeys[k] {
			continue // read by readFolioI18n
		}
		if k == "root" {
			if _, err := RootOf(doc); err != nil {
				return Config{}, err
			}
			continue // the site root, read by whoever reads the site (RootOf)
		}
		if k != "types" {
			return Config{}, problemAt(doc.KeyLines()[k], "unknown key %q (known: language, types, imagePresets, pages, globals, schemaFrom, decap, locales, defaultLocale, layout, fallback, root)", k)
		}
		if v == nil {
			continue
		}
		types, err := wantMap(v, "types")
		if err != nil {
			return Config{}, problemAt(doc.KeyLines()[k], "%v", err)
		}
		for name, tv := range types {
			tc, err := readTypeConfig(name, tv)
			if err != nil {
				return Config{}, problemAt(doc.KeyLines()[k], "types.%s: %v", name, err)
			}
			cfg.Types[name] = tc
		}
	}
	return cfg, nil
}

func readTypeConfig(name string, v any) (TypeConfig, error) {
	var tc TypeConfig
	if !ValidType(name) {
		return tc, fmt.Errorf("not a valid content type name (lower-case letters, digits, '_', '-')")
	}
	if v == nil {
		return tc, nil
	}
	m, err := wantMap(v, "options")
	if err != nil {
		return tc, err
	}
	if tc.Model, err = readModelDecl(m, modelKeys, []string{"types", name}); err != nil {
		return tc, err
	}
	for k, v := range m {
		if modelKeys[k] {
			continue
		}
		switch k {
		case "public":
			b, ok := v.(bool)
			if !ok {
				return tc, fmt.Errorf("public: want true or false, found %s", kindOf(v))
			}
			tc.Public = b
		case "sortable":
			list, err := wantList(v)
			if err != nil {
				return tc, fmt.Errorf("sortable: %v", err)
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok || !validSortField(s) {
					return tc, fmt.Errorf("sortable: %v is not a field name (letters, digits and '_')", e)
				}
				tc.Sortable = append(tc.Sortable, s)
			}
		case "defaultSort":
			s, ok := v.(string)
			if !ok {
				return tc, fmt.Errorf("defaultSort: want text like \"-publishedAt\", found %s", kindOf(v))
			}
			tc.DefaultSort = s
		case "format":
			s, ok := v.(string)
			if !ok || (s != "yaml" && s != "toml" && s != "json") {
				return tc, fmt.Errorf("format: want yaml, toml or json, found %v", v)
			}
			tc.Format = s
		case "listBody":
			b, ok := v.(bool)
			if !ok {
				return tc, fmt.Errorf("listBody: want true or false, found %s", kindOf(v))
			}
			tc.NoListBody = !b
		default:
			return tc, fmt.Errorf("unknown key %q (known: public, sortable, defaultSort, listBody, format, fields, schema, additionalFields, onInvalid)", k)
		}
	}
	if tc.DefaultSort != "" {
		if _, _, err := ParseSort(tc.DefaultSort, tc); err != nil {
			return tc, fmt.Errorf("defaultSort: %v", err)
		}
	}
	return tc, nil
}

func validSortField(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// SortFields lists the fields a type sorts by: the built-in ones, then its
// sortable data fields.
func SortFields(cfg TypeConfig) []string {
	out := slices.Clone(builtinSortFields)
	for _, f := range cfg.Sortable {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// ParseSort validates a sort parameter, "field" or "-field" (descending),
// against the fields cfg allows. An empty s is cfg.DefaultSort, or
// DefaultSort when that is empty too. A data field (one in cfg.Sortable)
// sorts by Item.Data[field].
func ParseSort(s string, cfg TypeConfig) (field string, desc bool, err error) {
	if s == "" {
		s = cfg.DefaultSort
	}
	if s == "" {
		s = DefaultSort
	}
	field, desc = strings.CutPrefix(s, "-")
	allowed := SortFields(cfg)
	if !slices.Contains(allowed, field) {
		return "", false, fmt.Errorf("cannot sort by %q; allowed: %s (prefix - for descending)", field, strings.Join(allowed, ", "))
	}
	return field, desc, nil
}

// readImagePresets reads imagePresets: {name: {w, h, fit, fm, q}}. Its
// errors begin with ": " or ".<name>: " to follow "imagePresets".
func readImagePresets(v any) (map[string]ImagePreset, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(": want a map of names to {w, h, fit, fm, q}, found %s", kindOf(v))
	}
	if len(m) > maxImagePresetsLen {
		return nil, fmt.Errorf(": at most %d presets", maxImagePresetsLen)
	}
	out := make(map[string]ImagePreset, len(m))
	for name, pv := range m {
		if !validPresetName(name) {
			return nil, fmt.Errorf(".%s: not a valid preset name (1 to %d lower-case letters, digits, '_' and '-')", name, maxPresetNameLen)
		}
		p, err := readImagePreset(pv)
		if err != nil {
			return nil, fmt.Errorf(".%s: %v", name, err)
		}
		out[name] = p
	}
	return out, nil
}

func readImagePreset(v any) (ImagePreset, error) {
	p := ImagePreset{Fit: DefaultPresetFit, Format: DefaultPresetFm, Quality: DefaultPresetQ}
	m, err := wantMap(v, "preset")
	if err != nil {
		return p, err
	}
	intIn := func(k string, v any, lo, hi int) (int, error) {
		var n int
		switch x := v.(type) {
		case int64:
			n = int(x)
			if int64(n) != x {
				n = hi + 1
			}
		case float64:
			if x != float64(int(x)) {
				return 0, fmt.Errorf("%s: want a whole number from %d to %d, found %v", k, lo, hi, x)
			}
			n = int(x)
		default:
			return 0, fmt.Errorf("%s: want a whole number from %d to %d, found %s", k, lo, hi, kindOf(v))
		}
		if n < lo || n > hi {
			return 0, fmt.Errorf("%s: want a whole number from %d to %d, found %d", k, lo, hi, n)
		}
		return n, nil
	}
	for k, x := range m {
		switch k {
		case "w":
			if p.W, err = intIn(k, x, 1, MaxPresetSide); err != nil {
				return p, err
			}
		case "h":
			if p.H, err = intIn(k, x, 1, MaxPresetSide); err != nil {
				return p, err
			}
		case "q":
			if p.Quality, err = intIn(k, x, 1, 100); err != nil {
				return p, err
			}
		case "fit":
			s, _ := x.(string)
			if s != "cover" && s != "contain" {
				return p, fmt.Errorf("fit: want cover or contain, found %v", x)
			}
			p.Fit = s
		case "fm":
			s, _ := x.(string)
			switch s {
			case "webp", "jpeg", "png", "avif":
			default:
				return p, fmt.Errorf("fm: want webp, jpeg, png or avif, found %v", x)
			}
			p.Format = s
		default:
			return p, fmt.Errorf("unknown key %q (known: w, h, fit, fm, q)", k)
		}
	}
	if p.W == 0 && p.H == 0 {
		return p, fmt.Errorf("give w, h or both")
	}
	return p, nil
}

func validPresetName(s string) bool {
	return s != "" && len(s) <= maxPresetNameLen && lowerSlugChars(s)
}

// modelKeys are the keys of a type's options that declare its model.
var modelKeys = map[string]bool{"fields": true, "schema": true, "additionalFields": true, "onInvalid": true}

// readModelDecl reads the model keys of m (all of its keys when only is
// nil, for pages: and globals:); nil when it has none. The fields
// themselves are checked when the model is compiled (content/schema).
func readModelDecl(v any, only map[string]bool, at []string) (*ModelDecl, error) {
	if v == nil {
		return nil, nil
	}
	m, err := wantMap(v, "options")
	if err != nil {
		return nil, err
	}
	var md ModelDecl
	found := false
	for k, v := range m {
		if only != nil && !only[k] {
			continue
		}
		found = true
		switch k {
		case "fields":
			if _, ok := v.(map[string]any); !ok && v != nil {
				return nil, fmt.Errorf("fields: want a map of field names to kinds or options, found %s", kindOf(v))
			}
			md.Fields = v
		case "schema":
			s, ok := v.(string)
			if !ok || !ModelFile(s) {
				return nil, fmt.Errorf("schema: want the repository path of a JSON Schema file under schemas/ (schemas/post.json), found %v", v)
			}
			md.Schema = s
		case "additionalFields":
			s, _ := v.(string)
			if s != "allow" && s != "warn" && s != "reject" {
				return nil, fmt.Errorf("additionalFields: want allow, warn or reject, found %v", v)
			}
			md.AdditionalFields = s
		case "onInvalid":
			s, _ := v.(string)
			if s != "serve" && s != "reject" {
				return nil, fmt.Errorf("onInvalid: want serve or reject, found %v", v)
			}
			md.OnInvalid = s
		default:
			return nil, fmt.Errorf("unknown key %q (known: fields, schema, additionalFields, onInvalid)", k)
		}
	}
	if !found {
		return nil, nil
	}
	if md.Fields != nil && md.Schema != "" {
		return nil, fmt.Errorf("give fields or schema, not both")
	}
	md.At = at
	return &md, nil
}

// readDecapConfig reads folio.yaml's decap: {version, url}.
func readDecapConfig(v any) (*DecapConfig, error) {
	m, err := wantMap(v, "decap")
	if err != nil {
		return nil, err
	}
	dc := &DecapConfig{}
	for k, val := range m {
		s, ok := val.(string)
		switch {
		case k == "version" && ok && decapVersion(s):
			dc.Version = s
		case k == "publishMode" && ok && (s == "simple" || s == "editorial_workflow"):
			dc.PublishMode = s
		case k == "publishMode":
			return nil, fmt.Errorf("publishMode: want simple or editorial_workflow, found %v", val)
		case k == "url" && ok && (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "/")) &&
			!strings.ContainsAny(s, "\"<>' \t\n"):
			dc.URL = s
		case k == "version":
			return nil, fmt.Errorf("version: want a version of the decap-cms package (3.16.3), found %v", val)
		case k == "url":
			return nil, fmt.Errorf("url: want an http(s) or root-relative URL of decap-cms.js, {version} standing for the version, found %v", val)
		default:
			return nil, fmt.Errorf("unknown key %q (known: version, url, publishMode)", k)
		}
	}
	return dc, nil
}

// decapVersion tells a package version: digits, dots, letters and dashes.
func decapVersion(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return false
		}
	}
	return true
}
