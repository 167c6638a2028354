package planner

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"memplan/ir"
)

// randomGraph builds a random valid graph: a DAG in schedule order with
// boundary tensors, compute ops with one or several outputs, view chains
// (reshape, same-dtype cast, axis-0 narrow), symbolic dims, pins and
// custom ops.
func randomGraph(r *rand.Rand, id int) (*ir.Graph, map[string]int64) {
	dtypes := []ir.DType{ir.F32, ir.F16, ir.BF16, ir.F64, ir.I64, ir.I32, ir.I16, ir.I8, ir.U8, ir.Bool}
	g := &ir.Graph{Name: fmt.Sprintf("random%d", id), Symbols: map[string]int64{"batch": int64(1 + r.IntN(4))}}
	bind := map[string]int64{"batch": int64(1 + r.IntN(6))}
	type tensor struct {
		name  string
		shape []ir.Dim
		dims  []int64 // with bind applied
		dtype ir.DType
	}
	var ts []tensor
	dim := func() (ir.Dim, int64) {
		if r.IntN(4) == 0 {
			return ir.Sym("batch"), bind["batch"]
		}
		v := int64(r.IntN(9)) // zero-size tensors included
		return ir.Int(v), v
	}
	newTensor := func(name string) tensor {
		t := tensor{name: name, dtype: dtypes[r.IntN(len(dtypes))]}
		for range 1 + r.IntN(3) {
			d, v := dim()
			t.shape, t.dims = append(t.shape, d), append(t.dims, v)
		}
		return t
	}
	n := 2 + r.IntN(30)
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		var nd ir.Node
		switch k := r.IntN(10); {
		case i < 2 || k == 0:
			t := newTensor(name)
			nd = ir.Node{Name: name, Op: []string{ir.OpInput, ir.OpParam, ir.OpConstant}[r.IntN(3)],
				Outputs: []ir.Tensor{{Name: name, Shape: t.shape, DType: t.dtype}}}
			ts = append(ts, t)
		case k <= 2 && !symbolic(ts[len(ts)-1].shape): // view of a tensor whose size does not depend on the binding
			par := ts[len(ts)-1]
			t := tensor{name: name, dtype: par.dtype}
			nd = ir.Node{Name: name, Inputs: []string{par.name}}
			if k == 1 && len(par.dims) > 0 && par.dims[0] > 0 && par.shape[0].Symbol == "" {
				start := r.Int64N(par.dims[0])
				length := r.Int64N(par.dims[0] - start + 1)
				t.shape = append([]ir.Dim{ir.Int(length)}, par.shape[1:]...)
				t.dims = append([]int64{length}, par.dims[1:]...)
				nd.Op, nd.Alias, nd.Axis, nd.Start, nd.Len = ir.OpNarrow, ir.AliasNarrow, 0, start, length
			} else {
				var total int64 = 1
				for _, d := range par.dims {
					total *= d
				}
				t.shape, t.dims = []ir.Dim{ir.Int(total)}, []int64{total}
				nd.Op, nd.Alias = ir.OpReshape, ir.AliasWhole
			}
			nd.Outputs = []ir.Tensor{{Name: name, Shape: t.shape, DType: t.dtype}}
			ts = append(ts, t)
		default: // compute op reading 1-3 earlier tensors, 1-2 outputs
			nd = ir.Node{Name: name, Op: "op"}
			if k == 9 {
				nd.Op, nd.Custom = ir.OpCustom, "onnx.Thing"
			}
			for range 1 + r.IntN(3) {
				nd.Inputs = append(nd.Inputs, ts[r.IntN(len(ts))].name)
			}
			outs := 1 + r.IntN(2)
			for o := range outs {
				oname := name
				if outs > 1 {
					oname = fmt.Sprintf("%s.%d", name, o)
				}
				t := newTensor(oname)
				tt := ir.Tensor{Name: oname, Shape: t.shape, DType: t.dtype}
				if r.IntN(8) == 0 {
					tt.Pin = ir.Pin{Until: r.IntN(n + 2), Producers: r.IntN(2) == 0}
					if r.IntN(3) == 0 {
						tt.Pin.Until = ir.PinEnd
					}
				}
				nd.Outputs = append(nd.Outputs, tt)
				ts = append(ts, t)
			}
		}
		g.Nodes = append(g.Nodes, nd)
	}
	for range r.IntN(3) {
		g.Outputs = append(g.Outputs, ts[r.IntN(len(ts))].name)
	}
	return g, bind
}

func symbolic(shape []ir.Dim) bool {
	for _, d := range shape {
		if d.Symbol != "" {
			return true
		}
	}
	return false
}

func randomOptions(r *rand.Rand, bind map[string]int64) Options {
	o := DefaultOptions()
	o.Alignment = int64(1) << r.IntN(9)
	o.F32Uniform = r.IntN(3) == 0
	o.SkipParams, o.SkipInputs, o.SkipConstants = r.IntN(4) == 0, r.IntN(4) == 0, r.IntN(4) == 0
	if r.IntN(3) == 0 {
		o.Guard = int64(r.IntN(300))
	}
	if r.IntN(2) == 0 {
		o.Symbols = bind
	}
	return o
}

// noReuseArena recomputes, apart from the planner, what laying every
// owning tensor end to end in schedule order takes.
func noReuseArena(p *Plan) int64 {
	var end int64
	for _, t := range p.Tensors {
		if t.Placed() && t.Size+t.Guard > 0 {
			if rem := end % p.Alignment; rem != 0 {
				end += p.Alignment - rem
			}
			end += t.Size + t.Guard
		}
	}
	return end
}

func TestRandomGraphsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	count := 3000
	if testing.Short() {
		count = 300
	}
	for i := range count {
		g, bind := randomGraph(r, i)
		opts := randomOptions(r, bind)
		for _, strategy := range StrategyNames() {
			if (strategy == "exact" || strategy == "improve") && i%20 != 0 {
				continue // a search; sampled to keep the test short
			}
			plan := planGraph(t, g, opts, strategy)
			if plan.ArenaSize < plan.LowerBound {
				t.Fatalf("%s/%s: arena %d below lower bound %d", g.Name, strategy, plan.ArenaSize, plan.LowerBound)
			}
			if strategy == "no-reuse" {
				if want := noReuseArena(plan); plan.ArenaSize != want {
					t.Fatalf("%s: no-reuse arena %d, want %d", g.Name, plan.ArenaSize, want)
				}
			}
		}
	}
}
