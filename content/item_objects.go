package content

import "unsafe"

// A restart reads every item of the site (a million at a million
// files) and keeps them: the collector marks each of their objects in
// every collection of the start. An item read is made of fewer objects
// than its parts: the unit and its Item one object, its Data's body and
// that body's settings one object, and
// the front matter its Doc keeps beside the Data with the keys it holds
// (shareWith).

// eface is the layout of an `any`: its type, and a pointer to its value
// for a type that is not pointer-shaped.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// markdownType is Markdown's type as an `any` holds it.
var markdownType = func() unsafe.Pointer {
	var a any = Markdown{}
	return (*eface)(unsafe.Pointer(&a)).typ
}()

// markdownAt is *p in an `any` whose box is *p itself, not a copy: the
// caller makes *p in an object of its own, with what it belongs to, and
// never writes it after.
func markdownAt(p *Markdown) any {
	var a any
	*(*eface)(unsafe.Pointer(&a)) = eface{typ: markdownType, data: unsafe.Pointer(p)}
	return a
}

// itemUnit is a unit of an item and the item, made as one object.
type itemUnit struct {
	u  unit
	it Item
}

// bodyInSite is an item's body in its Data, and the settings it renders
// with (Markdown.inSite), made as one object.
type bodyInSite struct {
	m   Markdown
	env bodyEnv
}

// inSiteAny is any(m.inSite(file)), the box and the body's settings made
// as one object.
func (m Markdown) inSiteAny(file File) any {
	if m.b == nil || (file.markup == nil && file.links == nil && !file.Doc.HasMeta()) {
		return m
	}
	b := &bodyInSite{m: m}
	b.env = bodyEnv{markup: file.markup, doc: file.Doc, links: file.links, self: file.RealPath()}
	b.m.env = &b.env
	return markdownAt(&b.m)
}

// newSharedFrontMatter is a frontMatter and an empty list of capacity n
// for its out (which the caller appends to, then sets), made as one
// object with its array when n is small: 96 bytes for the usual two
// keys an item took (title, date).
func newSharedFrontMatter(n int) (*frontMatter, []MetaField) {
	switch {
	case n == 0:
		return &frontMatter{}, nil
	case n == 1:
		p := &struct {
			f frontMatter
			a [1]MetaField
		}{}
		return &p.f, p.a[:0:1]
	case n == 2:
		p := &struct {
			f frontMatter
			a [2]MetaField
		}{}
		return &p.f, p.a[:0:2]
	case n == 3:
		p := &struct {
			f frontMatter
			a [3]MetaField
		}{}
		return &p.f, p.a[:0:3]
	case n == 4:
		p := &struct {
			f frontMatter
			a [4]MetaField
		}{}
		return &p.f, p.a[:0:4]
	}
	return &frontMatter{}, make([]MetaField, 0, n)
}
