package protocol

import (
	"testing"

	"memplan/planner"
)

// FactsOf says what a plan needs in numbers and in one sentence: the
// arena against the lower bound (at it, proven above it, or neither),
// then the verdict when there is one.
func TestFactsOf(t *testing.T) {
	over := &planner.Fit{Budget: 1024, Limit: "budget", Over: 1024, Text: "exceeds the budget by 1 KiB"}
	for _, c := range []struct {
		name      string
		arena, lb int64
		bySearch  bool
		fit       *planner.Fit
		proven    bool
		text      string
	}{
		{"at the bound", 2048, 2048, false, nil, true, "g.json needs an arena of 2 KiB (2,048 B), its lower bound: no plan needs less."},
		{"proven above it", 3072, 2048, true, nil, true, "g.json needs an arena of 3 KiB (3,072 B), the smallest any plan can have (the lower bound is 2 KiB (2,048 B))."},
		{"not proven", 3072, 2048, false, over, false, "g.json needs an arena of 3 KiB (3,072 B) as planned here; the lower bound is 2 KiB (2,048 B). It exceeds the budget by 1 KiB."},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &planner.Plan{Name: "g", Strategy: "auto", ArenaSize: c.arena, LowerBound: c.lb, Optimal: c.arena == c.lb, OptimalBySearch: c.bySearch,
				Tensors: make([]planner.PlanTensor, 3)}
			f := FactsOf("g.json", p, c.fit)
			if f.ArenaSize != c.arena || f.LowerBound != c.lb || f.Proven != c.proven || f.Tensors != 3 || f.Fit != c.fit || f.Name != "g" || f.Strategy != "auto" {
				t.Errorf("facts %+v", f)
			}
			if f.Text != c.text {
				t.Errorf("text %q\nwant %q", f.Text, c.text)
			}
		})
	}
}
