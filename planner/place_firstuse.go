package planner

import (
	"context"
	"slices"
	"sync/atomic"
)

// First use walks the schedule like a runtime allocator would: at each
// step the buffers that died before it give their bytes back to a free
// list (merged with free neighbours), then each buffer born at the step,
// largest first, takes the smallest free block that holds it (split, the
// rest stays free), or extends the arena's top. Unlike OxiCUDA's pool,
// blocks are split and merged, so nothing is wasted but alignment padding.
func placeFirstUse(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	pr := prepare(p, opts)
	a, err := pr.firstUse(ctx, nil)
	if err != nil {
		return Placement{}, err
	}
	return Placement{Offsets: a.offsets, Arena: ArenaOf(p, a.offsets), Order: a.order, Rule: a.rule}, nil
}

// firstUse gives up with errLost once the arena grows above *limit, if
// limit is not nil and no buffer is fixed (moving buffers off fixed ones
// at the end may lower it again).
func (pr *prepared) firstUse(ctx context.Context, limit *atomic.Int64) (answer, error) {
	if len(pr.fixed) > 0 {
		limit = nil
	}
	p := pr.p
	bs := p.Buffers
	offsets := pr.initialOffsets()
	// Ties go to the lower index (movable is in index order), as a stable
	// sort would leave them: a stable sort's merges cost O(n log² n),
	// a tenth of auto's time at 400,000 buffers.
	bk := make([]keyed, len(pr.movable))
	dk := make([]keyed, len(pr.movable))
	for n, i := range pr.movable {
		b := &bs[i]
		bk[n] = keyed{[4]int64{int64(b.Birth), -b.Span()}, i}
		dk[n] = keyed{[4]int64{int64(b.Death)}, i}
	}
	births, deaths := sortedIndices(bk), sortedIndices(dk)
	var free []span // sorted, disjoint, never touching
	var top int64
	d := 0
	for k, i := range births {
		if err := pr.pause(ctx, k); err != nil {
			return answer{}, err
		}
		b := &bs[i]
		for ; d < len(deaths) && bs[deaths[d]].Death < b.Birth; d++ {
			j := deaths[d]
			free = addSpan(free, offsets[j], bs[j].End(offsets[j]))
		}
		size := b.Span()
		best, bestLen := -1, int64(0)
		for f, s := range free {
			if p.legal(s.lo, b)+size <= s.hi && (best < 0 || s.hi-s.lo < bestLen) {
				best, bestLen = f, s.hi-s.lo
			}
		}
		var off int64
		switch {
		case best >= 0:
			s := free[best]
			off = p.legal(s.lo, b)
			free = takeSpan(free, best, off, off+size)
		case len(free) > 0 && free[len(free)-1].hi == top:
			// The topmost free block is open upwards: grow it.
			last := len(free) - 1
			off = p.legal(free[last].lo, b)
			top = off + size
			free[last].hi = top
			free = takeSpan(free, last, off, top)
		default:
			off = p.legal(top, b)
			if off > top {
				free = append(free, span{top, off})
			}
			top = off + size
		}
		offsets[i] = off
		if limit != nil && top > limit.Load() {
			return answer{}, errLost
		}
	}
	moved, err := pr.repairFixed(ctx, offsets)
	if err != nil {
		return answer{}, err
	}
	// Placed in birth order, except those moved off fixed buffers, which
	// were placed again at the end.
	order := slices.Clip(pr.fixed)
	if len(moved) == 0 {
		return answer{offsets, append(order, births...), RuleFirstUse}, nil
	}
	again := make(map[int]bool, len(moved))
	for _, i := range moved {
		again[i] = true
	}
	for _, i := range births {
		if !again[i] {
			order = append(order, i)
		}
	}
	return answer{offsets, append(order, moved...), RuleFirstUse}, nil
}

// takeSpan removes [lo, hi), which lies inside free[k], from free.
func takeSpan(free []span, k int, lo, hi int64) []span {
	s := free[k]
	switch {
	case s.lo == lo && s.hi == hi:
		return slices.Delete(free, k, k+1)
	case s.lo == lo:
		free[k].lo = hi
	case s.hi == hi:
		free[k].hi = lo
	default:
		free[k].hi = lo
		free = slices.Insert(free, k+1, span{hi, s.hi})
	}
	return free
}
