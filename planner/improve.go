package planner

import (
	"context"
	"math"
	"slices"
	"time"
)

// The improver lowers a finished plan's arena by ruin and recreate. Each
// round picks a buffer that reaches the arena and a rectangle around it:
// a window of the schedule [lo, hi] and the bytes above a floor. The
// movable buffers inside are freed and re-placed around everything else,
// which stays where it is, in one of two ways:
//
//   - window: the buffers live at some step of [lo, hi] above the floor
//     are re-placed by best fit in a few shuffled orders, around every
//     buffer they share a step with;
//   - rectangle: the buffers live only within [lo, hi] above the floor
//     go to the exact search (place_exact_search.go), which is asked,
//     within a node budget, to pack them below the arena. Nothing outside
//     the rectangle can meet them, so it is a small problem of its own.
//
// A round's result is kept only if its highest end falls, or stays with
// fewer buffers reaching it, so the arena never grows, and once no
// buffer reaches the old arena it has fallen. Work is counted in nodes
// (buffers re-placed, and the exact search's nodes), so the same problem,
// start, seed and budget give the same plan on any machine.

// improveOptions bound one improvement run.
type improveOptions struct {
	seed     uint64
	nodes    int64     // stop after this many nodes; 0 for no limit
	deadline time.Time // zero for none
}

const (
	// improveMaxFreed is the most buffers a window should re-place:
	// windows that free more shrink.
	improveMaxFreed = 2000
	// improveMaxSearched is the most buffers a rectangle hands the exact
	// search, and improveSearchNodes the search's budget for one.
	improveMaxSearched = 300
	improveSearchNodes = 20000
	// improveWorkPerNode is the work (exact.work) a rectangle's search
	// may do per node of its budget: about what a node reads on
	// MiniMalloc's instances (85 to 220).
	improveWorkPerNode = 256
	// improveTries is the number of orders a window tries.
	improveTries = 3
)

// improveOrders are the best-fit orders windows shuffle.
var improveOrders = []fitOrder{orderSpatial, orderBreadth, orderTemporal, orderArea}

// improver holds the plan being improved and what rounds reuse.
type improver struct {
	pr      *prepared
	o       improveOptions
	off     []int64
	rng     rng
	bound   int64 // stop here: no arena is lower
	nodes   int64
	ex      *exact // the exact search's shared state, for rectangles
	align   int64  // the largest alignment of a movable buffer
	byBirth []int  // buffers with span > 0, by birth
	// Scratch for a round's sub-problem.
	sub   Problem
	ids   []int  // problem index of each sub-problem buffer
	freed []int  // problem indexes of the freed buffers
	free  []bool // per problem buffer: freed this round
	keys  []float64
}

// improve lowers the arena of offsets, a valid plan for pr.p, in place
// until it reaches bound or the budget or ctx stops it. It returns the
// nodes it spent.
func (pr *prepared) improve(ctx context.Context, offsets []int64, bound int64, o improveOptions) (int64, error) {
	if len(pr.movable) == 0 {
		return 0, nil
	}
	im := &improver{pr: pr, o: o, off: offsets, rng: rng(o.seed), bound: bound,
		free: make([]bool, len(pr.p.Buffers)), align: 1}
	im.ex = &exact{ctx: ctx, opts: PlaceOptions{Yield: pr.yield}, lb: bound}
	bs := pr.p.Buffers
	for _, i := range pr.movable {
		im.align = max(im.align, bs[i].Align)
	}
	im.byBirth = append(slices.Clone(pr.movable), pr.fixed...)
	slices.SortStableFunc(im.byBirth, func(a, b int) int { return bs[a].Birth - bs[b].Birth })
	// The rectangle's reach, in steps either side of the buffer at the
	// top, and its depth below it, in bytes: both grow while rounds fail
	// and shrink when rounds free too many buffers to be cheap.
	reach := 1
	depth := float64(ArenaOf(pr.p, offsets)) / 16
	fails := 0
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return im.nodes, err
		}
		if pr.yield != nil {
			pr.yield()
		}
		if o.nodes > 0 && im.nodes >= o.nodes || !o.deadline.IsZero() && time.Now().After(o.deadline) {
			return im.nodes, nil
		}
		arena := ArenaOf(pr.p, offsets)
		if arena <= im.bound {
			return im.nodes, nil
		}
		tops := im.tops(arena)
		if len(tops) == 0 {
			return im.nodes, nil // only fixed buffers reach the arena
		}
		t := tops[im.rng.IntN(len(tops))]
		lo := bs[t].Birth - im.rng.IntN(reach+1)
		hi := bs[t].Death + im.rng.IntN(reach+1)
		floor := max(0, offsets[t]-int64(im.rng.Float64()*depth))
		var freed int
		var kept bool
		spent := im.nodes
		if im.rng.IntN(2) == 0 {
			freed, kept = im.rectangle(lo, hi, floor, arena)
		} else {
			// Buffers reaching past the window are freed too, up to a
			// random distance, with every buffer they meet as context.
			freed, kept = im.window(lo, hi, im.rng.IntN(4*reach+1), floor)
		}
		if im.nodes == spent {
			// A round that re-placed nothing (its window held no movable
			// buffer, or too many to search) costs a node all the same:
			// otherwise a plan where every round is such a round would
			// improve forever under a node budget, with no clock to stop
			// it.
			im.nodes++
		}
		switch {
		case freed > improveMaxFreed:
			reach = max(1, reach*2/3)
			depth *= 0.7
		case kept:
			fails = 0
		default:
			if fails++; fails%8 == 0 {
				reach = min(reach*3/2+1, pr.p.Steps+1)
				depth = min(depth*1.5, float64(arena))
			}
		}
	}
}

