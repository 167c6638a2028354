package onnx_test

import (
	"fmt"
	"os"

	"memplan/ir"
	_ "memplan/ir/onnx" // registers the "onnx" format with ir.Decode
)

// Decoding an ONNX model with symbolic inputs: the symbols are bound while
// decoding, and every tensor comes out with a concrete shape.
func Example() {
	data, err := os.ReadFile("testdata/bert_toy.onnx")
	if err != nil {
		fmt.Println(err)
		return
	}
	src, err := ir.Decode("bert_toy.onnx", data, ir.DecodeOptions{
		Symbols: map[string]int64{"batch": 1, "max_seq_len_in_batch": 128},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := src.Graph
	fmt.Println(len(g.Nodes), "nodes; symbols", g.Symbols)
	for _, name := range g.Outputs {
		t, n := g.Tensor(name)
		fmt.Println(name, n.Op, t.Shape, t.DType)
	}
	fmt.Println(g.Notes[0])

	// Without the binding, decoding fails and says what to set.
	_, err = ir.Decode("bert_toy.onnx", data, ir.DecodeOptions{})
	fmt.Println(err != nil)
	// Output:
	// 481 nodes; symbols map[batch:1 max_seq_len_in_batch:128]
	// prediction_scores Add [1 128 99] f32
	// seq_relationship_score Gemm [1 2] f32
	// nodes were not in topological order (21 inputs are read before the node producing them); they were sorted topologically, keeping file order among ready nodes
	// true
}
