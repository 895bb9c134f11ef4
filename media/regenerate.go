package media

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/media/internal/ctxio"
)

// Regenerate renders the WebP derivatives, the placeholder and the dominant
// color of an image item again from its original (after a change of the
// widths or the encoder's quality), and returns the item as changed.
// Items that are not raster images have nothing to render and are
// returned as they are.
//
// A stored file never changes under its name (/uploads/ and CDNs cache
// them as immutable), so the new derivatives get new keys: they are put
// first, the sidecar is switched to them (the commit point, with Version
// grown by one, as Patch commits), and only then are the old ones
// deleted. A crash before the commit leaves the new files unclaimed, one
// after it the old ones, each set claimed; either way the claim sweep
// (at the next start of the only writer, or after claimStale in a shared
// bucket) removes them, and the sidecar never names a missing file.
func (l *Library) Regenerate(ctx context.Context, id string) (*Item, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	if !ValidID(id) {
		return nil, errorf(ErrNotFound, "media item not found")
	}
	cur, ok := l.Get(id)
	if !ok {
		return nil, errorf(ErrNotFound, "media item not found")
	}
	if !raster(cur.MimeType) {
		return cur, nil
	}
	p, err := l.processStored(ctx, cur)
	if err != nil {
		return nil, err
	}
	from := max(cur.Version+1, derivativeNumber(cur)+1)
	dkeys := l.reserveDerivatives(cur.Key, p, from)
	defer func() { l.release("", dkeys) }()
	if dkeys, err = l.claimDerivatives(ctx, id, cur.Key, p, dkeys, from); err != nil {
		return nil, err
	}
	return l.regenerateShared(ctx, id, p, dkeys)
}

// processStored copies the original of it from storage into a temporary
// file (never into memory) and processes it as Create does.
func (l *Library) processStored(ctx context.Context, it *Item) (*processed, error) {
	f, err := os.CreateTemp(filepath.Join(l.cfg.Root, tmpDir), "regenerate-*")
	if err != nil {
		return nil, fmt.Errorf("media: temp file: %w", err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	rc, err := l.cfg.Storage.Open(ctx, it.Key)
	if err != nil {
		return nil, storageError(err)
	}
	size, err := copyLimited(f, ctxio.Reader(ctx, rc), l.cfg.MaxUploadBytes)
	rc.Close()
	if err != nil {
		return nil, err
	}
	return l.process(ctx, f, size, it.MimeType)
}

// derivativeNumber is the n of the current derivatives of it, named
// "<stem>-<n>-<w>.webp" (0 for "<stem>-<w>.webp"), so that new ones are
// numbered past it and a name this item used before is never used again.
func derivativeNumber(it *Item) int {
	if len(it.Sizes) == 0 {
		return 0
	}
	stem := strings.TrimSuffix(it.Key, path.Ext(it.Key)) + "-"
	rest, ok := strings.CutPrefix(it.Sizes[0].Key, stem)
	if !ok {
		return 0
	}
	rest = strings.TrimSuffix(rest, "-"+strconv.Itoa(it.Sizes[0].Width)+".webp")
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// putDerivatives stores the derivatives of p under dkeys and returns their
// sizes and the keys it put (on failure too, so they can be deleted).
func (l *Library) putDerivatives(ctx context.Context, p *processed, dkeys []string) ([]Size, []string, error) {
	var sizes []Size
	var put []string
	for i, d := range p.derivs {
		if err := ctx.Err(); err != nil {
			return nil, put, err
		}
		put = append(put, dkeys[i])
		if err := l.cfg.Storage.Put(ctx, dkeys[i], bytesReader(d.data), int64(len(d.data)), "image/webp"); err != nil {
			return nil, put, storageError(err)
		}
		sizes = append(sizes, Size{Width: d.width, Height: d.height, Key: dkeys[i]})
	}
	return sizes, put, nil
}

// deleteObjects deletes keys, best effort, and returns the ones deleted.
func (l *Library) deleteObjects(ctx context.Context, keys []string, why string) []string {
	ctx = context.WithoutCancel(ctx)
	var done []string
	for _, k := range keys {
		if err := l.cfg.Storage.Delete(ctx, k); err != nil {
			l.log.Error("media: "+why+" not removed", "key", k, "err", err)
			continue
		}
		done = append(done, k)
	}
	return done
}

// regenerated is cur with the derivatives, placeholder and color of p.
func regenerated(cur *Item, p *processed, sizes []Size) *Item {
	next := *cur
	next.Sizes = sizes
	next.Placeholder, next.DominantColor = p.placeholder, p.dominantColor
	next.Width, next.Height = p.width, p.height
	next.Version++
	return &next
}

func sizeKeys(it *Item) []string {
	var keys []string
	for _, s := range it.Sizes {
		keys = append(keys, s.Key)
	}
	return keys
}

// regenerateShared commits the new derivatives of an item with a
// compare-and-swap on its sidecar in the state, as patchShared does, so
// that a concurrent change on another box is kept.
// The new keys are claimed (for id) already.
func (l *Library) regenerateShared(ctx context.Context, id string, p *processed, dkeys []string) (*Item, error) {
	unlock := l.lockItem(id)
	defer unlock()
	undo := func(put []string) {
		done := l.deleteObjects(ctx, put, "derivative of a failed regeneration")
		// A claim whose object could not be deleted stays for the sweep.
		var release []string
		for _, k := range dkeys {
			if !slices.Contains(put, k) || slices.Contains(done, k) {
				release = append(release, k)
			}
		}
		l.sync.releaseClaims(ctx, release)
	}
	sizes, put, err := l.putDerivatives(ctx, p, dkeys)
	if err != nil {
		undo(put)
		return nil, err
	}
	next, cur, maybeWritten, err := l.sync.swapSidecar(ctx, id, func(cur *Item) (*Item, error) {
		return regenerated(cur, p, sizes), nil
	})
	if err != nil {
		if !maybeWritten {
			undo(put)
		}
		// Otherwise the swap may have happened: keep the new files and
		// their claims; whichever set the sidecar does not name, the
		// claim sweep removes.
		return nil, err
	}
	old := sizeKeys(cur)
	l.sync.releaseClaims(ctx, l.deleteObjects(ctx, old, "old derivative of a regenerated item; the claim sweep retries"))
	l.dropStaleVariants(ctx, cur, next)
	return l.view(next), nil
}
