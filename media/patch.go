package media

import (
	"context"
	"errors"
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

// Patch applies p to the item and swaps its sidecar in the state
// (patchShared). The writes of one item are serialised; Version grows by
// one.
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
	// Lock order everywhere: item, then folderMu, then the catalog's (see
	// Library).
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
	if p.Folder != nil && !l.folderExists(folder) {
		return nil, errorf(ErrFolderNotFound, "folder %s not found", folder)
	}
	return l.patchShared(ctx, id, p, func(next *Item) error { return p.apply(next, folder) })
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
// on the item is gone, and a crash can leave only claimed objects, which
// the sweep deletes), then the original and its derivatives with their
// claims (deleteShared).
func (l *Library) Delete(ctx context.Context, id string) error {
	if l.cfg.ReadOnly {
		return errReadOnly
	}
	if !ValidID(id) {
		return errorf(ErrNotFound, "media item not found")
	}
	unlock := l.lockItem(id)
	defer unlock()
	return l.deleteShared(ctx, id)
}

// patchShared applies p to the sidecar in the bucket with a compare-and-
// swap, reading it afresh: a PATCH with IfVersion fails with ErrConflict
// when another box changed the item first; one without retries on the
// newer version.
func (l *Library) patchShared(ctx context.Context, id string, p Patch, edit func(*Item) error) (*Item, error) {
	next, cur, _, err := l.sync.swapSidecar(ctx, id, func(cur *Item) (*Item, error) {
		if p.IfVersion != 0 && p.IfVersion != cur.Version {
			return nil, errorf(ErrConflict, "media item was changed since version %d", p.IfVersion)
		}
		next := *cur
		if err := edit(&next); err != nil {
			return nil, err
		}
		next.Version++
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	l.dropStaleVariants(ctx, cur, next)
	return l.view(next), nil
}

// deleteShared removes the sidecar in the bucket (the commit point), logs
// the delete, then removes the files and their claims.
func (l *Library) deleteShared(ctx context.Context, id string) error {
	data, _, err := l.sync.st.Get(ctx, itemStateKey(id))
	if errors.Is(err, ErrNotExist) {
		l.sync.apply(&logEntry{Op: opDelete, Item: &Item{ID: id}, At: l.now().UTC()})
		return errorf(ErrNotFound, "media item not found")
	}
	if err != nil {
		return storageError(err)
	}
	it, err := decodeSharedSidecar(id, data)
	if err != nil {
		return fmt.Errorf("media: sidecar of %s: %w", id, err)
	}
	if err := l.sync.st.Delete(ctx, itemStateKey(id)); err != nil {
		return fmt.Errorf("media: remove sidecar: %w", storageError(err))
	}
	e := logEntry{Op: opDelete, Item: it, At: l.now().UTC()}
	l.sync.apply(&e)
	l.sync.appendLog(ctx, e)
	clean := context.WithoutCancel(ctx)
	l.sync.releaseClaims(clean, l.deleteObjects(clean, itemKeys(it), "object of a deleted item (its claim is kept)"))
	l.deleteVariants(clean, it)
	return nil
}
