package content

// readItem builds an item from a file under content/<typ>/; rel is the
// path below the type folder. Every key that is not a known one goes into
// Data; a Markdown body becomes Data["body"] (over a front matter "body"),
// a Markdown value that encodes as its HTML.
func readItem(file File, typ, rel string, env readEnv) (*Item, error) {
	it := new(Item)
	if err := readItemTo(it, file, typ, rel, env); err != nil {
		return nil, err
	}
	return it, nil
}

// readItemTo is readItem into *it.
func readItemTo(it *Item, file File, typ, rel string, env readEnv) error {
	var fs fields
	if err := fs.init(file.Doc, commonKeySet); err != nil {
		return err
	}
	f := &fs
	c, err := readCommon(f, file, PathSlug(rel), "item\x00"+typ, env.rules)
	if err != nil {
		return err
	}
	data := f.rest()
	if file.Doc.HasBody {
		data["body"] = file.Doc.Body.inSiteAny(file)
	}
	// one map of the front matter, not two: the Doc keeps data and the
	// keys the item took (frontmatter.go)
	file.Doc.shareWith(data, file.Doc.HasBody)
	*it = Item{
		ID: c.id, Type: typ, Title: c.title, Slug: c.slug, Data: data,
		PublishedAt: c.published, UpdatedAt: c.updated, Meta: c.meta,
		Addressed: c.addressed(env, typ),
		refHint:   file.Doc.refHint,
	}
	return nil
}
