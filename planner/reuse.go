package planner

import (
	"cmp"
	"math"
	"slices"
)

// ReusedFrom returns, for each buffer, the index of the buffer that last
// held any of its bytes before it was born, or -1. "Last" is the one that
// died latest. It paints address ranges in birth order over a segment tree
// of compressed addresses, so it runs in O(n log n) even for 10^6 buffers.
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
	slices.Sort(coords)
	coords = slices.Compact(coords)
	index := func(v int64) int { k, _ := slices.BinarySearch(coords, v); return k }
	order = byBirth(s.birth, order)

	t := newPaintTree(len(coords) - 1)
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
		lo, hi := index(offsets[i]), index(offsets[i]+s.size[i])
		if key := t.query(lo, hi); key >= 0 {
			prev := int(key % stride)
			if s.death[prev] < s.birth[i] {
				out[i] = prev
			}
		}
		t.paint(lo, hi, death(i)*stride+int64(i))
	}
	return out
}

// paintTree is a segment tree over elementary address ranges supporting
// "paint a range with a key" and "largest key in a range".
type paintTree struct {
	n    int
	best []int64 // largest key in the subtree
	tag  []int64 // pending paint for the whole subtree, -1 if none
}

func newPaintTree(n int) *paintTree {
	size := 1
	for size < n {
		size *= 2
	}
	t := &paintTree{n: size, best: make([]int64, 2*size), tag: make([]int64, 2*size)}
	for i := range t.best {
		t.best[i], t.tag[i] = -1, -1
	}
	return t
}

func (t *paintTree) push(node int) {
	if v := t.tag[node]; v >= 0 {
		for _, c := range [2]int{2 * node, 2*node + 1} {
			t.best[c], t.tag[c] = v, v
		}
		t.tag[node] = -1
	}
}

func (t *paintTree) paint(lo, hi int, key int64) { t.paintAt(1, 0, t.n, lo, hi, key) }

func (t *paintTree) paintAt(node, l, r, lo, hi int, key int64) {
	if hi <= l || r <= lo {
		return
	}
	if lo <= l && r <= hi {
		t.best[node], t.tag[node] = key, key
		return
	}
	t.push(node)
	m := (l + r) / 2
	t.paintAt(2*node, l, m, lo, hi, key)
	t.paintAt(2*node+1, m, r, lo, hi, key)
	t.best[node] = max(t.best[2*node], t.best[2*node+1])
}

func (t *paintTree) query(lo, hi int) int64 { return t.queryAt(1, 0, t.n, lo, hi) }

func (t *paintTree) queryAt(node, l, r, lo, hi int) int64 {
	if hi <= l || r <= lo {
		return -1
	}
	if lo <= l && r <= hi {
		return t.best[node]
	}
	t.push(node)
	m := (l + r) / 2
	return max(t.queryAt(2*node, l, m, lo, hi), t.queryAt(2*node+1, m, r, lo, hi))
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
