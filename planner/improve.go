package planner

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// The improver lowers a finished plan's arena by ruin and recreate. Each
// round frees some movable buffers and places them again around the rest,
// by one of two local moves or one of the global ones:
//
//   - window: around a buffer that reaches the arena, the buffers live
//     at some step of a window of the schedule [lo, hi] above a floor are
//     re-placed by best fit in a few shuffled orders, around every buffer
//     they share a step with;
//   - rectangle: the buffers live only within [lo, hi] above the floor
//     go to the exact search (place_exact_search.go), which is asked,
//     within a node budget, to pack them below the arena. Nothing outside
//     the rectangle can meet them, so it is a small problem of its own;
//   - band and column: the whole plan is placed again, the chosen group
//     first, then all the others, each group in the order of its
//     current offsets, by first or best fit. The group is the buffers
//     that cross a band of bytes (band), or that are live at one step of
//     a top buffer and reach above a floor (column); it goes first of
//     all, or (the "at" moves) right after the buffers wholly below it.
//     Placed in offset order, the others fall back to about where they
//     were, while the group, packed first, loses the holes between its
//     buffers. Local moves cannot do that where the waste sits between
//     long-lived buffers (weights, activations kept for the backward
//     pass): any window that frees them frees most of the plan.
//
// A local round's result is kept only if its highest end falls, or stays
// with fewer buffers reaching it; a global one if the arena does not grow
// and no more buffers reach it (an answer as good moves the search along
// a plateau). Which move runs is drawn so that each gets nodes in
// proportion to the rounds it made better per node so far: the work goes
// where it pays on this problem. A run that has not lowered its arena for
// long kicks its plan to another one at most 1 % worse, packing a large
// group first, and goes back to the best plan when that leads nowhere;
// the plan it returns is the best it found, so the arena never grows.
// Work is counted in nodes (buffers placed or set as context, a round's
// scan, the exact search's nodes weighted by the rectangle's size), so
// the same problem, start, seed and budget give the same plan on any
// machine.

// improveOptions bound one improvement run.
type improveOptions struct {
	seed     uint64
	nodes    int64     // stop after this many nodes; 0 for no limit
	deadline time.Time // zero for none
	// progress, if not nil, hears the smallest arena so far and the nodes
	// spent, once every improveReportEvery.
	progress func(best, nodes int64)
	// checkpoint, if not nil, is asked at the first round at or past
	// each multiple of checkEvery nodes whether to stop (a race,
	// race.go), given the smallest arena so far, the nodes spent since it
	// was first reached, the nodes spent, and the plan the run returns if
	// it stops there (only to read, before it returns).
	checkEvery int64
	checkpoint func(best, stalled, nodes int64, plan []int64) bool
}

// improveReportEvery is how often a run with progress reports: a
// variable, so that a test can hear every round.
var improveReportEvery = time.Second

const (
	// improveMaxFreed is the most buffers a window should re-place:
	// windows that free more shrink.
	improveMaxFreed = 2000
	// improveMaxSearched is the most buffers a rectangle hands the exact
	// search, and improveSearchNodes the search's budget for one.
	improveMaxSearched = 300
	improveSearchNodes = 20000
	// improveSearchWeight is how many sections a rectangle's buffers
	// live in, summed, add one to what a search node is charged.
	improveSearchWeight = 1024
	improveMaxWeight    = 16
	// A run that has not lowered its best arena for improveStall nodes
	// per buffer, and at least improveMinStall, kicks its plan.
	improveStall    = 40
	improveMinStall = 200_000
	// improveTries is the number of orders a window tries.
	improveTries = 3
	// improveScanCost is how many buffers a round scans per node it is
	// charged: scanning is cheap, but not free on large problems.
	improveScanCost = 64
)

// improveOrders are the best-fit orders windows shuffle.
var improveOrders = []fitOrder{orderSpatial, orderBreadth, orderTemporal, orderArea}

