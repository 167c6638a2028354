package planner

import (
	"slices"
	"testing"
)

// TestStrategyTablesAgree: every listed strategy has an algorithm, and
// every algorithm is listed.
func TestStrategyTablesAgree(t *testing.T) {
	if len(strategies) != len(placers()) {
		t.Fatalf("%d strategies listed, %d algorithms", len(strategies), len(placers()))
	}
	for _, s := range strategies {
		if placers()[s.Name] == nil || s.Doc == "" {
			t.Errorf("strategy %q has no algorithm or no doc", s.Name)
		}
	}
	if placers()[DefaultStrategy] == nil {
		t.Errorf("the default strategy %q has no algorithm", DefaultStrategy)
	}
}

// The portfolio starts member 0 first, then the cheap members (first
// use), whose arenas stop the others early, then the rest; on huge
// problems the cheap ones go last, so that two breadth orders start at
// once.
func TestRunOrder(t *testing.T) {
	members := autoMembers()
	firstUse := slices.IndexFunc(members, func(m autoMember) bool { return m.name == "first-use" })
	if firstUse < 0 || !members[firstUse].cheap {
		t.Fatal("first-use is not a cheap member of the portfolio")
	}
	tests := []struct {
		huge bool
		at   int // where first-use starts
	}{
		{false, 1},
		{true, len(members) - 1},
	}
	for _, tc := range tests {
		order := runOrder(members, tc.huge)
		if len(order) != len(members) || order[0] != 0 || order[tc.at] != firstUse {
			t.Errorf("huge %v: order %v, want member 0 first and first-use (%d) at %d", tc.huge, order, firstUse, tc.at)
		}
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		for i, m := range sorted {
			if m != i {
				t.Errorf("huge %v: order %v does not run every member once", tc.huge, order)
				break
			}
		}
	}
}
