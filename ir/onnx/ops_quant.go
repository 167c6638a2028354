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
	// onnxruntime's QOperator format: the float op between a dequantize and
	// a quantize, fused into one integer op.
	{domains: []string{msDomain}, ops: []string{"QLinearAdd", "QLinearMul"}, rule: ruleQLinearBinary},
	{domains: []string{msDomain}, ops: []string{"QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"}, rule: ruleQLinearUnary},
	{domains: []string{msDomain}, ops: []string{"QLinearGlobalAveragePool"}, rule: ruleQLinearGlobalAveragePool},
	{domains: []string{msDomain}, ops: []string{"QLinearAveragePool"}, rule: ruleQLinearAveragePool},
	{domains: []string{msDomain}, ops: []string{"QLinearConcat"}, rule: ruleQLinearConcat},
	{domains: []string{msDomain}, ops: []string{"QLinearReduceMean"}, rule: ruleQLinearReduceMean},
	{domains: []string{msDomain}, ops: []string{"QLinearWhere"}, rule: ruleQLinearWhere},
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

// qlinearArity checks a QOperator node's input count: min with every
// optional zero point left out, max with all of them; names lists them
// for the message. It records why with d.bad and says false when the
// count is wrong.
func (d *decoder) qlinearArity(n *node, min, max int, names string) bool {
	if len(n.inputs) < min || len(n.inputs) > max || n.inputs[0] == "" {
		if min == max {
			d.bad(nil, "%s needs %d inputs (%s), this node has %d", n.op, min, names, len(n.inputs))
		} else {
			d.bad(nil, "%s needs %d to %d inputs (%s), this node has %d", n.op, min, max, names, len(n.inputs))
		}
		return false
	}
	return true
}

// qlinearType is a QOperator op's output type: its output zero point's
// (input zp), else that of its quantized input x, as the two must agree.
func (d *decoder) qlinearType(n *node, zp, x int) int64 {
	if t := d.in(n, zp); t != nil {
		return t.dt
	}
	return dtOf(d.in(n, x))
}

// ruleQLinearBinary: QLinearAdd and QLinearMul broadcast A (input 0) and
// B (input 3); C is in C's zero point's type (input 7), else A's.
func ruleQLinearBinary(d *decoder, n *node, res []tinfo) []tinfo {
	if !d.qlinearArity(n, 7, 8, "A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, optional C_zero_point") {
		return res
	}
	if n.inputs[3] == "" {
		return d.bad(res, "input 3 (B) is missing")
	}
	res[0].dt = d.qlinearType(n, 7, 0)
	as, aok := d.shape(n, 0)
	bs, bok := d.shape(n, 3)
	if !aok || !bok {
		return res
	}
	out, ok := broadcast(as, bs)
	if !ok {
		return d.fail(res, "%s broadcasts A and B: %s", n.op, whyBroadcast(as, bs))
	}
	res[0] = known(res[0].dt, out)
	return res
}

// ruleQLinearUnary: X (input 0) to Y of X's shape, in Y's zero point's
// type (input 4), else X's.
func ruleQLinearUnary(d *decoder, n *node, res []tinfo) []tinfo {
	if !d.qlinearArity(n, 4, 5, "X, X_scale, X_zero_point, Y_scale, optional Y_zero_point") {
		return res
	}
	dt := d.qlinearType(n, 4, 0)
	xs, ok := d.shape(n, 0)
	if !ok {
		res[0].dt = dt
		return res
	}
	if n.op == "QLinearSoftmax" {
		if _, ok := normAxis(n.attrInt("axis", -1), len(xs)); !ok {
			return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
		}
	}
	res[0] = known(dt, xs)
	return res
}

// qlinearPoolInput checks a QOperator pool's inputs, sets its output's
// type in res, and returns X's shape: false when the count is wrong, the
// shape is unknown, or the rank is below 3 (the reason is recorded).
func (d *decoder) qlinearPoolInput(n *node, res []tinfo) ([]int64, bool) {
	if !d.qlinearArity(n, 4, 5, "X, x_scale, x_zero_point, y_scale, y_zero_point") {
		return nil, false
	}
	res[0].dt = d.qlinearType(n, 4, 0)
	xs, ok := d.shape(n, 0)
	if !ok {
		return nil, false
	}
	if len(xs) < 3 {
		d.bad(res, "%s needs rank 3 or more, got rank %d", n.op, len(xs))
		return nil, false
	}
	return xs, true
}

