package planner

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"memplan/ir"
)

// farPeaks derives, from a training trace's buffer list, a trace whose
// two busiest steps lie far apart, as IOPDDL's L graph with other sizes
// has them: the buffers live at the step at fraction at of the way to
// the busiest step, and not at that one, grow, each by one fraction of
// its size, the largest that leaves the busiest step the busiest (some
// step they cover then ties with it). Those live at both (weights,
// activations kept for the backward pass) must then suit two steps.
func farPeaks(tb testing.TB, path string, at float64) *Problem {
	tb.Helper()
	t := readCSVTable(tb, path)
	var steps int64
	for _, r := range t.Rows {
		steps = max(steps, r.Upper)
	}
	// peak returns the busiest step and its bytes, with the buffers
	// marked in grow grown by g of their size.
	grown := func(k int, g float64, grow []bool) int64 {
		if grow != nil && grow[k] {
			return t.Rows[k].Size + int64(g*float64(t.Rows[k].Size))
		}
		return t.Rows[k].Size
	}
	peak := func(g float64, grow []bool) (at, most int64) {
		live := make([]int64, steps+1)
		for k, r := range t.Rows {
			live[r.Lower] += grown(k, g, grow)
			live[r.Upper] -= grown(k, g, grow)
		}
		var sum int64
		for s := range steps {
			if sum += live[s]; sum > most {
				at, most = s, sum
			}
		}
		return at, most
	}
	busiest, most := peak(0, nil)
	step := int64(at * float64(busiest))
	grow := make([]bool, len(t.Rows)) // live at step, not at the busiest
	for k, r := range t.Rows {
		grow[k] = r.Lower <= step && step < r.Upper && !(r.Lower <= busiest && busiest < r.Upper)
	}
	// The largest growth that leaves the busiest step as busy as it was,
	// by bisection: the bytes at every step grow with it.
	lo, hi := 0.0, 1.0
	for {
		if _, m := peak(hi, grow); m > most {
			break
		}
		if lo, hi = hi, 2*hi; hi > 1e6 {
			tb.Fatalf("%s: growing the buffers of step %d never makes it the busiest", path, step)
		}
	}
	for range 60 {
		if g := (lo + hi) / 2; func() bool { _, m := peak(g, grow); return m > most }() {
			hi = g
		} else {
			lo = g
		}
	}
	for k := range t.Rows {
		t.Rows[k].Size = grown(k, lo, grow)
	}
	p, err := FromTable(t, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// On traces whose two busiest steps lie far apart, auto ends within
// 1 % of the lower bound. The portfolio's answer there, breadth's, has
// the buffers live at both among the first step's own, and at the
// second its own buffers fill the gaps between them badly: improved
// alone it ended 2.8 and 1.9 % above the bound; the second seed, peaks
// first, ends within 1 %. The NodeLimit (the answer of any machine) is
// the slice's budget twice: a slice for each seed, and as much again
// far above the bound.
func TestAutoFarApartPeaks(t *testing.T) {
	for _, tt := range []struct {
		file string
		at   float64
	}{
		{"large/iopddl_L_random1.csv", 0.2},
		{"large/iopddl_L_random1.csv", 0.25},
	} {
		t.Run(fmt.Sprintf("%s@%g", tt.file, tt.at), func(t *testing.T) {
			p := farPeaks(t, "testdata/"+tt.file, tt.at)
			pr := prepare(p, PlaceOptions{})
			if _, peaks := pr.busyPeaks(); peaks < 2 {
				t.Fatalf("the derived trace has %d busy peaks, want two far apart", peaks)
			}
			pl, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: 2 * autoSliceNodes(len(p.Buffers))})
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(NewPlan(p, "auto", pl)); err != nil {
				t.Fatal(err)
			}
			lb := LowerBound(p)
			if farAbove(pl.Arena, lb) {
				t.Errorf("auto's arena %d is %.2f%% above the lower bound %d (%s)", pl.Arena, 100*float64(pl.Arena-lb)/float64(lb), lb, pl.Detail)
			}
			t.Logf("%.4f (%s)", float64(pl.Arena)/float64(lb), pl.Detail)
		})
	}
}

// Peaks first puts the buffers that cover more busy peaks first, each
// group in the order given, then the rest in theirs; with one run of
// busy steps (or one step) there is nothing to put first.
func TestPeaksFirst(t *testing.T) {
	type row struct {
		id           string
		lower, upper int64
		size         int64
	}
	// w lives at both peaks (steps 2 and 7), a and b at one each, c at
	// neither; d lives beside a, so steps 2 and 3 make one busy run.
	w, a, b, c := row{"w", 0, 10, 10}, row{"a", 2, 3, 5}, row{"b", 7, 8, 5}, row{"c", 4, 6, 3}
	for _, tt := range []struct {
		name       string
		rows       []row
		peak, rest []string // the orders given, by id
		want       []string // nil: no peaks-first order
	}{
		{"two peaks", []row{w, a, b, c}, []string{"c", "b", "a", "w"}, []string{"a", "b", "c", "w"}, []string{"w", "b", "a", "c"}},
		{"rest in its own order", []row{w, a, b, c, {"e", 4, 5, 1}}, []string{"e", "c", "a", "b", "w"}, []string{"c", "e", "w", "a", "b"}, []string{"w", "a", "b", "c", "e"}},
		{"one peak", []row{w, a, c}, []string{"w", "a", "c"}, []string{"w", "a", "c"}, nil},
		{"one busy run", []row{w, a, {"d", 3, 4, 5}, c}, []string{"w", "a", "d", "c"}, []string{"w", "a", "d", "c"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tab := &ir.BufferTable{Name: tt.name}
			index := map[string]int{}
			for k, r := range tt.rows {
				tab.Rows = append(tab.Rows, ir.BufferRow{ID: r.id, Lower: r.lower, Upper: r.upper, Size: r.size, Line: k + 2})
				index[r.id] = k
			}
			p, err := FromTable(tab, 1)
			if err != nil {
				t.Fatal(err)
			}
			ids := func(names []string) []int {
				var out []int
				for _, n := range names {
					out = append(out, index[n])
				}
				return out
			}
			got := prepare(p, PlaceOptions{}).peaksFirst(ids(tt.peak), ids(tt.rest))
			var names []string
			for _, i := range got {
				names = append(names, tt.rows[i].id)
			}
			if (got == nil) != (tt.want == nil) || !slices.Equal(names, tt.want) {
				t.Errorf("peaks first: %q, want %q", names, tt.want)
			}
		})
	}
}
