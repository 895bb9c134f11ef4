package derive

// scaledSize is the size libjpeg decodes a w×h JPEG to at a scale of
// 1/denom: each side rounded up.
func scaledSize(w, h, denom int) (int, int) {
	return (w + denom - 1) / denom, (h + denom - 1) / denom
}

// jpegDenom is the largest JPEG shrink-on-load denominator (8, 4, 2 or 1)
// at which a region of rw×rh pixels of the stored image still has at
// least tw×th pixels: the resize after it only ever reduces.
func jpegDenom(rw, rh, tw, th int) int {
	for _, d := range []int{8, 4, 2} {
		if rw/d >= tw && rh/d >= th {
			return d
		}
	}
	return 1
}
