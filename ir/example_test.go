package ir_test

import (
	"errors"
	"fmt"

	"memplan/ir"
)

func ExampleDecodeGraph() {
	src := `{
  "format": "memplan.graph/v1",
  "symbols": {"batch": 8},
  "nodes": [
    {"name": "x",  "op": "input",   "shape": ["batch", 4], "dtype": "f32"},
    {"name": "w",  "op": "param",   "shape": [4, 4],       "dtype": "f32"},
    {"name": "mm", "op": "matmul",  "inputs": ["x", "w"], "shape": ["batch", 4], "dtype": "f32"},
    {"name": "r",  "op": "reshape", "inputs": ["mm"], "shape": [32], "dtype": "f32"},
    {"name": "n",  "op": "narrow",  "inputs": ["r"], "axis": 0, "start": 8, "len": 16, "shape": [16], "dtype": "f32"}
  ],
  "outputs": ["n"]
}`
	g, err := ir.DecodeGraph("views.json", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	aliases := map[ir.Alias]string{ir.NoAlias: "own bytes", ir.AliasWhole: "view", ir.AliasNarrow: "narrow view"}
	for step, n := range g.Nodes {
		out := n.Outputs[0]
		fmt.Printf("%d %-2s %-7s %v %s: %s\n", step, n.Name, n.Op, out.Shape, out.DType, aliases[n.Alias])
	}

	// Errors say where: file, line:column, JSON path and node.
	_, err = ir.DecodeGraph("typo.json", []byte(`{"format": "memplan.graph/v1", "nodes": [
  {"name": "x", "op": "input", "shpae": [2], "dtype": "f32"}]}`))
	var e *ir.Error
	if errors.As(err, &e) {
		fmt.Println(e.Line, e.Column, e.Path)
	}
	fmt.Println(err)
	// Output:
	// 0 x  input   [batch 4] f32: own bytes
	// 1 w  param   [4 4] f32: own bytes
	// 2 mm matmul  [batch 4] f32: own bytes
	// 3 r  reshape [32] f32: view
	// 4 n  narrow  [16] f32: narrow view
	// 2 41 nodes[0].shpae
	// typo.json:2:41: nodes[0].shpae: node "x": unknown field "shpae"; did you mean "shape"?
}

func ExampleDecodeBufferCSV() {
	src := "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\n"
	t, err := ir.DecodeBufferCSV("input.csv", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range t.Rows {
		fmt.Printf("%s lives [%d, %d) and needs %d bytes\n", r.ID, r.Lower, r.Upper, r.Size)
	}

	_, err = ir.DecodeBufferCSV("bad.csv", []byte("id,lower,upper,size\nb1,3,3,4\n"))
	fmt.Println(err)
	// Output:
	// b1 lives [0, 3) and needs 4 bytes
	// b2 lives [3, 9) and needs 4 bytes
	// b3 lives [0, 9) and needs 4 bytes
	// bad.csv:2:6: column "upper": 3 is not greater than lower 3 (lifetimes are [lower, upper))
}
