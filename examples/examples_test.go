package examples

import (
	"context"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// TestDefaultPlanIsCurrent: the embedded record the viewer opens on is
// the one the planner makes now; if the planner changed, regenerate it
// with "go generate ./examples".
func TestDefaultPlanIsCurrent(t *testing.T) {
	data, err := FS.ReadFile(Default)
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load(Default, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Plans.ReadFile("plans/" + Default)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := planner.Load("plans/"+Default, rec, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The placement rule is not hashed (it says how the plan was made), but
	// the viewer's explanations read it from this record.
	if stored.Plan == nil || stored.Plan.Fingerprint != fresh.Fingerprint || stored.Plan.PlacementRule != fresh.PlacementRule {
		t.Fatalf("plans/%s is stale (fingerprint %v, the planner makes %s): run go generate ./examples", Default, stored.Plan != nil && stored.Plan.Fingerprint != "", fresh.Fingerprint)
	}
}
