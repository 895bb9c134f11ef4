package server

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/folio-cms/folio/engine"
	"github.com/julienschmidt/httprouter"
)

// localize narrows v to the locale the request asks for: ?locale=<code>,
// else the site's default locale, with the fallback chain unless
// fallback=false (see engine.View.InLocale). A site without locales is
// served as it is, unless ?locale= is given (a 400, as is an unknown
// locale: the message lists the known ones).
func (s *contentHandlers) localize(w http.ResponseWriter, q url.Values, v *engine.View) (*engine.View, error) {
	code, asked := "", false
	if vals, ok := q["locale"]; ok {
		code, asked = vals[0], true
	}
	i18n := v.I18n()
	if i18n == nil && !asked {
		return v, nil
	}
	if !asked {
		code = i18n.Default
	}
	fallback := true
	if _, ok := q["fallback"]; ok {
		fb, err := parseBool(q, "fallback")
		if err != nil {
			return nil, err
		}
		fallback = fb
	}
	lv, err := v.InLocale(code, fallback, s.now())
	if err != nil {
		var le *engine.LocaleError
		if errors.As(err, &le) {
			return nil, badRequest("%s", le.Error())
		}
		return nil, err
	}
	w.Header().Set("Content-Language", code)
	return lv, nil
}

// localeInfo is one entry of GET /api/v1/locales.
type localeInfo struct {
	Code      string   `json:"code"`
	Name      string   `json:"name"`
	Default   bool     `json:"default"`
	Fallback  []string `json:"fallback"`
	Documents int      `json:"documents"` // published pages and items in the locale itself
}

type localeList struct {
	Items   []localeInfo `json:"items"`
	Default string       `json:"default,omitempty"`
	Layout  string       `json:"layout,omitempty"`
	Total   int          `json:"total"`
}

// listLocales serves GET /api/v1/locales: the site's locales, in order
// (none for a site without).
func (s *contentHandlers) listLocales(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	v, cc, err := s.baseView(w, r)
	if err != nil {
		return err
	}
	out := localeList{Items: []localeInfo{}}
	if c := v.I18n(); c != nil {
		counts := v.LocaleCounts(s.now())
		for _, l := range c.Locales {
			out.Items = append(out.Items, localeInfo{Code: l.Code, Name: l.Name, Default: l.Code == c.Default, Fallback: l.Fallback, Documents: counts[l.Code]})
		}
		out.Default, out.Layout = c.Default, c.Layout
	}
	out.Total = len(out.Items)
	return serveJSON(w, r, out, cc, keyHdr{})
}

// pagesKeys are the surrogate keys of the view's page list.
func pagesKeys(v *engine.View) keyHdr {
	if v.Locale() == "" {
		return hdrKeyPages
	}
	return keysOf(v.PagesKeys())
}
