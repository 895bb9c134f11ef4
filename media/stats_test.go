package media_test

import (
	"context"
	"testing"
	"time"
)

// TestLibrary_StatsAndOnDerive: Stats counts the items and the bytes of
// their originals; OnDerive hears of each raster image.
func TestLibrary_StatsAndOnDerive(t *testing.T) {
	e := newEnv(t)
	var derived, failed int
	e.cfg.OnDerive = func(_ time.Duration, err error) {
		if err != nil {
			failed++
		} else {
			derived++
		}
	}
	l := e.open(t)
	if n, b := l.Stats(); n != 0 || b != 0 {
		t.Fatalf("empty library: %d items, %d bytes", n, b)
	}
	png := pngBytes(t, 500, 300)
	a := mustCreate(t, l, "a.png", png, "/")
	mustCreate(t, l, "b.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`), "/")
	n, b := l.Stats()
	if n != 2 || b < int64(len(png)) {
		t.Errorf("Stats = %d items, %d bytes; want 2 and at least %d", n, b, len(png))
	}
	if derived != 1 || failed != 0 {
		t.Errorf("OnDerive: %d ok, %d failed; want 1 ok (the PNG; SVG has no derivatives)", derived, failed)
	}
	if err := l.Delete(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Stats(); n != 1 {
		t.Errorf("after a delete: %d items", n)
	}
}
