package media

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// An item's alt, title and description may be given per locale. The plain
// fields (Alt, Title, Description) are the unlocalized value, which is
// also the default locale's until that locale has its own; the ByLocale
// maps hold the values of the locales that have one, keyed by canonical
// BCP 47 tag ("en", "fr-CA").

// MaxLocales bounds the locales of one field of one item, so a sidecar
// stays small whatever a client sends.
const MaxLocales = 64

// maxLocaleLen is the longest tag accepted: RFC 5646 §4.4.1 asks that 35
// characters be enough for any tag a registry will ever need.
const maxLocaleLen = 35

// CanonicalLocale checks that s is a BCP 47 language tag and returns its
// canonical form ("EN-us" → "en-US"). "und" (no language) is refused: a
// value for it would be the unlocalized one, which has its own field.
func CanonicalLocale(s string) (string, error) {
	// language.Parse takes "_" for "-" too; a tag has hyphens only.
	if s == "" || len(s) > maxLocaleLen || strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) >= 0 {
		return "", errorf(ErrBadInput, "locale %q is not a BCP 47 language tag", clip(s))
	}
	t, err := language.Parse(s)
	if err != nil {
		return "", errorf(ErrBadInput, "locale %q is not a BCP 47 language tag", clip(s))
	}
	c := t.String()
	if c == "und" || strings.HasPrefix(c, "und-") {
		return "", errorf(ErrBadInput, "locale %q names no language", clip(s))
	}
	return c, nil
}

func clip(s string) string {
	if len(s) > maxLocaleLen {
		return s[:maxLocaleLen] + "…"
	}
	return s
}

// FallbackChain is the order in which a localized field is looked up for
// locale: the locale, its less specific forms (RFC 4647 lookup: "zh-Hant-TW",
// "zh-Hant", "zh"), then def (the site's default locale, "" for none). The
// unlocalized value comes after the chain. An empty locale is def's chain.
func FallbackChain(locale, def string) []string {
	var chain []string
	add := func(l string) {
		if l != "" && !slices.Contains(chain, l) {
			chain = append(chain, l)
		}
	}
	for l := locale; l != ""; {
		add(l)
		i := strings.LastIndexByte(l, '-')
		if i < 0 {
			break
		}
		l = l[:i]
		// A singleton (an extension's or private use's introducer) goes
		// with the subtag it introduces.
		if j := strings.LastIndexByte(l, '-'); j >= 0 && len(l)-j == 2 {
			l = l[:j]
		}
	}
	add(def)
	return chain
}

// lookup is the value of the first locale of chain that m has, else plain.
func lookup(m map[string]string, plain string, chain []string) string {
	for _, l := range chain {
		if v, ok := m[l]; ok {
			return v
		}
	}
	return plain
}

// Localized returns a copy of it whose Alt, Title and Description are those
// of the first locale of chain (FallbackChain) that has one, each field on
// its own, else the unlocalized ones. The ByLocale maps are kept.
func Localized(it *Item, chain []string) *Item {
	c := *it
	if len(chain) == 0 {
		return &c
	}
	c.Alt = lookup(it.AltByLocale, it.Alt, chain)
	c.Title = lookup(it.TitleByLocale, it.Title, chain)
	c.Description = lookup(it.DescriptionByLocale, it.Description, chain)
	return &c
}

// itemLocales calls f with each locale the item has any text in.
func itemLocales(it *Item, f func(string)) {
	for _, m := range []map[string]string{it.AltByLocale, it.TitleByLocale, it.DescriptionByLocale} {
		for l := range m {
			f(l)
		}
	}
}

// Locales lists, sorted, the locales that some item has an alt, title or
// description in.
func (l *Library) Locales() []string {
	var locales []string
	l.cat.read(func(x *index) { locales = slices.Sorted(maps.Keys(x.locales)) })
	return locales
}

// LocalText is a patch of one localized field: each locale's new value,
// "" or nil removing the locale's value.
type LocalText map[string]*string

// checkLocalText checks the locales and values of a patch of field and
// returns it keyed by canonical tags.
func checkLocalText(field string, p LocalText, max int) (LocalText, error) {
	if p == nil {
		return nil, nil
	}
	if len(p) > MaxLocales {
		return nil, errorf(ErrBadInput, "%s: more than %d locales", field, MaxLocales)
	}
	out := make(LocalText, len(p))
	for k, v := range p {
		c, err := CanonicalLocale(k)
		if err != nil {
			return nil, errorf(ErrBadInput, "%s: %s", field, err.Error())
		}
		if _, dup := out[c]; dup {
			return nil, errorf(ErrBadInput, "%s: locale %s given twice (as %q and another spelling)", field, c, k)
		}
		if v != nil {
			if err := checkText(field+"."+c, *v, max); err != nil {
				return nil, err
			}
		}
		out[c] = v
	}
	return out, nil
}

// applyLocalText applies p to m and returns the result (nil when empty).
func applyLocalText(m map[string]string, p LocalText) map[string]string {
	if p == nil {
		return m
	}
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range p {
		if v == nil || *v == "" {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// checkItemLocales checks the localized fields of an item read from a
// sidecar, a log entry or a checkpoint, and puts their tags in canonical
// form in place (a sidecar edited by hand may say "en-us"): a tag that is
// not BCP 47, two spellings of one tag, too many locales or an over-long
// value make the item invalid.
func checkItemLocales(it *Item) error {
	for _, f := range []struct {
		name string
		m    *map[string]string
		max  int
	}{{"altByLocale", &it.AltByLocale, MaxAltBytes}, {"titleByLocale", &it.TitleByLocale, MaxTitleBytes},
		{"descriptionByLocale", &it.DescriptionByLocale, MaxDescriptionBytes}} {
		m := *f.m
		if len(m) > MaxLocales {
			return fmt.Errorf("%s: more than %d locales", f.name, MaxLocales)
		}
		var fixed map[string]string
		for k, v := range m {
			c, err := CanonicalLocale(k)
			if err != nil {
				return fmt.Errorf("%s: %v", f.name, err)
			}
			if err := checkText(f.name+"."+c, v, f.max); err != nil {
				return err
			}
			if c != k {
				if fixed == nil {
					fixed = map[string]string{}
				}
				fixed[k] = c
			}
		}
		if fixed == nil {
			if len(m) == 0 {
				*f.m = nil
			}
			continue
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			if c, ok := fixed[k]; ok {
				k = c
			}
			if _, dup := out[k]; dup {
				return fmt.Errorf("%s: locale %s given twice", f.name, k)
			}
			out[k] = v
		}
		*f.m = out
	}
	return nil
}