// The moves.
const (
	moveRectangle = iota
	moveWindow
	moveBand     // the group first
	moveColumn   // the group first
	moveBandAt   // the group after what is below it
	moveColumnAt // the group after what is below it
	moveCount
	moveKick // not drawn: see improve
)

// moveStats is what one move has spent and kept.
type moveStats struct {
	rounds, kept int64
	nodes        int64
}

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
	maxLife int    // the longest life among them, in steps
	// The plan's arena, the movable buffers that reach it, and the
	// movable buffers by offset; stale after a kept round.
	arena int64
	tops  []int
	byOff []int
	stale bool
	stats [moveCount]moveStats
	limit atomic.Int64 // a global round's arena to beat
	// Scratch for a round's sub-problem.
	sub   Problem
	ids   []int  // problem index of each sub-problem buffer
	freed []int  // problem indexes of the freed buffers
	free  []bool // per problem buffer: freed this round
	keys  []float64
	order []int
	// Occupancies kept between rounds: a window's fixed buffers, and
	// the tree a placement fills.
	fixedOcc, occ occupancy
}

// improve lowers the arena of offsets, a valid plan for pr.p, in place
// until it reaches bound or the budget or ctx stops it. It returns the
// nodes it spent.
func (pr *prepared) improve(ctx context.Context, offsets []int64, bound int64, o improveOptions) (int64, error) {
	if len(pr.movable) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// An answer at the bound is done: the setup below, a stable sort of
	// every buffer by birth, cost a plan of Y_1 7-13 ms in wasm for nothing.
	if ArenaOf(pr.p, offsets) <= bound {
		return 0, nil
	}
	im := &improver{pr: pr, o: o, off: offsets, rng: rng(o.seed), bound: bound,
		free: make([]bool, len(pr.p.Buffers)), align: 1, stale: true}
	im.ex = &exact{ctx: ctx, opts: PlaceOptions{Yield: pr.yield}, lb: bound}
	bs := pr.p.Buffers
	for _, i := range pr.movable {
		im.align = max(im.align, bs[i].Align)
	}
	// Ties in the order given (movable, then fixed, each by index), as a
	// stable sort would leave them, in O(n log n).
	ks := make([]keyed, 0, len(pr.movable)+len(pr.fixed))
	for _, i := range append(slices.Clone(pr.movable), pr.fixed...) {
		fixed := int64(0)
		if bs[i].Fixed {
			fixed = 1
		}
		ks = append(ks, keyed{[4]int64{int64(bs[i].Birth), fixed}, i})
	}
	im.byBirth = sortedIndices(ks)
	for _, i := range im.byBirth {
		im.maxLife = max(im.maxLife, bs[i].Death-bs[i].Birth)
	}
	// A global round places every buffer again: it is stopped by the
	// deadline as well as between rounds, and then thrown away.
	gctx := ctx
	if !o.deadline.IsZero() {
		var cancel context.CancelFunc
		gctx, cancel = context.WithDeadline(ctx, o.deadline)
		defer cancel()
	}
	// The rectangle's reach, in steps either side of the buffer at the
	// top, and its depth below it, in bytes: both grow while rounds fail
	// and shrink when rounds free too many buffers to be cheap.
	reach := 1
	depth := float64(ArenaOf(pr.p, offsets)) / 16
	fails := 0
	// The best plan so far, kept apart once a kick (below) has left it.
	best, bestArena, gained := []int64(nil), ArenaOf(pr.p, offsets), int64(0)
	lowered, check := int64(0), o.checkEvery // when bestArena was reached; the next checkpoint
	defer func() {
		if best != nil && ArenaOf(pr.p, offsets) > bestArena {
			copy(offsets, best)
		}
	}()
	reported := time.Now()
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
		if im.stale {
			im.refresh()
		}
		arena := im.arena
		if arena <= im.bound {
			return im.nodes, nil
		}
		if len(im.tops) == 0 {
			return im.nodes, nil // only fixed buffers reach the arena
		}
		if arena < bestArena {
			bestArena, gained, lowered = arena, im.nodes, im.nodes
			if best != nil {
				copy(best, offsets)
			}
		}
		for o.checkpoint != nil && im.nodes >= check {
			check += o.checkEvery
			plan := offsets // as the deferred copy leaves it
			if best != nil && arena > bestArena {
				plan = best
			}
			if o.checkpoint(bestArena, im.nodes-lowered, im.nodes, plan) {
				return im.nodes, nil
			}
		}
		if o.progress != nil && time.Since(reported) >= improveReportEvery {
			reported = time.Now()
			o.progress(bestArena, im.nodes)
		}
		// Stuck for long: kick the plan to another one about as good,
		// from which the moves may find what they cannot from here, and
		// go back to the best if that leads nowhere either.
		if im.nodes-gained > max(improveStall*int64(len(bs)), improveMinStall) && im.globalAllowed() {
			if best == nil {
				best = slices.Clone(offsets)
			} else if arena > bestArena {
				copy(offsets, best)
				im.refresh()
			}
			for range 3 {
				if kept, _ := im.global(gctx, moveKick); kept {
					break
				}
			}
			im.stale, gained = true, im.nodes
			continue
		}
		move := im.pick()
		before := im.nodes
		var freed int
		var kept, better bool
		switch move {
		case moveBand, moveColumn, moveBandAt, moveColumnAt:
			kept, better = im.global(gctx, move)
		default:
			t := im.tops[im.rng.IntN(len(im.tops))]
			lo := bs[t].Birth - im.rng.IntN(reach+1)
			hi := bs[t].Death + im.rng.IntN(reach+1)
			floor := max(0, offsets[t]-int64(im.rng.Float64()*depth))
			if move == moveRectangle {
				freed, kept = im.rectangle(lo, hi, floor, arena)
			} else {
				// Buffers reaching past the window are freed too, up to a
				// random distance, with every buffer they meet as context.
				freed, kept = im.window(lo, hi, im.rng.IntN(4*reach+1), floor)
			}
			better = kept
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
		im.nodes = max(im.nodes, before+1) // every round costs something
		st := &im.stats[move]
		st.rounds++
		st.nodes += im.nodes - before
		if better {
			st.kept++
		}
		im.stale = im.stale || kept
	}
}

