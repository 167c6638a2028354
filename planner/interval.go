package planner

import (
	"math/bits"
	"slices"
)

// Shared data structures of the placement strategies: compressed time and
// an index of placed buffers that answers "which bytes are taken at some
// step of [birth, death]" without scanning every placed buffer.

// span is a half-open byte range [lo, hi).
type span struct{ lo, hi int64 }

// timeline compresses the steps of a problem into sections: maximal runs
// of steps over which no buffer is born or dies. A buffer covers the
// sections [first, last) of its live range (prepare finds them).
type timeline struct {
	starts []int // first step of each section, increasing
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
//
// The lists live in a pool of pointer-free chunks rather than in a slice
// each: a tree over 60,000 buffers has half a million lists, and as
// slices their headers cost the garbage collector a scan and every store a
// write barrier, which in wasm (one thread, no parallel marking) came to a
// fifth of a placement.
type occupancy struct {
	size  int       // leaves, a power of two
	node  []occNode // the tree, root at 1
	pool  spanPool
	epoch uint32
	nodes []int     // scratch: canonical nodes of the last range
	lists []listRef // scratch: the sorted lists taken merges
	merge [2][]span // scratch: taken's merge rounds
}

// occNode is one node of the tree: its lists and the stamp of the last
// walk that visited it, side by side, so that a visit is one cache line
// (as three slices, a visit was three misses on the low levels, which a
// placement of 400,000 buffers in random order mostly misses).
type occNode struct {
	own, sub spanList
	stamp    uint32
}

// spanList is a sorted span list: the first n spans of the pool block at
// at, which has room for room. room == 0: no block yet. 32 bits each: at
// counts spans, and 2^32 of them would be 64 GiB.
type spanList struct{ at, n, room uint32 }

// spanPool hands out blocks of minRoom, 2·minRoom, 4·minRoom, ... spans,
// carved from chunks of chunkRoom spans (a larger block gets a chunk of its
// own), and takes back the blocks that lists outgrow so that later lists
// reuse them. Chunks are never copied: the pool grows without the garbage
// and copying of one ever-doubling slice.
type spanPool struct {
	chunks [][]span  // chunk k holds the blocks that start at k<<chunkBits
	used   int       // spans handed out of the last chunk
	free   [64][]int // free block starts by class: block of minRoom<<class spans
}

const (
	// minRoom is the room a list starts with: most lists stay this short.
	minRoom   = 4
	chunkBits = 12
	chunkRoom = 1 << chunkBits
)

func roomClass(room int) int { return bits.TrailingZeros(uint(room / minRoom)) }

// alloc returns the start of a free block of room spans (a power of two
// times minRoom).
func (p *spanPool) alloc(room int) int {
	c := roomClass(room)
	if n := len(p.free[c]); n > 0 {
		at := p.free[c][n-1]
		p.free[c] = p.free[c][:n-1]
		return at
	}
	if room > chunkRoom {
		p.chunks = append(p.chunks, make([]span, room))
		p.used = chunkRoom // the next small block starts a new chunk
		return (len(p.chunks) - 1) << chunkBits
	}
	if len(p.chunks) == 0 || p.used+room > chunkRoom {
		if len(p.chunks) > 0 {
			p.release(p.used, chunkRoom-p.used)
		}
		p.chunks = append(p.chunks, p.spare())
		p.used = 0
	}
	at := (len(p.chunks)-1)<<chunkBits | p.used
	p.used += room
	return at
}

// spare returns a chunk of chunkRoom spans: one a reset left behind the
// last, or a new one. Its contents are stale, which no list reads.
func (p *spanPool) spare() []span {
	if n := len(p.chunks); n < cap(p.chunks) {
		if c := p.chunks[:n+1][n]; len(c) == chunkRoom {
			return c
		}
	}
	return make([]span, chunkRoom)
}

// release frees the unused tail [used, used+n) of the last chunk as
// blocks of the classes n is the sum of (n is a multiple of minRoom, as
// every block is).
func (p *spanPool) release(used, n int) {
	base := (len(p.chunks) - 1) << chunkBits
	for n > 0 {
		c := roomClass(n) // n's lowest power of two
		room := minRoom << c
		p.free[c] = append(p.free[c], base|used)
		used, n = used+room, n-room
	}
}

// block returns the room spans of the block at at.
func (p *spanPool) block(at, room int) []span {
	k, i := at>>chunkBits, at&(chunkRoom-1)
	return p.chunks[k][i : i+room]
}

// list returns the spans of l.
func (p *spanPool) list(l spanList) []span { return p.block(int(l.at), int(l.room))[:l.n] }

// add inserts [lo, hi) into l, merging every span it touches, and moves
// the list to a block twice as large when it is full. It reports whether
// l changed: not when one of its spans holds [lo, hi) already.
func (p *spanPool) add(l *spanList, lo, hi int64) bool {
	i := 0 // the first span [lo, hi) may touch: one search for both steps
	if l.room > 0 {
		s := p.list(*l)
		if i = touching(s, lo); i < len(s) && s[i].lo <= lo && hi <= s[i].hi {
			return false // held already
		}
	}
	if l.n == l.room {
		room := max(minRoom, 2*int(l.room))
		at := p.alloc(room)
		if l.room > 0 {
			copy(p.block(at, room), p.list(*l))
			c := roomClass(int(l.room))
			p.free[c] = append(p.free[c], int(l.at))
		}
		l.at, l.room = uint32(at), uint32(room)
	}
	s := addSpanAt(p.block(int(l.at), int(l.room))[:l.n], i, lo, hi)
	l.n = uint32(len(s))
	return true
}

func newOccupancy(sections int) *occupancy {
	o := &occupancy{}
	o.reset(sections)
	return o
}

// reset empties o for a tree over sections, keeping its storage: the
// improver builds one per round, and fresh ones were garbage to collect.
func (o *occupancy) reset(sections int) {
	size := 1
	for size < max(sections, 1) {
		size *= 2
	}
	o.size, o.epoch = size, 0
	if cap(o.node) < 2*size {
		o.node = make([]occNode, 2*size)
	} else {
		o.node = o.node[:2*size]
		clear(o.node)
	}
	o.pool.reset()
}

// reset empties the pool, keeping its chunks for reuse.
func (p *spanPool) reset() {
	p.chunks, p.used = p.chunks[:0], 0
	for c := range p.free {
		p.free[c] = p.free[c][:0]
	}
}

// copyFrom makes o hold what src holds, reusing o's storage. Copying a
// tree is a few memory moves; building it again is an insert per buffer.
func (o *occupancy) copyFrom(src *occupancy) {
	o.size, o.epoch = src.size, src.epoch
	o.node = append(o.node[:0], src.node...)
	p, q := &o.pool, &src.pool
	kept := p.chunks[:cap(p.chunks)] // chunks to reuse, if their size suits
	p.chunks = p.chunks[:0]
	for k, c := range q.chunks {
		var d []span
		if k < len(kept) && len(kept[k]) == len(c) {
			d = kept[k]
		} else {
			d = make([]span, len(c))
		}
		if k == len(q.chunks)-1 && len(c) == chunkRoom {
			copy(d, c[:q.used]) // the last chunk's tail is unused
		} else {
			copy(d, c)
		}
		p.chunks = append(p.chunks, d)
	}
	p.used = q.used
	for c := range q.free {
		p.free[c] = append(p.free[c][:0], q.free[c]...)
	}
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
		for k := range o.node {
			o.node[k].stamp = 0
		}
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
		o.pool.add(&o.node[n].own, lo, hi)
		for a := n; a >= 1 && o.node[a].stamp != o.epoch; a >>= 1 {
			x := &o.node[a]
			x.stamp = o.epoch
			if !o.pool.add(&x.sub, lo, hi) {
				// A node's sub holds its children's, so every ancestor
				// holds these bytes already: on a packed arena most
				// walks end a few levels up.
				break
			}
		}
	}
}

