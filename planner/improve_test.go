package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The improver never returns a worse or invalid plan, and improve never
// claims an optimum above the aligned bound: on random problems, with
// fixed buffers, alignments and guards, every answer goes through Verify.
// Every fortieth runs long enough to stall and kick its plan, which may make
// it worse for a while.
func TestImproveNeverWorseOrInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	improved := 0
	for k := range 200 {
		p := randomProblem(rng, 1+rng.IntN(60), 2+rng.IntN(30))
		start, err := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
		if err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		nodes := int64(5_000)
		if k%40 == 0 {
			nodes = 5 * improveMinStall / 2
		}
		pl, err := Place(context.Background(), p, "improve", PlaceOptions{NodeLimit: nodes})
		if err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		if err := Verify(NewPlan(p, "improve", pl)); err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		if pl.Arena > start.Arena {
			t.Fatalf("problem %d: improve's arena %d is above its start's %d", k, pl.Arena, start.Arena)
		}
		if pl.Optimal && pl.Arena != AlignedLowerBound(p) {
			t.Fatalf("problem %d: improve claims %d optimal, above the bound %d", k, pl.Arena, AlignedLowerBound(p))
		}
		if pl.Arena < start.Arena {
			improved++
		}
	}
	if improved < 20 {
		t.Fatalf("improve lowered the arena on only %d of 200 problems: the test checks little", improved)
	}
}

// Improve and auto's slice are counted in nodes: the same budget gives
// the same plan, run after run, on one thread or two.
func TestImproveNodeLimitIsReproducible(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(23, 24))
	problems := map[string]*Problem{"D": loadCSV(t, "testdata/D.1048576.csv"), "J": loadCSV(t, "testdata/J.1048576.csv")}
	for k := range 4 {
		problems[fmt.Sprintf("random %d", k)] = randomProblem(rng, 60, 25)
	}
	for name, p := range problems {
		for _, strategy := range []string{"improve", "auto"} {
			var first Placement
			for run, procs := range []int{1, 1, 2, 2} {
				runtime.GOMAXPROCS(procs)
				pl, err := Place(context.Background(), p, strategy, PlaceOptions{NodeLimit: 20_000})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if run == 0 {
					first = pl
				} else if !slices.Equal(pl.Offsets, first.Offsets) || pl.Detail != first.Detail {
					t.Errorf("%s, %s: run %d with GOMAXPROCS %d: arena %d (%s), first run %d (%s)",
						strategy, name, run, procs, pl.Arena, pl.Detail, first.Arena, first.Detail)
				}
			}
		}
	}
}

// Real traces reach the bound by default, each through breadth in the
// order within a step that suits it: DenseNet-121's activations with the
// oldest buffers first, ResNet-50's SOMAS trace with the first to die
// first, IOPDDL's problem B with the last to die first (PanGu-α's, not in
// testdata at 450 kB, with equal sizes newest first).
func TestAutoReachesTheBoundOnRealTraces(t *testing.T) {
	tests := []struct{ file, member string }{
		{"densenet121_activations.csv", "best-fit breadth oldest"},
		{"resnet50.csv", "best-fit breadth dying"},
		{"iopddl_B_biggest.csv", "best-fit breadth lasting"},
	}
	for _, tt := range tests {
		p := loadCSV(t, "testdata/"+tt.file)
		// The slice's own node budget, with no clock: the answer of a
		// machine of any speed.
		pl, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: autoSliceNodes(len(p.Buffers))})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(NewPlan(p, "auto", pl)); err != nil {
			t.Fatal(err)
		}
		if lb := LowerBound(p); pl.Arena != lb || !pl.Optimal || pl.Detail != "won by "+tt.member {
			t.Errorf("%s: auto's arena %d (%s), lower bound %d, want it won by %s", tt.file, pl.Arena, pl.Detail, lb, tt.member)
		}
	}
}

