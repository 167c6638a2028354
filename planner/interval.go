package planner

import (
	"slices"
	"sort"
)

// Shared data structures of the placement strategies: compressed time and
// an index of placed buffers that answers "which bytes are taken at some
// step of [birth, death]" without scanning every placed buffer.

// span is a half-open byte range [lo, hi).
type span struct{ lo, hi int64 }

// timeline compresses the steps of a problem into sections: maximal runs
// of steps over which no buffer is born or dies. A buffer covers the
// sections [first, last) of its live range.
type timeline struct {
	starts []int // first step of each section, increasing
}

func newTimeline(p *Problem) timeline {
	pts := make([]int, 0, 2*len(p.Buffers))
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Span() > 0 {
			pts = append(pts, b.Birth, b.Death+1)
		}
	}
	slices.Sort(pts)
	return timeline{starts: slices.Compact(pts)}
}

// sections returns the sections [first, last) that a live range covers.
func (t timeline) sections(b *Buffer) (int, int) {
	first := sort.SearchInts(t.starts, b.Birth)
	last := sort.SearchInts(t.starts, b.Death+1)
	return first, last
}

// len is the number of sections (the last start only closes the one
// before it).
func (t timeline) len() int { return max(len(t.starts)-1, 0) }

// occupancy is a segment tree over sections. Every placed buffer's byte
// range is stored, merged with its neighbours, in the canonical nodes of
// its sections ("own") and in those nodes and all their ancestors ("sub").
// The bytes taken anywhere in a range of sections are then the union of
// sub of the range's canonical nodes and own of their ancestors: O(log T)
// short lists, because packed neighbours merge into one span.
type occupancy struct {
	size  int // leaves, a power of two
	own   [][]span
	sub   [][]span
	stamp []uint32
	epoch uint32
	nodes []int     // scratch: canonical nodes of the last range
	lists [][]span  // scratch: the sorted lists taken merges
	merge [2][]span // scratch: taken's merge rounds
	slab  []span    // room for new lists, handed out a few spans at a time
}

// slabList is the capacity a node's list starts with. Most lists stay this
// short, so carving them from one slab replaces hundreds of thousands of
// small allocations (GC time is a large share of a placement in wasm).
const slabList = 4

// fresh returns an empty list with room for slabList spans.
func (o *occupancy) fresh() []span {
	if len(o.slab) < slabList {
		o.slab = make([]span, 1024*slabList)
	}
	s := o.slab[:0:slabList]
	o.slab = o.slab[slabList:]
	return s
}

func newOccupancy(sections int) *occupancy {
	size := 1
	for size < max(sections, 1) {
		size *= 2
	}
	return &occupancy{size: size, own: make([][]span, 2*size), sub: make([][]span, 2*size), stamp: make([]uint32, 2*size)}
}

// canonical fills o.nodes with the canonical nodes of sections [l, r).
func (o *occupancy) canonical(l, r int) {
	o.nodes = o.nodes[:0]
	for l, r = l+o.size, r+o.size; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			o.nodes = append(o.nodes, l)
			l++
		}
		if r&1 == 1 {
			r--
			o.nodes = append(o.nodes, r)
		}
	}
}

func (o *occupancy) nextEpoch() {
	o.epoch++
	if o.epoch == 0 { // wrapped: old stamps could collide
		clear(o.stamp)
		o.epoch = 1
	}
}

// insert marks bytes [lo, hi) taken over sections [l, r).
func (o *occupancy) insert(l, r int, lo, hi int64) {
	if lo >= hi || l >= r {
		return
	}
	o.canonical(l, r)
	o.nextEpoch()
	for _, n := range o.nodes {
		if o.own[n] == nil {
			o.own[n] = o.fresh()
		}
		o.own[n] = addSpan(o.own[n], lo, hi)
		for a := n; a >= 1 && o.stamp[a] != o.epoch; a >>= 1 {
			o.stamp[a] = o.epoch
			if o.sub[a] == nil {
				o.sub[a] = o.fresh()
			}
			o.sub[a] = addSpan(o.sub[a], lo, hi)
		}
	}
}

