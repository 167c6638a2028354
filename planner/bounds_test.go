package planner

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAlignedLowerBoundIsABound: on small random problems with mixed
// alignments, the alignment-aware bound never exceeds the brute-force
// optimum, and it is stronger than the plain bound often enough to matter.
func TestAlignedLowerBoundIsABound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 64))
	stronger := 0
	tried := 0
	for tried < 300 {
		p := randomProblem(rng, 6, 5)
		fixed := false
		for i := range p.Buffers {
			fixed = fixed || p.Buffers[i].Fixed
		}
		if fixed || p.Alignment < 2 {
			continue // bruteForceArena is the optimum only without fixed buffers
		}
		tried++
		plain, aligned, best := LowerBound(p), AlignedLowerBound(p), bruteForceArena(p)
		if aligned < plain || aligned > best {
			t.Fatalf("problem %d: plain bound %d, aligned %d, optimum %d", tried, plain, aligned, best)
		}
		if aligned > plain {
			stronger++
		}
	}
	if stronger < 30 {
		t.Fatalf("the aligned bound beat the plain one on %d of 300 problems; the test proves little", stronger)
	}
}

func TestAlignedLowerBoundCases(t *testing.T) {
	tests := []struct {
		name  string
		align int64
		spans []int64 // all live at once
		want  int64
	}{
		{"no alignment", 1, []int64{4, 4, 4}, 12},
		{"tiny params at 64: two padded, the top one not", 64, []int64{4, 4, 4}, 64*2 + 4},
		{"mixed padding", 64, []int64{4, 60}, 64 + 4},
		{"spans already aligned", 64, []int64{64, 128}, 192},
		{"one buffer", 64, []int64{5}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Problem{Alignment: tc.align}
			for i, s := range tc.spans {
				p.Buffers = append(p.Buffers, Buffer{Name: string(rune('a' + i)), Size: s, Death: 1, Align: tc.align})
			}
			if got := AlignedLowerBound(p); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLiveStepsDenseAndSparse: the step function liveSteps sums matches
// one counted step by step, for schedules whose steps are numbered densely
// (summed by step) and sparsely (summed over the distinct steps).
func TestLiveStepsDenseAndSparse(t *testing.T) {
	type item struct {
		birth, death int
		bytes        int64
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name  string
		steps int // items live within [0, steps)
	}{{"dense", 40}, {"sparse", 1 << 30}} {
		for round := range 50 {
			items := make([]item, 1+rng.IntN(12))
			var marks []int
			for i := range items {
				b := rng.IntN(tc.steps)
				d := b + rng.IntN(min(tc.steps-b, 1+tc.steps/4))
				items[i] = item{b, d, int64(rng.IntN(3)) * int64(1+rng.IntN(100))} // some of size 0
				marks = append(marks, b, d+1)
			}
			got := liveSteps(len(items), func(i int) (int, int, int64) { return items[i].birth, items[i].death, items[i].bytes })
			// The live bytes at each step where anything begins or ends,
			// counted directly; the function changes only there.
			slices.Sort(marks)
			var want []LiveStep
			for _, at := range slices.Compact(marks) {
				var live int64
				for _, it := range items {
					if it.birth <= at && at <= it.death {
						live += it.bytes
					}
				}
				if k := len(want); (k > 0 && want[k-1].Bytes == live) || (k == 0 && live == 0) {
					continue
				}
				want = append(want, LiveStep{at, live})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s round %d: items %v\ngot  %v\nwant %v", tc.name, round, items, got, want)
			}
		}
	}
}
