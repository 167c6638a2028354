package planner

import (
	"fmt"
	"strconv"
	"testing"

	"memplan/ir"
)

// chainGraph is an input followed by n nodes, each reading the one before:
// the shapes that made liveness quadratic when every read or pin walked
// the whole chain behind it.
func chainGraph(kind string, n int) *ir.Graph {
	shape := []ir.Dim{ir.Int(16)}
	g := &ir.Graph{Name: kind, Nodes: make([]ir.Node, 0, n+1)}
	g.Nodes = append(g.Nodes, ir.Node{Name: "x", Op: ir.OpInput, Outputs: []ir.Tensor{{Name: "x", Shape: shape, DType: ir.F32}}})
	prev := "x"
	for i := range n {
		name := "t" + strconv.Itoa(i)
		nd := ir.Node{Name: name, Op: "op", Inputs: []string{prev}, Outputs: []ir.Tensor{{Name: name, Shape: shape, DType: ir.F32}}}
		switch kind {
		case "custom": // every input of an onnx.* custom op is pinned with its producers
			nd.Op, nd.Custom = ir.OpCustom, "onnx.Thing"
		case "pin":
			nd.Outputs[0].Pin = ir.Pin{Until: ir.PinEnd, Producers: true}
		case "view": // each a view of the one before
			nd.Op, nd.Alias = ir.OpReshape, ir.AliasWhole
		}
		g.Nodes = append(g.Nodes, nd)
		prev = name
	}
	g.Outputs = []string{prev}
	return g
}

// BenchmarkAnalyzeChain measures Analyze on long chains of each kind at
// several lengths: time per op should grow linearly with the length.
func BenchmarkAnalyzeChain(b *testing.B) {
	for _, kind := range []string{"custom", "pin", "view"} {
		for _, n := range []int{50_000, 100_000, 200_000} {
			b.Run(fmt.Sprintf("%s/n=%d", kind, n), func(b *testing.B) {
				g := chainGraph(kind, n)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Analyze(g, DefaultOptions()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
