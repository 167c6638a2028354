package planner

import (
	"context"
	"fmt"
	"slices"
)

// referenceLimit bounds the reference strategy: it is cubic, and beyond a
// few thousand buffers it would run for minutes.
const referenceLimit = 20000

// placeReference is the seed planner (REFERENCE R1): buffers by size,
// largest first; each takes the lowest candidate offset (0 or the end of a
// placed buffer, rounded up to its alignment) whose bytes, guard included,
// meet no placed buffer live at a common step.
func placeReference(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	n := len(p.Buffers)
	if n > referenceLimit {
		return Placement{}, fmt.Errorf("%d buffers is too many for this O(n^3) strategy (limit %d); use auto", n, referenceLimit)
	}
	offsets := make([]int64, n)
	order := make([]int, 0, n)
	var placed []int // fixed first, then in order: the placement order
	for i := range p.Buffers {
		b := &p.Buffers[i]
		switch {
		case b.Fixed:
			offsets[i] = b.Offset
			placed = append(placed, i)
		case b.Span() > 0:
			order = append(order, i)
		}
	}
	// Stable: equal sizes keep schedule order, as the seed's sort did.
	slices.SortStableFunc(order, func(a, b int) int { return cmpInt64(p.Buffers[b].Size, p.Buffers[a].Size) })
	for k, i := range order {
		if k%64 == 0 {
			opts.yield()
		}
		if k%64 == 0 && ctx.Err() != nil {
			return Placement{}, ctx.Err()
		}
		b := &p.Buffers[i]
		fits := func(off int64) bool {
			for _, j := range placed {
				o := &p.Buffers[j]
				if o.Span() > 0 && b.Overlaps(o) && off < o.End(offsets[j]) && offsets[j] < b.End(off) {
					return false
				}
			}
			return true
		}
		best := int64(-1)
		consider := func(off int64) {
			off = p.legal(off, b)
			if (best < 0 || off < best) && fits(off) {
				best = off
			}
		}
		consider(0)
		var top int64
		for _, j := range placed {
			consider(p.Buffers[j].End(offsets[j]))
			top = max(top, p.Buffers[j].End(offsets[j]))
		}
		if best < 0 { // unreachable: the top is always free, kept for safety
			best = p.legal(top, b)
		}
		offsets[i] = best
		placed = append(placed, i)
	}
	return Placement{Offsets: offsets, Order: slices.DeleteFunc(placed, func(j int) bool { return p.Buffers[j].Span() == 0 }), Rule: RuleFirstFit}, nil
}

// placeNoReuse lays every buffer after the previous one, in schedule
// order, above any fixed buffers: the arena with no sharing at all.
func placeNoReuse(_ context.Context, p *Problem, _ PlaceOptions) (Placement, error) {
	offsets := make([]int64, len(p.Buffers))
	var order, rest []int
	var end int64
	for i := range p.Buffers {
		switch b := &p.Buffers[i]; {
		case b.Span() == 0:
		case b.Fixed:
			offsets[i] = b.Offset
			end = max(end, b.End(b.Offset))
			order = append(order, i)
		default:
			rest = append(rest, i)
		}
	}
	for _, i := range rest {
		b := &p.Buffers[i]
		offsets[i] = p.legal(end, b)
		end = b.End(offsets[i])
	}
	return Placement{Offsets: offsets, Order: append(order, rest...), Rule: RuleStack}, nil
}
