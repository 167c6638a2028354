package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// bruteForce is the smallest arena over every order of placing the
// movable buffers, each where at puts it given the buffers placed before
// it (fixed ones first, where they are). Exponential: a handful only.
func bruteForce(p *Problem, at func(i int, offsets []int64, placed []bool) int64) int64 {
	var ids []int
	offsets := make([]int64, len(p.Buffers))
	placed := make([]bool, len(p.Buffers))
	var start int64
	for i := range p.Buffers {
		switch b := &p.Buffers[i]; {
		case b.Span() == 0:
		case b.Fixed:
			offsets[i], placed[i] = b.Offset, true
			start = max(start, b.End(b.Offset))
		default:
			ids = append(ids, i)
		}
	}
	best := int64(-1)
	var rec func(depth int, arena int64)
	rec = func(depth int, arena int64) {
		if best >= 0 && arena >= best {
			return
		}
		if depth == len(ids) {
			best = arena
			return
		}
		for _, i := range ids {
			if placed[i] {
				continue
			}
			offsets[i] = at(i, offsets, placed)
			placed[i] = true
			rec(depth+1, max(arena, p.Buffers[i].End(offsets[i])))
			placed[i] = false
		}
	}
	rec(0, start)
	return max(best, 0)
}

// bruteForceArena stacks each buffer on top of the placed buffers live
// with it. Every placement that cannot be pushed down is built by some
// order (its own, sorted by offset), and an optimal one can always be
// pushed down, so this is the optimum when no buffer is fixed.
func bruteForceArena(p *Problem) int64 {
	return bruteForce(p, func(i int, offsets []int64, placed []bool) int64 {
		b := &p.Buffers[i]
		var top int64
		for j := range p.Buffers {
			if placed[j] && b.Overlaps(&p.Buffers[j]) {
				top = max(top, p.Buffers[j].End(offsets[j]))
			}
		}
		return alignUp(top, b.Align)
	})
}

// bruteForceFixed puts each buffer at the lowest offset where it fits
// among those placed, fixed ones included. Taking an optimal placement's
// movable buffers by offset, each fits at or below where it was, so some
// order reaches the optimum.
func bruteForceFixed(p *Problem) int64 {
	return bruteForce(p, func(i int, offsets []int64, placed []bool) int64 {
		b := &p.Buffers[i]
		fits := func(off int64) bool {
			for j := range p.Buffers {
				if o := &p.Buffers[j]; placed[j] && b.Overlaps(o) && off < o.End(offsets[j]) && offsets[j] < b.End(off) {
					return false
				}
			}
			return true
		}
		low := int64(-1)
		consider := func(c int64) {
			if c = alignUp(c, b.Align); (low < 0 || c < low) && fits(c) {
				low = c
			}
		}
		consider(0)
		for j := range p.Buffers {
			if placed[j] {
				consider(p.Buffers[j].End(offsets[j]))
			}
		}
		return low
	})
}

// Exact works around fixed buffers too (training plans that keep the
// forward pass's weights where they were).
func TestExactMatchesBruteForceWithFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	count, withFixed, searched := 400, 0, 0
	if testing.Short() {
		count = 100
	}
	for k := range count {
		p := randomProblem(rng, 1+rng.IntN(7), 2+rng.IntN(8))
		// One more fixed buffer, low, where movable ones fit under and
		// around it.
		if n := len(p.Buffers); n > 1 && rng.IntN(2) == 0 {
			if b := &p.Buffers[rng.IntN(n)]; !b.Fixed && b.Span() > 0 {
				b.Fixed, b.Offset = true, alignUp(rng.Int64N(300), b.Align)
				for j := range p.Buffers {
					if o := &p.Buffers[j]; o != b && o.Fixed && o.Span() > 0 && b.Overlaps(o) && b.Offset < o.End(o.Offset) && o.Offset < b.End(b.Offset) {
						b.Fixed, b.Offset = false, 0 // it meets another fixed buffer
						break
					}
				}
			}
		}
		fixed := slices.ContainsFunc(p.Buffers, func(b Buffer) bool { return b.Fixed && b.Span() > 0 })
		if !fixed {
			// The two brute forces must agree where both apply.
			if a, b := bruteForceFixed(p), bruteForceArena(p); a != b {
				t.Fatalf("problem %d: brute forces disagree, %d and %d", k, a, b)
			}
			continue
		}
		withFixed++
		want := bruteForceFixed(p)
		// The portfolio alone: with its slice auto finds most optima.
		if auto, _ := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1}); auto.Arena > want {
			searched++
		}
		checkExactFinds(t, k, p, want)
	}
	if withFixed < count/4 || searched < count/40 {
		t.Fatalf("only %d of %d problems had fixed buffers, and auto missed the optimum on %d", withFixed, count, searched)
	}
}

