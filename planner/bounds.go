package planner

import (
	"math"
	"slices"
)

// Shared analysis of a Problem used by every strategy and the stats: the
// live bytes over time and the lower bound on any arena.

// LiveStep is the live bytes (size + guard) from step Start until the next
// LiveStep's Start.
type LiveStep struct {
	Start int
	Bytes int64
}

// LiveProfile returns the live bytes over time as a step function, one
// entry per step where the value changes, in time order. It runs in
// O(n log n) whatever the number of steps.
func LiveProfile(p *Problem) []LiveStep { return liveSteps(len(p.Buffers), p.bufferBytes) }

// bufferBytes is what buffer i holds and when, for the step functions.
func (p *Problem) bufferBytes(i int) (birth, death int, bytes int64) {
	b := &p.Buffers[i]
	return b.Birth, b.Death, b.Span()
}

// LiveProfile is the same step function for a plan record: the bytes
// (size + guard) its placed tensors hold over time.
func (p *Plan) LiveProfile() []LiveStep { return liveSteps(len(p.Tensors), p.placedBytes) }

// placedBytes is what tensor i holds of the arena and when: nothing if it
// owns no bytes.
func (p *Plan) placedBytes(i int) (birth, death int, bytes int64) {
	t := &p.Tensors[i]
	if !t.Placed() {
		return 0, 0, 0
	}
	return t.Birth, t.Death, t.Size + t.Guard
}

// liveSteps sums n items, each holding bytes over [birth, death], into a
// step function.
func liveSteps(n int, item func(i int) (birth, death int, bytes int64)) []LiveStep {
	var out []LiveStep
	sumLive(n, item, func(count int) { out = make([]LiveStep, 0, count) }, func(at int, live int64) {
		if k := len(out); k > 0 && out[k-1].Bytes == live {
			return
		}
		out = append(out, LiveStep{at, live})
	})
	return out
}

// peakLive is the most bytes liveSteps's function reaches: the bounds
// need no more, and building the function for a maximum cost a large
// plan's bounds megabytes of garbage each.
func peakLive(n int, item func(i int) (birth, death int, bytes int64)) int64 {
	var peak int64
	sumLive(n, item, func(int) {}, func(_ int, live int64) { peak = max(peak, live) })
	return peak
}

// sumLive calls change with the bytes live from each step at which they
// change, in order, after size with at most how many such steps there
// are. Schedules number their steps densely, so the changes are summed
// straight into an array indexed by step; a sparse numbering sums them
// over its distinct steps, sorted.
func sumLive(n int, item func(i int) (birth, death int, bytes int64), size func(int), change func(at int, live int64)) {
	lo, hi, count := math.MaxInt, math.MinInt, 0
	for i := range n {
		if birth, death, s := item(i); s > 0 {
			lo, hi, count = min(lo, birth), max(hi, death+1), count+1
		}
	}
	if count == 0 {
		return
	}
	// At most one entry per birth and per death: sized once, rather than
	// grown by doubling (most of a large plan's lower bounds' garbage).
	size(int(min(2*uint(count), uint(hi)-uint(lo)+1)))
	var live int64
	if span := uint(hi) - uint(lo); span <= 4*uint(count) {
		delta := make([]int64, span+1)
		for i := range n {
			if birth, death, s := item(i); s > 0 {
				delta[birth-lo] += s
				delta[death+1-lo] -= s
			}
		}
		for k, d := range delta {
			if d != 0 {
				live += d
				change(lo+k, live)
			}
		}
		return
	}
	// Sparse steps: the same sums over the distinct steps, found by
	// sorting them. (Sorting the steps as ints, rather than the changes as
	// pairs, reuses the sort every program already links: a sort of its
	// own was 12 kB of the planner's wasm.)
	steps := make([]int, 0, 2*count)
	for i := range n {
		if birth, death, s := item(i); s > 0 {
			steps = append(steps, birth, death+1)
		}
	}
	slices.Sort(steps)
	steps = slices.Compact(steps)
	delta := make([]int64, len(steps))
	for i := range n {
		if birth, death, s := item(i); s > 0 {
			k, _ := slices.BinarySearch(steps, birth)
			delta[k] += s
			k, _ = slices.BinarySearch(steps, death+1)
			delta[k] -= s
		}
	}
	for k, d := range delta {
		if d != 0 {
			live += d
			change(steps[k], live)
		}
	}
}

