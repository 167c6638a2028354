package planner

import "slices"

// keyed is an index with its sort keys beside it. Sorting these compares
// within one slice; a comparison that reads the buffers themselves
// misses the cache on nearly every access once a problem has hundreds of
// thousands of buffers, which made the sorts of the orders a sixth of
// auto's time at a million.
type keyed struct {
	k [4]int64
	i int
}

// sortedIndices sorts ks by their keys in turn, then by index, all
// ascending, and returns the indices in that order as a new slice. The
// order is total, so it is the one any sort with these comparisons
// gives.
func sortedIndices(ks []keyed) []int {
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.k[0] != b.k[0]:
			return cmpInt64(a.k[0], b.k[0])
		case a.k[1] != b.k[1]:
			return cmpInt64(a.k[1], b.k[1])
		case a.k[2] != b.k[2]:
			return cmpInt64(a.k[2], b.k[2])
		case a.k[3] != b.k[3]:
			return cmpInt64(a.k[3], b.k[3])
		}
		return a.i - b.i
	})
	out := make([]int, len(ks))
	for n := range ks {
		out[n] = ks[n].i
	}
	return out
}
