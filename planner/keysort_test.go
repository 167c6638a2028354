package planner

import (
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
