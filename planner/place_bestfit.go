package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// fitOrder is the order in which best-fit visits buffers.
type fitOrder int

const (
	// orderSpatial: largest first, then longest lived (XLA's default).
	orderSpatial fitOrder = iota
	// orderTemporal: longest lived first, then largest.
	orderTemporal
	// orderArea: largest size × lifetime first.
	orderArea
	// orderBreadth: buffers of the busiest step first (TFLite's greedy by
	// breadth), largest first within a step.
	orderBreadth
	// orderSize: by size alone, largest first, as the seed planner sorts.
	orderSize
	// orderBreadthNewest: breadth, and among buffers of one size the one
	// born last first. On the idealloc traces the buffers born last at
	// the peak are the first to die after it, so they end on top of the
	// stack, where their bytes free up as one block (PanGu-α reaches its
	// lower bound this way, breadth alone 0.76 % above it).
	orderBreadthNewest
	// orderBreadthDying: breadth, the buffers of one section by death,
	// first to die first (ResNet-50's SOMAS trace reaches its bound).
	orderBreadthDying
	// orderBreadthOldest: breadth, the buffers of one section by birth,
	// oldest first, so at the bottom. Buffers born together then sit
	// together, and where lives nest (a training step's activations,
	// kept from the forward pass to the backward) the ones still live
	// at a step form one block: on the IOPDDL traces where the busiest
	// steps hold thousands of long-lived buffers, breadth by size leaves
	// holes between them.
	orderBreadthOldest
	// orderBreadthLasting: breadth, the buffers of one section by death,
	// the last to die first: those that die together sit together, and
	// their bytes come free as one block.
	orderBreadthLasting
	// orderPeaksDying: where the busiest steps lie far apart, the
	// buffers live at several of them first (place_peaks.go), by breadth
	// dying, then the others by breadth; nil where they do not.
	orderPeaksDying
	// orderPeaksLasting: the same, the buffers at the peaks by breadth
	// lasting, so that at each peak those that stay longest sit at the
	// bottom, next to the block of those live at several; then the
	// others largest first: once every peak is packed, the rest fills
	// the bytes the peaks leave, where breadth's busiest sections no
	// longer say much.
	orderPeaksLasting
)

var fitOrderNames = [...]string{"spatial", "temporal", "area", "breadth", "size", "breadth newest", "breadth dying", "breadth oldest", "breadth lasting", "peaks dying", "peaks lasting"}

func (o fitOrder) String() string { return fitOrderNames[o] }

// prepared is what every strategy derives from a Problem once: the
// sections each buffer covers and the buffers to place.
type prepared struct {
	p        *Problem
	tl       timeline
	first    []int32      // first section of each buffer
	last     []int32      // one past its last section
	movable  []int        // buffers to place: not fixed, span > 0
	fixed    []int        // fixed buffers with span > 0
	yield    func()       // the caller's Yield hook, or nil
	progress func(string) // the caller's Progress hook, or nil
	// reportImprove: the improve strategy, whose one long run reports as
	// it goes (auto's slices report their steps instead).
	reportImprove bool
	live          []int64 // bytes live in each section, and a zero after the last
}

// sectionLive sums the bytes live in each section: the lower bound and
// breadth's order both read it.
func (pr *prepared) sectionLive() []int64 {
	n := pr.tl.len()
	live := make([]int64, n+1)
	for i := range pr.p.Buffers {
		if b := &pr.p.Buffers[i]; b.Span() > 0 {
			live[pr.first[i]] += b.Span()
			live[pr.last[i]] -= b.Span()
		}
	}
	for s := 1; s <= n; s++ {
		live[s] += live[s-1]
	}
	return live
}

// lowerBound is LowerBound(pr.p), from the section profile.
func (pr *prepared) lowerBound() int64 {
	var lb int64
	for _, b := range pr.live {
		lb = max(lb, b)
	}
	return lb
}

