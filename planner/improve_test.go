package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// The improver never returns a worse or invalid plan, and improve never
// claims an optimum above the aligned bound: on random problems, with
// fixed buffers, alignments and guards, every answer goes through Verify.
func TestImproveNeverWorseOrInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	improved := 0
	for k := range 200 {
		p := randomProblem(rng, 1+rng.IntN(60), 2+rng.IntN(30))
		start, err := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
		if err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
		pl, err := Place(context.Background(), p, "improve", PlaceOptions{NodeLimit: 5_000})
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

// Real traces where the portfolio alone misses the bound reach it by
// default: DenseNet-121's activations through auto's slice, ResNet-50's
// SOMAS trace and PanGu-α's (not in testdata: 450 kB) through breadth
// in the orders within a section that suit them.
func TestAutoReachesTheBoundOnRealTraces(t *testing.T) {
	tests := []struct {
		file      string
		portfolio bool // the portfolio alone reaches the bound
	}{
		{"densenet121_activations.csv", false},
		{"resnet50.csv", true},
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
		if lb := LowerBound(p); pl.Arena != lb || !pl.Optimal {
			t.Errorf("%s: auto's arena %d (%s), lower bound %d", tt.file, pl.Arena, pl.Detail, lb)
		}
		alone, _ := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
		if reached := alone.Arena == LowerBound(p); reached != tt.portfolio {
			t.Errorf("%s: the portfolio alone reaches the bound: %v, want %v (%s)", tt.file, reached, tt.portfolio, alone.Detail)
		}
	}
}
