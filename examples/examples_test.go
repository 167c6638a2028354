package examples

import (
	"bytes"
	"context"
	"os"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// TestDefaultPlanIsCurrent: the embedded plan the viewer opens on, and
// its record beside it, are the plan the planner makes now, and valid;
// if the planner changed, regenerate them with "go generate ./examples".
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
	want, err := fresh.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(DefaultPlan, want) {
		t.Fatalf("plans/transformer.bin is stale: run go generate ./examples")
	}
	p, err := planner.DecodeBinary(DefaultPlan)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := planner.Lower(in.Source, planner.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := planner.VerifyAgainst(prob, p); err != nil {
		t.Fatalf("the embedded plan fails its proof: %v", err)
	}
	rec, err := os.ReadFile("plans/transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := planner.Load("plans/transformer.json", rec, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Plan == nil || stored.Plan.Fingerprint != fresh.Fingerprint || stored.Plan.PlacementRule != fresh.PlacementRule {
		t.Fatalf("plans/transformer.json is stale: run go generate ./examples")
	}
}