// Where the portfolio leaves waste between long-lived buffers, the global
// moves remove it: on IOPDDL's problem B, best fit by size is 0.19 %
// above the bound, where hundreds of buffers live from the forward pass
// to the backward, and windows around the buffers at the top (the old
// improver's only move) stayed there after 2,000,000 nodes; packing the
// buffers live at a top buffer's step first reaches the bound. On
// MiniMalloc's D a long run stalls and kicks its plan (after 200,000
// nodes without a better arena) and still gains. Each within a node
// budget, so on any machine.
func TestImproveWhereWindowsAreStuck(t *testing.T) {
	tests := []struct {
		file  string
		start fitOrder
		nodes int64
		want  float64 // the most arena/bound it may end at
	}{
		{"iopddl_B_biggest.csv", orderSpatial, 100_000, 1},
		{"iopddl_B_biggest.csv", orderBreadth, 100_000, 1},
		{"densenet121_activations.csv", orderBreadth, 20_000, 1},
		{"D.1048576.csv", orderSpatial, 1_000_000, 1.2},
	}
	for _, tt := range tests {
		p := loadCSV(t, "testdata/"+tt.file)
		pr := prepare(p, PlaceOptions{})
		a, err := pr.bestFit(context.Background(), pr.order(tt.start))
		if err != nil {
			t.Fatal(err)
		}
		lb, start := LowerBound(p), ArenaOf(p, a.offsets)
		if start == lb {
			t.Fatalf("%s: best fit %s is at the bound already: the test checks nothing", tt.file, tt.start)
		}
		if _, err := pr.improve(context.Background(), a.offsets, lb, improveOptions{seed: improveSeed, nodes: tt.nodes}); err != nil {
			t.Fatal(err)
		}
		if err := Verify(NewPlan(p, "improve", Placement{Offsets: a.offsets, Arena: ArenaOf(p, a.offsets)})); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if got := float64(ArenaOf(p, a.offsets)) / float64(lb); got > tt.want {
			t.Errorf("%s from best fit %s: %.4f x the bound after %d nodes (started at %.4f), want at most %.4f",
				tt.file, tt.start, got, tt.nodes, float64(start)/float64(lb), tt.want)
		}
	}
}

// An answer the slice leaves more than 1 % above the bound gets
// autoFarNodes more nodes, counted like the slice's (the same plan on one
// thread or two), and stops early at the bound; one the slice leaves
// within 1 % does not. The problems are small random lives: the first
// ends 2.2 % above the bound after the slice and reaches it after; the
// second 1.2 % above, 0.3 % after; the third 0.35 % above, where auto
// stops.
func TestAutoGoesOnFarAboveTheBound(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	tests := []struct {
		name         string
		p            *Problem
		far, atBound bool
	}{
		{"random 200, seed 5", GenerateRandom(200, 5), true, true},
		{"random 100, seed 10", GenerateRandom(100, 10), true, false},
		{"random 400, seed 2", GenerateRandom(400, 2), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			n := len(p.Buffers)
			bound := AlignedLowerBound(p)
			slice, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: autoSliceNodes(n)})
			if err != nil {
				t.Fatal(err)
			}
			if got := farAbove(slice.Arena, bound); got != tc.far {
				t.Fatalf("after the slice the arena is %d, bound %d: far above %v, want %v (the problem no longer tests this)", slice.Arena, bound, got, tc.far)
			}
			budget := autoSliceNodes(n) + autoFarNodes(n)
			var first Placement
			for run, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				pl, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: budget})
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(NewPlan(p, "auto", pl)); err != nil {
					t.Fatal(err)
				}
				if run == 0 {
					first = pl
				} else if !slices.Equal(pl.Offsets, first.Offsets) || pl.Detail != first.Detail {
					t.Fatalf("GOMAXPROCS %d: arena %d (%s), with 1: %d (%s)", procs, pl.Arena, pl.Detail, first.Arena, first.Detail)
				}
			}
			var spent int64
			if k := strings.LastIndex(first.Detail, " in "); k < 0 {
				t.Fatalf("detail %q does not say the nodes spent", first.Detail)
			} else if _, err := fmt.Sscanf(first.Detail[k:], " in %d nodes", &spent); err != nil {
				t.Fatalf("detail %q: %v", first.Detail, err)
			}
			switch {
			case !tc.far && (first.Arena != slice.Arena || !slices.Equal(first.Offsets, slice.Offsets)):
				t.Errorf("within 1 %% after the slice, auto went on: arena %d, after the slice %d", first.Arena, slice.Arena)
			case tc.far && first.Arena >= slice.Arena:
				t.Errorf("far above the bound, auto's arena %d did not fall from the slice's %d (%s)", first.Arena, slice.Arena, first.Detail)
			case tc.atBound && (first.Arena != bound || spent >= budget):
				t.Errorf("arena %d in %d nodes of %d: want the bound %d, reached before the budget ends", first.Arena, spent, budget, bound)
			case !tc.atBound && first.Arena == bound:
				t.Errorf("arena at the bound: the case no longer tests a run that spends its budget")
			}
		})
	}
}