// liveFrom returns the buffers by birth from the first that can be live
// at step lo: those born before lo-maxLife died before it.
func (im *improver) liveFrom(lo int) []int {
	bs := im.pr.p.Buffers
	k, _ := slices.BinarySearchFunc(im.byBirth, lo-im.maxLife, func(i, birth int) int { return bs[i].Birth - birth })
	return im.byBirth[k:]
}

// refresh finds the arena, the buffers that reach it and the order by
// offset again, after a round changed the plan.
func (im *improver) refresh() {
	bs := im.pr.p.Buffers
	im.arena = ArenaOf(im.pr.p, im.off)
	im.tops = im.tops[:0]
	for _, i := range im.pr.movable {
		if bs[i].End(im.off[i]) >= im.arena {
			im.tops = append(im.tops, i)
		}
	}
	im.byOff = im.byOff[:0]
	im.stale = false
}

// sortByOff lists the movable buffers by offset, for a global round.
func (im *improver) sortByOff() {
	if len(im.byOff) > 0 {
		return
	}
	im.byOff = append(im.byOff, im.pr.movable...)
	slices.SortFunc(im.byOff, func(a, b int) int {
		if c := cmpInt64(im.off[a], im.off[b]); c != 0 {
			return c
		}
		return a - b
	})
}

