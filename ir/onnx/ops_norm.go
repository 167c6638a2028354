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