// report tells the caller's Progress hook, if any, what a placement is
// doing.
func (pr *prepared) report(format string, args ...any) {
	if pr.progress != nil {
		pr.progress(fmt.Sprintf(format, args...))
	}
}

// pause lets the caller's other work run every 256 buffers (the browser's
// event loop, in wasm) and reports cancellation.
func (pr *prepared) pause(ctx context.Context, k int) error {
	if k&255 != 255 {
		return nil
	}
	if pr.yield != nil {
		pr.yield()
	}
	return ctx.Err()
}

func prepare(p *Problem, opts PlaceOptions) *prepared {
	pr := &prepared{p: p, first: make([]int32, len(p.Buffers)), last: make([]int32, len(p.Buffers)), yield: opts.Yield, progress: opts.Progress}
	// The sections' starts are the distinct births and ends (one past
	// the deaths); a buffer's first and last sections are the ranks of
	// its own, found by the one sort.
	pts := make([]int64, 0, 2*len(p.Buffers))
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Span() > 0 {
			pts = append(pts, int64(b.Birth), int64(b.Death)+1)
		}
	}
	ranks, starts := denseRanks(pts)
	pr.tl.starts = make([]int, len(starts))
	for k, s := range starts {
		pr.tl.starts[k] = int(s)
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Span() == 0 {
			continue
		}
		pr.first[i], pr.last[i], ranks = ranks[0], ranks[1], ranks[2:]
		if b.Fixed {
			pr.fixed = append(pr.fixed, i)
		} else {
			pr.movable = append(pr.movable, i)
		}
	}
	pr.live = pr.sectionLive()
	return pr
}

// initialOffsets puts fixed buffers at their offsets and the rest at 0.
func (pr *prepared) initialOffsets() []int64 {
	offsets := make([]int64, len(pr.p.Buffers))
	for i := range pr.p.Buffers {
		if b := &pr.p.Buffers[i]; b.Fixed {
			offsets[i] = b.Offset
		}
	}
	return offsets
}

func lifetime(b *Buffer) int64 { return int64(b.Death-b.Birth) + 1 }

// order returns the movable buffers in the given order; ties fall back to
// the buffer index, so the result is deterministic.
func (pr *prepared) order(o fitOrder) []int {
	bs := pr.p.Buffers
	var key func(b *Buffer) (int64, int64) // smallest first
	switch o {
	case orderSpatial:
		key = func(b *Buffer) (int64, int64) { return -b.Span(), -lifetime(b) }
	case orderTemporal:
		key = func(b *Buffer) (int64, int64) { return -lifetime(b), -b.Span() }
	case orderArea:
		return pr.areaOrder()
	case orderBreadth:
		return pr.breadthOrder(nil)
	case orderBreadthNewest:
		// Largest first, then the newest.
		return pr.breadthOrder(func(b *Buffer, at int64) (int64, int64) { return -b.Span(), at - int64(b.Birth) })
	case orderBreadthDying:
		return pr.breadthOrder(func(b *Buffer, at int64) (int64, int64) { return int64(b.Death) - at, -b.Span() })
	case orderBreadthOldest:
		return pr.breadthOrder(func(b *Buffer, at int64) (int64, int64) { return int64(b.Birth) - at, -b.Span() })
	case orderBreadthLasting:
		return pr.breadthOrder(func(b *Buffer, at int64) (int64, int64) { return at - int64(b.Death), -b.Span() })
	case orderSize:
		key = func(b *Buffer) (int64, int64) { return -b.Size, 0 }
	case orderPeaksDying:
		return pr.peaksFirst(pr.order(orderBreadthDying), pr.order(orderBreadth))
	case orderPeaksLasting:
		return pr.peaksFirst(pr.order(orderBreadthLasting), pr.order(orderSpatial))
	}
	// Ties go to the lower index, as a stable sort of the index-ordered
	// movable list would.
	ks := make([]keyed, len(pr.movable))
	for n, i := range pr.movable {
		k0, k1 := key(&bs[i])
		ks[n] = keyed{[4]int64{k0, k1}, i}
	}
	return sortedIndices(ks)
}

