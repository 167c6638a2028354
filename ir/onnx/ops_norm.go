package onnx

import "slices"

// Normalizations: outputs shaped as the input, and statistics with the
// normalized axes kept as 1.

var normRules = []ruleSet{
	{ops: []string{"BatchNormalization"}, rule: ruleBatchNormalization},
	{ops: []string{"InstanceNormalization", "LRN", "MeanVarianceNormalization"}, rule: ruleUnary},
	// onnxruntime registers SimplifiedLayerNormalization (RMS norm) in the
	// default domain; exporters also write it under com.microsoft.
	{ops: []string{"LayerNormalization", "SimplifiedLayerNormalization"}, rule: ruleLayerNormalization},
	{domains: []string{msDomain}, ops: []string{"LayerNormalization", "SimplifiedLayerNormalization"}, rule: ruleLayerNormalization},
	{ops: []string{"RMSNormalization"}, rule: ruleRMSNormalization},
	{domains: []string{msDomain}, ops: []string{"SkipLayerNormalization", "SkipSimplifiedLayerNormalization"}, rule: ruleSkipLayerNorm},
	{domains: []string{msDomain}, ops: []string{"GroupNorm"}, rule: ruleGroupNorm},
	{domains: []string{msDomain}, ops: []string{"SkipGroupNorm"}, rule: ruleGroupNorm},
	{ops: []string{"GroupNormalization"}, rule: ruleGroupNormalization},
	{ops: []string{"LpNormalization"}, rule: ruleLpNormalization},
}

func ruleBatchNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		res[0] = known(xdt, xs)
		for i := 1; i < len(res); i++ {
			if len(xs) < 2 {
				return d.fail(res, "BatchNormalization's statistics need rank 2 or more, got rank %d", len(xs))
			}
			res[i] = known(xdt, []int64{xs[1]})
		}
	}
	return res
}

func ruleLayerNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		res[0] = known(xdt, xs)
		ax, ok := normAxis(n.attrInt("axis", -1), len(xs))
		if !ok {
			if len(res) > 1 {
				return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
			}
			return res
		}
		st := append([]int64(nil), xs...)
		for i := ax; i < len(st); i++ {
			st[i] = 1
		}
		for i := 1; i < len(res); i++ {
			res[i] = known(n.attrInt("stash_type", tFloat), st)
		}
	}
	return res
}

// ruleRMSNormalization: ONNX opset 23's RMS norm; one output, X's shape.
func ruleRMSNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		return res
	}
	ax, ok := normAxis(n.attrInt("axis", -1), len(xs))
	if !ok {
		return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
	}
	if ss, ok := d.shape(n, 1); ok {
		if _, ok := broadcast(xs[ax:], ss); !ok || len(ss) > len(xs)-ax {
			return d.fail(res, "the scale %v does not broadcast to the normalized dims %v", ss, xs[ax:])
		}
	}
	res[0] = known(x.dt, xs)
	return res
}

// ruleSkipLayerNorm: onnxruntime's SkipLayerNormalization and its RMS
// form normalize input + skip (+ bias) over the last axis. Outputs: the
// result, mean and inverse std-dev (float, last axis 1) and the sum
// input + skip + bias, each optional but the first.
func ruleSkipLayerNorm(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		return res
	}
	if len(xs) < 2 {
		return d.fail(res, "%s needs an input of rank 2 or more, got rank %d", n.op, len(xs))
	}
	hidden := xs[len(xs)-1]
	if ss, ok := d.shape(n, 1); ok {
		// The skip is the input's shape, or broadcasts to it from the
		// trailing [sequence, hidden].
		if _, ok := broadcast(xs, ss); !ok || len(ss) > len(xs) || len(ss) < 2 || ss[len(ss)-1] != hidden {
			return d.fail(res, "the skip %v does not match the input %v", ss, xs)
		}
	}
	vectors := []string{"input", "skip", "gamma", "beta", "bias"}
	if n.op == "SkipSimplifiedLayerNormalization" {
		vectors = []string{"input", "skip", "gamma", "bias"}
	}
	for i := 2; i < len(vectors); i++ {
		if !d.present(n, i) {
			continue
		}
		if s, ok := d.shape(n, i); ok && (len(s) != 1 || s[0] != hidden) {
			return d.fail(res, "input %d (%s) has shape %v, want [%d], the hidden size", i, vectors[i], s, hidden)
		}
	}
	res[0] = known(x.dt, xs)
	st := slices.Clone(xs)
	st[len(st)-1] = 1
	for i := 1; i < len(res) && i < 3; i++ {
		res[i] = known(tFloat, st)
	}
	if len(res) > 3 {
		res[3] = known(x.dt, xs)
	}
	return res
}

// ruleGroupNorm: onnxruntime's GroupNorm and SkipGroupNorm on NHWC input;
// every output (SkipGroupNorm's second is input + skip + bias) has the
// input's shape.
func ruleGroupNorm(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		return res
	}
	if len(xs) != 4 {
		return d.fail(res, "%s needs NHWC input of rank 4, got rank %d", n.op, len(xs))
	}
	g := n.attrInt("groups", 0)
	if g <= 0 || xs[3]%g != 0 {
		return d.fail(res, "groups %d must be positive and divide the %d channels", g, xs[3])
	}
	for i := range res {
		res[i] = known(x.dt, xs)
	}
	return res
}

// ruleGroupNormalization: ONNX's GroupNormalization on [N, C, ...]; the
// output is X's. The scale and bias hold one value per group up to opset
// 20, one per channel from opset 21.
func ruleGroupNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (X) is missing")
	}
	res[0].dt = x.dt
	if len(n.inputs) != 3 || n.inputs[1] == "" || n.inputs[2] == "" {
		return d.bad(res, "GroupNormalization needs 3 inputs (X, scale, bias), this node has %d", len(n.inputs))
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	if len(xs) < 2 {
		return d.bad(res, "GroupNormalization needs input [N, C, ...] of rank 2 or more, got rank %d", len(xs))
	}
	g := n.attrInt("num_groups", 0)
	if g <= 0 || xs[1]%g != 0 {
		return d.bad(res, "num_groups %d must be positive and divide the %d channels", g, xs[1])
	}
	want, per := g, "group"
	if d.opset >= 21 {
		want, per = xs[1], "channel"
	}
	for i, what := range []string{"", "scale", "bias"} {
		if s, ok := d.shape(n, i); ok && i > 0 && !slices.Equal(s, []int64{want}) {
			return d.bad(res, "input %d (%s) has shape %v, want [%d], one value per %s in opset %d", i, what, s, want, per, d.opset)
		}
	}
	res[0] = known(x.dt, xs)
	return res
}

// ruleLpNormalization: X normalized along one axis; the output is X's.
func ruleLpNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, ok := d.shape(n, 0)
	if !ok {
		if x != nil {
			res[0].dt = x.dt
		}
		return res
	}
	if _, ok := normAxis(n.attrInt("axis", -1), len(xs)); !ok {
		return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
	}
	if p := n.attrInt("p", 2); p != 1 && p != 2 {
		return d.bad(res, "p is %d; LpNormalization takes 1 or 2", p)
	}
	res[0] = known(x.dt, xs)
	return res
}