// PhaseRun is a run of consecutive schedule steps whose nodes share a
// phase.
type PhaseRun struct {
	Phase       string
	First, Last int   // steps, inclusive
	Peak        int64 // the most bytes (size + guard) live at one of them
}

// PhaseRuns splits the schedule into runs of one phase, in order, each
// with its peak live bytes: how much a streaming run needs in prefill
// against decode, say. Steps of nodes without a phase belong to no run.
// It is nil when no node has a phase.
func (p *Plan) PhaseRuns() []PhaseRun {
	if len(p.Phases) == 0 {
		return nil
	}
	prof := p.LiveProfile()
	var runs []PhaseRun
	k := 0 // prof[k] is the last change at or before the run's first step
	for first := 0; first < len(p.Phases); {
		last := first
		for last+1 < len(p.Phases) && p.Phases[last+1] == p.Phases[first] {
			last++
		}
		for k+1 < len(prof) && prof[k+1].Start <= first {
			k++
		}
		var peak int64
		for j := k; j < len(prof) && prof[j].Start <= last; j++ {
			peak = max(peak, prof[j].Bytes)
		}
		if p.Phases[first] != "" {
			runs = append(runs, PhaseRun{p.Phases[first], first, last, peak})
		}
		first = last + 1
	}
	return runs
}

// AlignedLowerBound is a lower bound that counts alignment: every live
// buffer but the topmost one blocks its span rounded up to the alignment
// A, since the next buffer above it starts at a multiple of A. So at each
// step the arena holds at least the sum of rounded spans less the top
// one's padding, which is at most the largest padding of any buffer. It
// is never below LowerBound, and fragmentation measured against it is
// what placement could still win.
func AlignedLowerBound(p *Problem) int64 { return alignedLowerBound(p, LowerBound(p)) }

// alignedLowerBound is AlignedLowerBound given the plain bound, for
// callers that have it already.
//
// Buffers with alignments of their own (a buffer CSV's alignment column)
// are rounded to the smallest of them: every offset is a multiple of it,
// and a larger one would bound arenas that smaller ones can beat.
func alignedLowerBound(p *Problem, plain int64) int64 {
	a := int64(0)
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Span() > 0 && (a == 0 || b.Align < a) {
			a = b.Align
		}
	}
	var pad int64
	for i := range p.Buffers {
		if s := p.Buffers[i].Span(); s > 0 {
			pad = max(pad, alignUp(s, a)-s)
		}
	}
	return max(plain, peakLive(len(p.Buffers), func(i int) (int, int, int64) {
		b := &p.Buffers[i]
		return b.Birth, b.Death, alignUp(b.Span(), a)
	})-pad)
}

// alignedLowerBound is the same bound for a plan record, whose owners'
// offsets are all multiples of their alignments (Verify checks that).
func (p *Plan) alignedLowerBound() int64 {
	var pad, a int64
	plain := peakLive(len(p.Tensors), p.placedBytes)
	for i := range p.Tensors {
		if t := &p.Tensors[i]; t.Placed() && t.Size+t.Guard > 0 && (a == 0 || p.alignOf(t) < a) {
			a = p.alignOf(t)
		}
	}
	for i := range p.Tensors {
		if t := &p.Tensors[i]; t.Placed() && t.Size+t.Guard > 0 {
			pad = max(pad, alignUp(t.Size+t.Guard, a)-(t.Size+t.Guard))
		}
	}
	return max(plain, peakLive(len(p.Tensors), func(i int) (int, int, int64) {
		t := &p.Tensors[i]
		if !t.Placed() {
			return 0, 0, 0
		}
		return t.Birth, t.Death, alignUp(t.Size+t.Guard, a)
	})-pad)
}

// alignOf is the offset alignment of a tensor that owns bytes: its own,
// else the plan's.
func (p *Plan) alignOf(t *PlanTensor) int64 {
	if t.Alignment != 0 {
		return t.Alignment
	}
	return p.Alignment
}

// LowerBound is the largest number of bytes live at one step: no arena
// can be smaller.
func LowerBound(p *Problem) int64 { return peakLive(len(p.Buffers), p.bufferBytes) }