// checkExactFinds fails unless exact places problem k validly with an
// arena of want, proven optimal.
func checkExactFinds(t *testing.T, k int, p *Problem, want int64) {
	t.Helper()
	pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: smallNodeLimit})
	if err != nil {
		t.Fatalf("problem %d: %v", k, err)
	}
	if err := checkOffsets(p, pl.Offsets); err != nil {
		t.Fatalf("problem %d: %v", k, err)
	}
	if pl.Arena != want || !pl.Optimal {
		t.Fatalf("problem %d: exact found %d (optimal %v, %s), brute force %d\n%+v", k, pl.Arena, pl.Optimal, pl.Detail, want, p.Buffers)
	}
}

func TestExactMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	count := 400
	if testing.Short() {
		count = 100
	}
	for k := range count {
		p := randomProblem(rng, 1+rng.IntN(7), 2+rng.IntN(8))
		for i := range p.Buffers { // fixed buffers: the test above
			p.Buffers[i].Fixed, p.Buffers[i].Offset = false, 0
		}
		want := bruteForceArena(p)
		checkExactFinds(t, k, p, want)
	}
}

func TestExactValidOnRandomProblems(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 200 {
		p := randomProblem(rng, rng.IntN(30), 2+rng.IntN(20))
		// Most stop at the budget: their plans must be as valid.
		pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: 20_000})
		if err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		if err := Verify(NewPlan(p, "exact", pl)); err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		auto, _ := Place(context.Background(), p, "auto", PlaceOptions{})
		if pl.Arena > auto.Arena {
			t.Fatalf("problem %d: exact %d is worse than auto %d", k, pl.Arena, auto.Arena)
		}
	}
}

// TestExactReachesOptimum runs exact on MiniMalloc's challenging
// instances that it proves within a small node budget (G, the hardest of
// them, takes 13,128 nodes); the bench tool covers the whole suite.
func TestExactReachesOptimum(t *testing.T) {
	for _, tt := range []struct {
		file string
		opt  int64
	}{
		{"A.1048576.csv", 1048576},
		{"B.1048576.csv", 1048576},
		{"C.1048576.csv", 1039360},
		{"F.1048576.csv", 1048576},
		{"G.1048576.csv", 1048576},
	} {
		p := loadCSV(t, "testdata/"+tt.file)
		pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(NewPlan(p, "exact", pl)); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if pl.Arena != tt.opt || !pl.Optimal {
			t.Errorf("%s: arena %d (optimal %v, %s), want %d", tt.file, pl.Arena, pl.Optimal, pl.Detail, tt.opt)
		}
	}
}

