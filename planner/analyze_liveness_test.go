package planner

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"memplan/ir"
)

// referenceLiveness is the first, quadratic liveness, kept as the
// definition the linear one must match: every read extends the whole view
// chain above it, and every pin with producers walks all of them.
func (a *analysis) referenceLiveness() {
	for s, ins := range a.inputs {
		for _, t := range ins {
			a.referenceExtend(t, a.stepOf[s])
		}
	}
	for t := range a.infos {
		switch a.infos[t].Op {
		case ir.OpInput, ir.OpParam, ir.OpConstant:
			a.infos[t].Birth = 0
			a.referenceExtend(t, a.last)
		}
		if a.output[t] {
			a.referenceExtend(t, a.last)
		}
	}
	for s := range a.g.Nodes {
		n := &a.g.Nodes[s]
		if n.Op == ir.OpCustom && strings.HasPrefix(n.Custom, "onnx.") {
			for _, t := range a.inputs[s] {
				a.referencePin(t, ir.Pin{Until: ir.PinEnd, Producers: true})
			}
		}
		for _, out := range n.Outputs {
			if out.Pin.Pinned() {
				a.referencePin(a.byName[out.Name], out.Pin)
			}
		}
	}
}

func (a *analysis) referenceExtend(t, s int) {
	for ; t >= 0; t = a.parent[t] {
		a.infos[t].Death = max(a.infos[t].Death, s)
	}
}

func (a *analysis) referencePin(t int, p ir.Pin) {
	until := min(p.Until, a.last)
	if !p.Producers {
		a.referenceExtend(t, until)
		return
	}
	seen := map[int]bool{t: true}
	for stack := []int{t}; len(stack) > 0; {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		a.referenceExtend(u, until)
		for _, v := range a.inputs[a.node[u]] {
			if !seen[v] {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
}

// livenessGraph builds a random graph that stresses liveness rather than
// sizes: views (whole and narrow) of any earlier tensor, so chains and
// trees of views, views with extra inputs, multi-output compute ops,
// custom ops with and without the "onnx." prefix, pins with and without
// producers on any tensor, omitted optional inputs and repeated outputs.
func livenessGraph(r *rand.Rand, id int) *ir.Graph {
	g := &ir.Graph{Name: fmt.Sprintf("liveness%d", id)}
	var names []string
	var rows []int64 // axis-0 length of each tensor, all f32 [rows, 2]
	n := 1 + r.IntN(40)
	pin := func() ir.Pin {
		if r.IntN(4) != 0 {
			return ir.Pin{}
		}
		p := ir.Pin{Until: 1 + r.IntN(n+3), Producers: r.IntN(2) == 0}
		if r.IntN(4) == 0 {
			p.Until = ir.PinEnd
		}
		return p
	}
	add := func(nd *ir.Node, name string, rowsOf int64) {
		nd.Outputs = append(nd.Outputs, ir.Tensor{Name: name, Shape: []ir.Dim{ir.Int(rowsOf), ir.Int(2)}, DType: ir.F32, Pin: pin()})
		names, rows = append(names, name), append(rows, rowsOf)
	}
	reads := func(nd *ir.Node, k int) {
		for range k {
			if r.IntN(8) == 0 {
				nd.Inputs = append(nd.Inputs, "") // an omitted optional input
				continue
			}
			nd.Inputs = append(nd.Inputs, names[r.IntN(len(names))])
		}
	}
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		nd := ir.Node{Name: name}
		switch k := r.IntN(10); {
		case i == 0 || k == 0:
			nd.Op = []string{ir.OpInput, ir.OpParam, ir.OpConstant}[r.IntN(3)]
			add(&nd, name, int64(r.IntN(6)))
		case k <= 4: // a view, often of a recent tensor so chains grow long
			par := len(names) - 1 - r.IntN(min(len(names), 3))
			if r.IntN(3) == 0 {
				par = r.IntN(len(names))
			}
			nd.Inputs = []string{names[par]}
			reads(&nd, r.IntN(2))
			length := rows[par]
			if nd.Op, nd.Alias = ir.OpReshape, ir.AliasWhole; r.IntN(2) == 0 {
				start := r.Int64N(rows[par] + 1)
				length = r.Int64N(rows[par] - start + 1)
				nd.Op, nd.Alias, nd.Start, nd.Len = ir.OpNarrow, ir.AliasNarrow, start, length
			}
			add(&nd, name, length)
		default: // compute or custom, 0-3 inputs, 1-3 outputs
			nd.Op = "op"
			switch r.IntN(4) {
			case 0:
				nd.Op, nd.Custom = ir.OpCustom, "onnx.Thing"
			case 1:
				nd.Op, nd.Custom = ir.OpCustom, "mine.Thing" // not pinned
			}
			reads(&nd, r.IntN(4))
			outs := 1 + r.IntN(3)
			for o := range outs {
				oname := name
				if outs > 1 {
					oname = fmt.Sprintf("%s.%d", name, o)
				}
				add(&nd, oname, int64(r.IntN(6)))
			}
		}
		g.Nodes = append(g.Nodes, nd)
	}
	for range r.IntN(4) {
		g.Outputs = append(g.Outputs, names[r.IntN(len(names))])
	}
	return g
}

// The linear liveness gives every tensor the same birth and death as the
// reference, on graphs made for it and on the property test's graphs.
func TestLivenessMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	count := 5000
	if testing.Short() {
		count = 500
	}
	var views, pinned, extended int
	for i := range count {
		g := livenessGraph(r, i)
		opts := DefaultOptions()
		if i%2 == 1 {
			g, _ = randomGraph(r, i)
		}
		got, err := newAnalysis(g, opts)
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		want, _ := newAnalysis(g, opts)
		got.liveness()
		want.referenceLiveness()
		for k := range got.infos {
			gi, wi := got.infos[k], want.infos[k]
			if gi.Birth != wi.Birth || gi.Death != wi.Death {
				t.Fatalf("%s: tensor %q lives [%d, %d], the reference says [%d, %d]\n%+v",
					g.Name, gi.Name, gi.Birth, gi.Death, wi.Birth, wi.Death, g.Nodes)
			}
			if got.parent[k] >= 0 {
				views++
			}
			if got.pin[k].Producers {
				pinned++
			}
			if gi.Death > gi.Birth+1 {
				extended++
			}
		}
	}
	// The generators must reach what the test is about.
	if views < count || pinned < count/4 || extended < count {
		t.Fatalf("too few views (%d), producer pins (%d) or long lives (%d) over %d graphs", views, pinned, extended, count)
	}
}
