package repr

import (
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
)

// TestCRCCombine: the CRC of a‖b from the CRCs of a and b equals the CRC
// of the concatenation, for lengths across the bits of crcShift's loop.
func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 8, 9, 255, 256, 4095, 8610, 65535, 65536, 1<<20 + 3} {
		for _, m := range []int{0, 1, 100, 8000} {
			a, b := make([]byte, m), make([]byte, n)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			want := crc32.ChecksumIEEE(append(append([]byte{}, a...), b...))
			if got := crcCombine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), crcShift(n)); got != want {
				t.Fatalf("len(a) %d, len(b) %d: combined %08x, want %08x", m, n, got, want)
			}
		}
	}
}

// TestFragmentCRC: a list's CRC made from its items' kept CRCs
// (Fragment.AppendCRC, as the gzip list does) is the CRC of the bytes it
// stands for, so the joined gzip list is byte for byte the one made by
// reading every body.
func TestFragmentCRC(t *testing.T) {
	var items []*engine.Resource
	for i := range 20 {
		items = append(items, engine.NewResource(map[string]any{"n": i, "text": strings.Repeat("word ", 100*i+1)}))
	}
	head, comma, tail := []byte(`{"items":[`), []byte(","), []byte(`],"total":20}`)
	var want []byte
	crc := crc32.ChecksumIEEE(head)
	want = append(want, head...)
	size := len(head)
	for i, it := range items {
		if i > 0 {
			crc = crc32.Update(crc, crc32.IEEETable, comma)
			want = append(want, comma...)
			size++
		}
		f, err := DeflatedFragment(it)
		if err != nil {
			t.Fatal(err)
		}
		body, _, _ := it.Body()
		d, _ := DeflatedFragment(it)
		if f.Size != len(body) || &f.Deflated[0] != &d.Deflated[0] {
			t.Fatalf("item %d: fragment of %d bytes for a %d-byte body, or not the kept one", i, f.Size, len(body))
		}
		crc = f.AppendCRC(crc)
		want = append(want, body...)
		size += f.Size
	}
	crc = crc32.Update(crc, crc32.IEEETable, tail)
	want = append(want, tail...)
	size += len(tail)
	if crc != crc32.ChecksumIEEE(want) || size != len(want) {
		t.Fatalf("CRC %08x and size %d, want %08x and %d", crc, size, crc32.ChecksumIEEE(want), len(want))
	}
}