// listRef names a list taken merges without holding a pointer to it:
// spans [at, at+n) of pool chunk chunk, or of merge buffer -chunk-1.
// Storing slices instead, even into an array on the stack, costs a write
// barrier each while the collector marks: a sixth of a placement in wasm.
type listRef struct{ chunk, at, n int }

func (o *occupancy) ref(l spanList) listRef {
	return listRef{int(l.at >> chunkBits), int(l.at & (chunkRoom - 1)), int(l.n)}
}

// taken returns the bytes taken at any section of [l, r), as sorted
// disjoint spans with no two touching. The slice is reused by the next
// call.
func (o *occupancy) taken(l, r int) []span {
	ls := o.lists[:0]
	if l < r {
		o.canonical(l, r)
		o.nextEpoch()
		for _, n := range o.nodes {
			o.node[n].stamp = o.epoch
		}
		for _, n := range o.nodes {
			if s := o.node[n].sub; s.n > 0 {
				ls = append(ls, o.ref(s))
			}
			for a := n >> 1; a >= 1 && o.node[a].stamp != o.epoch; a >>= 1 {
				x := &o.node[a]
				x.stamp = o.epoch
				if x.own.n > 0 {
					ls = append(ls, o.ref(x.own))
				}
			}
		}
	}
	o.lists = ls
	if len(ls) == 0 {
		return nil
	}
	// Merge the two shortest lists until one is left (Huffman's order):
	// typically one long list (everything live at a section) meets many
	// short ones (long-lived buffers higher up), and is copied once. The
	// merges alternate between two buffers, each fresh list going after
	// the last, so no list is overwritten while still waiting.
	for i := 1; i < len(ls); i++ { // insertion sort: a few dozen lists
		for j := i; j > 0 && ls[j].n < ls[j-1].n; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
	m0, m1 := o.merge[0][:0], o.merge[1][:0]
	view := func(r listRef) []span {
		switch r.chunk {
		case -1:
			return m0[r.at : r.at+r.n]
		case -2:
			return m1[r.at : r.at+r.n]
		}
		return o.pool.chunks[r.chunk][r.at : r.at+r.n]
	}
	for round := 0; len(ls) > 1; round++ {
		a, b := view(ls[0]), view(ls[1])
		var m listRef
		if round&1 == 0 {
			m = listRef{-1, len(m0), 0}
			m0 = unionSpans(m0, a, b)
			m.n = len(m0) - m.at
		} else {
			m = listRef{-2, len(m1), 0}
			m1 = unionSpans(m1, a, b)
			m.n = len(m1) - m.at
		}
		ls = ls[1:]
		k := 1
		for k < len(ls) && ls[k].n < m.n {
			ls[k-1] = ls[k]
			k++
		}
		ls[k-1] = m
	}
	out := view(ls[0])
	o.merge = [2][]span{m0, m1}
	return out
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
	// Room for every span at once, written by index: an append per span
	// checked the capacity each time, which cost Y_1's best fit 6–8 % of
	// its time in wasm (natively, nothing measurable).
	n := len(dst)
	dst = slices.Grow(dst, len(a)+len(b))[:n+len(a)+len(b)]
	out := dst[n:]
	k := 0
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
		out[k] = cur
		k++
		cur = s
	}
	if len(b) > 0 {
		a = b
	}
	for len(a) > 0 && a[0].lo <= cur.hi {
		cur.hi = max(cur.hi, a[0].hi)
		a = a[1:]
	}
	out[k] = cur
	k++
	k += copy(out[k:], a)
	return dst[:n+k]
}

