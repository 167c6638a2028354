package onnx

import ()

// Reductions: ops that drop or shrink axes.

var reduceRules = []ruleSet{
	{ops: []string{"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"}, rule: (*decoder).reduce},
	{ops: []string{"TopK"}, rule: ruleTopK},
}

func ruleTopK(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	var k int64
	if d.opset >= 10 {
		kv, ok := d.constInts(n, 1, "k")
		if !ok {
			return res
		}
		if len(kv) != 1 {
			return d.fail(res, "input 1 (k) has %d values, want 1", len(kv))
		}
		k = kv[0]
	} else if a := n.attr("k"); a != nil {
		k = a.i
	} else {
		return d.fail(res, "it has no \"k\" attribute")
	}
	if xok {
		ax, ok := normAxis(n.attrInt("axis", -1), len(xs))
		if !ok {
			return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
		}
		if k < 0 {
			return d.fail(res, "k is %d", k)
		}
		out := append([]int64(nil), xs...)
		out[ax] = min(k, out[ax])
		res[0] = known(xdt, out)
		if len(res) > 1 {
			res[1] = known(tInt64, out)
		}
	}
	return res
}

func (d *decoder) reduce(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	dt := x.dt
	arg := n.op == "ArgMax" || n.op == "ArgMin"
	if arg {
		dt = tInt64
	}
	res[0].dt = dt
	if !xok {
		return res
	}
	keep := n.attrInt("keepdims", 1) != 0
	var axes []int64
	switch {
	case arg:
		axes = []int64{n.attrInt("axis", 0)}
	case d.opset >= 18 || (n.op == "ReduceSum" && d.opset >= 13):
		if d.present(n, 1) {
			var ok bool
			if axes, ok = d.constInts(n, 1, "axes"); !ok {
				return res
			}
		}
	default:
		axes, _ = n.attrInts("axes")
	}
	if len(axes) == 0 && n.attrInt("noop_with_empty_axes", 0) != 0 {
		res[0] = known(dt, xs)
		res[0].val = x.val
		return res
	}
	out, red, ok := d.reducedShape(xs, axes, keep)
	if !ok {
		return res
	}
	res[0] = known(dt, out)
	if x.val != nil && !x.val.isF && (n.op == "ReduceProd" || n.op == "ReduceSum" || n.op == "ReduceMin" || n.op == "ReduceMax") {
		res[0].val = reduceFold(n.op, x.val, xs, red, numel(out))
	}
	return res
}

// reducedShape is xs reduced over axes (all of them when axes is empty),
// the reduced dims kept as 1 or dropped; red marks them. An axis out of
// range is recorded with d.bad.
func (d *decoder) reducedShape(xs, axes []int64, keep bool) (out []int64, red []bool, ok bool) {
	red = make([]bool, len(xs))
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	for _, a := range axes {
		ax, ok := normAxis(a, len(xs))
		if !ok {
			d.bad(nil, "axis %d is out of range for rank %d", a, len(xs))
			return nil, nil, false
		}
		red[ax] = true
	}
	out = []int64{}
	for i, v := range xs {
		switch {
		case !red[i]:
			out = append(out, v)
		case keep:
			out = append(out, 1)
		}
	}
	return out, red, true
}