// farAbove is more than 1 % above, in integers that cannot overflow.
func TestFarAbove(t *testing.T) {
	tests := []struct {
		arena, bound int64
		want         bool
	}{
		{100, 100, false}, {101, 100, false}, {102, 100, true},
		{1 << 62, 1 << 62, false}, {1<<62 + 1<<55, 1 << 62, false}, {1<<62 + 1<<56, 1 << 62, true}, {0, 0, false}, {1, 0, true},
	}
	for _, tc := range tests {
		if got := farAbove(tc.arena, tc.bound); got != tc.want {
			t.Errorf("farAbove(%d, %d) = %v, want %v", tc.arena, tc.bound, got, tc.want)
		}
	}
	if autoFarNodes(autoHuge+1) != 0 || autoFarNodes(1000) != 40_000 || autoFarNodes(autoHuge) != 2_000_000 {
		t.Errorf("autoFarNodes: %d, %d, %d", autoFarNodes(autoHuge+1), autoFarNodes(1000), autoFarNodes(autoHuge))
	}
}

// TestSliceBudget: auto's slice is bounded by nodes alone unless the
// caller asks for a clock, so the default plan cannot depend on the
// machine's speed; a node limit caps it and takes any clock away.
func TestSliceBudget(t *testing.T) {
	const n = 20_000
	slice, far := autoSliceNodes(n), autoFarNodes(n)
	for _, tc := range []struct {
		name     string
		opts     PlaceOptions
		forExact bool
		nodes    int64
		limit    time.Duration
		farNodes int64
	}{
		{"default: nodes, no clock", PlaceOptions{}, false, slice, 0, far},
		{"a clock when asked", PlaceOptions{AutoSlice: 2 * time.Second}, false, slice, 2 * time.Second, far},
		{"no slice", PlaceOptions{AutoSlice: -1}, false, -1, 0, 0},
		{"a shard leaves it to the caller", PlaceOptions{Shard: 1, Shards: 2}, false, -1, 0, 0},
		{"a node limit caps both", PlaceOptions{NodeLimit: slice + 5, AutoSlice: time.Second}, false, slice, 0, 5},
		{"a small node limit", PlaceOptions{NodeLimit: 7}, false, 7, 0, 0},
		{"exact's start: no far phase", PlaceOptions{}, true, slice, 0, 0},
		{"exact's start under its node limit: no clock", PlaceOptions{NodeLimit: 9, AutoSlice: time.Second}, true, slice, 0, 0},
	} {
		nodes, limit, farNodes := sliceBudget(n, tc.opts, tc.forExact)
		if nodes != tc.nodes || limit != tc.limit || farNodes != tc.farNodes {
			t.Errorf("%s: nodes %d, clock %v, far %d; want %d, %v, %d", tc.name, nodes, limit, farNodes, tc.nodes, tc.limit, tc.farNodes)
		}
	}
}

