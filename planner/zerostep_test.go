package planner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"memplan/ir"
)

// zeroStepSources are inputs with no compute step: a graph of loaded
// tensors only, a graph of no nodes, and a buffer list of no rows. Each
// plans, and each record, after any round trip, must verify.
var zeroStepSources = []struct{ name, file, data string }{
	{"one input", "g.json", `{"format":"memplan.graph/v1","nodes":[{"name":"x","op":"input","shape":[4],"dtype":"f32"}]}`},
	{"no nodes", "g.json", `{"format":"memplan.graph/v1","nodes":[]}`},
	{"input, param and constant", "g.json", `{"format":"memplan.graph/v1","name":"loaded","nodes":[
		{"name":"x","op":"input","shape":[2,3],"dtype":"f16"},
		{"name":"w","op":"param","shape":[3],"dtype":"f32"},
		{"name":"c","op":"constant","shape":[],"dtype":"i64"}]}`},
	{"input that is the output", "g.json", `{"format":"memplan.graph/v1","nodes":[{"name":"x","op":"input","shape":[4],"dtype":"f32"}],"outputs":["x"]}`},
	{"no rows", "b.csv", "id,lower,upper,size\n"},
}

func lowerText(t *testing.T, file, data string) *Problem {
	t.Helper()
	src, err := ir.Decode(file, []byte(data), ir.DecodeOptions{MaxMemory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	if strings.HasSuffix(file, ".csv") {
		opts.Alignment = 1
	}
	p, err := Lower(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A graph with no compute steps plans, and its record verifies on its own
// and against its source after every way a record travels: encoding/json,
// the planner's own JSON writer (the page's), and the binary form. (Its
// reads, [] for no steps, once fell out of the JSON while the fingerprint
// hashed them, and a graph of no nodes was taken for a buffer list.)
func TestZeroStepRecordsVerify(t *testing.T) {
	for _, tc := range zeroStepSources {
		for _, strategy := range []string{"auto", "best-fit", "improve", "no-reuse"} {
			t.Run(tc.name+"/"+strategy, func(t *testing.T) {
				p := lowerText(t, tc.file, tc.data)
				if p.Steps != 0 {
					t.Fatalf("steps = %d, want a source with none", p.Steps)
				}
				plan, _, err := PlanProblem(context.Background(), p, strategy, PlaceOptions{NodeLimit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				if graph := strings.HasSuffix(tc.file, ".json"); graph != (plan.Reads != nil) {
					t.Errorf("reads = %v: a graph's record has reads, a buffer list's none", plan.Reads)
				}
				stdJSON, err := json.Marshal(plan)
				if err != nil {
					t.Fatal(err)
				}
				ownJSON, err := ir.EncodeJSON(plan, "  ")
				if err != nil {
					t.Fatal(err)
				}
				bin, err := plan.AppendBinary(nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, way := range []struct {
					name   string
					decode func() (*Plan, error)
				}{
					{"encoding/json", func() (*Plan, error) { return DecodePlan("rec.json", stdJSON) }},
					{"EncodeJSON", func() (*Plan, error) { return DecodePlan("rec.json", ownJSON) }},
					{"binary", func() (*Plan, error) { return DecodeBinary(bin) }},
				} {
					back, err := way.decode()
					if err != nil {
						t.Fatalf("%s: %v", way.name, err)
					}
					if err := Verify(back); err != nil {
						t.Errorf("%s: Verify: %v", way.name, err)
					}
					if err := VerifyAgainst(p, back); err != nil {
						t.Errorf("%s: VerifyAgainst: %v", way.name, err)
					}
				}
			})
		}
	}
}

// A record edited in a field only its source knows, its fingerprint left
// stale, is rejected with that field named, not the fingerprint alone.
func TestStaleFingerprintNamesTheField(t *testing.T) {
	const graph = `{"format":"memplan.graph/v1","name":"g","nodes":[
		{"name":"x","op":"input","shape":[4],"dtype":"f32"},
		{"name":"y","op":"relu","inputs":["x"],"shape":[4],"dtype":"f32"}],"outputs":["y"]}`
	tests := []struct {
		name, file, data string
		edit             func(*Plan)
		want             string
	}{
		{"name", "g.json", graph, func(p *Plan) { p.Name = "h" }, `name is "h", the source's is "g"`},
		{"reads dropped", "g.json", graph, func(p *Plan) { p.Reads = nil }, "reads is missing"},
		{"reads dropped, no steps", "g.json", zeroStepSources[0].data, func(p *Plan) { p.Reads = nil }, "reads is missing"},
		{"reads added to a buffer list", "b.csv", "id,lower,upper,size\na,0,2,8\n", func(p *Plan) { p.Reads = [][]int{{0}, {0}} }, "reads is given"},
		{"reads changed", "g.json", graph, func(p *Plan) { p.Reads[0] = []int{} }, "reads differ"},
		{"schedule", "g.json", graph, func(p *Plan) { p.Schedule[0] = "z" }, `schedule differs from the source's ops: [0] is "z"`},
		{"shape", "g.json", graph, func(p *Plan) { p.Tensors[1].Shape = []int64{2, 2} }, `tensor "y": shape is [2 2]`},
		{"op", "g.json", graph, func(p *Plan) { p.Tensors[1].Op = "gelu" }, `tensor "y": op is "gelu"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := lowerText(t, tc.file, tc.data)
			made, _, err := PlanProblem(context.Background(), p, "auto", PlaceOptions{NodeLimit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			// A decoded copy: the record shares its lists with the problem.
			data, err := json.Marshal(made)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := DecodePlan("rec.json", data)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(plan)
			err = VerifyAgainst(p, plan)
			if err == nil {
				t.Fatal("VerifyAgainst accepted the edited record")
			}
			for _, want := range []string{tc.want, "fingerprint is"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("VerifyAgainst = %v\nwant it to say %q", err, want)
				}
			}
		})
	}
}
