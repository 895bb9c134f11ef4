package repr

// CRC-32 (IEEE) of a concatenation from the CRCs of its pieces, as zlib's
// crc32_combine: the CRC of a‖b is crc(a) multiplied by x^(8·len(b))
// modulo the polynomial, plus crc(b). A list's gzip trailer is built
// this way from its items' kept CRCs, without reading their bodies again
// on every request (issue 34: 170 KB of CRC per 20-item list).

// crcPoly is the reversed IEEE polynomial (hash/crc32.IEEE).
const crcPoly = 0xedb88320

// crcX2n[k] is x^(2^k) modulo the polynomial, in the reflected form.
var crcX2n = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = crcMul(p, p)
		t[k] = p
	}
	return t
}()

// crcMul is a(x)·b(x) modulo the polynomial (reflected: bit 31 is x^0).
func crcMul(a, b uint32) uint32 {
	m := uint32(1) << 31
	var p uint32
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ crcPoly
		} else {
			b >>= 1
		}
	}
}

// crcShift is x^(8·n) modulo the polynomial: multiplying a CRC by it
// (crcMul) moves the CRC past n bytes of zeros.
func crcShift(n int) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; k++ {
		if n&1 != 0 {
			p = crcMul(crcX2n[k&31], p)
		}
		n >>= 1
	}
	return p
}

// crcCombine is the CRC-32 of a‖b from crc1 = CRC(a), crc2 = CRC(b) and
// shift2 = crcShift(len(b)).
func crcCombine(crc1, crc2, shift2 uint32) uint32 {
	return crcMul(shift2, crc1) ^ crc2
}