func TestExactReportsProgressAndStops(t *testing.T) {
	p := loadCSV(t, "testdata/E.1048576.csv") // not solved in 100,000 nodes
	var msgs []string
	pl, err := Place(context.Background(), p, "exact", PlaceOptions{
		NodeLimit: 100_000,
		Progress:  func(m string) { msgs = append(msgs, m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pl.Detail, "node limit reached") {
		t.Errorf("detail %q does not say the node limit stopped the search", pl.Detail)
	}
	if len(msgs) == 0 || !strings.Contains(msgs[0], "best arena") {
		t.Errorf("progress reports: %q", msgs)
	}
	// Each smaller arena is reported when it is found, not at the next
	// second's report (there may be none: 100,000 nodes take well under
	// a second), so the last arena reported is the answer.
	if last := msgs[len(msgs)-1]; !strings.Contains(last, fmt.Sprintf("best arena %d,", pl.Arena)) {
		t.Errorf("the last progress report %q does not give the arena found, %d", last, pl.Arena)
	}
	// E packs into its lower bound, so a claim of optimality above it is
	// false (E has two independent groups: proving one is not enough).
	if pl.Optimal && pl.Arena != LowerBound(p) {
		t.Errorf("exact claims %d is optimal; %d is feasible", pl.Arena, LowerBound(p))
	}
	bf, _ := Place(context.Background(), p, "best-fit", PlaceOptions{})
	if pl.Arena > bf.Arena {
		t.Errorf("exact %d is worse than best-fit %d", pl.Arena, bf.Arena)
	}
	if err := Verify(NewPlan(p, "exact", pl)); err != nil {
		t.Fatal(err)
	}
}

// Which limit stops the search. A node limit alone turns the default
// time limit off (lowered here to a millisecond, which a search of
// 200,000 nodes outlasts anywhere); a time limit, alone or with a node
// limit, stops it. The time limits are not timed closely: the check is
// only that they stop the search before the default would.
func TestExactLimits(t *testing.T) {
	defer func(d time.Duration) { exactDefaultLimit = d }(exactDefaultLimit)
	p := loadCSV(t, "testdata/E.1048576.csv") // not solved in 20 s
	for _, tt := range []struct {
		name    string
		def     time.Duration
		opts    PlaceOptions
		want    string
		minimum int64 // nodes the search must have visited
	}{
		{"node limit alone", time.Millisecond, PlaceOptions{NodeLimit: 200_000}, "node limit reached", 200_000},
		{"time limit alone", 20 * time.Second, PlaceOptions{TimeLimit: 300 * time.Millisecond}, "time limit reached", 1},
		{"time limit first", 20 * time.Second, PlaceOptions{TimeLimit: 300 * time.Millisecond, NodeLimit: 1 << 50}, "time limit reached", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exactDefaultLimit = tt.def
			start := time.Now()
			pl, err := Place(context.Background(), p, "exact", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); tt.opts.TimeLimit > 0 && took >= tt.def {
				t.Errorf("exact ran %v, as long as the default limit", took)
			}
			var nodes int64
			if i := strings.LastIndex(pl.Detail, ", "); i >= 0 {
				fmt.Sscanf(pl.Detail[i+2:], "%d nodes", &nodes)
			}
			if !strings.HasPrefix(pl.Detail, tt.want) || nodes < tt.minimum {
				t.Errorf("detail %q, want %q after at least %d nodes", pl.Detail, tt.want, tt.minimum)
			}
		})
	}
}

// The same node budget gives the same plan, run after run and on one
// thread or two (auto's portfolio, exact's start, runs members on up to
// GOMAXPROCS goroutines).
func TestExactNodeLimitIsReproducible(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(11, 12))
	problems := map[string]*Problem{}
	for _, f := range []string{"D.1048576.csv", "E.1048576.csv", "I.1048576.csv"} {
		problems[f] = loadCSV(t, "testdata/"+f)
	}
	for k := range 5 {
		problems[fmt.Sprintf("random %d", k)] = randomProblem(rng, 40, 20)
	}
	searched := 0
	for name, p := range problems {
		var first Placement
		for run, procs := range []int{1, 1, 2, 2} {
			runtime.GOMAXPROCS(procs)
			pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: 30_000})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if run == 0 {
				first = pl
				if pl.Order == nil {
					searched++ // the search improved on auto's answer
				}
				continue
			}
			if !slices.Equal(pl.Offsets, first.Offsets) || pl.Detail != first.Detail {
				t.Errorf("%s: run %d with GOMAXPROCS %d: arena %d (%s), first run %d (%s)",
					name, run, procs, pl.Arena, pl.Detail, first.Arena, first.Detail)
			}
		}
	}
	if searched < 3 {
		t.Errorf("the search improved on auto on only %d problems: the test checks little", searched)
	}
}

func TestExactCancelled(t *testing.T) {
	p := loadCSV(t, "testdata/E.1048576.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Place(ctx, p, "exact", PlaceOptions{}); err == nil {
		t.Fatal("exact on a cancelled context returned no error")
	}
}

func TestStrategiesAreDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	problems := []*Problem{loadCSV(t, "testdata/G_1.csv"), loadCSV(t, "testdata/A.1048576.csv")}
	for range 20 {
		problems = append(problems, randomProblem(rng, 30, 20))
	}
	for _, name := range append(slices.Clone(heuristics), "exact", "improve") {
		for k, p := range problems {
			// A node budget, not a time limit: a search stopped by the
			// clock may stop at another node.
			opts := PlaceOptions{NodeLimit: 20_000}
			a, err := Place(context.Background(), p, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Place(context.Background(), p, name, opts)
			if !slices.Equal(a.Offsets, b.Offsets) {
				t.Errorf("%s on problem %d: two runs differ", name, k)
			}
		}
	}
}

