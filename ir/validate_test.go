package ir

import (
	"fmt"
	"strings"
	"testing"
)

// node builds a single-output node as a decoder would.
func node(i int, name, op string, inputs []string, dt DType, dims ...Dim) Node {
	return Node{Name: name, Op: op, Inputs: inputs, Path: fmt.Sprintf("nodes[%d]", i),
		Outputs: []Tensor{{Name: name, Shape: dims, DType: dt}}}
}

// TestValidateGraphs covers graphs built in code, as the ONNX importer
// builds them, including states no JSON file can produce.
func TestValidateGraphs(t *testing.T) {
	base := func() *Graph {
		return &Graph{Symbols: map[string]int64{"n": 8}, Nodes: []Node{
			node(0, "x", OpInput, nil, F32, Sym("n"), Int(4)),
			node(1, "y", "relu", []string{"x"}, F32, Sym("n"), Int(4)),
		}}
	}
	cases := []struct {
		name       string
		edit       func(g *Graph)
		path, node string
		msg        string // "" means valid
	}{
		{name: "valid", edit: func(g *Graph) {}},
		{name: "nil symbols, fixed dims", edit: func(g *Graph) {
			g.Symbols = nil
			g.Nodes[0].Outputs[0].Shape = []Dim{Int(2)}
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(2)}
		}},
		{name: "invalid dtype", edit: func(g *Graph) { g.Nodes[1].Outputs[0].DType = InvalidDType },
			path: "nodes[1].dtype", node: "y", msg: `tensor "y" has unknown dtype invalid`},
		{name: "out of range dtype", edit: func(g *Graph) { g.Nodes[1].Outputs[0].DType = 99 },
			path: "nodes[1].dtype", node: "y", msg: "unknown dtype dtype(99)"},
		{name: "negative symbol", edit: func(g *Graph) { g.Symbols["n"] = -1 },
			path: "symbols.n", msg: `symbol "n" is -1, want >= 0`},
		{name: "empty symbol name", edit: func(g *Graph) { g.Symbols[""] = 1 },
			path: "symbols", msg: "empty symbol name"},
		{name: "unknown symbol", edit: func(g *Graph) { g.Symbols = nil },
			path: "nodes[0].shape[0]", node: "x", msg: `unknown symbol "n"`},
		{name: "no outputs", edit: func(g *Graph) { g.Nodes[1].Outputs = nil },
			path: "nodes[1]", node: "y", msg: "node has no outputs"},
		{name: "duplicate tensor across nodes", edit: func(g *Graph) {
			g.Nodes[1].Outputs = []Tensor{{Name: "z", DType: F32}, {Name: "x", DType: F32}}
		}, path: "nodes[1].outputs[1]", node: "y", msg: `duplicate tensor name "x"`},
		{name: "node reads own output", edit: func(g *Graph) { g.Nodes[1].Inputs = []string{"y"} },
			path: "nodes[1]", node: "y", msg: "nodes form a cycle: y -> y"},
		{name: "three-node cycle", edit: func(g *Graph) {
			g.Nodes = append(g.Nodes,
				node(2, "a", "add", []string{"x", "c"}, F32, Int(1)),
				node(3, "b", "relu", []string{"a"}, F32, Int(1)),
				node(4, "c", "relu", []string{"b"}, F32, Int(1)))
		}, path: "nodes[2]", node: "a", msg: "nodes form a cycle: a -> b -> c -> a"},
		{name: "cycle found past an unknown input", edit: func(g *Graph) {
			g.Nodes = append(g.Nodes,
				node(2, "a", "add", []string{"b"}, F32, Int(1)),
				node(3, "b", "relu", []string{"a", "nope"}, F32, Int(1)))
		}, path: "nodes[2]", node: "a", msg: "nodes form a cycle: a -> b -> a"},
		{name: "out of order", edit: func(g *Graph) { g.Nodes[0], g.Nodes[1] = g.Nodes[1], g.Nodes[0] },
			path: "nodes[1].inputs[0]", node: "y", msg: `tensor "x" is used before node "x" (nodes[0]) defines it`},
		{name: "narrow alias off axis 0", edit: func(g *Graph) {
			g.Nodes[1] = node(1, "y", "Slice", []string{"x"}, F32, Sym("n"), Int(2))
			g.Nodes[1].Alias, g.Nodes[1].Axis, g.Nodes[1].Len = AliasNarrow, 1, 2
		}, path: "nodes[1].axis", node: "y", msg: "a narrow view must be on axis 0, not 1"},
		{name: "narrow alias on axis 0", edit: func(g *Graph) {
			g.Nodes[1] = node(1, "y", "Slice", []string{"x"}, F32, Int(3), Int(4))
			g.Nodes[1].Alias, g.Nodes[1].Start, g.Nodes[1].Len = AliasNarrow, 5, 3
		}},
		{name: "narrow overflowing end", edit: func(g *Graph) {
			g.Nodes[1] = node(1, "y", OpNarrow, []string{"x"}, F32, Int(1), Int(4))
			g.Nodes[1].Start, g.Nodes[1].Len = 1<<62, 1<<62
		}, path: "nodes[1].len", node: "y", msg: "exceeds 8"},
		{name: "narrow view of packed int4 on a byte", edit: func(g *Graph) {
			g.Nodes[0].Outputs[0].DType = I4
			g.Nodes[1] = node(1, "y", OpNarrow, []string{"x"}, I4, Int(2), Int(4))
			g.Nodes[1].Alias, g.Nodes[1].Start, g.Nodes[1].Len = AliasNarrow, 3, 2
		}},
		{name: "narrow view of packed u4 inside a byte", edit: func(g *Graph) {
			g.Nodes[0].Outputs[0] = Tensor{Name: "x", Shape: []Dim{Int(8), Int(3)}, DType: U4}
			g.Nodes[1] = node(1, "y", OpNarrow, []string{"x"}, U4, Int(2), Int(3))
			g.Nodes[1].Alias, g.Nodes[1].Start, g.Nodes[1].Len = AliasNarrow, 1, 2
		}, path: "nodes[1].start", node: "y", msg: `a narrow view of "x": the 3 elements before row 1 end inside a byte of packed u4`},
		{name: "unknown alias", edit: func(g *Graph) { g.Nodes[1].Alias = 7 },
			path: "nodes[1]", node: "y", msg: "unknown alias kind 7"},
		{name: "alias without input", edit: func(g *Graph) {
			g.Nodes[1].Inputs, g.Nodes[1].Alias = nil, AliasWhole
		}, path: "nodes[1].inputs", node: "y", msg: "op relu needs an input"},
		{name: "whole alias larger", edit: func(g *Graph) {
			g.Nodes[1].Alias = AliasWhole
			g.Nodes[1].Outputs[0].DType = F64
		}, path: "nodes[1].shape", node: "y", msg: `view "y" (256 bytes) is larger than its input "x" (128 bytes)`},
		{name: "whole alias smaller", edit: func(g *Graph) {
			g.Nodes[1].Alias = AliasWhole
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(3)}
		}},
		{name: "zero dim after a large one", edit: func(g *Graph) {
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(1 << 62), Int(0)}
		}},
		{name: "huge dims before a zero dim are empty, as in Bytes", edit: func(g *Graph) {
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(1 << 40), Int(1 << 40), Int(0)}
		}},
		{name: "a tensor of 2^62 bytes", edit: func(g *Graph) {
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(1 << 60)}
		}, path: "nodes[1].shape", node: "y", msg: "limit of 2^62 bytes"},
		{name: "overflow and unknown symbol", edit: func(g *Graph) {
			g.Nodes[1].Outputs[0].Shape = []Dim{Int(1 << 40), Int(1 << 40), Sym("m")}
		}, path: "nodes[1].shape[2]", node: "y", msg: `unknown symbol "m"`},
		{name: "pin negative", edit: func(g *Graph) { g.Nodes[1].Outputs[0].Pin.Until = -1 },
			path: "nodes[1].pin", node: "y", msg: "pin step -1 is negative"},
		{name: "pin end", edit: func(g *Graph) { g.Nodes[1].Outputs[0].Pin = Pin{Until: PinEnd, Producers: true} }},
		{name: "output unknown", edit: func(g *Graph) { g.Outputs = []string{"y", "q"} },
			path: "outputs[1]", msg: `graph output "q" is not a tensor of the graph`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := base()
			tc.edit(g)
			err := g.Validate()
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			checkErr(t, errCase{path: tc.path, node: tc.node, msg: tc.msg}, err)
		})
	}
}

