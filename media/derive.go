package media

import (
	"context"
	"os"
)

// derive renders the WebP derivatives of a raster image into p.
// TODO: wire media/derive when it lands.
func (l *Library) derive(ctx context.Context, f *os.File, p *processed) error {
	return nil
}
