package onnx

import "slices"

// Quantization: ops that convert between float and integer types, and the
// matrix products on quantized weights (onnxruntime's MatMulNBits and
// kin, which the LLM exports for WebGPU use on every linear layer).

var quantRules = []ruleSet{
	{ops: []string{"QuantizeLinear"}, rule: ruleQuantizeLinear},
	{ops: []string{"DequantizeLinear"}, rule: ruleDequantizeLinear},
	{ops: []string{"DynamicQuantizeLinear"}, rule: ruleDynamicQuantizeLinear},
	{ops: []string{"QLinearMatMul"}, rule: ruleQLinearMatMul},
	{domains: []string{msDomain}, ops: []string{"MatMulNBits"}, rule: ruleMatMulNBits},
	{domains: []string{msDomain}, ops: []string{"GatherBlockQuantized"}, rule: ruleGatherBlockQuantized},
	{domains: []string{msDomain}, ops: []string{"DynamicQuantizeMatMul", "MatMulIntegerToFloat"}, rule: ruleQuantMatMul},
}

// ruleQuantizeLinear: the output type is the zero point's, else the
// output_dtype attribute's (opset 21), else uint8.
func ruleQuantizeLinear(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	dt := n.attrInt("output_dtype", 0)
	if zp := d.in(n, 2); zp != nil {
		dt = zp.dt
	}
	if dt == 0 {
		dt = tUint8
	}
	if !xok {
		res[0].dt = dt
		return res
	}
	if !d.blockScaleOK(n, xs) {
		return res
	}
	res[0] = known(dt, xs)
	return res
}

// ruleDequantizeLinear: the output type is the scale's.
func ruleDequantizeLinear(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	sc := d.in(n, 1)
	if sc == nil {
		return d.fail(res, "input 1 (the scale) is missing")
	}
	if !xok {
		res[0].dt = sc.dt
		return res
	}
	if !d.blockScaleOK(n, xs) {
		return res
	}
	res[0] = known(sc.dt, xs)
	return res
}

