package planner

import (
	"math/bits"
	"slices"
)

// keyed is an index with its sort keys beside it. Sorting these compares
// within one slice; a comparison that reads the buffers themselves
// misses the cache on nearly every access once a problem has hundreds of
// thousands of buffers, which made the sorts of the orders a sixth of
// auto's time at a million.
type keyed struct {
	k [4]int64
	i int
}

// radixMin is the fewest elements sorted by radix: below it a comparison
// sort is as fast and needs no second buffer.
const radixMin = 256

// radixBits is the digit of a radix pass: 2^11 counters fit in the L1
// cache, and the keys of real problems (sections, sizes up to 2^40) take
// one to four passes.
const radixBits = 11

// sortedIndices sorts ks by their keys in turn, then by index, all
// ascending, and returns the indices in that order as a new slice. The
// order is total, so it is the one any sort with these comparisons
// gives. Large inputs are sorted by stable least-significant-digit radix
// passes, only over the bits in which a key word varies: a comparison sort
// of a million keys took half a second, and auto sorts four orders.
func sortedIndices(ks []keyed) []int {
	if len(ks) < radixMin {
		slices.SortFunc(ks, compareKeyed)
	} else if out := packedOrder(ks); out != nil {
		return out
	} else {
		radixSortKeyed(ks)
	}
	out := make([]int, len(ks))
	for n := range ks {
		out[n] = ks[n].i
	}
	return out
}

// packedOrder is sortedIndices by radix over one word: where the key
// words' spreads fit in 64 bits together (as a plan's sections, breadths
// and sizes do), each key is packed into a word beside its index, and the
// passes move 16 bytes an element rather than 40. It returns nil where
// they do not fit, or where ks is not in index order (the index, the
// last key, is then a pass of its own).
func packedOrder(ks []keyed) []int {
	var lo, hi [4]int64
	lo, hi = ks[0].k, ks[0].k
	for n := range ks {
		if n > 0 && ks[n].i < ks[n-1].i {
			return nil
		}
		for w, v := range ks[n].k {
			lo[w], hi[w] = min(lo[w], v), max(hi[w], v)
		}
	}
	var shift [4]int
	width := 0
	for w := 3; w >= 0; w-- {
		shift[w] = width
		width += bits.Len64(uint64(hi[w]) - uint64(lo[w]))
	}
	if width > 64 {
		return nil
	}
	type packed struct {
		key uint64
		i   int
	}
	ps := make([]packed, len(ks))
	var top uint64
	for n := range ks {
		var key uint64
		for w, v := range ks[n].k {
			key |= (uint64(v) - uint64(lo[w])) << shift[w]
		}
		ps[n], top = packed{key, ks[n].i}, max(top, key)
	}
	// Values are the keys' bits: the passes subtract lo = 0.
	ps, _ = radixPasses(ps, make([]packed, len(ps)), 0, int64(top), func(e *packed) int64 { return int64(e.key) })
	out := make([]int, len(ps))
	for n := range ps {
		out[n] = ps[n].i
	}
	return out
}

func compareKeyed(a, b keyed) int {
	for w := range a.k {
		if a.k[w] != b.k[w] {
			return cmpInt64(a.k[w], b.k[w])
		}
	}
	return a.i - b.i
}

// radixSortKeyed sorts ks as compareKeyed does: stable passes from the
// least significant word (the index) to the most, each over the word's
// value less its least, so that signed words and narrow ranges cost only
// the passes their spread needs.
func radixSortKeyed(ks []keyed) {
	src, dst := ks, make([]keyed, len(ks))
	for word := 4; word >= 0; word-- {
		lo, hi := src[0].word(word), src[0].word(word)
		sorted := true
		prev := lo
		for n := range src {
			v := src[n].word(word)
			lo, hi = min(lo, v), max(hi, v)
			sorted = sorted && v >= prev
			prev = v
		}
		if sorted { // already in order by this word: a stable pass keeps it
			continue
		}
		src, dst = radixPasses(src, dst, lo, hi, func(e *keyed) int64 { return e.word(word) })
	}
	if &src[0] != &ks[0] {
		copy(ks, src)
	}
}

// radixPasses sorts src stably by value, whose results lie in [lo, hi],
// in passes of radixBits over value less lo, between src and dst. It
// returns the sorted slice and the other.
func radixPasses[T any](src, dst []T, lo, hi int64, value func(*T) int64) (sorted, other []T) {
	var count [1 << radixBits]int
	spread := uint64(hi) - uint64(lo) // exact for any int64 pair
	for shift := 0; shift < bits.Len64(spread); shift += radixBits {
		clear(count[:])
		for n := range src {
			count[(uint64(value(&src[n]))-uint64(lo))>>shift&(1<<radixBits-1)]++
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for n := range src {
			d := (uint64(value(&src[n])) - uint64(lo)) >> shift & (1<<radixBits - 1)
			dst[count[d]] = src[n]
			count[d]++
		}
		src, dst = dst, src
	}
	return src, dst
}

// word is key word w of e, or its index for w == 4.
func (e *keyed) word(w int) int64 {
	if w == 4 {
		return int64(e.i)
	}
	return e.k[w]
}

// denseRanks returns, for each of vals, how many distinct values are
// smaller, and the distinct values in increasing order. It sorts the
// values once, by radix when there are many, where a sort of the distinct
// values and a binary search for each cost a random access apiece: at a
// million buffers, a second of every plan's record and proof.
func denseRanks(vals []int64) (ranks []int32, distinct []int64) {
	type valueAt struct {
		v int64
		i int32
	}
	ps := make([]valueAt, len(vals))
	for i, v := range vals {
		ps[i] = valueAt{v, int32(i)}
	}
	if len(ps) < radixMin {
		slices.SortFunc(ps, func(a, b valueAt) int { return cmpInt64(a.v, b.v) })
	} else if lo, hi := slices.Min(vals), slices.Max(vals); lo != hi {
		ps, _ = radixPasses(ps, make([]valueAt, len(ps)), lo, hi, func(e *valueAt) int64 { return e.v })
	}
	ranks = make([]int32, len(vals))
	for n, p := range ps {
		if n == 0 || p.v != ps[n-1].v {
			distinct = append(distinct, p.v)
		}
		ranks[p.i] = int32(len(distinct) - 1)
	}
	return ranks, distinct
}