// pick draws the next move so that each gets nodes in proportion to the
// rounds it kept per node so far, and never less than a fortieth of them:
// what pays on this problem gets the work. A move's chance per round is
// that share over what its rounds cost. Each move runs once first, and
// counts as having kept a fifth of a round more than it has.
func (im *improver) pick() int {
	global := im.globalAllowed()
	for m := range moveCount {
		if im.stats[m].rounds == 0 && (global || m < moveBand) {
			return m // each move once first
		}
	}
	n := float64(len(im.pr.p.Buffers))
	var w, cost [moveCount]float64
	var total float64
	for m := range moveCount {
		st := &im.stats[m]
		cost[m] = n
		if m < moveBand {
			cost[m] = min(n, improveMaxFreed)
		}
		w[m] = (float64(st.kept) + 0.2) / (float64(st.nodes) + cost[m])
		if st.rounds > 0 {
			cost[m] = float64(st.nodes) / float64(st.rounds)
		}
		total += w[m]
	}
	var sum float64
	for m := range moveCount {
		w[m] = max(w[m], total/40) / max(cost[m], 1)
		if !global && m >= moveBand {
			w[m] = 0
		}
		sum += w[m]
	}
	x := im.rng.Float64() * sum
	for m := range moveCount {
		if x < w[m] {
			return m
		}
		x -= w[m]
	}
	return moveWindow
}

// globalAllowed reports whether a global round may run. It places every
// buffer: on a problem larger than a tenth of what is left of the budget
// it would spend most of it at once, so only local rounds run there.
func (im *improver) globalAllowed() bool {
	return im.o.nodes <= 0 || 10*int64(len(im.pr.p.Buffers)) <= im.o.nodes-im.nodes
}

