package planner

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// ReusedFrom returns, for each buffer, the index of the buffer that last
// held any of its bytes before it was born, or -1. "Last" is the one that
// died latest. It paints address ranges in birth order over the runs of
// compressed addresses (runMap), so it runs in O(n log n) even for 10^6
// buffers: the sort of the addresses is the log.
func ReusedFrom(p *Problem, offsets []int64) []int {
	s := reuseSpans{make([]int64, len(p.Buffers)), make([]int, len(p.Buffers)), make([]int, len(p.Buffers))}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		s.size[i], s.birth[i], s.death[i] = b.Size, b.Birth, b.Death
	}
	return s.reusedFrom(offsets)
}

// reuseSpans are what ReusedFrom needs of each buffer, in plain slices: a
// plan record's tensors give them as well as a problem's buffers.
type reuseSpans struct {
	size         []int64
	birth, death []int
}

func (s reuseSpans) reusedFrom(offsets []int64) []int {
	n := len(s.size)
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	var coords []int64
	order := make([]int, 0, n)
	for i, size := range s.size {
		if size > 0 {
			coords = append(coords, offsets[i], offsets[i]+size)
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return out
	}
	// Buffer order[k]'s ends are elementary ranges ranks[2k], ranks[2k+1].
	ranks, distinct := denseRanks(coords)
	at := make([]int32, n) // position in order of each buffer
	for k, i := range order {
		at[i] = int32(k)
	}
	order = byBirth(s.birth, order)

	t := newRunMap(len(distinct) - 1)
	stride := int64(n) + 1
	// A key is a death and a buffer; deaths past what the key holds (a
	// record's steps run to 2^40) are ranked first, which keeps the order.
	death := func(i int) int64 { return int64(s.death[i]) }
	last := slices.MaxFunc(order, func(a, b int) int { return cmp.Compare(s.death[a], s.death[b]) })
	if death(last) > (math.MaxInt64-stride)/stride {
		deaths := make([]int64, 0, len(order))
		for _, i := range order {
			deaths = append(deaths, death(i))
		}
		slices.Sort(deaths)
		deaths = slices.Compact(deaths)
		death = func(i int) int64 { k, _ := slices.BinarySearch(deaths, int64(s.death[i])); return int64(k) }
	}
	for _, i := range order {
		lo, hi := int(ranks[2*at[i]]), int(ranks[2*at[i]+1])
		if key := t.paint(lo, hi, death(i)*stride+int64(i)); key >= 0 {
			prev := int(key % stride)
			if s.death[prev] < s.birth[i] {
				out[i] = prev
			}
		}
	}
	return out
}

// runMap colours the elementary address ranges [0, n): each holds the
// key of the buffer painted over it last, -1 if none. Neighbouring ranges
// of one colour form a run; a bitset marks where each run starts, and key
// holds a run's colour at its start. paint visits the runs a range meets
// and leaves one run there, so every run it visits but the first and last
// is gone afterwards: a plan's painting visits O(1) runs per buffer,
// amortized, with no recursion (in wasm, each call of the segment tree
// this replaces cost more than its work). The bitset has summaries of 64
// words to a word, up to one word, so finding the next or the last run
// start takes a few word operations however far it is.
type runMap struct {
	key    []int64    // colour of the run that starts at c, where bit c is set
	levels [][]uint64 // levels[0]: run starts, bit c&63 of word c>>6, 0 and n always set; levels[l+1]: the words of levels[l] that are not 0
}

func newRunMap(n int) *runMap {
	m := &runMap{key: make([]int64, n+1)}
	for width := n + 1; ; width = (width + 63) >> 6 {
		words := (width + 63) >> 6
		m.levels = append(m.levels, make([]uint64, words))
		if words == 1 {
			break
		}
	}
	m.set(0, -1)
	m.set(n, -1)
	return m
}

// set starts a run of colour key at c.
func (m *runMap) set(c int, key int64) {
	m.key[c] = key
	for _, level := range m.levels {
		w, was := c>>6, level[c>>6]
		level[w] = was | 1<<uint(c&63)
		if was != 0 { // the levels above know this word already
			return
		}
		c = w
	}
}

// drop ends the run that starts at c: the one before it goes on.
func (m *runMap) drop(c int) {
	for _, level := range m.levels {
		w := c >> 6
		if level[w] &^= 1 << uint(c&63); level[w] != 0 {
			return
		}
		c = w
	}
}

// next returns the first run start after c, for c < n: up the levels to
// the first word with a set bit past c's, then down its lowest bits.
func (m *runMap) next(c int) int {
	c++
	l := 0
	for ; ; l, c = l+1, c>>6+1 {
		if level := m.levels[l]; c>>6 < len(level) {
			if b := level[c>>6] >> uint(c&63); b != 0 {
				c += bits.TrailingZeros64(b)
				break
			}
		}
	}
	for ; l > 0; l-- {
		c = c<<6 + bits.TrailingZeros64(m.levels[l-1][c])
	}
	return c
}

// prev returns the last run start at or before c: up the levels to the
// last word with a set bit up to c's (start 0 is always set), then down
// its highest bits.
func (m *runMap) prev(c int) int {
	l := 0
	for ; ; l, c = l+1, c>>6-1 {
		if b := m.levels[l][c>>6] << uint(63-c&63); b != 0 {
			c -= bits.LeadingZeros64(b)
			break
		}
	}
	for ; l > 0; l-- {
		c = c<<6 + 63 - bits.LeadingZeros64(m.levels[l-1][c])
	}
	return c
}

// paint colours [lo, hi) with key, lo < hi, and returns the largest key
// the range held before.
func (m *runMap) paint(lo, hi int, key int64) int64 {
	best := int64(-1)
	for c := m.prev(lo); c < hi; {
		k, end := m.key[c], m.next(c)
		best = max(best, k)
		if c > lo {
			m.drop(c)
		}
		if end > hi { // the run goes on past the range: it starts again at hi
			m.set(hi, k)
		}
		c = end
	}
	m.set(lo, key)
	return best
}

// byBirth orders buffers by birth, ties in the order given, by counting
// (births are steps); a comparison sort took a sixth of NewPlan.
func byBirth(births []int, order []int) []int {
	lo, hi := births[order[0]], births[order[0]]
	for _, i := range order {
		lo, hi = min(lo, births[i]), max(hi, births[i])
	}
	if hi-lo > 4*len(order) {
		// Sparse births (a hand-written CSV's): compare instead.
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(births[a], births[b]) })
		return order
	}
	start := make([]int, hi-lo+2)
	for _, i := range order {
		start[births[i]-lo+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	out := make([]int, len(order))
	for _, i := range order {
		b := births[i] - lo
		out[start[b]] = i
		start[b]++
	}
	return out
}