// tops returns the movable buffers whose end reaches arena.
func (im *improver) tops(arena int64) []int {
	var tops []int
	for _, i := range im.pr.movable {
		if im.pr.p.Buffers[i].End(im.off[i]) >= arena {
			tops = append(tops, i)
		}
	}
	return tops
}

// highest returns the highest end among the buffers k of sub that
// movable lists, placed at offsets, and how many reach it.
func highest(sub *Problem, movable []int, offsets []int64) (int64, int) {
	var top int64
	count := 0
	for _, k := range movable {
		switch e := sub.Buffers[k].End(offsets[k]); {
		case e > top:
			top, count = e, 1
		case e == top:
			count++
		}
	}
	return top, count
}

// window re-places, by best fit, the movable buffers live at some step
// of [lo, hi], within [lo-ext, hi+ext], that rest at or above floor,
// around every other buffer live while any of them is. It returns how
// many buffers it freed and whether it kept the result.
func (im *improver) window(lo, hi, ext int, floor int64) (int, bool) {
	bs := im.pr.p.Buffers
	im.freed = im.freed[:0]
	first, last := lo, hi // the hull of the freed buffers' lives
	for _, i := range im.byBirth {
		b := &bs[i]
		if b.Birth > hi {
			break
		}
		if b.Death < lo || b.Fixed || im.off[i] < floor || b.Birth < lo-ext || b.Death > hi+ext {
			continue
		}
		first, last = min(first, b.Birth), max(last, b.Death)
		im.freed = append(im.freed, i)
		im.free[i] = true
	}
	if len(im.freed) == 0 {
		return 0, false
	}
	im.ids = im.ids[:0]
	im.sub.Buffers = im.sub.Buffers[:0]
	for _, i := range im.byBirth {
		b := &bs[i]
		if b.Birth > last {
			break
		}
		if b.Death < first {
			continue
		}
		sb := *b
		if !im.free[i] {
			sb.Fixed, sb.Offset = true, im.off[i]
		}
		im.ids = append(im.ids, i)
		im.sub.Buffers = append(im.sub.Buffers, sb)
	}
	for _, i := range im.freed {
		im.free[i] = false
	}
	// The window keeps the problem's GPU buffer cuts: its offsets are
	// the problem's own.
	im.sub.Steps, im.sub.Alignment, im.sub.Cut = im.pr.p.Steps, im.pr.p.Alignment, im.pr.p.Cut
	spr := prepare(&im.sub, PlaceOptions{})
	cur := make([]int64, len(im.ids))
	for k, i := range im.ids {
		cur[k] = im.off[i]
	}
	oldTop, oldCount := highest(&im.sub, spr.movable, cur)
	var best []int64
	bestTop, bestCount := int64(math.MaxInt64), 0
	for try := range improveTries {
		o := improveOrders[(try+im.rng.IntN(len(improveOrders)))%len(improveOrders)]
		a, err := spr.bestFit(context.Background(), im.shuffled(spr, o))
		// Best fit sets every buffer of the window down, the ones that
		// stay as much as the freed: the work is the window's size.
		im.nodes += int64(len(im.sub.Buffers))
		if err != nil {
			return len(im.freed), false
		}
		if top, count := highest(&im.sub, spr.movable, a.offsets); top < bestTop || top == bestTop && count < bestCount {
			best, bestTop, bestCount = a.offsets, top, count
		}
	}
	if !(bestTop < oldTop || bestTop == oldTop && bestCount < oldCount) {
		return len(im.freed), false
	}
	for _, k := range spr.movable {
		im.off[im.ids[k]] = best[k]
	}
	return len(im.freed), true
}