// areaOrder is order by area (span × lifetime), largest first, then
// largest span, then by index; the area as a float64, since it can pass
// 2^63 for large CSVs.
func (pr *prepared) areaOrder() []int {
	bs := pr.p.Buffers
	ord := slices.Clone(pr.movable)
	area := func(i int) float64 { return float64(bs[i].Span()) * float64(lifetime(&bs[i])) }
	slices.SortFunc(ord, func(a, b int) int {
		if x, y := area(a), area(b); x != y {
			if x > y {
				return -1
			}
			return 1
		}
		if c := cmpInt64(bs[b].Span(), bs[a].Span()); c != 0 {
			return c
		}
		return a - b
	})
	return ord
}

// answer is a one-at-a-time strategy's result: the offsets, and the
// buffers in the order it placed them, fixed ones first.
type answer struct {
	offsets []int64
	order   []int
	rule    string // Placement.Rule
}

// bestFit places the buffers in the given order, each in the smallest free
// gap among the bytes taken while it lives (lowest on ties), else on top
// of them. Fixed buffers are placed first, where they must be.
func (pr *prepared) bestFit(ctx context.Context, order []int) (answer, error) {
	return pr.bestFitUnder(ctx, order, nil)
}

// bestFitUnder is bestFit that gives up with errLost once a buffer ends
// above *limit, if limit is not nil.
func (pr *prepared) bestFitUnder(ctx context.Context, order []int, limit *atomic.Int64) (answer, error) {
	a, _, err := pr.fitUnder(ctx, order, bestGap, limit)
	a.rule = RuleBestFit
	return a, err
}

// fit places the buffers in order, each where gap chooses among the bytes
// taken while it lives.
func (pr *prepared) fit(ctx context.Context, order []int, gap func(taken []span, size, align, cut int64) int64) (answer, error) {
	a, _, err := pr.fitUnder(ctx, order, gap, nil)
	return a, err
}

// errLost stops a placement that went above an arena it is measured
// against (another member's, or the plan an improving round must beat):
// it cannot win, so the rest of its work would be wasted.
var errLost = errors.New("above the arena to beat")

// fitUnder is fit that gives up with errLost once a buffer ends above
// *limit, if limit is not nil (it may fall while fit runs). It also
// returns how many buffers it placed.
func (pr *prepared) fitUnder(ctx context.Context, order []int, gap func(taken []span, size, align, cut int64) int64, limit *atomic.Int64) (answer, int, error) {
	return pr.fitOn(ctx, pr.fixedOccupancy(nil), order, gap, limit)
}

// fixedOccupancy returns occ, or a new occupancy if it is nil, holding
// just the fixed buffers.
func (pr *prepared) fixedOccupancy(occ *occupancy) *occupancy {
	if occ == nil {
		occ = &occupancy{}
	}
	occ.reset(pr.tl.len())
	for _, i := range pr.fixed {
		b := &pr.p.Buffers[i]
		occ.insert(int(pr.first[i]), int(pr.last[i]), b.Offset, b.End(b.Offset))
	}
	return occ
}

