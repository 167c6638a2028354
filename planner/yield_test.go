package planner

import (
	"context"
	"sync"
	"testing"

	"memplan/ir"
)

// The browser relies on Place yielding around the strategy: without it the
// page freezes for the whole of planning.
func TestPlaceCallsYield(t *testing.T) {
	tab := &ir.BufferTable{Name: "y", Rows: []ir.BufferRow{
		{ID: "a", Lower: 0, Upper: 2, Size: 64, Line: 2},
		{ID: "b", Lower: 1, Upper: 3, Size: 64, Line: 3},
	}}
	p, err := FromTable(tab, 64)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := Place(context.Background(), p, "", PlaceOptions{Yield: func() { n++ }}); err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("Place called Yield %d times, want at least 2 (before and after the strategy)", n)
	}
}

// Each strategy yields from inside its work, not only around it, so a
// browser stays responsive through a long placement.
func TestStrategiesYieldWhileWorking(t *testing.T) {
	p := Generate(3000, 5)
	for _, name := range StrategyNames() {
		if name == "no-reuse" {
			continue // one linear pass: milliseconds even for a million buffers
		}
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex // auto's members may yield from several goroutines
			n := 0
			yield := func() { mu.Lock(); n++; mu.Unlock() }
			if _, err := Place(context.Background(), p, name, PlaceOptions{Yield: yield, NodeLimit: 20_000}); err != nil {
				t.Fatal(err)
			}
			if want := 2 + len(p.Buffers)/256; n < want {
				t.Errorf("%s yielded %d times placing %d buffers, want at least %d", name, n, len(p.Buffers), want)
			}
		})
	}
}