// TestAutoSliceNodes: the slice grows with the buffers up to its cap,
// then falls as 1/n so that its time stays about level.
func TestAutoSliceNodes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want int64
	}{{0, 0}, {100, 10_000}, {5_000, 500_000}, {150_000, 500_000}, {300_000, 500_000}, {600_000, 250_000}, {1_000_000, 150_000}} {
		if got := autoSliceNodes(tc.n); got != tc.want {
			t.Errorf("autoSliceNodes(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// A race stops every run at the same checkpoint once one has settled,
// and each run then holds what it would alone, stopped at that
// checkpoint or at its own end; the smallest answer wins, ties to the
// earlier, and all of it is the same on one thread and two.
func TestRaceStopsTogether(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(25, 26))
	const budget = 3000
	var early, full int
	won := map[int]int{}
	for k := range 60 {
		p := randomProblem(rng, 10+rng.IntN(50), 2+rng.IntN(30))
		pr := prepare(p, PlaceOptions{})
		start, err := pr.bestFit(context.Background(), pr.order(orderTemporal))
		if err != nil {
			t.Fatal(err)
		}
		bound := AlignedLowerBound(p)
		settle := int64(100 + rng.IntN(400))
		var first []racer
		firstWon := -1
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			runs := make([]racer, 3)
			for i := range runs {
				runs[i] = racer{offsets: slices.Clone(start.offsets), seed: improveSeed + uint64(i), nodes: budget}
			}
			w, err := pr.race(context.Background(), runs, bound, settle)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range runs {
				if err := checkOffsets(p, r.offsets); err != nil {
					t.Fatalf("problem %d, run %d: %v", k, i, err)
				}
				if a := ArenaOf(p, r.offsets); a < ArenaOf(p, runs[w].offsets) || a == ArenaOf(p, runs[w].offsets) && i < w {
					t.Fatalf("problem %d: run %d (arena %d) should have won over run %d (%d)", k, i, a, w, ArenaOf(p, runs[w].offsets))
				}
			}
			if procs == 1 {
				first, firstWon = runs, w
				continue
			}
			if w != firstWon {
				t.Fatalf("problem %d: run %d won on two threads, %d on one", k, w, firstWon)
			}
			for i := range runs {
				if runs[i].spent != first[i].spent || runs[i].checks != first[i].checks || runs[i].stopped != first[i].stopped || !slices.Equal(runs[i].offsets, first[i].offsets) {
					t.Fatalf("problem %d, run %d: %d nodes on two threads, %d on one, or other offsets", k, i, runs[i].spent, first[i].spent)
				}
			}
		}
		stopped := false
		for i, r := range first {
			alone, checks := slices.Clone(start.offsets), 0
			o := improveOptions{seed: r.seed, nodes: budget, checkEvery: raceCheckEvery(settle), checkpoint: func(int64, int64, int64, []int64) bool {
				checks++
				return r.stopped && checks == r.checks
			}}
			spent, err := pr.improve(context.Background(), alone, bound, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(alone, r.offsets) || spent != r.spent {
				t.Fatalf("problem %d, run %d: %d nodes, arena %d in the race; alone %d nodes, arena %d", k, i, r.spent, ArenaOf(p, r.offsets), spent, ArenaOf(p, alone))
			}
			stopped = stopped || r.stopped
		}
		if stopped {
			// All stop at the same checkpoint, but for runs that had
			// ended before it.
			at := 0
			for _, r := range first {
				if r.stopped {
					at = max(at, r.checks)
				}
			}
			for i, r := range first {
				if r.stopped && r.checks != at || !r.stopped && r.checks > at {
					t.Fatalf("problem %d: run %d stopped %v at checkpoint %d, another stopped at %d", k, i, r.stopped, r.checks, at)
				}
			}
			// Only a settled run stops the others: one within 1 % of the
			// bound, or at it.
			if farAbove(ArenaOf(p, first[firstWon].offsets), bound) {
				t.Fatalf("problem %d: stopped early with every answer far above the bound (best %d, bound %d)", k, ArenaOf(p, first[firstWon].offsets), bound)
			}
			early++
		} else {
			full++
		}
		won[firstWon]++
	}
	if early == 0 || full == 0 || len(won) < 3 {
		t.Fatalf("%d races stopped early, %d did not, wins by run %v: the problems no longer test every outcome", early, full, won)
	}
}

// A race stopped by its context ends, whichever run was waiting for
// another, with the context's error and every run's offsets still a
// plan, on one thread and two.
func TestRaceEndsWhenCancelled(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p := GenerateRandom(300, 3)
	bound := AlignedLowerBound(p)
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, after := range []int32{0, 1, 40, 400} {
			ctx, cancel := context.WithCancel(context.Background())
			var rounds atomic.Int32
			// The runs call Yield once a round: the race is cancelled
			// after that many rounds of all its runs together.
			pr := prepare(p, PlaceOptions{Yield: func() {
				if rounds.Add(1) > after {
					cancel()
				}
			}})
			start, err := pr.bestFit(context.Background(), pr.order(orderTemporal))
			if err != nil {
				t.Fatal(err)
			}
			if ArenaOf(p, start.offsets) <= bound {
				t.Fatal("best fit reaches the bound: the problem no longer tests a race")
			}
			runs := make([]racer, 3)
			for i := range runs {
				runs[i] = racer{offsets: slices.Clone(start.offsets), seed: improveSeed + uint64(i), nodes: 1 << 40}
			}
			_, err = pr.race(ctx, runs, bound, 1<<30)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%d threads, cancelled after %d rounds: %v, want %v", procs, after, err, context.Canceled)
			}
			for i, r := range runs {
				if err := checkOffsets(p, r.offsets); err != nil {
					t.Fatalf("%d threads, cancelled after %d rounds, run %d: %v", procs, after, i, err)
				}
			}
		}
	}
}

