package planner

import "testing"

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
