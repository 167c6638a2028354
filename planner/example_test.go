package planner_test

import (
	"context"
	"fmt"
	"os"

	"memplan/ir"
	"memplan/planner"
)

// Plan the views example of the seed planner: reshape, cast and narrow
// borrow mm's bytes instead of owning their own.
func ExamplePlanSource() {
	data, err := os.ReadFile("../examples/r1-views.json")
	if err != nil {
		panic(err)
	}
	src, err := ir.Decode("r1-views.json", data, ir.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	plan, err := planner.PlanSource(context.Background(), src, planner.DefaultOptions(), "", planner.PlaceOptions{})
	if err != nil {
		panic(err)
	}
	if err := planner.Verify(plan); err != nil {
		panic(err)
	}
	for _, t := range plan.Tensors {
		if t.Root != "" {
			fmt.Printf("%s is %d bytes of %s at +%d\n", t.Name, t.Size, t.Root, t.ViewOffset)
		}
	}
	fmt.Println("arena", plan.ArenaSize, "lower bound", plan.LowerBound)
	// Output:
	// r is 128 bytes of mm at +0
	// c is 128 bytes of mm at +0
	// n is 64 bytes of mm at +32
	// arena 576 lower bound 576
}