// Where the seeds' slices leave auto's answer far above the bound, it
// starts again from the best answer before its slice with two other
// seeds, each for the slice's and the far nodes, beside the far run, and
// keeps the smallest: on 200 random lives a node limit of one far node
// leaves the answer 2.2 % above the bound, and a restart wins, the same
// on one thread and two.
func TestAutoRestartsWhereStillFarAbove(t *testing.T) {
	defer func(n int) { restartAbove = n }(restartAbove)
	restartAbove = 0 // as on a problem of thousands of buffers
	p := GenerateRandom(200, 5)
	slice := autoSliceNodes(len(p.Buffers))
	alone, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: slice})
	if err != nil {
		t.Fatal(err)
	}
	if !farAbove(alone.Arena, AlignedLowerBound(p)) {
		t.Fatalf("after the slice the arena %d is within 1 %% of the bound %d: the problem no longer tests a restart", alone.Arena, AlignedLowerBound(p))
	}
	pl := autoOnOneAndTwoThreads(t, p, PlaceOptions{NodeLimit: slice + 1})
	if err := Verify(NewPlan(p, "auto", pl)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pl.Detail, ", restarted with another seed, ") {
		t.Errorf("%s: want a restart to win", pl.Detail)
	}
	if pl.Arena >= alone.Arena {
		t.Errorf("arena %d after a restart, %d with the slice alone", pl.Arena, alone.Arena)
	}
}

