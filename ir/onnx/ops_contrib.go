package onnx

import "slices"

// Contrib ops: onnxruntime's com.microsoft ops that optimized transformer
// exports use, other than attention, normalization and quantization
// (which live with their families).

var contribRules = []ruleSet{
	{domains: []string{msDomain}, ops: []string{"Gelu", "FastGelu", "BiasGelu", "QuickGelu", "BiasAdd", "BiasDropout"}, rule: sameAsInput},
	{domains: []string{msDomain}, ops: []string{"FusedMatMul"}, rule: ruleFusedMatMul},
	{domains: []string{msDomain}, ops: []string{"BiasSplitGelu"}, rule: ruleBiasSplitGelu},
	{domains: []string{msDomain}, ops: []string{"EmbedLayerNormalization"}, rule: ruleEmbedLayerNormalization},
}

// ruleFusedMatMul is MatMul with optional transposes of the last two axes.
func ruleFusedMatMul(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	bs, bok := d.shape(n, 1)
	if !xok || !bok {
		return res
	}
	if len(xs) < 2 || len(bs) < 2 {
		return d.fail(res, "FusedMatMul needs inputs of rank 2 or more, got ranks %d and %d", len(xs), len(bs))
	}
	a, b := slices.Clone(xs), slices.Clone(bs)
	if n.attrInt("transA", 0) != 0 {
		a[len(a)-1], a[len(a)-2] = a[len(a)-2], a[len(a)-1]
	}
	if n.attrInt("transB", 0) != 0 {
		b[len(b)-1], b[len(b)-2] = b[len(b)-2], b[len(b)-1]
	}
	out, why := matmulShapeWhy(a, b)
	if why != "" {
		return d.fail(res, "FusedMatMul %s", why)
	}
	res[0] = known(x.dt, out)
	return res
}

// ruleEmbedLayerNormalization: ids [batch, seq] and word embeddings
// [vocab, hidden] give [batch, seq, hidden], a mask index [batch] and the
// embedding sum.
func ruleEmbedLayerNormalization(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	ws, wok := d.shape(n, 2)
	if !xok || !wok {
		return res
	}
	if len(xs) != 2 || len(ws) != 2 {
		return d.fail(res, "EmbedLayerNormalization needs rank-2 ids and word embeddings, got ranks %d and %d", len(xs), len(ws))
	}
	we := d.in(n, 2)
	res[0] = known(we.dt, []int64{xs[0], xs[1], ws[1]})
	if len(res) > 1 {
		res[1] = known(tInt32, []int64{xs[0]})
	}
	if len(res) > 2 {
		res[2] = known(we.dt, []int64{xs[0], xs[1], ws[1]})
	}
	return res
}

// ruleBiasSplitGelu: X [N, S, D] plus a bias [D] is split in two halves
// along D, one gating the other: [N, S, D/2].
func ruleBiasSplitGelu(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		return res
	}
	if len(xs) != 3 || xs[2]%2 != 0 {
		return d.fail(res, "BiasSplitGelu needs input [N, S, D] with D even, got %v", xs)
	}
	if bs, ok := d.shape(n, 1); ok && !slices.Equal(bs, xs[2:]) {
		return d.fail(res, "the bias has shape %v, want [%d]", bs, xs[2])
	}
	res[0] = known(x.dt, []int64{xs[0], xs[1], xs[2] / 2})
	return res
}
