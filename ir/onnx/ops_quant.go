package onnx

import ()

// Quantization: ops that convert between float and integer types, and the
// matrix products on quantized weights.

var quantRules = []ruleSet{
	{ops: []string{"QuantizeLinear"}, rule: ruleQuantizeLinear},
	{ops: []string{"DequantizeLinear"}, rule: ruleDequantizeLinear},
	{ops: []string{"DynamicQuantizeLinear"}, rule: ruleDynamicQuantizeLinear},
}

func ruleQuantizeLinear(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	dt := n.attrInt("output_dtype", tUint8)
	if zp := d.in(n, 2); zp != nil {
		dt = zp.dt
	}
	if xok {
		res[0] = known(dt, xs)
	}
	return res
}

func ruleDequantizeLinear(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	sc := d.in(n, 1)
	if sc == nil {
		return d.fail(res, "input 1 (the scale) is missing")
	}
	if xok {
		res[0] = known(sc.dt, xs)
	}
	return res
}

func ruleDynamicQuantizeLinear(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	if len(res) != 3 {
		return d.fail(res, "DynamicQuantizeLinear has 3 outputs, this node %d", len(res))
	}
	if xok {
		res[0], res[1], res[2] = known(tUint8, xs), known(tFloat, []int64{}), known(tUint8, []int64{})
	}
	return res
}
