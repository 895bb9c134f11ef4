package chunks

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// patchFlat is what Patch must give: the steps applied to a plain slice,
// each new element next (starting at next).
func patchFlat(s []int, steps []Step, next *int) []int {
	var out []int
	for _, st := range steps {
		if st.From < 0 {
			out = append(out, *next)
			*next++
			continue
		}
		out = append(out, s[st.From:st.To]...)
	}
	return out
}

// randomSteps deletes, inserts and keeps elements of a list of n at a few
// random places.
func randomSteps(rnd *rand.Rand, n int) []Step {
	var steps []Step
	i := 0
	for i < n {
		switch k := rnd.IntN(n/4 + 2); {
		case k == 0: // insert here
			for range 1 + rnd.IntN(3) {
				steps = append(steps, Step{From: -1})
			}
		case k == 1: // delete a few
			i += 1 + rnd.IntN(min(5, n-i))
		default: // keep a run
			j := min(n, i+1+rnd.IntN(n/3+1))
			steps = append(steps, Step{From: i, To: j})
			i = j
		}
	}
	if rnd.IntN(3) == 0 {
		steps = append(steps, Step{From: -1})
	}
	return steps
}

func TestPatch_MatchesFlat(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, Size - 1, Size, Size + 1, 3*Size + 17, 10 * Size} {
		flat := make([]int, n)
		for i := range flat {
			flat[i] = -i - 1
		}
		l := Of(slices.Clone(flat))
		l.Seal()
		next := 0
		for round := range 60 {
			steps := randomSteps(rnd, len(flat))
			start := next
			want := patchFlat(flat, steps, &next)
			got := l.Patch(steps)
			// the new elements are zero until set
			for k, i := range Added(steps) {
				if got.At(i) != 0 {
					t.Fatalf("n %d round %d: new element %d is %d", n, round, i, got.At(i))
				}
				*got.Mut(i) = start + k
			}
			got.Seal()
			if !slices.Equal(got.Slice(), want) {
				t.Fatalf("n %d round %d: got %v, want %v", n, round, got.Slice(), want)
			}
			if got.Len() != len(want) {
				t.Fatalf("n %d round %d: Len %d, want %d", n, round, got.Len(), len(want))
			}
			for i := range want {
				if got.At(i) != want[i] || *got.Ptr(i) != want[i] {
					t.Fatalf("n %d round %d: At(%d) %d, want %d", n, round, i, got.At(i), want[i])
				}
			}
			for _, p := range got.parts {
				if len(p) == 0 || len(p) > 2*Size+3 {
					t.Fatalf("n %d round %d: a chunk of %d", n, round, len(p))
				}
			}
			// the old list is unchanged
			if !slices.Equal(l.Slice(), flat) {
				t.Fatalf("n %d round %d: the patched list changed", n, round)
			}
			flat, l = want, got
		}
	}
}

// A list patched with one change shares every chunk but the one it falls
// in (and at most its neighbour).
func TestPatch_SharesChunks(t *testing.T) {
	n := 100 * Size
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	l := Of(s)
	l.Seal()
	at := 50*Size + 10
	for _, steps := range [][]Step{
		{{0, at}, {at + 1, n}},                    // one deleted
		{{0, at}, {-1, 0}, {at, n}},               // one added
		{{0, at}, {-1, 0}, {at + 1, n}},           // one replaced
		{{0, 50 * Size}, {-1, 0}, {50 * Size, n}}, // one added at a chunk's start
		{{0, n}, {-1, 0}},                         // one added at the end
	} {
		got := l.Patch(steps)
		for _, i := range Added(steps) {
			*got.Mut(i) = -1
		}
		got.Seal()
		if shared := got.Shared(l); shared < l.Chunks()-2 {
			t.Errorf("%v: %d of %d chunks shared", steps, shared, l.Chunks())
		}
	}
	// Mut of a shared chunk copies it
	got := l.Patch([]Step{{0, n}})
	*got.Mut(7) = -7
	got.Seal()
	if l.At(7) != 7 || got.At(7) != -7 || got.Shared(l) != l.Chunks()-1 {
		t.Fatalf("Mut of a shared chunk: %d, %d, %d shared", l.At(7), got.At(7), got.Shared(l))
	}
}

func TestSearch(t *testing.T) {
	s := make([]int, 5*Size)
	for i := range s {
		s[i] = 2 * i
	}
	l := Of(s).Patch([]Step{{0, len(s)}})
	for _, x := range []int{-1, 0, 1, 2, 2*Size - 2, 2 * Size, 2*Size + 1, 10*Size - 2, 10*Size - 1, 10 * Size} {
		i, found := l.Search(func(v *int) int { return *v - x })
		wi, wfound := slices.BinarySearch(s, x)
		if i != wi || found != wfound {
			t.Errorf("Search(%d) = %d %v, want %d %v", x, i, found, wi, wfound)
		}
	}
}
