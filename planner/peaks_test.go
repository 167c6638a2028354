package planner

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
// far above the bound. The plan is the same on one thread as on two,
// where the seeds' slices run beside the first's: at 0.4 the first seed
// wins after the others' slices and far nodes (it ends above 1 %).
func TestAutoFarApartPeaks(t *testing.T) {
	for _, tt := range []struct {
		file   string
		at     float64
		within bool // auto ends within 1 % of the bound
		winner string
	}{
		{"large/iopddl_L_random1.csv", 0.2, true, "best-fit peaks dying"},
		{"large/iopddl_L_random1.csv", 0.25, true, "best-fit peaks dying"},
		{"large/iopddl_L_random1.csv", 0.4, false, "best-fit breadth dying"},
	} {
		t.Run(fmt.Sprintf("%s@%g", tt.file, tt.at), func(t *testing.T) {
			p := farPeaks(t, "testdata/"+tt.file, tt.at)
			pr := prepare(p, PlaceOptions{})
			if _, peaks := pr.busyPeaks(); peaks < 2 {
				t.Fatalf("the derived trace has %d busy peaks, want two far apart", peaks)
			}
			pl := autoOnOneAndTwoThreads(t, p, PlaceOptions{NodeLimit: 2 * autoSliceNodes(len(p.Buffers))})
			if err := Verify(NewPlan(p, "auto", pl)); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(pl.Detail, "won by "+tt.winner+",") {
				t.Errorf("%s: want it won by %s (the trace no longer tests that path)", pl.Detail, tt.winner)
			}
			lb := LowerBound(p)
			if farAbove(pl.Arena, lb) == tt.within {
				t.Errorf("auto's arena %d is %.2f%% above the lower bound %d (%s), want within 1 %%: %v", pl.Arena, 100*float64(pl.Arena-lb)/float64(lb), lb, pl.Detail, tt.within)
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

// Where the portfolio's answer stays far above the bound after its slice
// and another best-fit order's answer ends smaller after its own, auto
// goes on from that one: on L drawn with seed 16 the portfolio's answer,
// best fit in temporal order, stays 1.4 % above the bound after its slice
// (0.5 % after the far nodes), and breadth lasting's reaches the bound in
// its slice. The plan is the same on one thread as on two, where the
// seeds' slices run beside the first.
func TestAutoFarSeeds(t *testing.T) {
	p := loadCSV(t, "testdata/large/iopddl_L_seed16.csv")
	pl := autoOnOneAndTwoThreads(t, p, PlaceOptions{})
	if err := Verify(NewPlan(p, "auto", pl)); err != nil {
		t.Fatal(err)
	}
	if want := "won by best-fit breadth lasting, a seed for an answer left far above the bound: best-fit temporal's plan stayed"; !strings.HasPrefix(pl.Detail, want) {
		t.Errorf("%s: want it to begin %q (the trace no longer tests that path)", pl.Detail, want)
	}
	if lb := LowerBound(p); pl.Arena != lb {
		t.Errorf("auto's arena %d is %.2f%% above the lower bound %d (%s), want it at the bound", pl.Arena, 100*float64(pl.Arena-lb)/float64(lb), lb, pl.Detail)
	}
}

// autoOnOneAndTwoThreads places p by auto with two threads and with one,
// fails the test unless both give the same plan, and returns it.
func autoOnOneAndTwoThreads(t *testing.T, p *Problem, opts PlaceOptions) Placement {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var pl Placement
	for run, procs := range []int{2, 1} {
		runtime.GOMAXPROCS(procs)
		got, err := Place(context.Background(), p, "auto", opts)
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			pl = got
		} else if !slices.Equal(got.Offsets, pl.Offsets) || got.Detail != pl.Detail {
			t.Fatalf("GOMAXPROCS 1: arena %d (%s), with 2: %d (%s)", got.Arena, got.Detail, pl.Arena, pl.Detail)
		}
	}
	return pl
}

// Where the first answer's slice brings it within 1 % of the bound, the
// seeds begun beside it are stopped and dropped: the plan is the first
// answer's, the same on one thread and on two, and no seed after the one
// under way starts. (G_1 in temporal order is 1.9 % above the bound
// before its slice and within 0.001 % of it after.) Under -race this also
// checks that stopping the seeds shares nothing with the thread beside.
func TestImproveAnswerDropsSeedsWithinReach(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p := loadCSV(t, "testdata/G_1.csv")
	lb := AlignedLowerBound(p)
	var plans []Placement
	for _, procs := range []int{2, 1} {
		runtime.GOMAXPROCS(procs)
		pr := prepare(p, PlaceOptions{})
		a, err := pr.bestFit(context.Background(), pr.order(orderTemporal))
		if err != nil {
			t.Fatal(err)
		}
		if !farAbove(ArenaOf(p, a.offsets), lb) {
			t.Fatalf("temporal order's answer is within 1 %% of the bound before its slice: the test no longer reaches the seeds")
		}
		seeds := []seedFunc{
			func(ctx context.Context) (answer, string, error) {
				<-ctx.Done() // under way until the first slice ends
				return answer{}, "", nil
			},
			func(context.Context) (answer, string, error) {
				t.Errorf("GOMAXPROCS %d: a seed started after the first answer came within 1 %% of the bound", procs)
				return answer{}, "", nil
			},
		}
		n := len(pr.movable)
		pl, err := pr.improveAnswer(context.Background(), a, "won by best-fit temporal", autoSliceNodes(n), 0, autoFarNodes(n), seeds)
		if err != nil {
			t.Fatal(err)
		}
		if farAbove(pl.Arena, lb) || !strings.HasPrefix(pl.Detail, "won by best-fit temporal, improved by") {
			t.Errorf("GOMAXPROCS %d: arena %d for bound %d (%s), want the first answer within 1 %% of it", procs, pl.Arena, lb, pl.Detail)
		}
		plans = append(plans, pl)
	}
	if !slices.Equal(plans[0].Offsets, plans[1].Offsets) || plans[0].Detail != plans[1].Detail {
		t.Errorf("two threads: %s, one: %s", plans[0].Detail, plans[1].Detail)
	}
}
