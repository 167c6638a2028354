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

// TestJudge: one verdict for every front end. A budget of 0 is none; a
// device and a budget must both be met; f32-uniform's WebGPU limit holds
// only when nothing else is given.
func TestJudge(t *testing.T) {
	const MiB = 1 << 20
	def, err := ProfileLimits(DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		arena  int64
		f32    bool
		device bool // planned for the default profile under arena binding
		budget int64
		want   string // the verdict's text; "" for none
		fits   bool
		line   int64 // the budget line it draws
	}{
		{"no budget, not f32-uniform", 200 * MiB, false, false, 0, "", false, 0},
		{"a negative budget is none", 200 * MiB, false, false, -1, "", false, 0},
		{"f32-uniform fits WebGPU", 100 * MiB, true, false, 0, "fits WebGPU's 128 MiB storage-binding limit (100 MiB of 128 MiB)", true, 128 * MiB},
		{"f32-uniform at WebGPU's limit", 128 * MiB, true, false, 0, "fits WebGPU's 128 MiB storage-binding limit (128 MiB of 128 MiB)", true, 128 * MiB},
		{"f32-uniform a byte over", 128*MiB + 1, true, false, 0, "exceeds WebGPU's 128 MiB storage-binding limit by 1 B", false, 128 * MiB},
		{"f32-uniform over WebGPU", 129 * MiB, true, false, 0, "exceeds WebGPU's 128 MiB storage-binding limit by 1 MiB", false, 128 * MiB},
		{"explicit budget wins", 129 * MiB, true, false, 256 * MiB, "fits the budget of 256 MiB (129 MiB of 256 MiB)", true, 256 * MiB},
		{"small budget in readable units", 3 * MiB, false, false, 10000, "exceeds the budget of 9.77 KiB by 2.99 MiB", false, 10000},
		{"exactly the budget fits", 4096, false, false, 4096, "fits the budget of 4 KiB (4 KiB of 4 KiB)", true, 4096},
		{"a device", 100 * MiB, false, true, 0, "fits WebGPU profile default (arena binding)", true, 128 * MiB},
		{"over a device", 129 * MiB, true, true, 0, "does not fit WebGPU profile default (arena binding): 1 violation", false, 128 * MiB},
		{"a device and a budget it exceeds", 100 * MiB, false, true, 64 * MiB,
			"fits WebGPU profile default (arena binding); exceeds the budget of 64 MiB by 36 MiB", false, 64 * MiB},
		{"a budget does not hide the device", 129 * MiB, false, true, 1 << 30,
			"does not fit WebGPU profile default (arena binding): 1 violation; fits the budget of 1 GiB (129 MiB of 1 GiB)", false, 128 * MiB},
		{"a device and a budget, both met", 100 * MiB, false, true, 120 * MiB,
			"fits WebGPU profile default (arena binding); fits the budget of 120 MiB (100 MiB of 120 MiB)", true, 120 * MiB},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{ArenaSize: tc.arena, Options: Options{F32Uniform: tc.f32}}
			if tc.device {
				p.Binding, p.Limits = BindArena, &def
			}
			f := Judge(p, tc.budget)
			switch {
			case tc.want == "" && f != nil:
				t.Fatalf("verdict %q, want none", f.Text)
			case tc.want == "":
				return
			case f == nil || f.Text != tc.want:
				t.Fatalf("verdict %+v, want %q", f, tc.want)
			case f.Fits != tc.fits || f.Budget != tc.line:
				t.Fatalf("fits %v, line at %d; want %v at %d", f.Fits, f.Budget, tc.fits, tc.line)
			case !f.Fits && f.Over != tc.arena-tc.line:
				t.Fatalf("over by %d, want %d", f.Over, tc.arena-tc.line)
			}
			if tc.budget <= 0 {
				if old := p.FitOf(-1); old == nil || old.Text != f.Text {
					t.Errorf("FitOf(-1) = %+v, want Judge's", old)
				}
			}
		})
	}
}

func TestPlanRecordExpansionIsAtLeastTheMinimum(t *testing.T) {
	if planRecordExpansion < ir.MinExpansion {
		t.Fatalf("a plan record takes %d× its size, below ir.MinExpansion %d", planRecordExpansion, ir.MinExpansion)
	}
}