// Where auto goes on past its slice, it says why through Progress, with
// the planner's own numbers, the same on one thread and two: the seeds
// after a slice that left the answer far above the bound, and the race
// of the far run and the restarts. A plan that reaches the bound in its slice says
// nothing, and auto's runs say nothing as they go, as improve's does.
func TestAutoSaysWhyItGoesOn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(n int) { restartAbove = n }(restartAbove)
	restartAbove = 0 // as on a problem of thousands of buffers
	defer func(d time.Duration) { improveReportEvery = d }(improveReportEvery)
	improveReportEvery = 0
	p := GenerateRandom(200, 5)
	bound := AlignedLowerBound(p)
	slice := autoSliceNodes(len(p.Buffers))
	alone, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: slice})
	if err != nil {
		t.Fatal(err)
	}
	percent := func(arena int64) string { return fmt.Sprintf("%.2f%%", 100*float64(arena-bound)/float64(bound)) }
	var first []string
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		var said []string
		pl, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: slice + 1, Progress: func(m string) { said = append(said, m) }})
		if err != nil {
			t.Fatal(err)
		}
		if procs == 1 {
			first = said
			want := []string{
				"auto: " + percent(alone.Arena) + " above the lower bound after ",
				"auto: still ",
			}
			wantEnd := []string{
				" nodes; improving other starts as well",
				fmt.Sprintf(" above the lower bound; improving the best answer for up to 1 more nodes, and its start again with two other seeds for up to %d each, until one has stayed within 1%% of the bound for %d nodes", slice+1, raceSettleNodes(len(p.Buffers))),
			}
			if len(said) != len(want) {
				t.Fatalf("said %q, want %d lines", said, len(want))
			}
			for k, m := range said {
				if !strings.HasPrefix(m, want[k]) || !strings.HasSuffix(m, wantEnd[k]) {
					t.Errorf("line %d: %q, want %q…%q", k, m, want[k], wantEnd[k])
				}
			}
			if !strings.Contains(pl.Detail, ", restarted with another seed, ") || strings.Contains(said[1], percent(pl.Arena)) {
				t.Errorf("%s: the restart should have won, from the arena the last line names: %q", pl.Detail, said[1])
			}
		} else if !slices.Equal(said, first) {
			t.Errorf("two threads said %q, one %q", said, first)
		}
	}

	atBound := Generate(200, 1)
	var said []string
	pl, err := Place(context.Background(), atBound, "auto", PlaceOptions{Progress: func(m string) { said = append(said, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Arena != AlignedLowerBound(atBound) || len(said) > 0 {
		t.Errorf("arena %d, bound %d: said %q", pl.Arena, AlignedLowerBound(atBound), said)
	}
}

// The improve strategy reports its smallest arena so far and the nodes
// it has spent, every improveReportEvery: each line no higher than the
// last and the last no lower than the answer, with more nodes each time.
func TestImproveReportsAsItGoes(t *testing.T) {
	defer func(d time.Duration) { improveReportEvery = d }(improveReportEvery)
	p := GenerateRandom(200, 5)
	bound := AlignedLowerBound(p)
	for _, every := range []time.Duration{0, time.Hour} {
		improveReportEvery = every
		var said []string
		pl, err := Place(context.Background(), p, "improve", PlaceOptions{NodeLimit: 50_000, Progress: func(m string) { said = append(said, m) }})
		if err != nil {
			t.Fatal(err)
		}
		if every > 0 {
			if len(said) > 0 {
				t.Errorf("every %v: said %q before an hour", every, said[0])
			}
			continue
		}
		if len(said) < 10 {
			t.Fatalf("said %d lines over 50,000 nodes, want one a round: %q", len(said), said)
		}
		last, lastNodes := math.Inf(1), int64(-1)
		for _, m := range said {
			var pct float64
			var nodes int64
			if _, err := fmt.Sscanf(m, "improve: %f%% above the lower bound after %d nodes", &pct, &nodes); err != nil {
				t.Fatalf("%q: %v", m, err)
			}
			if pct > last || nodes <= lastNodes {
				t.Fatalf("%q after %.2f%% and %d nodes", m, last, lastNodes)
			}
			last, lastNodes = pct, nodes
		}
		if final := 100 * float64(pl.Arena-bound) / float64(bound); last < final-0.005 {
			t.Errorf("last said %.2f%%, the answer is %.2f%% above the bound", last, final)
		}
	}
}