func TestTensorLookup(t *testing.T) {
	g := &Graph{Nodes: []Node{
		node(0, "x", OpInput, nil, F32, Int(1)),
		{Name: "s", Op: "split", Inputs: []string{"x"}, Outputs: []Tensor{{Name: "a", DType: F16}, {Name: "b", DType: I8}}},
	}}
	for _, tc := range []struct{ tensor, node string }{{"x", "x"}, {"a", "s"}, {"b", "s"}, {"s", ""}, {"", ""}} {
		tt, n := g.Tensor(tc.tensor)
		if tc.node == "" {
			if tt != nil || n != nil {
				t.Errorf("Tensor(%q) found %v in %v", tc.tensor, tt, n)
			}
			continue
		}
		if tt == nil || n == nil || tt.Name != tc.tensor || n.Name != tc.node {
			t.Errorf("Tensor(%q) = %v, %v; want node %q", tc.tensor, tt, n, tc.node)
		}
	}
	// The result points into the graph, so callers can edit pins.
	tt, _ := g.Tensor("b")
	tt.Pin.Until = 3
	if g.Nodes[1].Outputs[1].Pin.Until != 3 {
		t.Error("Tensor does not return a pointer into the graph")
	}
}

// TestValidateLinear guards against quadratic work: a long chain and a
// wide fan-in must validate quickly.
func TestValidateLinear(t *testing.T) {
	const n = 100000
	g := &Graph{Nodes: make([]Node, 0, n)}
	g.Nodes = append(g.Nodes, node(0, "t0", OpInput, nil, F32, Int(4)))
	all := []string{"t0"}
	for i := 1; i < n; i++ {
		name := fmt.Sprintf("t%d", i)
		g.Nodes = append(g.Nodes, node(i, name, "relu", []string{all[i-1]}, F32, Int(4)))
		all = append(all, name)
	}
	g.Nodes = append(g.Nodes, node(n, "sum", "concat", all, F32, Int(4*n)))
	g.Outputs = []string{"sum"}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	// Break the order at the very end: the cycle search is linear too.
	g.Nodes[n].Inputs = append(g.Nodes[n].Inputs, "sum")
	err := g.Validate()
	if err == nil || !strings.Contains(err.Error(), "cycle: sum -> sum") {
		t.Fatalf("got %v", err)
	}
}

