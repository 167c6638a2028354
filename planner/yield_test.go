package planner

import (
	"context"
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