// global places every buffer again: first the chosen group, then the
// rest, each in the order of its current offsets, by first or best fit.
// The group is the buffers that cross a band of bytes (moveBand: the
// top band or one anywhere, of 0.2 to 5 % of the arena) or those live at
// one step of a top buffer that reach above a floor (moveColumn). It
// keeps the result if the arena does not grow and no more buffers reach
// it, and reports whether it kept it and whether that was better: an
// answer as good moves the search along a plateau.
func (im *improver) global(ctx context.Context, move int) (kept, better bool) {
	pr := im.pr
	bs := pr.p.Buffers
	arena := im.arena
	in := im.free // marks the group; cleared before returning
	var group int
	var floor int64 // the group's lowest byte
	var slack int64 // how much the arena may grow: for a kick, 1 %
	if move == moveKick {
		// A kick packs a large group first: a whole column at a step of
		// a top buffer, or a tenth to a third of the bytes.
		slack = arena / 100
		if im.rng.IntN(2) == 0 {
			move = moveColumn
		} else {
			move = moveBand
		}
	}
	if move == moveBand || move == moveBandAt {
		w := int64((0.002 + 0.05*im.rng.Float64()) * float64(arena))
		if slack > 0 {
			w = int64((0.1 + 0.23*im.rng.Float64()) * float64(arena))
		}
		floor = arena - w
		if im.rng.IntN(2) == 0 {
			floor = int64(im.rng.Float64() * float64(arena-w))
		}
		for _, i := range pr.movable {
			if bs[i].End(im.off[i]) > floor && im.off[i] < floor+w {
				in[i] = true
				group++
			}
		}
	} else {
		if len(im.tops) == 0 {
			return false, false // only fixed buffers reach the arena
		}
		t := &bs[im.tops[im.rng.IntN(len(im.tops))]]
		step := t.Birth + im.rng.IntN(t.Death-t.Birth+1)
		if slack == 0 {
			floor = int64(im.rng.Float64() * float64(arena))
		}
		for _, i := range im.liveFrom(step) {
			b := &bs[i]
			if b.Birth > step {
				break
			}
			if b.Death >= step && !b.Fixed && b.End(im.off[i]) > floor {
				in[i] = true
				group++
			}
		}
	}
	im.sortByOff()
	// Placed at, the buffers wholly below the group go first, so that
	// the group packs about where it is; else it packs from the bottom.
	below := int64(0)
	if move == moveBandAt || move == moveColumnAt {
		below = floor
	}
	im.order = im.order[:0]
	for _, i := range im.byOff {
		if !in[i] && bs[i].End(im.off[i]) <= below {
			im.order = append(im.order, i)
		}
	}
	for _, i := range im.byOff {
		if in[i] {
			im.order = append(im.order, i)
		}
	}
	for _, i := range im.byOff {
		if !in[i] && bs[i].End(im.off[i]) > below {
			im.order = append(im.order, i)
		}
		in[i] = false
	}
	gap := bestGap
	if im.rng.IntN(2) == 0 {
		gap = firstGap
	}
	im.nodes += int64(len(im.byBirth)) / improveScanCost
	if group == 0 {
		return false, false
	}
	// A round that puts a buffer above the arena is lost: it stops there.
	im.limit.Store(arena + slack)
	a, placed, err := pr.fitOn(ctx, pr.fixedOccupancy(&im.occ), im.order, gap, &im.limit)
	im.nodes += int64(len(pr.fixed) + placed)
	if err != nil {
		return false, false // above the arena, or out of time
	}
	top := ArenaOf(pr.p, a.offsets)
	count := 0
	if top == arena && slack == 0 {
		for _, i := range pr.movable {
			if bs[i].End(a.offsets[i]) >= arena {
				count++
			}
		}
		if count > len(im.tops) {
			return false, false
		}
	}
	copy(im.off, a.offsets)
	return true, top < arena || count < len(im.tops)
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
	scanned := 0
	for _, i := range im.liveFrom(lo) {
		b := &bs[i]
		if b.Birth > hi {
			break
		}
		scanned++
		if b.Death < lo || b.Fixed || im.off[i] < floor || b.Birth < lo-ext || b.Death > hi+ext {
			continue
		}
		first, last = min(first, b.Birth), max(last, b.Death)
		im.freed = append(im.freed, i)
		im.free[i] = true
	}
	im.nodes += int64(scanned / improveScanCost)
	if len(im.freed) == 0 || len(im.freed) > improveMaxFreed {
		for _, i := range im.freed {
			im.free[i] = false
		}
		return len(im.freed), false
	}
	im.ids = im.ids[:0]
	im.sub.Buffers = im.sub.Buffers[:0]
	for _, i := range im.liveFrom(first) {
		b := &bs[i]
		if b.Birth > last {
			break
		}
		scanned++
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
	spr.fixedOccupancy(&im.fixedOcc)
	for try := range improveTries {
		o := improveOrders[(try+im.rng.IntN(len(improveOrders)))%len(improveOrders)]
		im.occ.copyFrom(&im.fixedOcc)
		a, _, err := spr.fitOn(context.Background(), &im.occ, im.shuffled(spr, o), bestGap, nil)
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
	slices.SortFunc(idx, func(a, b int) int { // a total order: no need to be stable
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
	freed, scanned := 0, 0
	defer func() { im.nodes += int64(scanned / improveScanCost) }()
	for _, i := range im.liveFrom(lo) {
		b := &bs[i]
		if b.Birth > hi {
			break
		}
		scanned++
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
	if freed == 0 || freed > improveMaxSearched || len(im.sub.Buffers) > 4*improveMaxSearched {
		return freed, false
	}
	im.nodes += int64(len(im.sub.Buffers))
	im.sub.Steps, im.sub.Alignment, im.sub.Cut = im.pr.p.Steps, im.pr.p.Alignment, im.pr.p.Cut
	group := make([]int, len(im.sub.Buffers))
	for k := range group {
		group[k] = k
	}
	spr := prepare(&im.sub, PlaceOptions{})
	// A search node's bounds read every section of the rectangle and
	// the buffers live there: it is charged in proportion, and a
	// rectangle where that is too much to search far is left alone.
	var work int64
	for k := range im.sub.Buffers {
		work += int64(spr.last[k] - spr.first[k])
	}
	weight := 1 + work/improveSearchWeight
	if weight > improveMaxWeight {
		return freed, false
	}
	s := newSearch(spr, group, im.ex)
	before := im.ex.nodes
	budget := int64(improveSearchNodes)
	if im.o.nodes > 0 {
		budget = min(budget, max((im.o.nodes-im.nodes)/weight, 1))
	}
	found, _ := s.run(target, im.o.deadline, before+budget)
	im.nodes += (im.ex.nodes - before) * weight
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