// shuffled returns the sub-problem's movable buffers in order o, each
// moved by a random number of places.
func (im *improver) shuffled(spr *prepared, o fitOrder) []int {
	order := spr.order(o)
	im.keys = im.keys[:0]
	sigma := float64(len(order)) * 0.05 * im.rng.Float64()
	for k := range order {
		im.keys = append(im.keys, float64(k)+sigma*im.rng.noise())
	}
	idx := make([]int, len(order))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch x, y := im.keys[a], im.keys[b]; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return a - b
	})
	out := make([]int, len(order))
	for k, j := range idx {
		out[k] = order[j]
	}
	return out
}

// rectangle asks the exact search to pack the movable buffers that live
// only within steps [lo, hi] and rest at or above floor below arena,
// around the rest of the rectangle [lo, hi] × [floor, arena), and keeps
// the packing if there is one. Its buffers are shifted down by floor and
// those that stay are clipped to it. It returns how many buffers it freed
// and whether it kept the result.
func (im *improver) rectangle(lo, hi int, floor, arena int64) (int, bool) {
	bs := im.pr.p.Buffers
	floor -= floor % im.align // shifted offsets keep their alignment
	if c := im.pr.p.Cut; c > 0 {
		floor -= floor % c // and the GPU buffer cuts (c is a multiple of every alignment)
	}
	target := arena - 1 - floor
	im.ids = im.ids[:0]
	im.sub.Buffers = im.sub.Buffers[:0]
	freed := 0
	for _, i := range im.byBirth {
		b := &bs[i]
		if b.Birth > hi {
			break
		}
		off := im.off[i]
		if b.Death < lo || b.End(off) <= floor {
			continue
		}
		sb := *b
		if !b.Fixed && b.Birth >= lo && b.Death <= hi && off >= floor {
			freed++
		} else {
			bottom := max(off, floor)
			sb = Buffer{Name: b.Name, Size: b.End(off) - bottom, Birth: max(b.Birth, lo), Death: min(b.Death, hi), Align: 1, Fixed: true, Offset: bottom}
			if sb.End(bottom)-floor > target {
				return 0, false // a buffer that stays reaches the arena
			}
		}
		sb.Offset -= floor
		im.ids = append(im.ids, i)
		im.sub.Buffers = append(im.sub.Buffers, sb)
	}
	if freed == 0 || freed > improveMaxSearched {
		return freed, false
	}
	im.nodes += int64(len(im.sub.Buffers)) // setting the search up reads them all
	im.sub.Steps, im.sub.Alignment, im.sub.Cut = im.pr.p.Steps, im.pr.p.Alignment, im.pr.p.Cut
	group := make([]int, len(im.sub.Buffers))
	for k := range group {
		group[k] = k
	}
	s := newSearch(prepare(&im.sub, PlaceOptions{}), group, im.ex)
	before, beforeWork := im.ex.nodes, im.ex.work
	budget := int64(improveSearchNodes)
	if im.o.nodes > 0 {
		budget = min(budget, max(im.o.nodes-im.nodes, 1))
	}
	// A node of a rectangle cut from a long schedule reads thousands of
	// sections: the search stops at its budget in nodes or in work, and
	// costs whichever it spent more of.
	s.stopWork = beforeWork + budget*improveWorkPerNode
	found, _ := s.run(target, im.o.deadline, before+budget)
	im.nodes += max(im.ex.nodes-before, (im.ex.work-beforeWork)/improveWorkPerNode)
	if !found {
		return freed, false
	}
	for k, i := range im.ids {
		if !im.sub.Buffers[k].Fixed {
			im.off[i] = s.bestOff[k] + floor
		}
	}
	return freed, true
}

// rng is the improver's random source: splitmix64, which the exact
// search uses too, rather than math/rand, which would add to the wasm.
type rng uint64

func (r *rng) next() uint64 { return splitmix((*uint64)(r)) }

// IntN returns a number in [0, n), n > 0.
func (r *rng) IntN(n int) int { return int(r.next() % uint64(n)) }

// Float64 returns a number in [0, 1).
func (r *rng) Float64() float64 { return float64(r.next()>>11) / (1 << 53) }

// noise returns a number of mean 0 and variance 1, roughly normal: the
// sum of three uniforms, scaled.
func (r *rng) noise() float64 { return (r.Float64() + r.Float64() + r.Float64() - 1.5) * 2 }