func BenchmarkValidate(b *testing.B) {
	g := &Graph{Symbols: map[string]int64{"n": 4}}
	for i := range 10000 {
		var in []string
		op := OpInput
		if i > 0 {
			in, op = []string{fmt.Sprintf("t%d", i-1)}, "relu"
		}
		g.Nodes = append(g.Nodes, node(i, fmt.Sprintf("t%d", i), op, in, F32, Sym("n"), Int(64)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestValidateShares(t *testing.T) {
	in := func(name string, dt DType, dims ...int64) Node {
		d := make([]Dim, len(dims))
		for i, v := range dims {
			d[i] = Int(v)
		}
		return Node{Name: name, Op: OpInput, Outputs: []Tensor{{Name: name, Shape: d, DType: dt}}, Path: "nodes[" + name + "]"}
	}
	attn := func(shares string, dt DType, dims ...int64) Node {
		d := make([]Dim, len(dims))
		for i, v := range dims {
			d[i] = Int(v)
		}
		return Node{Name: "attn", Op: "attention", Inputs: []string{"q", "past"}, Path: "nodes[2]",
			Outputs: []Tensor{{Name: "o", Shape: []Dim{Int(4)}, DType: F16}, {Name: "present", Shape: d, DType: dt, Shares: shares}}}
	}
	for _, tc := range []struct {
		name string
		n    Node
		want string // "" for valid
	}{
		{"present in past's bytes", attn("past", F16, 2, 8), ""},
		{"present smaller than past", attn("past", F16, 2, 4), ""},
		{"present larger than past", attn("past", F16, 2, 9), `output "present" (36 bytes) shares input "past", which has only 32 bytes`},
		{"another dtype", attn("past", F32, 2, 8), `output "present" (f32) shares input "past" of another dtype (f16)`},
		{"not an input", attn("x", F16, 2, 8), `output "present" shares "x", which is not an input of its node`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Graph{Name: "kv", Nodes: []Node{in("q", F16, 4), in("past", F16, 2, 8), tc.n}}
			err := g.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
