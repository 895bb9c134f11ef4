package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/folio-cms/folio/media/derive"
	"github.com/folio-cms/folio/media/internal/ctxio"
)

// Variants are the crops and sizes of an image made on request
// (/uploads/<key>?w=…). Each is stored beside the derivatives, under
// "<key>-variants/<hash><ext>" ("2026/11/photo.jpg-variants/3f…a1.webp"):
// no upload can take that name (it has no accepted extension), the local
// sweep leaves the folder alone, and a delete removes it whole.
//
// The hash covers the spec and everything else the pixels depend on: the
// item's id and key, its focal point and its derivatives' key (which
// regenerate renumbers). A focal-point change or a regenerate thus moves
// every variant to a new key; the old ones stay in the folder, unreachable,
// until the item is deleted.

// PrefixDeleter is implemented by storages that can delete every object
// under a key prefix (a folder). Variants need it: they are not listed in
// the item.
type PrefixDeleter interface {
	// DeletePrefix deletes every object whose key begins with prefix,
	// which ends in "/"; none is not an error.
	DeletePrefix(ctx context.Context, prefix string) error
}

// variantsPrefix is the folder of the variants of the original at key.
func variantsPrefix(key string) string { return key + "-variants/" }

// itemVersion is a short hash of what an item's variants depend on beyond
// their spec (see above).
func itemVersion(it *Item) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", it.ID, it.Key,
		strconv.FormatFloat(it.FocalX, 'g', -1, 64), strconv.FormatFloat(it.FocalY, 'g', -1, 64))
	if len(it.Sizes) > 0 {
		h.Write([]byte(it.Sizes[0].Key))
	}
	return hex.EncodeToString(h.Sum(nil)[:5])
}

// variantHash names the variant spec of it, as it is now: its pixels
// depend on the item (itemVersion) and on the spec alone.
func variantHash(it *Item, spec derive.Spec) []byte { return specHash(itemVersion(it), spec) }

// specHash is variantHash of the item whose itemVersion is iv.
func specHash(iv string, spec derive.Spec) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%s\x00%d", iv, spec.W, spec.H, spec.Fit, spec.Format, spec.Quality)
	return h.Sum(nil)
}

// VariantVersion is the v= of the URLs of the variant spec of it: a short
// hash of the item's pixels and of the spec, so that a URL changes when
// its variant would (a new focal point, a regenerate, or a preset of
// folio.yaml given another size under the same name) and can be cached
// for good.
func VariantVersion(it *Item, spec derive.Spec) string {
	return hex.EncodeToString(variantHash(it, spec)[:5])
}

// VariantVersions is VariantVersion of it for each of specs, the item
// hashed once (a media list names every preset of every item).
func VariantVersions(it *Item, specs []derive.Spec) []string {
	iv := itemVersion(it)
	out := make([]string, len(specs))
	for i, spec := range specs {
		out[i] = hex.EncodeToString(specHash(iv, spec)[:5])
	}
	return out
}

// VariantKey is the storage key of the variant spec of it, as it is now.
func VariantKey(it *Item, spec derive.Spec) string {
	return variantsPrefix(it.Key) + hex.EncodeToString(variantHash(it, spec)[:12]) + derive.Ext(spec.Format)
}

// dropStaleVariants removes the variants of cur once a write replaced it
// with next, when next's pixels differ (a new focal point, or new
// derivatives): every variant key hashes itemVersion, so none of them
// can be asked for again. A variant still being made of cur when this
// runs may be stored after it, unreachable, until the item is deleted.
func (l *Library) dropStaleVariants(ctx context.Context, cur, next *Item) {
	if itemVersion(cur) != itemVersion(next) {
		l.deleteVariants(context.WithoutCancel(ctx), cur)
	}
}

// deleteVariants removes every variant of an item; a failure only leaves
// unreachable files (a new item never has the same variant keys: the id
// is hashed in).
func (l *Library) deleteVariants(ctx context.Context, it *Item) {
	pd, ok := l.cfg.Storage.(PrefixDeleter)
	if !ok || !raster(it.MimeType) {
		return
	}
	if err := pd.DeletePrefix(ctx, variantsPrefix(it.Key)); err != nil {
		l.log.Error("media: variants not removed", "key", it.Key, "err", err)
	}
}

// Raster reports whether the item is an image variants can be made of
// (JPEG, PNG, GIF, WebP; not SVG).
func Raster(it *Item) bool { return raster(it.MimeType) }

// MaxPixels is the pixel limit of uploads, which variants share.
func (l *Library) MaxPixels() int { return l.cfg.MaxPixels }

// StoredVariant reads a variant made before; ErrNotExist when there is
// none.
func (l *Library) StoredVariant(ctx context.Context, key string) ([]byte, error) {
	rc, err := l.cfg.Storage.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := copyLimited(&b, ctxio.Reader(ctx, rc), maxVariantBytes); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxVariantBytes bounds what StoredVariant reads: a 4096×4096 PNG of
// noise is about 64 MiB.
const maxVariantBytes = 80 << 20

// MakeVariant renders spec from the original of it (never from a
// derivative), with the pixel and byte limits of uploads, and stores it
// under key (unless the library is read-only: then it is only returned).
// Errors are the library's: ErrTooLarge, ErrBadInput, ErrUnavailable.
func (l *Library) MakeVariant(ctx context.Context, it *Item, spec derive.Spec, key string) ([]byte, error) {
	if !raster(it.MimeType) {
		return nil, errorf(ErrBadInput, "variants are made of raster images only (JPEG, PNG, GIF, WebP)")
	}
	rc, err := l.cfg.Storage.Open(ctx, it.Key)
	if err != nil {
		return nil, storageError(err)
	}
	defer rc.Close()
	src, ok := rc.(io.ReadSeeker)
	if !ok {
		// Cloud storage: into a temporary file, never into memory.
		f, err := os.CreateTemp("", "folio-variant-*")
		if err != nil {
			return nil, fmt.Errorf("media: temp file: %w", err)
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		if _, err := copyLimited(f, ctxio.Reader(ctx, rc), l.cfg.MaxUploadBytes); err != nil {
			return nil, storageError(err)
		}
		src = f
	}
	data, err := derive.Variant(ctx, src, it.MimeType, spec, it.FocalX, it.FocalY, derive.Limits{
		MaxPixels: l.cfg.MaxPixels,
		MaxBytes:  l.cfg.MaxUploadBytes,
	})
	switch {
	case err == nil:
	case errors.Is(err, derive.ErrTooLarge):
		return nil, imageTooLarge(err)
	case errors.Is(err, derive.ErrDecode):
		return nil, errorf(ErrBadInput, "image is damaged and cannot be decoded")
	case errors.Is(err, derive.ErrUnsupported):
		return nil, errorf(ErrBadInput, "variants are made of raster images only (JPEG, PNG, GIF, WebP)")
	default:
		return nil, err
	}
	if l.cfg.ReadOnly {
		return data, nil
	}
	if err := l.cfg.Storage.Put(ctx, key, bytes.NewReader(data), int64(len(data)), derive.ContentType(spec.Format)); err != nil {
		// Served anyway; the next request makes it again.
		l.log.Warn("media: variant not stored", "key", key, "err", err)
	}
	return data, nil
}
