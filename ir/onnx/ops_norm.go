package onnx

import "slices"

// Normalizations: outputs shaped as the input, and statistics with the
// normalized axes kept as 1.

var normRules = []ruleSet{
	{ops: []string{"BatchNormalization"}, rule: ruleBatchNormalization},
	{ops: []string{"LayerNormalization"}, rule: ruleLayerNormalization},
	{domains: []string{msDomain}, ops: []string{"SkipLayerNormalization", "SkipSimplifiedLayerNormalization", "LayerNormalization", "SimplifiedLayerNormalization"}, rule: ruleMSLayerNorm},
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
				return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
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

// ruleMSLayerNorm: onnxruntime's layer norms; statistics keep the last
// axis as 1, and SkipLayerNormalization's output 3 is input + skip.
func ruleMSLayerNorm(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		return res
	}
	res[0] = known(x.dt, xs)
	st := slices.Clone(xs)
	if len(st) > 0 {
		st[len(st)-1] = 1
	}
	for i := 1; i < len(res); i++ {
		if i == 3 {
			res[i] = known(x.dt, xs)
		} else {
			res[i] = known(tFloat, st)
		}
	}
	return res
}
