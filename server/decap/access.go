package decap

import (
	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/write"
)

// mayEdit asks the caller's role (a signed-in person's; keys have none)
// whether the document at repository path p may be written.
func (s *Service) mayEdit(who Caller, p string) error {
	if who.MayEdit == nil || p == "" {
		return nil
	}
	d, _ := s.docOfFile(p)
	coll := d.Type
	switch d.Kind {
	case write.KindPage:
		coll = "pages"
	case write.KindGlobals:
		coll = "globals"
	}
	loc := ""
	if snap := s.Engine.Published(); snap != nil && snap.Site != nil && snap.Site.I18n != nil {
		c := snap.Site.I18n
		loc = c.Default
		if l, ok := content.GlobalsLocale(p); ok && l != "" {
			loc = l
		} else if l, _, ok := c.Classify(p); ok && l != "" {
			loc = l
		}
	}
	return who.MayEdit(coll, loc)
}
