package planner

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

// loadProblem lowers a file of the repository with default options.
func loadProblem(t *testing.T, path string) *Problem {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err) // missing input is a failure
	}
	in, err := Load(filepath.Base(path), data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	p, err := Lower(in.Source, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every strategy's explanation of every placed tensor is checked against
// a recomputation from the plan alone, by brute force: the conflicts are
// exactly the buffers placed before it (all others, for a search) that
// share a step with it; the chosen gap is free of them, holds the buffer
// and is bounded by them; and the stated rule picks that gap over every
// other.
func TestExplainAgreesWithRecomputation(t *testing.T) {
	problems := []*Problem{
		loadProblem(t, "../examples/r1-views.json"),
		loadProblem(t, "../examples/transformer.json"),
		loadProblem(t, "../examples/mlp.json"),
		loadProblem(t, "../examples/train-backward.json"),
		loadProblem(t, "../ir/testdata/input.12.csv"),
		loadProblem(t, "testdata/G_1.csv"),
		Generate(400, 7),
	}
	for _, p := range problems {
		for _, strategy := range StrategyNames() {
			t.Run(p.Name+"/"+strategy, func(t *testing.T) {
				plan, _, err := PlanProblem(context.Background(), p, strategy, PlaceOptions{NodeLimit: 20000})
				if err != nil {
					t.Fatal(err)
				}
				if plan.PlacementRule == "" {
					t.Fatalf("the plan records no placement rule")
				}
				rank := map[string]int{}
				for k, n := range plan.PlacementOrder {
					rank[n] = k
				}
				checked := 0
				for i := range plan.Tensors {
					tt := &plan.Tensors[i]
					if !tt.Placed() || tt.Size+tt.Guard == 0 {
						continue
					}
					e, err := Explain(plan, tt.Name)
					if err != nil {
						t.Fatal(err)
					}
					checkPlaceReason(t, plan, tt, rank, e.Placement)
					checked++
				}
				if checked == 0 {
					t.Fatal("no tensor was checked")
				}
			})
		}
	}
}

func checkPlaceReason(t *testing.T, plan *Plan, tt *PlanTensor, rank map[string]int, r *PlaceReason) {
	t.Helper()
	if r == nil {
		t.Fatalf("%s: no placement reason", tt.Name)
	}
	span := tt.Size + tt.Guard
	search := plan.PlacementRule == RuleSearch
	// The conflicts, recomputed.
	var want []string
	for i := range plan.Tensors {
		o := &plan.Tensors[i]
		if o == tt || !o.Placed() || o.Size+o.Guard == 0 || o.Death < tt.Birth || tt.Death < o.Birth {
			continue
		}
		if search || rank[o.Name] < rank[tt.Name] {
			want = append(want, o.Name)
		}
	}
	var got []string
	for _, c := range r.Conflicts {
		got = append(got, c.Name)
		if c.End <= c.Offset && span > 0 {
			t.Fatalf("%s: conflict %s is empty", tt.Name, c.Name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: conflicts %v, want %v", tt.Name, got, want)
	}
	if !search && r.Turn != rank[tt.Name]+1 {
		t.Fatalf("%s: turn %d, want %d", tt.Name, r.Turn, rank[tt.Name]+1)
	}
	if r.Chosen < 0 || r.Chosen >= len(r.Gaps) {
		t.Fatalf("%s: no gap chosen among %v", tt.Name, r.Gaps)
	}
	g := r.Gaps[r.Chosen]
	hi := g.Hi
	if hi < 0 {
		hi = 1 << 62
	}
	if tt.Offset < g.Lo || tt.Offset+span > hi {
		t.Fatalf("%s at [%d, %d) is not inside the chosen gap %v", tt.Name, tt.Offset, tt.Offset+span, g)
	}
	// The gap is free of the conflicts and bounded by them (or by 0).
	bottom := g.Lo == 0
	for _, c := range r.Conflicts {
		if c.Offset < hi && g.Lo < c.End {
			t.Fatalf("%s: conflict %s [%d, %d) lies in the chosen gap %v", tt.Name, c.Name, c.Offset, c.End, g)
		}
		bottom = bottom || c.End == g.Lo
	}
	if !bottom && plan.PlacementRule != RuleFirstUse && plan.PlacementRule != RuleStack {
		t.Fatalf("%s: the chosen gap %v starts at no conflict's end", tt.Name, g)
	}
	if !r.Holds {
		t.Fatalf("%s: the rule %s does not give offset %d from gaps %v", tt.Name, plan.PlacementRule, tt.Offset, r.Gaps)
	}
	// The rule, checked over the other gaps: by the size of block they
	// offer (first use's open gap is a block below its top, if it holds
	// the buffer there), then by offset.
	align := plan.Alignment
	size := func(o Gap) int64 {
		switch {
		case o.Hi >= 0:
			return o.Hi - o.Lo
		case plan.PlacementRule == RuleFirstUse && o.Top > o.Lo && alignUp(o.Lo, align)+span <= o.Top:
			return o.Top - o.Lo
		}
		return 1 << 62
	}
	for k, o := range r.Gaps {
		if k == r.Chosen || o.Hi < 0 || alignUp(o.Lo, align)+span > o.Hi {
			continue
		}
		switch plan.PlacementRule {
		case RuleBestFit, RuleFirstUse:
			if size(o) < size(g) || size(o) == size(g) && o.Lo < g.Lo {
				t.Fatalf("%s (%s): gap %v fits and is smaller or lower than the chosen %v", tt.Name, plan.PlacementRule, o, g)
			}
		case RuleFirstFit:
			if o.Lo < g.Lo {
				t.Fatalf("%s (first fit): gap %v fits below the chosen %v", tt.Name, o, g)
			}
		case RuleStack:
			t.Fatalf("%s (no reuse): took no gap, yet %v fits", tt.Name, o)
		}
	}
}

// The text names the producer, the last reader and the conflicts.
func TestExplainText(t *testing.T) {
	tests := []struct {
		file, tensor string
		want         []string
	}{
		{"../examples/r1-views.json", "mm", []string{"op mm (matmul) writes it", "its view n is a graph output", "x [0, 256)", "w [256, 448)", "(taken)"}},
		{"../examples/r1-views.json", "r", []string{"a view of mm", "op r (reshape)", "its view n is a graph output", "sits inside mm"}},
		{"../examples/r1-views.json", "x", []string{"Loaded before the run (a input)", "whole run"}},
		{"../examples/transformer.json", "l0.gelu", []string{"op l0.gelu (gelu) writes it", "op l0.down reads it last", "placed before it (1): l0.up [0, 4194304)"}},
		{"../examples/transformer.json", "l0.qkv", []string{"op l0.qkv (linear_qkv) writes it", "is read last there, by op l0.attn"}},
	}
	for _, tc := range tests {
		t.Run(tc.tensor, func(t *testing.T) {
			p := loadProblem(t, tc.file)
			plan, _, err := PlanProblem(context.Background(), p, "", PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e, err := Explain(plan, tc.tensor)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Text, w) {
					t.Errorf("the explanation of %s lacks %q:\n%s", tc.tensor, w, e.Text)
				}
			}
		})
	}
	if _, err := Explain(&Plan{Name: "p"}, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("an unknown tensor: %v", err)
	}
}

// An exact search that improved on auto's answer leaves no order: the
// explanation then lists every buffer that shares a step with the tensor,
// and the free gap it sits in among them.
func TestExplainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	searched := 0
	for range 5 {
		p := randomProblem(rng, 40, 20)
		plan, _, err := PlanProblem(context.Background(), p, "exact", PlaceOptions{NodeLimit: 30_000})
		if err != nil {
			t.Fatal(err)
		}
		if plan.PlacementRule != RuleSearch {
			continue
		}
		searched++
		if plan.PlacementOrder != nil {
			t.Fatalf("a searched plan has a placement order")
		}
		for i := range plan.Tensors {
			tt := &plan.Tensors[i]
			if !tt.Placed() || tt.Size+tt.Guard == 0 {
				continue
			}
			e, err := Explain(plan, tt.Name)
			if err != nil {
				t.Fatal(err)
			}
			checkPlaceReason(t, plan, tt, nil, e.Placement)
			if !strings.Contains(e.Text, "a search placed the buffers together") {
				t.Fatalf("the explanation of %s does not name the search:\n%s", tt.Name, e.Text)
			}
		}
	}
	if searched == 0 {
		t.Fatal("the search improved on auto on none of the problems: the test checks nothing")
	}
}
