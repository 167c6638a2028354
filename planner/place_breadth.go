package planner

import "context"

// Greedy by breadth (TFLite): steps are visited from the busiest (most
// live bytes) down; at each, its still unplaced buffers go largest first
// into the best-fitting gap. A buffer is therefore placed at the busiest
// section of its life, so the visit reduces to an order of buffers: by the
// breadth of that section, then its time, then size. That order feeds
// the shared best-fit placement.

// placeBreadth is the breadth strategy.
func placeBreadth(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	return placeBestFitOrder(orderBreadth)(ctx, p, opts)
}

// breadthOrder returns the movable buffers in greedy-by-breadth order;
// within one section, buffers go by the two keys within gives, smallest
// first (nil: largest first), then by index. within is given the first
// step of the section, the same for all it compares: a step measured from
// there spans a life rather than the schedule, which lets the keys pack
// into one word for the sort (sortedIndices).
func (pr *prepared) breadthOrder(within func(b *Buffer, at int64) (int64, int64)) []int {
	p := pr.p
	n := pr.tl.len()
	live := pr.live
	// Range-max tree of (breadth, earliest section).
	size := 1
	for size < max(n, 1) {
		size *= 2
	}
	tree := make([]int32, 2*size) // section index of the max; -1 empty
	better := func(a, b int32) int32 {
		switch {
		case a < 0:
			return b
		case b < 0:
			return a
		case live[b] > live[a] || live[b] == live[a] && b < a:
			return b
		}
		return a
	}
	for i := range tree {
		tree[i] = -1
	}
	for s := 0; s < n; s++ {
		tree[size+s] = int32(s)
	}
	for k := size - 1; k >= 1; k-- {
		tree[k] = better(tree[2*k], tree[2*k+1])
	}
	peak := make([]int32, len(p.Buffers))
	for _, i := range pr.movable {
		best := int32(-1)
		for l, r := int(pr.first[i])+size, int(pr.last[i])+size; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				best = better(best, tree[l])
				l++
			}
			if r&1 == 1 {
				r--
				best = better(best, tree[r])
			}
		}
		peak[i] = best
	}
	bs := p.Buffers
	ks := make([]keyed, len(pr.movable))
	for n, i := range pr.movable {
		w0, w1 := -bs[i].Span(), int64(0)
		if within != nil {
			w0, w1 = within(&bs[i], int64(pr.tl.starts[peak[i]]))
		}
		ks[n] = keyed{[4]int64{-live[peak[i]], int64(peak[i]), w0, w1}, i}
	}
	return sortedIndices(ks)
}
