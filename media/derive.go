package media

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/folio-cms/folio/media/derive"
)

// derive renders the WebP derivatives (no upscaling), the placeholder and
// the dominant color of a raster image into p. Decoding happens here, once,
// after process has checked the pixel limit on the header.
func (l *Library) derive(ctx context.Context, f *os.File, p *processed) error {
	start := time.Now()
	res, err := derive.Images(ctx, f, p.mime, DerivativeWidths[:], derive.Limits{
		MaxPixels: l.cfg.MaxPixels,
		MaxBytes:  l.cfg.MaxUploadBytes,
	})
	if l.cfg.OnDerive != nil {
		l.cfg.OnDerive(time.Since(start), err)
	}
	switch {
	case err == nil:
	case errors.Is(err, derive.ErrTooLarge):
		return errorf(ErrTooLarge, "image has too many pixels")
	case errors.Is(err, derive.ErrDecode):
		return errorf(ErrBadInput, "image is damaged and cannot be decoded")
	default:
		return err
	}
	for _, d := range res.Derivatives {
		p.derivs = append(p.derivs, derivative{width: d.Width, height: d.Height, data: d.Data})
	}
	p.placeholder, p.dominantColor = res.Placeholder, res.DominantColor
	if res.Width > 0 && res.Height > 0 {
		p.width, p.height = res.Width, res.Height
	}
	return nil
}
