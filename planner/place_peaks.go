package planner

import (
	"context"
	"strings"
)

// Peaks first: on a training step the two busiest steps may lie far
// apart (the forward pass's widest layer, and the turn to the backward
// pass), and the buffers live at both (weights, activations kept for
// the backward pass) must leave room for each step's own buffers at
// both. Breadth places them among the busiest step's other buffers, in
// the holes best fit finds there, so at the other step they stand apart
// and its own buffers fill the gaps between them badly. Placed first,
// they pack into one block that suits both; then each step's own
// buffers stack on it.

// busyPeaks returns, per section s, how many busy peaks lie before s
// (and one entry past the last section): a busy peak is the busiest
// section of a run of sections each within 1/autoFar of the lower
// bound. A plan that leaves any such section more fragmented than
// that misses what auto aims for there.
func (pr *prepared) busyPeaks() (before []int32, peaks int) {
	n := pr.tl.len()
	lb := pr.lowerBound()
	busy := lb - lb/autoFar
	before = make([]int32, n+1)
	for s := 0; s < n; {
		if pr.live[s] < busy {
			s++
			continue
		}
		top := s
		for ; s < n && pr.live[s] >= busy; s++ {
			if pr.live[s] > pr.live[top] {
				top = s
			}
		}
		before[top+1] = 1
		peaks++
	}
	for s := 1; s <= n; s++ {
		before[s] += before[s-1]
	}
	return before, peaks
}

// peaksFirst returns the movable buffers that cover a busy peak first,
// those covering more first, each group in the order peak lists them;
// then the others, in the order rest lists them. Both list every
// movable buffer. It returns nil where there are fewer than two peaks:
// peaks first is then the breadth order the portfolio runs already.
func (pr *prepared) peaksFirst(peak, rest []int) []int {
	before, peaks := pr.busyPeaks()
	if peaks < 2 {
		return nil
	}
	pos := make([]int64, len(pr.p.Buffers))
	for n, i := range rest {
		pos[i] = int64(n)
	}
	ks := make([]keyed, len(peak))
	for n, i := range peak {
		if c := int64(before[pr.last[i]] - before[pr.first[i]]); c > 0 {
			ks[n] = keyed{[4]int64{-c, int64(n)}, i}
		} else {
			ks[n] = keyed{[4]int64{0, pos[i]}, i}
		}
	}
	return sortedIndices(ks)
}

// peaksSeed is auto's second seed (improveAnswer's second) where the
// slice leaves its first far above the bound and the busiest steps lie
// far apart: the smaller of the peaks-first orders' answers, with a
// detail for it (a format that takes how far above the bound the first
// stayed). There what the improver makes of an answer depends less on
// its arena than on where its waste lies: a peaks-first answer packs
// every peak, and its waste, elsewhere, is local, where the portfolio's
// answer, smaller, may have it spread between the long-lived buffers of
// both peaks, where no move reaches it. They are not members of the
// portfolio: elsewhere they are the poorer seeds even where their arena
// is the smaller, and as a second seed they change no plan whose first
// slice brings it within 1 % of the bound. No answer (nil offsets)
// with fewer than two peaks, or above autoHuge buffers.
func (pr *prepared) peaksSeed(ctx context.Context, first string) (answer, string, error) {
	var seed answer
	var from fitOrder
	// Fewer than two peaks: no answer, before the orders' sorts.
	if _, peaks := pr.busyPeaks(); peaks < 2 || len(pr.movable) > autoHuge {
		return seed, "", nil
	}
	for _, o := range []fitOrder{orderPeaksDying, orderPeaksLasting} {
		order := pr.order(o)
		a, err := pr.bestFit(ctx, order)
		if err != nil {
			return answer{}, "", err
		}
		if seed.offsets == nil || ArenaOf(pr.p, a.offsets) < ArenaOf(pr.p, seed.offsets) {
			seed, from = a, o
		}
	}
	first = strings.TrimPrefix(first, "won by ")
	return seed, "won by best-fit " + from.String() + ", the second seed where the busiest steps lie far apart: " + first + "'s plan stayed %.2f%% above the bound after its slice", nil
}

// farSeedOrders are the best-fit orders whose answers auto also slices
// where its first answer stays far above the bound after its slice (after
// the peaks seed): there the portfolio's smallest answer is a poor guide
// to what the improver makes of it. On 18 IOPDDL-derived siblings of 28,526
// buffers left so, the first answer ended smallest on 1, the peaks seed's
// on 5, breadth lasting's on 9 and breadth dying's on 3; 10 had ended
// above 1.01 with the first two alone, and 3 do with all four.
var farSeedOrders = [...]fitOrder{orderBreadthLasting, orderBreadthDying}

// orderSeed is a seed for improveAnswer: the best-fit answer in order o,
// with a detail for it, unless the first answer (which detail names) is
// that answer already, or above autoHuge buffers.
func (pr *prepared) orderSeed(ctx context.Context, o fitOrder, first string) (answer, string, error) {
	name := "best-fit " + o.String()
	if first == "won by "+name || len(pr.movable) > autoHuge {
		return answer{}, "", nil
	}
	a, err := pr.bestFit(ctx, pr.order(o))
	if err != nil {
		return answer{}, "", err
	}
	first = strings.TrimPrefix(first, "won by ")
	return a, "won by " + name + ", a seed for an answer left far above the bound: " + first + "'s plan stayed %.2f%% above the bound after its slice", nil
}
