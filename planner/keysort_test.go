package planner

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortedIndices(t *testing.T) {
	k := func(i int, ks ...int64) keyed {
		var a [4]int64
		copy(a[:], ks)
		return keyed{a, i}
	}
	for _, tc := range []struct {
		name string
		in   []keyed
		want []int
	}{
		{"empty", nil, []int{}},
		{"first key", []keyed{k(0, 3), k(1, -1), k(2, 2)}, []int{1, 2, 0}},
		{"later keys break ties", []keyed{k(0, 1, 2, 0, 9), k(1, 1, 2, 0, -9), k(2, 1, 1, 5)}, []int{2, 1, 0}},
		{"the fourth key", []keyed{k(0, 0, 0, 0, 1), k(1, 0, 0, 0, 0)}, []int{1, 0}},
		{"equal keys by index, whatever the input order", []keyed{k(7, 4, 4), k(2, 4, 4), k(5, 1), k(3, 4, 4)}, []int{5, 2, 3, 7}},
	} {
		if got := sortedIndices(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRadixSortMatchesComparisons sorts large random inputs, in random
// index order, with keys of every spread (constant, narrow, signed,
// the whole int64 range, many ties), by radix and by comparisons.
func TestRadixSortMatchesComparisons(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	draw := []func() int64{
		func() int64 { return 7 },
		func() int64 { return rng.Int64N(5) - 2 },
		func() int64 { return rng.Int64N(1 << 40) },
		func() int64 { return int64(rng.Uint64()) },
		func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)] },
	}
	packed := 0
	for _, n := range []int{radixMin, 3000, 20000} {
		for trial := range 40 {
			ks := make([]keyed, n)
			for j, i := range rng.Perm(n) {
				for w := range ks[j].k {
					ks[j].k[w] = draw[(trial+w*rng.IntN(3))%len(draw)]()
					if trial%4 == 3 { // narrow words, signed, 42 bits in all
						ks[j].k[w] = rng.Int64N(1<<(3+5*w)) - 1<<(2+5*w)
					}
				}
				ks[j].i = i
			}
			if trial%2 == 1 { // in index order, where narrow keys are packed
				slices.SortFunc(ks, func(a, b keyed) int { return a.i - b.i })
				if packedOrder(slices.Clone(ks)) != nil {
					packed++
				}
			}
			want := slices.Clone(ks)
			slices.SortFunc(want, compareKeyed)
			if got := sortedIndices(slices.Clone(ks)); !slices.EqualFunc(got, want, func(i int, e keyed) bool { return i == e.i }) {
				t.Fatalf("n=%d trial %d: radix order differs from the comparisons'", n, trial)
			}
		}
	}
	// Both radix paths must have been taken for the test to cover them.
	if packed == 0 || packed == 3*20 {
		t.Fatalf("%d of 60 inputs in index order were packed; want some but not all", packed)
	}
}

// TestDenseRanks checks ranks against a sort of the distinct values and a
// search for each, at sizes on both sides of radixMin.
func TestDenseRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 5, radixMin - 1, radixMin, 5000} {
		for _, spread := range []int64{1, 3, 1 << 20, math.MaxInt64} {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = rng.Int64N(spread)
				if spread == math.MaxInt64 && rng.IntN(2) == 0 {
					vals[i] = -vals[i] - 1
				}
			}
			wantDistinct := slices.Compact(slices.Sorted(slices.Values(vals)))
			ranks, distinct := denseRanks(vals)
			if !slices.Equal(distinct, wantDistinct) {
				t.Fatalf("n=%d spread %d: %d distinct values, want %d", n, spread, len(distinct), len(wantDistinct))
			}
			for i, v := range vals {
				if k, _ := slices.BinarySearch(wantDistinct, v); int(ranks[i]) != k {
					t.Fatalf("n=%d spread %d: value %d ranked %d, want %d", n, spread, v, ranks[i], k)
				}
			}
		}
	}
}