// blockScaleOK checks a blocked (opset 21) scale against the input: the
// input's shape with the quantized axis cut into blocks of block_size.
func (d *decoder) blockScaleOK(n *node, xs []int64) bool {
	bs := n.attrInt("block_size", 0)
	if bs == 0 {
		return true
	}
	ss, ok := d.shape(n, 1)
	if !ok {
		return true
	}
	ax, ok := normAxis(n.attrInt("axis", 1), len(xs))
	switch {
	case bs < 0:
		d.fail(nil, "block_size %d is negative", bs)
		return false
	case !ok:
		d.fail(nil, "axis %d is out of range for rank %d", n.attrInt("axis", 1), len(xs))
		return false
	}
	want := append([]int64(nil), xs...)
	want[ax] = ceilDiv(xs[ax], bs)
	if !slices.Equal(ss, want) {
		d.fail(nil, "the scale has shape %v; blocks of %d along axis %d of %v need %v", ss, bs, ax, xs, want)
		return false
	}
	return true
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

// ruleMatMulNBits: A [..., K] times B, N columns of K weights quantized to
// `bits` bits in blocks of block_size, stored [N, ceil(K/block_size),
// block_size*bits/8] bytes; the result is A's type, [..., N].
func ruleMatMulNBits(d *decoder, n *node, res []tinfo) []tinfo {
	a := d.in(n, 0)
	as, aok := d.shape(n, 0)
	k, nn := n.attrInt("K", -1), n.attrInt("N", -1)
	bits, bs := n.attrInt("bits", 4), n.attrInt("block_size", 0)
	switch {
	case k <= 0 || nn <= 0:
		return d.fail(res, "attributes K and N must be positive, got K=%d N=%d", k, nn)
	case bits < 1 || bits > 8:
		return d.fail(res, "bits is %d; MatMulNBits packs 1 to 8 bits", bits)
	case bs < 16 || bs&(bs-1) != 0:
		return d.fail(res, "block_size %d must be a power of two, 16 or more", bs)
	}
	if bw, ok := d.shape(n, 1); ok && len(bw) == 3 {
		want := []int64{nn, ceilDiv(k, bs), mulOK(bs, bits) / 8}
		if !slices.Equal(bw, want) {
			return d.fail(res, "input 1 (B) has shape %v; K=%d N=%d in %d-bit blocks of %d need %v", bw, k, nn, bits, bs, want)
		}
	}
	if !aok {
		if a != nil {
			res[0].dt = a.dt
		}
		return res
	}
	if len(as) == 0 || as[len(as)-1] != k {
		return d.fail(res, "input 0 (A) has shape %v; its last dim must be K=%d", as, k)
	}
	if d.present(n, 5) {
		if s, ok := d.shape(n, 5); ok && !slices.Equal(s, []int64{nn}) {
			return d.fail(res, "input 5 (bias) has shape %v, want [%d]", s, nn)
		}
	}
	out := append(append([]int64(nil), as[:len(as)-1]...), nn)
	res[0] = known(a.dt, out)
	return res
}

// ruleGatherBlockQuantized: Gather on block-quantized data, dequantized to
// the scales' type. uint8 data packs 8/bits values in each byte of its
// last axis.
func ruleGatherBlockQuantized(d *decoder, n *node, res []tinfo) []tinfo {
	data := d.in(n, 0)
	ds, dok := d.shape(n, 0)
	is, iok := d.shape(n, 1)
	sc := d.in(n, 2)
	if sc == nil {
		return d.fail(res, "input 2 (the scales) is missing")
	}
	if !dok || !iok {
		res[0].dt = sc.dt
		return res
	}
	bits := n.attrInt("bits", 4)
	if bits != 4 && bits != 8 {
		return d.fail(res, "bits is %d; GatherBlockQuantized takes 4 or 8", bits)
	}
	logical := append([]int64(nil), ds...)
	if data.dt == tUint8 && len(logical) > 0 {
		logical[len(logical)-1] = mulOK(logical[len(logical)-1], 8/bits)
	}
	ga, ok := normAxis(n.attrInt("gather_axis", 0), len(logical))
	if !ok {
		return d.fail(res, "gather_axis %d is out of range for rank %d", n.attrInt("gather_axis", 0), len(logical))
	}
	out := append(append(append([]int64(nil), logical[:ga]...), is...), logical[ga+1:]...)
	res[0] = known(sc.dt, out)
	return res
}

// ruleQuantMatMul: onnxruntime's DynamicQuantizeMatMul (float A, integer
// B) and MatMulIntegerToFloat (integer A and B); both give MatMul's shape,
// in A's type and the scale's type respectively.
func ruleQuantMatMul(d *decoder, n *node, res []tinfo) []tinfo {
	as, aok := d.shape(n, 0)
	bs, bok := d.shape(n, 1)
	dt := dtOf(d.in(n, 0))
	if n.op == "MatMulIntegerToFloat" {
		dt = dtOf(d.in(n, 2))
	}
	if !aok || !bok {
		res[0].dt = dt
		return res
	}
	out, why := matmulShapeWhy(as, bs)
	if why != "" {
		return d.fail(res, "%s %s", n.op, why)
	}
	res[0] = known(dt, out)
	return res
}

// ceilDiv is a/b rounded up, for positive b and non-negative a.
func ceilDiv(a, b int64) int64 { return a/b + min(a%b, 1) }

// ruleQLinearMatMul: quantized A (input 0) times quantized B (input 3), in
// the output zero point's type (input 7).
func ruleQLinearMatMul(d *decoder, n *node, res []tinfo) []tinfo {
	dt := dtOf(d.in(n, 7))
	if dt == 0 {
		return d.fail(res, "input 7 (the output zero point, whose type is the output's) is missing")
	}
	as, aok := d.shape(n, 0)
	bs, bok := d.shape(n, 3)
	if !aok || !bok {
		res[0].dt = dt
		return res
	}
	out, why := matmulShapeWhy(as, bs)
	if why != "" {
		return d.fail(res, "QLinearMatMul %s", why)
	}
	res[0] = known(dt, out)
	return res
}