// fitOn is fitUnder on occ, which holds the fixed buffers already (from
// fixedOccupancy, or a copy of one): the improver's windows place the
// same fixed buffers once for several orders.
func (pr *prepared) fitOn(ctx context.Context, occ *occupancy, order []int, gap func(taken []span, size, align, cut int64) int64, limit *atomic.Int64) (answer, int, error) {
	p := pr.p
	offsets := pr.initialOffsets()
	// What the loop reads of each buffer, gathered in order first: read
	// where it lies, each buffer was a few cache misses one after another
	// on a large problem, and gathered they overlap.
	type fitJob struct {
		l, r        int32
		span, align int64
	}
	jobs := make([]fitJob, len(order))
	for k, i := range order {
		jobs[k] = fitJob{pr.first[i], pr.last[i], p.Buffers[i].Span(), p.Buffers[i].Align}
	}
	for k, i := range order {
		if err := pr.pause(ctx, k); err != nil {
			return answer{}, k, err
		}
		jb := &jobs[k]
		l, r := int(jb.l), int(jb.r)
		off := gap(occ.taken(l, r), jb.span, jb.align, p.Cut)
		if limit != nil && off+jb.span > limit.Load() {
			return answer{}, k + 1, errLost
		}
		offsets[i] = off
		occ.insert(l, r, off, off+jb.span)
	}
	return answer{offsets: offsets, order: append(slices.Clip(pr.fixed), order...)}, len(order), nil
}

// placeBestFitOrder returns the best-fit strategy for one order.
func placeBestFitOrder(o fitOrder) func(context.Context, *Problem, PlaceOptions) (Placement, error) {
	return func(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
		pr := prepare(p, opts)
		a, err := pr.bestFit(ctx, pr.order(o))
		if err != nil {
			return Placement{}, err
		}
		return Placement{Offsets: a.offsets, Arena: ArenaOf(p, a.offsets), Detail: "order " + o.String(), Order: a.order, Rule: a.rule}, nil
	}
}

// placeBestFit is XLA's global decreasing-size best fit. (A function:
// a variable holding the closure would link best fit into every program
// that imports the package.)
func placeBestFit(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	return placeBestFitOrder(orderSpatial)(ctx, p, opts)
}

// repairFixed moves the buffers that a fixed-blind strategy put on top of
// a fixed buffer: they are re-placed, largest first, by best fit around
// everything else. Strategies that walk the schedule with a free list use
// it rather than teaching the free list about reserved bytes. It returns
// the moved buffers in the order it re-placed them.
func (pr *prepared) repairFixed(ctx context.Context, offsets []int64) ([]int, error) {
	if len(pr.fixed) == 0 {
		return nil, nil
	}
	p := pr.p
	occ := newOccupancy(pr.tl.len())
	for _, i := range pr.fixed {
		b := &p.Buffers[i]
		occ.insert(int(pr.first[i]), int(pr.last[i]), b.Offset, b.End(b.Offset))
	}
	var moved, kept []int
	for _, i := range pr.movable {
		b := &p.Buffers[i]
		if spansMeet(occ.taken(int(pr.first[i]), int(pr.last[i])), offsets[i], b.End(offsets[i])) {
			moved = append(moved, i)
		} else {
			kept = append(kept, i)
		}
	}
	if len(moved) == 0 {
		return nil, nil
	}
	for _, i := range kept {
		b := &p.Buffers[i]
		occ.insert(int(pr.first[i]), int(pr.last[i]), offsets[i], b.End(offsets[i]))
	}
	bs := p.Buffers
	slices.SortStableFunc(moved, func(a, b int) int { return cmpInt64(bs[b].Span(), bs[a].Span()) })
	for k, i := range moved {
		if err := pr.pause(ctx, k); err != nil {
			return nil, err
		}
		b := &p.Buffers[i]
		l, r := int(pr.first[i]), int(pr.last[i])
		offsets[i] = bestGap(occ.taken(l, r), b.Span(), b.Align, p.Cut)
		occ.insert(l, r, offsets[i], b.End(offsets[i]))
	}
	return moved, nil
}

// spansMeet reports whether [lo, hi) meets any of the sorted spans.
func spansMeet(s []span, lo, hi int64) bool {
	k, _ := slices.BinarySearchFunc(s, lo, func(x span, v int64) int {
		if x.hi <= v {
			return -1
		}
		return 1
	})
	return k < len(s) && s[k].lo < hi
}
