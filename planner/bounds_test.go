package planner

import (
	"math/rand/v2"
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
