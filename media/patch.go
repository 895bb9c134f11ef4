package media

import (
	"context"
	"fmt"
	"math"
)

// Patch changes the metadata of an item; nil fields are left alone.
type Patch struct {
	Alt, Title, Description, Folder *string
	FocalX, FocalY                  *float64
	// AltByLocale, TitleByLocale and DescriptionByLocale change the values
	// of the locales they name (locale.go) and leave the others alone.
	AltByLocale, TitleByLocale, DescriptionByLocale LocalText
	// IfVersion, when not 0, must be the item's current Version (the HTTP
	// layer takes it from If-Match), else ErrConflict.
	IfVersion int
}

// Patch applies p to the item and rewrites its sidecar atomically. The
// writes of one item are serialised; Version grows by one.
func (l *Library) Patch(ctx context.Context, id string, p Patch) (*Item, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	p, err := p.checked()
	if err != nil {
		return nil, err
	}
	var folder string
	if p.Folder != nil {
		c, err := CleanFolder(*p.Folder)
		if err != nil {
			return nil, err
		}
		folder = c
	}
	if !ValidID(id) {
		return nil, errorf(ErrNotFound, "media item not found")
	}
	// Lock order everywhere: item, then folderMu, then mu.
	unlock := l.lockItem(id)
	defer unlock()
	if p.Folder != nil {
		// Held until the sidecar is written, so the folder cannot be
		// deleted between the check and the move.
		l.folderMu.RLock()
		defer l.folderMu.RUnlock()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.sh != nil {
		l.mu.RLock()
		folderOK := p.Folder == nil || l.folderExistsRLocked(folder)
		l.mu.RUnlock()
		if !folderOK {
			return nil, errorf(ErrFolderNotFound, "folder %s not found", folder)
		}
		return l.patchShared(ctx, id, p, func(next *Item) error { return p.apply(next, folder) })
	}
	l.mu.RLock()
	cur, ok := l.items[id]
	folderOK := p.Folder == nil || l.folderExistsRLocked(folder)
	l.mu.RUnlock()
	if !ok {
		return nil, errorf(ErrNotFound, "media item not found")
	}
	if p.IfVersion != 0 && p.IfVersion != cur.Version {
		return nil, errorf(ErrConflict, "media item was changed since version %d", p.IfVersion)
	}
	if !folderOK {
		return nil, errorf(ErrFolderNotFound, "folder %s not found", folder)
	}
	next := *cur
	if err := p.apply(&next, folder); err != nil {
		return nil, err
	}
	next.Version++
	data, err := encodeSidecar(&next)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(l.root, sidecarPath(next.Key), data); err != nil {
		return nil, fmt.Errorf("media: write sidecar: %w", err)
	}
	l.mu.Lock()
	l.removeLocked(cur)
	l.addLocked(&next)
	l.mu.Unlock()
	l.changed(&next, false)
	l.dropStaleVariants(ctx, cur, &next)
	return l.view(&next), nil
}

// apply sets the fields p changes; folder is p.Folder cleaned. It fails,
// leaving it half-changed, when a field would have more than MaxLocales
// locales.
func (p Patch) apply(it *Item, folder string) error {
	if p.Alt != nil {
		it.Alt = *p.Alt
	}
	if p.Title != nil {
		it.Title = *p.Title
	}
	if p.Description != nil {
		it.Description = *p.Description
	}
	it.AltByLocale = applyLocalText(it.AltByLocale, p.AltByLocale)
	it.TitleByLocale = applyLocalText(it.TitleByLocale, p.TitleByLocale)
	it.DescriptionByLocale = applyLocalText(it.DescriptionByLocale, p.DescriptionByLocale)
	for _, m := range []map[string]string{it.AltByLocale, it.TitleByLocale, it.DescriptionByLocale} {
		if len(m) > MaxLocales {
			return errorf(ErrBadInput, "an item's alt, title or description may have at most %d locales", MaxLocales)
		}
	}
	if p.Folder != nil {
		it.Folder = folder
	}
	if p.FocalX != nil {
		it.FocalX = *p.FocalX
	}
	if p.FocalY != nil {
		it.FocalY = *p.FocalY
	}
	return nil
}

// checked checks p and returns it with its locales in canonical form.
func (p Patch) checked() (Patch, error) {
	if err := p.check(); err != nil {
		return p, err
	}
	var err error
	if p.AltByLocale, err = checkLocalText("alt", p.AltByLocale, MaxAltBytes); err != nil {
		return p, err
	}
	if p.TitleByLocale, err = checkLocalText("title", p.TitleByLocale, MaxTitleBytes); err != nil {
		return p, err
	}
	if p.DescriptionByLocale, err = checkLocalText("description", p.DescriptionByLocale, MaxDescriptionBytes); err != nil {
		return p, err
	}
	return p, nil
}

func (p Patch) check() error {
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{{"alt", p.Alt, MaxAltBytes}, {"title", p.Title, MaxTitleBytes}, {"description", p.Description, MaxDescriptionBytes}} {
		if f.v != nil {
			if err := checkText(f.name, *f.v, f.max); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"focalX", p.FocalX}, {"focalY", p.FocalY}} {
		if f.v != nil && (math.IsNaN(*f.v) || *f.v < 0 || *f.v > 100) {
			return errorf(ErrBadInput, "%s must be between 0 and 100", f.name)
		}
	}
	if p.IfVersion < 0 {
		return errorf(ErrBadInput, "invalid version")
	}
	return nil
}

// Delete removes an item: the sidecar first (the commit point: from then
// on the item is gone, and a crash can leave only orphan objects, which
// the intent makes Open delete), then the original and its derivatives.
func (l *Library) Delete(ctx context.Context, id string) error {
	if l.cfg.ReadOnly {
		return errReadOnly
	}
	if !ValidID(id) {
		return errorf(ErrNotFound, "media item not found")
	}
	unlock := l.lockItem(id)
	defer unlock()
	if l.sh != nil {
		return l.deleteShared(ctx, id)
	}
	l.mu.RLock()
	it, ok := l.items[id]
	l.mu.RUnlock()
	if !ok {
		return errorf(ErrNotFound, "media item not found")
	}
	iname, err := l.writeIntent(intent{Key: it.Key, Keys: itemKeys(it)})
	if err != nil {
		return err
	}
	if err := removeDurable(l.root, sidecarPath(it.Key)); err != nil {
		l.dropIntent(iname)
		return fmt.Errorf("media: remove sidecar: %w", err)
	}
	l.mu.Lock()
	l.removeLocked(it)
	delete(l.locks, id)
	l.mu.Unlock()
	l.changed(it, true)

	// The item is gone; failing to delete a file now only leaves an
	// orphan, which the intent hands to the next Open.
	clean := context.WithoutCancel(ctx)
	ok = true
	for _, k := range itemKeys(it) {
		if err := l.cfg.Storage.Delete(clean, k); err != nil {
			l.log.Error("media: object of a deleted item not removed; next start retries", "key", k, "err", err)
			ok = false
		}
	}
	l.deleteVariants(clean, it)
	if ok {
		l.dropIntent(iname)
	}
	return nil
}