// taken returns the bytes taken at any section of [l, r), as sorted
// disjoint spans with no two touching. The slice is reused by the next
// call.
func (o *occupancy) taken(l, r int) []span {
	o.lists = o.lists[:0]
	if l < r {
		o.canonical(l, r)
		o.nextEpoch()
		for _, n := range o.nodes {
			o.stamp[n] = o.epoch
		}
		for _, n := range o.nodes {
			if len(o.sub[n]) > 0 {
				o.lists = append(o.lists, o.sub[n])
			}
			for a := n >> 1; a >= 1 && o.stamp[a] != o.epoch; a >>= 1 {
				o.stamp[a] = o.epoch
				if len(o.own[a]) > 0 {
					o.lists = append(o.lists, o.own[a])
				}
			}
		}
	}
	// Merge the two shortest lists until one is left (Huffman's order):
	// typically one long list (everything live at a section) meets many
	// short ones (long-lived buffers higher up), and is copied once. The
	// merges alternate between two buffers, each fresh list going after
	// the last, so no list is overwritten while still waiting.
	ls := o.lists
	slices.SortFunc(ls, func(a, b []span) int { return len(a) - len(b) })
	for round := 0; len(ls) > 1; round++ {
		dst := o.merge[round&1]
		if round < 2 {
			dst = dst[:0]
		}
		start := len(dst)
		dst = unionSpans(dst, ls[0], ls[1])
		o.merge[round&1] = dst
		m := dst[start:]
		ls = ls[1:]
		k := 1
		for k < len(ls) && len(ls[k]) < len(m) {
			ls[k-1] = ls[k]
			k++
		}
		ls[k-1] = m
	}
	if len(ls) == 0 {
		return nil
	}
	return ls[0]
}

// unionSpans appends the union of two sorted disjoint span lists to dst,
// merging spans that overlap or touch. It is the hot loop of best fit:
// the span being grown stays in registers, and the inputs are consumed by
// reslicing, which spares the bounds checks.
func unionSpans(dst, a, b []span) []span {
	if len(a) == 0 {
		return append(dst, b...)
	}
	if len(b) == 0 {
		return append(dst, a...)
	}
	var cur span
	if a[0].lo <= b[0].lo {
		cur, a = a[0], a[1:]
	} else {
		cur, b = b[0], b[1:]
	}
	for len(a) > 0 && len(b) > 0 {
		var s span
		if a[0].lo <= b[0].lo {
			s, a = a[0], a[1:]
		} else {
			s, b = b[0], b[1:]
		}
		if s.lo <= cur.hi {
			cur.hi = max(cur.hi, s.hi)
			continue
		}
		dst = append(dst, cur)
		cur = s
	}
	if len(b) > 0 {
		a = b
	}
	for len(a) > 0 && a[0].lo <= cur.hi {
		cur.hi = max(cur.hi, a[0].hi)
		a = a[1:]
	}
	dst = append(dst, cur)
	return append(dst, a...)
}

// addSpan inserts [lo, hi) into sorted disjoint spans, merging every span
// it touches.
func addSpan(s []span, lo, hi int64) []span {
	// First span that ends at or after lo: it may touch the new one.
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[h].hi < lo {
			i = h + 1
		} else {
			j = h
		}
	}
	j = i
	for j < len(s) && s[j].lo <= hi {
		lo, hi = min(lo, s[j].lo), max(hi, s[j].hi)
		j++
	}
	if i == j {
		return slices.Insert(s, i, span{lo, hi})
	}
	s[i] = span{lo, hi}
	return slices.Delete(s, i+1, j)
}

// bestGap returns the offset of the smallest free gap below the top of
// taken that holds size bytes at alignment align (the lowest such gap on
// ties), or the aligned top when none does.
func bestGap(taken []span, size, align int64) int64 {
	best, bestLen := int64(-1), int64(-1)
	var lo int64
	for _, s := range taken {
		if off := alignUp(lo, align); off+size <= s.lo {
			if l := s.lo - lo; bestLen < 0 || l < bestLen {
				best, bestLen = off, l
			}
		}
		lo = s.hi
	}
	if best < 0 {
		return alignUp(lo, align)
	}
	return best
}

// firstGap returns the lowest offset below the top of taken that holds
// size bytes at alignment align, or the aligned top.
func firstGap(taken []span, size, align int64) int64 {
	var lo int64
	for _, s := range taken {
		if off := alignUp(lo, align); off+size <= s.lo {
			return off
		}
		lo = s.hi
	}
	return alignUp(lo, align)
}