// ruleQLinearGlobalAveragePool: every spatial dim becomes 1; the channels
// are axis 1, or the last axis when channels_last is set.
func ruleQLinearGlobalAveragePool(d *decoder, n *node, res []tinfo) []tinfo {
	xs, ok := d.qlinearPoolInput(n, res)
	if !ok {
		return res
	}
	out := slices.Repeat([]int64{1}, len(xs))
	out[0] = xs[0]
	if n.attrInt("channels_last", 0) != 0 {
		out[len(xs)-1] = xs[len(xs)-1]
	} else {
		out[1] = xs[1]
	}
	res[0] = known(res[0].dt, out)
	return res
}

// ruleQLinearAveragePool is AveragePool on quantized data; with
// channels_last the data is [N, spatial..., C] and so is the output.
func ruleQLinearAveragePool(d *decoder, n *node, res []tinfo) []tinfo {
	xs, ok := d.qlinearPoolInput(n, res)
	if !ok {
		return res
	}
	last := n.attrInt("channels_last", 0) != 0
	if last { // to [N, C, spatial...] and back
		xs = append([]int64{xs[0], xs[len(xs)-1]}, xs[1:len(xs)-1]...)
	}
	res = d.convPoolShape(n, xs, res)
	if o := res[0].shape; last && len(o) == len(xs) {
		res[0].shape = append(append([]int64{o[0]}, o[2:]...), o[1])
	}
	return res
}

// ruleQLinearConcat: the output's scale and zero point come first, then a
// (tensor, scale, zero point) triple per input joined along axis.
func ruleQLinearConcat(d *decoder, n *node, res []tinfo) []tinfo {
	if len(n.inputs) < 5 || (len(n.inputs)-2)%3 != 0 {
		return d.bad(res, "QLinearConcat needs Y_scale, Y_zero_point and then a (tensor, scale, zero point) triple per input, 5, 8, 11... inputs; this node has %d", len(n.inputs))
	}
	res[0].dt = d.qlinearType(n, 1, 2)
	var shapes [][]int64
	for i := 2; i < len(n.inputs); i += 3 {
		if n.inputs[i] == "" {
			return d.bad(res, "input %d (the tensor of triple %d) is missing", i, (i-2)/3)
		}
		s, ok := d.shape(n, i)
		if !ok {
			return res
		}
		shapes = append(shapes, s)
	}
	out, _, ok := d.concatShape(n, shapes)
	if !ok {
		return res
	}
	res[0] = known(res[0].dt, out)
	return res
}

// ruleQLinearReduceMean: ReduceMean with its axes and keepdims as
// attributes, in the reduced zero point's type (input 4), else the data's.
func ruleQLinearReduceMean(d *decoder, n *node, res []tinfo) []tinfo {
	if !d.qlinearArity(n, 4, 5, "data, data_scale, data_zero_point, reduced_scale, reduced_zero_point") {
		return res
	}
	res[0].dt = d.qlinearType(n, 4, 0)
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	axes, _ := n.attrInts("axes")
	out, _, ok := d.reducedShape(xs, axes, n.attrInt("keepdims", 1) != 0)
	if !ok {
		return res
	}
	res[0] = known(res[0].dt, out)
	return res
}

// ruleQLinearWhere: condition (input 0), X (input 1) and Y (input 4)
// broadcast; Z is in Z's zero point's type (input 8), else X's.
func ruleQLinearWhere(d *decoder, n *node, res []tinfo) []tinfo {
	if !d.qlinearArity(n, 9, 9, "condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point") {
		return res
	}
	res[0].dt = d.qlinearType(n, 8, 1)
	var shapes [][]int64
	for _, i := range []int{0, 1, 4} {
		if n.inputs[i] == "" {
			return d.bad(res, "input %d is missing", i)
		}
		s, ok := d.shape(n, i)
		if !ok {
			return res
		}
		shapes = append(shapes, s)
	}
	out, ok := broadcast(shapes...)
	if !ok {
		return d.fail(res, "QLinearWhere broadcasts condition, X and Y: %s", whyBroadcast(shapes...))
	}
	res[0] = known(res[0].dt, out)
	return res
}
