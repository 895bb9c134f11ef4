package media

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/folio-cms/folio/media/derive"
)

// DeriveGate takes a slot for one image decode and returns its release,
// or fails (wrapping ErrBusy when the queue is full, or with ctx's error).
type DeriveGate func(ctx context.Context) (release func(), err error)

// SetDeriveGate makes every decode of an image for its derivatives
// (upload, confirm, regenerate) wait for a slot of gate, and hold it until
// the derivatives are made: decoding is what costs memory (up to 8 bytes a
// pixel), so a server puts uploads in the same bounded queue as the
// variants it makes on request. nil removes the gate.
func (l *Library) SetDeriveGate(gate DeriveGate) {
	if gate == nil {
		l.gate.Store(nil)
		return
	}
	l.gate.Store(&gate)
}

// derive renders the WebP derivatives (no upscaling), the placeholder and
// the dominant color of a raster image into p. Decoding happens here, once,
// after process has checked the pixel limit on the header.
func (l *Library) derive(ctx context.Context, f *os.File, p *processed) error {
	if g := l.gate.Load(); g != nil {
		release, err := (*g)(ctx)
		if err != nil {
			if errors.Is(err, ErrBusy) {
				return errorf(ErrBusy, "too many images are being processed at once: nothing was stored, retry shortly")
			}
			return err
		}
		defer release()
	}
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
		return imageTooLarge(err)
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