// addSpan inserts [lo, hi) into sorted disjoint spans, merging every span
// it touches.
func addSpan(s []span, lo, hi int64) []span { return addSpanAt(s, touching(s, lo), lo, hi) }

// touching returns the index of the first of the sorted disjoint spans s
// that ends at or after lo: the first a span from lo may touch. Spans
// that touch are merged, so it is also the only one that may hold [lo,
// hi), whatever hi.
func touching(s []span, lo int64) int {
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[h].hi < lo {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// addSpanAt is addSpan with i = touching(s, lo).
func addSpanAt(s []span, i int, lo, hi int64) []span {
	j := i
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
// taken that holds size bytes at a legal offset (legalOffset: alignment
// align, no straddled cut), the lowest such gap on ties, or the first
// legal offset above the top when none does.
func bestGap(taken []span, size, align, cut int64) int64 {
	best, bestLen := int64(-1), int64(-1)
	var lo int64
	for _, s := range taken {
		if off := legalOffset(lo, size, align, cut); off+size <= s.lo {
			if l := s.lo - lo; bestLen < 0 || l < bestLen {
				best, bestLen = off, l
			}
		}
		lo = s.hi
	}
	if best < 0 {
		return legalOffset(lo, size, align, cut)
	}
	return best
}

// firstGap returns the lowest legal offset below the top of taken that
// holds size bytes, or the first legal offset above the top.
func firstGap(taken []span, size, align, cut int64) int64 {
	var lo int64
	for _, s := range taken {
		if off := legalOffset(lo, size, align, cut); off+size <= s.lo {
			return off
		}
		lo = s.hi
	}
	return legalOffset(lo, size, align, cut)
}
