package gitsource

import (
	"errors"
	"fmt"
)

// A pack's deltas (gitformat-pack(5), "Deltified representation"): the
// base's size and the result's, then instructions that copy a range of
// the base or insert bytes of their own.

// deltaSizes reads the base's and the result's sizes at the start of a
// delta, and where its instructions start.
func deltaSizes(d []byte) (base, target int64, n int, err error) {
	base, n1 := deltaVarint(d)
	if n1 == 0 {
		return 0, 0, 0, errors.New("delta header truncated")
	}
	target, n2 := deltaVarint(d[n1:])
	if n2 == 0 {
		return 0, 0, 0, errors.New("delta header truncated")
	}
	return base, target, n1 + n2, nil
}

// deltaVarint is the size encoding of gitformat-pack(5): seven bits a
// byte, least significant first; n is 0 when it is truncated or over
// 62 bits.
func deltaVarint(d []byte) (v int64, n int) {
	for shift := 0; n < len(d); shift += 7 {
		if shift > 56 {
			return 0, 0
		}
		b := d[n]
		n++
		v |= int64(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, n
		}
	}
	return 0, 0
}

// applyDelta makes the object delta describes from base.
func applyDelta(base, d []byte) ([]byte, error) {
	srcSize, target, i, err := deltaSizes(d)
	if err != nil {
		return nil, err
	}
	if srcSize != int64(len(base)) {
		return nil, fmt.Errorf("delta is of a %d-byte base, not %d", srcSize, len(base))
	}
	if target > maxObjectSize {
		return nil, fmt.Errorf("delta claims %d bytes", target)
	}
	// Room for what the delta can make without repeating its base:
	// its claimed size is not believed before its instructions make it
	// (a few bytes may claim maxObjectSize).
	out := make([]byte, 0, min(target, int64(len(base))+int64(len(d))))
	for i < len(d) {
		cmd := d[i]
		i++
		switch {
		case cmd&0x80 != 0: // copy from the base
			var off, size uint64
			for k := range 4 {
				if cmd&(1<<k) != 0 {
					if i >= len(d) {
						return nil, errors.New("delta copy truncated")
					}
					off |= uint64(d[i]) << (8 * k)
					i++
				}
			}
			for k := range 3 {
				if cmd&(0x10<<k) != 0 {
					if i >= len(d) {
						return nil, errors.New("delta copy truncated")
					}
					size |= uint64(d[i]) << (8 * k)
					i++
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > uint64(target) {
				return nil, errors.New("delta copy out of bounds")
			}
			out = append(out, base[off:off+size]...)
		case cmd != 0: // insert
			n := int(cmd)
			if i+n > len(d) || int64(len(out)+n) > target {
				return nil, errors.New("delta insert out of bounds")
			}
			out = append(out, d[i:i+n]...)
			i += n
		default:
			return nil, errors.New("delta instruction 0 is reserved")
		}
	}
	if int64(len(out)) != target {
		return nil, fmt.Errorf("delta made %d bytes, not %d", len(out), target)
	}
	return out, nil
}
