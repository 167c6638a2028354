package planner

import "slices"

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
func LiveProfile(p *Problem) []LiveStep {
	return liveSteps(len(p.Buffers), func(i int) (int, int, int64) {
		b := &p.Buffers[i]
		return b.Birth, b.Death, b.Span()
	})
}

// LiveProfile is the same step function for a plan record: the bytes
// (size + guard) its placed tensors hold over time.
func (p *Plan) LiveProfile() []LiveStep {
	return liveSteps(len(p.Tensors), func(i int) (int, int, int64) {
		t := &p.Tensors[i]
		if !t.Placed() {
			return 0, 0, 0
		}
		return t.Birth, t.Death, t.Size + t.Guard
	})
}

// liveSteps sums n items, each holding bytes over [birth, death], into a
// step function.
func liveSteps(n int, item func(i int) (birth, death int, bytes int64)) []LiveStep {
	type event struct {
		at    int
		delta int64
	}
	events := make([]event, 0, 2*n)
	for i := range n {
		if birth, death, s := item(i); s > 0 {
			events = append(events, event{birth, s}, event{death + 1, -s})
		}
	}
	slices.SortFunc(events, func(a, b event) int { return a.at - b.at })
	var out []LiveStep
	var live int64
	for i := 0; i < len(events); {
		at := events[i].at
		for ; i < len(events) && events[i].at == at; i++ {
			live += events[i].delta
		}
		if n := len(out); n > 0 && out[n-1].Bytes == live {
			continue
		}
		out = append(out, LiveStep{at, live})
	}
	return out
}

// LowerBound is the largest number of bytes live at one step: no arena
// can be smaller.
func LowerBound(p *Problem) int64 {
	var lb int64
	for _, s := range LiveProfile(p) {
		lb = max(lb, s.Bytes)
	}
	return lb
}
