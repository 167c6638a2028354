package planner

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"memplan/ir"
)

func TestLoadDetectsEveryFormat(t *testing.T) {
	mlp, err := os.ReadFile("../examples/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Load("mlp.json", mlp, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanSource(context.Background(), in.Source, DefaultOptions(), "", PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	record, _ := json.Marshal(plan)
	var broken Plan
	json.Unmarshal(record, &broken)
	broken.Tensors[1].Offset = broken.Tensors[2].Offset + 8
	brokenRecord, _ := json.Marshal(&broken)
	tests := []struct {
		name, file, data string
		format           string // "" when an error is wanted
		wantErr          string
	}{
		{"graph", "mlp.json", string(mlp), "graph-json", ""},
		{"graph by content", "mlp.txt", string(mlp), "graph-json", ""},
		{"csv", "x.csv", "id,lower,upper,size\na,0,2,8\n", "buffer-csv", ""},
		{"plan record", "plan.json", string(record), PlanRecordFormat, ""},
		{"plan record by content", "plan", "  \n" + string(record), PlanRecordFormat, ""},
		{"invalid plan record", "plan.json", string(brokenRecord), "", "plan.json: the plan record is not valid: invalid plan:"},
		{"unknown", "notes.txt", "hello", "", "notes.txt: unknown file format (known: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Load(tc.file, []byte(tc.data), ir.DecodeOptions{})
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case in.Format != tc.format || (in.Plan == nil) == (in.Source == nil):
				t.Fatalf("format %q (plan %v, source %v), want %q and exactly one of them", in.Format, in.Plan != nil, in.Source != nil, tc.format)
			}
		})
	}
}

func TestFitOf(t *testing.T) {
	tests := []struct {
		name   string
		arena  int64
		f32    bool
		budget int64
		want   string // "" for no verdict
	}{
		{"no budget, not f32-uniform", 200 << 20, false, -1, ""},
		{"f32-uniform fits WebGPU", 100 << 20, true, -1, "fits WebGPU's 128 MiB storage-binding limit (100 MiB of 128 MiB)"},
		{"f32-uniform over WebGPU", 129 << 20, true, -1, "exceeds WebGPU's 128 MiB storage-binding limit by 1 MiB"},
		{"explicit budget wins", 129 << 20, true, 256 << 20, "fits the budget of 256 MiB (129 MiB of 256 MiB)"},
		{"small budget in readable units", 3 << 20, false, 10000, "exceeds the budget of 9.77 KiB by 2.99 MiB"},
		{"exactly the budget fits", 4096, false, 4096, "fits the budget of 4 KiB (4 KiB of 4 KiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{ArenaSize: tc.arena, Options: Options{F32Uniform: tc.f32}}
			f := p.FitOf(tc.budget)
			switch {
			case tc.want == "" && f != nil:
				t.Fatalf("verdict %q, want none", f.Text)
			case tc.want != "" && (f == nil || f.Text != tc.want):
				t.Fatalf("verdict %+v, want %q", f, tc.want)
			case f != nil && f.Fits != strings.HasPrefix(tc.want, "fits"):
				t.Fatalf("Fits %v for %q", f.Fits, tc.want)
			}
		})
	}
}

func TestPlanRecordExpansionIsAtLeastTheMinimum(t *testing.T) {
	if planRecordExpansion < ir.MinExpansion {
		t.Fatalf("a plan record takes %d× its size, below ir.MinExpansion %d", planRecordExpansion, ir.MinExpansion)
	}
}
