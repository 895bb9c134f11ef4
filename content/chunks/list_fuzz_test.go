package chunks

import (
	"slices"
	"testing"
)

// FuzzPatch patches a list again and again by steps the bytes make
// (keep a run, delete a run, insert: at chunk boundaries, everything
// deleted, a list built from nothing): each list is the steps applied to
// a plain slice, no chunk is empty or over its bound, and the lists it
// was made from are unchanged.
func FuzzPatch(f *testing.F) {
	f.Add(uint16(0), []byte{})
	f.Add(uint16(Size), []byte{0x01, 0xff, 0x02, 0x03})
	f.Add(uint16(3*Size+1), []byte{0x80, 0x40, 0x20, 0x10, 0xff, 0xff, 0x00, 0x00})
	f.Add(uint16(2*Size), []byte{0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f}) // delete everything
	f.Fuzz(func(t *testing.T, n0 uint16, ops []byte) {
		n := int(n0) % (6 * Size)
		flat := make([]int, n)
		for i := range flat {
			flat[i] = -i - 1
		}
		l := Of(slices.Clone(flat))
		l.Seal()
		type kept struct {
			l    List[int]
			want []int
		}
		var lists []kept
		next := 0
		for len(ops) >= 2 && len(lists) < 20 {
			// one round: pairs of (op, count) until a 0xff op
			var steps []Step
			i := 0
			for len(ops) >= 2 {
				op, c := ops[0], int(ops[1])
				ops = ops[2:]
				if op == 0xff {
					break
				}
				switch op % 3 {
				case 0: // keep c*8+1 (to the end with 0x7f)
					j := min(len(flat), i+c*8+1)
					if c == 0x7f {
						j = len(flat)
					}
					if j > i {
						steps = append(steps, Step{From: i, To: j})
					}
					i = j
				case 1: // delete
					i = min(len(flat), i+c*8+1)
					if c == 0x7f {
						i = len(flat)
					}
				case 2: // insert
					for range c%5 + 1 {
						steps = append(steps, Step{From: -1})
					}
				}
			}
			start := next
			want := patchFlat(flat, steps, &next)
			got := l.Patch(steps)
			for k, i := range Added(steps) {
				*got.Mut(i) = start + k
			}
			got.Seal()
			if got.Len() != len(want) || !slices.Equal(got.Slice(), want) {
				t.Fatalf("patched list %v, want %v (steps %v)", got.Slice(), want, steps)
			}
			for _, p := range got.parts {
				if len(p) == 0 || len(p) > 2*Size+3 {
					t.Fatalf("a chunk of %d", len(p))
				}
			}
			for k, x := range want {
				if got.At(k) != x {
					t.Fatalf("At(%d) = %d, want %d", k, got.At(k), x)
				}
			}
			lists = append(lists, kept{l, flat})
			flat, l = want, got
		}
		for _, k := range lists {
			if !slices.Equal(k.l.Slice(), k.want) {
				t.Fatal("a list changed after another was patched from it")
			}
		}
	})
}