func TestAutoNoWorseThanBestFit(t *testing.T) {
	files := []string{"A.1048576.csv", "B.1048576.csv", "C.1048576.csv", "D.1048576.csv", "E.1048576.csv",
		"F.1048576.csv", "G.1048576.csv", "I.1048576.csv", "J.1048576.csv", "G_1.csv", "resnet50.csv"}
	for _, f := range files {
		p := loadCSV(t, "testdata/"+f)
		auto, err := Place(context.Background(), p, "auto", PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(auto.Detail, "won by ") {
			t.Errorf("%s: auto's detail %q does not name the winner", f, auto.Detail)
		}
		for _, bf := range []string{"best-fit", "best-fit-temporal", "breadth", "first-use"} {
			pl, _ := Place(context.Background(), p, bf, PlaceOptions{})
			if auto.Arena > pl.Arena {
				t.Errorf("%s: auto %d > %s %d", f, auto.Arena, bf, pl.Arena)
			}
		}
	}
}

// A group past the search's limit keeps auto's answer, and says so.
func TestExactLeavesHugeGroupsToAuto(t *testing.T) {
	defer func(n int) { exactGroupLimit = n }(exactGroupLimit)
	exactGroupLimit = 100
	p := loadCSV(t, "testdata/C.1048576.csv") // one group of 203 buffers
	auto, err := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Place(context.Background(), p, "exact", PlaceOptions{AutoSlice: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Offsets, auto.Offsets) || ex.Optimal || ex.Order == nil {
		t.Errorf("exact changed auto's answer (arena %d vs %d), or claims optimal (%v), or lost its order", ex.Arena, auto.Arena, ex.Optimal)
	}
	if !strings.Contains(ex.Detail, "auto's answer kept for a group of 203 buffers (the search takes up to 100)") {
		t.Errorf("detail %q does not say why", ex.Detail)
	}
}

// smallNodeLimit is the node budget of the brute-force tests: about four
// times what the hardest of their problems takes to prove (26,790 nodes),
// so a failure there is a wrong answer, not a short search.
const smallNodeLimit = 100_000

// TestExactBudget: with a budget, exact asks for it first. MiniMalloc's
// instances at their capacity (2^20, in the file names) fit within a node
// budget far below what the search without one needs on J; on small
// random problems, a budget at, below or above the optimum never costs
// the optimum.
func TestExactBudget(t *testing.T) {
	for _, tt := range []struct {
		file  string
		nodes int64
	}{
		{"J.1048576.csv", 100_000}, // 28,934 nodes at 2^20
		{"D.1048576.csv", 1_000_000},
		{"I.1048576.csv", 1_000_000},
	} {
		p := loadCSV(t, "testdata/"+tt.file)
		pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: tt.nodes, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(NewPlan(p, "exact", pl)); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if pl.Arena > 1<<20 {
			t.Errorf("%s: arena %d over the budget 2^20 after %d nodes (%s)", tt.file, pl.Arena, tt.nodes, pl.Detail)
		}
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for k := range 150 {
		p := randomProblem(rng, 1+rng.IntN(7), 2+rng.IntN(8))
		for i := range p.Buffers {
			p.Buffers[i].Fixed, p.Buffers[i].Offset = false, 0
		}
		want := bruteForceArena(p)
		for _, budget := range []int64{want - 1, want, want + 1, 1} {
			pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: smallNodeLimit, Budget: budget})
			if err != nil {
				t.Fatalf("problem %d, budget %d: %v", k, budget, err)
			}
			if err := checkOffsets(p, pl.Offsets); err != nil {
				t.Fatalf("problem %d, budget %d: %v", k, budget, err)
			}
			if pl.Arena != want || !pl.Optimal {
				t.Fatalf("problem %d, budget %d: exact found %d (optimal %v, %s), brute force %d", k, budget, pl.Arena, pl.Optimal, pl.Detail, want)
			}
		}
	}
}

// Without a budget, exact's descent (short searches halfway down before
// the decision at the bound) gets MiniMalloc's D and J under their
// capacity, 2^20, where neither bound is known to be reachable: D after
// about 104,000 nodes and J after 112,000, where J took 4.6 million when
// each descent search had 20,000 nodes and then moved its target up.
func TestExactDescends(t *testing.T) {
	for _, file := range []string{"D.1048576.csv", "J.1048576.csv"} {
		p := loadCSV(t, "testdata/"+file)
		pl, err := Place(context.Background(), p, "exact", PlaceOptions{NodeLimit: 300_000})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(NewPlan(p, "exact", pl)); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if pl.Arena > 1<<20 {
			t.Errorf("%s: arena %d over 2^20 after 300,000 nodes (%s)", file, pl.Arena, pl.Detail)
		}
	}
}
