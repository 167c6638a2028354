package planner

import (
	"testing"

	"memplan/ir"
)

// attention is a decoder layer's attention node: q and the past cache in,
// the output and the present cache out, present written into past's
// bytes where shares is set.
func attention(shares bool, past, present []int64) ir.Node {
	dims := func(s []int64) []ir.Dim {
		d := make([]ir.Dim, len(s))
		for i, v := range s {
			d[i] = ir.Int(v)
		}
		return d
	}
	n := ir.Node{Name: "attn", Op: "com.microsoft.GroupQueryAttention", Inputs: []string{"q", "past"},
		Outputs: []ir.Tensor{
			{Name: "o", Shape: dims([]int64{1, 64}), DType: ir.F16},
			{Name: "present", Shape: dims(present), DType: ir.F16},
		}}
	if shares {
		n.Outputs[1].Shares = "past"
	}
	return n
}

func TestSharedKVCache(t *testing.T) {
	f16 := ir.F16
	graph := func(n ir.Node, past []int64) *ir.Graph {
		return &ir.Graph{Name: "kv", Nodes: []ir.Node{
			node("q", ir.OpInput, f16, []int64{1, 64}),
			node("past", ir.OpInput, f16, past),
			n,
			node("y", "relu", f16, []int64{1, 64}, "o"),
		}, Outputs: []string{"y", "present"}}
	}
	full := []int64{1, 4, 128, 16}
	for _, strategy := range StrategyNames() {
		t.Run(strategy, func(t *testing.T) {
			shared := planGraph(t, graph(attention(true, full, full), full), DefaultOptions(), strategy)
			past, present := tensorOf(t, shared, "past"), tensorOf(t, shared, "present")
			if present.Root != "past" || present.Offset != past.Offset || present.Kind != KindView {
				t.Errorf("present: root %q at %d (%s), want a view of past at %d", present.Root, present.Offset, present.Kind, past.Offset)
			}
			// past lives to the end: present, a graph output, reads through it.
			if past.Death != shared.Steps {
				t.Errorf("past dies at %d, want the run's end %d", past.Death, shared.Steps)
			}
			grown := []int64{1, 4, 129, 16}
			apart := planGraph(t, graph(attention(false, full, grown), full), DefaultOptions(), strategy)
			if p := tensorOf(t, apart, "present"); p.Root != "" {
				t.Errorf("present of past + 1 is a view of %q", p.Root)
			}
			if shared.TotalUnshared >= apart.TotalUnshared {
				t.Errorf("sharing the cache leaves %d bytes unshared, not fewer than %d apart", shared.TotalUnshared, apart.TotalUnshared)
			}
		})
	}
}
