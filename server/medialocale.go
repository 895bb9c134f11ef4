package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
)

// Media text per locale (docs/media.md "Locales"): the alt, title and
// description of an item may be given per locale; `?locale=` picks them,
// with fallback, on the media routes and in expanded content.

// contentLocales are the site's locales and its default locale, as the
// content side configures them (folio.yaml `locales:` and
// `defaultLocale:`, or the site's Hugo or Decap configuration); none for a
// site without locales, where any BCP 47 tag is accepted. This is the one
// place the media side learns them.
func contentLocales(eng *engine.Engine) (locales []string, def string) {
	if eng == nil {
		return nil, ""
	}
	c := eng.View(false).I18n()
	if c == nil {
		return nil, ""
	}
	for _, l := range c.Locales {
		locales = append(locales, l.Code)
	}
	return locales, c.Default
}

// locales is the list of locales the admin UI offers: the site's, else
// those the media library has text in.
func (s *mediaHandlers) locales() []string {
	if locales, _ := contentLocales(s.engine); len(locales) > 0 {
		return locales
	}
	if s.media == nil {
		return []string{}
	}
	return s.media.Locales()
}

// mediaChain is the fallback chain of the media text for locale ("" for
// none): on a site with locales, the locale and the fallback chain the
// site configures for it (as content falls back); otherwise the locale,
// its less specific forms, then the default.
func mediaChain(eng *engine.Engine, locale string) []string {
	if eng != nil {
		if l, ok := eng.View(false).I18n().Locale(locale); ok {
			return append([]string{l.Code}, l.Fallback...)
		}
	}
	_, def := contentLocales(eng)
	return media.FallbackChain(locale, def)
}

// contentLocale is the locale of the content view v serves (`?locale=`,
// else the default; "" on a site without locales, which expands the
// unlocalized alt), whose expanded media carry that locale's alt text.
func (s *contentHandlers) contentLocale(v *engine.View) string {
	return v.Locale()
}

// withMediaLocale reads the `locale` parameter of a media route into pv:
// "" when absent, else its canonical form; a tag that is not BCP 47 is 400.
func (s *mediaHandlers) withMediaLocale(pv presetViews, r *http.Request) (presetViews, error) {
	l := query(r).Get("locale")
	if l == "" {
		return pv, nil
	}
	c, err := media.CanonicalLocale(l)
	if err != nil {
		return pv, err
	}
	// A site with locales knows them all, as its content routes do.
	if known, _ := contentLocales(s.engine); len(known) > 0 && !slices.Contains(known, c) {
		return pv, badRequest("unknown locale %q: the site's locales are %s", c, strings.Join(known, ", "))
	}
	pv.locale, pv.chain = c, mediaChain(s.engine, c)
	return pv, nil
}

// localized is it with the text of pv's locale.
func (pv presetViews) localized(it *media.Item) *media.Item {
	if len(pv.chain) == 0 {
		return it
	}
	return media.Localized(it, pv.chain)
}

// localText is alt, title or description in a PATCH body: a string (the
// unlocalized value) or an object of locale → string ("" or null removes
// that locale's value). null is the field left out.
type localText struct {
	plain    *string
	byLocale media.LocalText
}

func (t *localText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t.plain = &s
		return nil
	case len(b) > 0 && b[0] == '{':
		var m map[string]*string
		if err := json.Unmarshal(b, &m); err != nil {
			return errors.New("alt, title and description take a string or an object of locale to string")
		}
		t.byLocale = m
		if t.byLocale == nil {
			t.byLocale = media.LocalText{}
		}
		return nil
	}
	return errors.New("alt, title and description take a string or an object of locale to string")
}
