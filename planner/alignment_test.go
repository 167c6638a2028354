package planner

import (
	"encoding/json"
	"os"
	"testing"

	"memplan/ir"
	_ "memplan/ir/onnx"
)

// The default alignment follows what a file decodes to: a graph, from
// JSON or ONNX, gets 64 bytes, a buffer list 1, a plan record none; and
// Lower plans with it when the options set none.
func TestDefaultAlignmentFollowsTheInput(t *testing.T) {
	record := func() []byte {
		src, err := os.ReadFile("../examples/r1-chain.json")
		if err != nil {
			t.Fatal(err)
		}
		in, err := Load("r1-chain.json", src, ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(in.Source, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := PlanProblem(t.Context(), p, "best-fit", PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(plan)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
		want int64
	}{
		{"graph.json", read("../examples/mlp.json"), 64},
		{"model.onnx", read("../ir/onnx/testdata/bert_toy.static.onnx"), 64},
		{"buffers.csv", read("testdata/G_1.csv"), 1},
		{"plan.json", record(), 0},
	}
	for _, tt := range tests {
		in, err := Load(tt.name, tt.data, ir.DecodeOptions{Symbols: map[string]int64{"batch": 2}})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := in.DefaultAlignment(); got != tt.want {
			t.Errorf("%s: default alignment %d, want %d", tt.name, got, tt.want)
		}
		if in.Source == nil {
			continue
		}
		if got := DefaultAlignmentOf(in.Source); got != tt.want {
			t.Errorf("%s: DefaultAlignmentOf %d, want %d", tt.name, got, tt.want)
		}
		p, err := Lower(in.Source, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if p.Alignment != tt.want {
			t.Errorf("%s: lowered with alignment %d, want the default %d", tt.name, p.Alignment, tt.want)
		}
	}
	for _, a := range AlignmentDefaults() {
		if got := DefaultAlignment(a.Format); got != a.Alignment {
			t.Errorf("%s (%s): the table says %d, DefaultAlignment %d", a.Name, a.Format, a.Alignment, got)
		}
	}
}
