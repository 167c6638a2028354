package memplan_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"memplan/ir"
	_ "memplan/ir/onnx" // the ONNX decoder, for planner.Load
	"memplan/planner"
	"memplan/viz/svgplot"
	"memplan/wasm/protocol"
)

// graph is a small graph in memplan's graph JSON: two matmuls and a relu.
const graph = `{
  "format": "memplan.graph/v1",
  "name": "tiny",
  "symbols": {"batch": 4},
  "nodes": [
    {"name": "x",  "op": "input",  "shape": ["batch", 256], "dtype": "f32"},
    {"name": "w1", "op": "param",  "shape": [256, 256],     "dtype": "f32"},
    {"name": "w2", "op": "param",  "shape": [256, 16],      "dtype": "f32"},
    {"name": "h",  "op": "matmul", "inputs": ["x", "w1"],   "shape": ["batch", 256], "dtype": "f32"},
    {"name": "a",  "op": "relu",   "inputs": ["h"],         "shape": ["batch", 256], "dtype": "f32"},
    {"name": "y",  "op": "matmul", "inputs": ["a", "w2"],   "shape": ["batch", 16],  "dtype": "f32"}
  ],
  "outputs": ["y"]
}`

// planTiny decodes and plans the graph, as Example_plan does.
func planTiny() *planner.Plan {
	in, err := planner.Load("tiny.json", []byte(graph), ir.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	p, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "auto", planner.PlaceOptions{NodeLimit: 1 << 20})
	if err != nil {
		panic(err)
	}
	return p
}

// Decode a file: the format comes from its name and bytes; a graph's
// errors say where.
func Example_decode() {
	in, err := planner.Load("tiny.json", []byte(graph), ir.DecodeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Format, len(in.Source.Graph.Nodes), "nodes")

	bad := strings.Replace(graph, `["a", "w2"]`, `["a", "w3"]`, 1)
	_, err = planner.Load("bad.json", []byte(bad), ir.DecodeOptions{})
	var ie *ir.Error
	if errors.As(err, &ie) {
		fmt.Printf("%s line %d, %s, node %s\n", ie.File, ie.Line, ie.Path, ie.Node)
	}
	// Output:
	// graph-json 6 nodes
	// bad.json line 11, nodes[5].inputs[1], node y
}

// Plan a decoded file: every tensor's offset in one arena.
func Example_plan() {
	p := planTiny()
	fmt.Println("arena", p.ArenaSize, "lower bound", p.LowerBound)
	for _, t := range p.Tensors {
		fmt.Printf("%-2s %-10s offset %6d size %6d steps %d-%d\n", t.Name, t.Kind, t.Offset, t.Size, t.Birth, t.Death)
	}
	// Output:
	// arena 291200 lower bound 291200
	// x  input      offset 278784 size   4096 steps 0-3
	// w1 param      offset      0 size 262144 steps 0-3
	// w2 param      offset 262272 size  16384 steps 0-3
	// h  activation offset 283008 size   4096 steps 0-1
	// a  activation offset 287104 size   4096 steps 1-2
	// y  output     offset 283008 size    256 steps 2-3
}

// Verify a plan record: on its own, and against its source as memplan
// verify does. A record with one offset moved is refused.
func Example_verify() {
	p := planTiny()
	record, err := ir.EncodeJSON(p, "  ")
	if err != nil {
		panic(err)
	}
	_, invalid, err := protocol.VerifyRecord(context.Background(), "tiny.json", []byte(graph), "tiny.plan.json", record, protocol.DefaultOptions(), 1<<30)
	fmt.Println("valid:", err == nil && len(invalid) == 0)

	moved, err := planner.DecodePlan("tiny.plan.json", record)
	if err != nil {
		panic(err)
	}
	moved.Tensors[4].Offset = moved.Tensors[3].Offset // a onto h, which is alive with it
	err = planner.Verify(moved)
	first, _, _ := strings.Cut(fmt.Sprint(err), "\n")
	fmt.Println("moved:", first)
	// Output:
	// valid: true
	// moved: invalid plan: tensors "h" [283008, 287104) and "a" [283008, 287104) overlap in memory while both live (steps 1..1)
}

// Draw a plan as the web widget's SVG picture.
func Example_svg() {
	var b bytes.Buffer
	if err := svgplot.Write(&b, planTiny(), svgplot.Options{Width: 640, Height: 240, Theme: "dark"}); err != nil {
		panic(err)
	}
	svg := b.String()
	fmt.Println(strings.HasPrefix(svg, "<svg"), strings.Contains(svg, `width="640"`))
	// Output:
	// true true
}

// Plan an ONNX model (its decoder registers itself when memplan/ir/onnx
// is imported), binding its symbols.
func Example_onnx() {
	data, err := os.ReadFile("ir/onnx/testdata/mnist.onnx")
	if err != nil {
		panic(err)
	}
	in, err := planner.Load("mnist.onnx", data, ir.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	p, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "auto", planner.PlaceOptions{NodeLimit: 1 << 20})
	if err != nil {
		panic(err)
	}
	fmt.Println(in.Format, len(p.Tensors), "tensors, arena", p.ArenaSize)
	// Output:
	// onnx 21 tensors, arena 78608
}
