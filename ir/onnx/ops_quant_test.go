package onnx

import (
	"testing"

	"memplan/ir"
)

func TestQuantRules(t *testing.T) {
	// A 4-bit MatMulNBits layer: K=64 in blocks of 32, N=96.
	nbitsAt := func(bits, blockSize int64, a pb, b pb) []byte {
		return modelMS(21, input(a), input(b), input(vinfo("s", tFloat16, 96, 2)),
			msOp("MatMulNBits", []string{"a", "b", "s"}, []string{"y"},
				aInt("K", 64), aInt("N", 96), aInt("bits", bits), aInt("block_size", blockSize)))
	}
	nbits := func(a pb, b pb) []byte { return nbitsAt(4, 32, a, b) }
	f16 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F16} }
	cases := []ruleCase{
		{name: "matmulnbits 3-D activations", model: nbits(vinfo("a", tFloat16, 1, 7, 64), vinfo("b", tUint8, 96, 2, 16)),
			want: map[string]wantTensor{"y": f16(1, 7, 96)}},
		{name: "matmulnbits 2-D activations", model: nbits(vinfo("a", tFloat16, 5, 64), vinfo("b", tUint8, 96, 2, 16)),
			want: map[string]wantTensor{"y": f16(5, 96)}},
		{name: "matmulnbits 8 bits", model: nbitsAt(8, 32, vinfo("a", tFloat16, 5, 64), vinfo("b", tUint8, 96, 2, 32)),
			want: map[string]wantTensor{"y": f16(5, 96)}},
		{name: "matmulnbits K disagrees with A", model: nbits(vinfo("a", tFloat16, 5, 63), vinfo("b", tUint8, 96, 2, 16)),
			errSub: "input 0 (A) has shape [5 63]; its last dim must be K=64"},
		{name: "matmulnbits B packed wrong", model: nbits(vinfo("a", tFloat16, 5, 64), vinfo("b", tUint8, 96, 4, 16)),
			errSub: "input 1 (B) has shape [96 4 16]; K=64 N=96 in 4-bit blocks of 32 need [96 2 16]"},
		{name: "matmulnbits block size not a power of two", model: nbitsAt(4, 24, vinfo("a", tFloat16, 5, 64), vinfo("b", tUint8, 96, 2, 16)),
			errSub: "block_size 24 must be a power of two"},
		{name: "gather block quantized uint8 unpacks the last axis", model: modelMS(21,
			input(vinfo("w", tUint8, 100, 16)), input(vinfo("ids", tInt64, 2, 3)), input(vinfo("s", tFloat16, 100, 1)),
			msOp("GatherBlockQuantized", []string{"w", "ids", "s"}, []string{"y"}, aInt("block_size", 32))),
			want: map[string]wantTensor{"y": f16(2, 3, 32)}},
		{name: "gather block quantized int4", model: modelMS(21,
			input(vinfo("w", 22, 100, 32)), input(vinfo("ids", tInt64, 4)), input(vinfo("s", tFloat, 100, 1)),
			msOp("GatherBlockQuantized", []string{"w", "ids", "s"}, []string{"y"}, aInt("block_size", 32))),
			want: map[string]wantTensor{"y": {[]int64{4, 32}, ir.F32}}},
		{name: "dynamic quantize matmul", model: modelMS(21,
			input(vinfo("a", tFloat, 3, 8)), input(vinfo("b", tInt8, 8, 5)), input(scalar("bs", tFloat)),
			msOp("DynamicQuantizeMatMul", []string{"a", "b", "bs"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{3, 5}, ir.F32}}},
		{name: "matmul integer to float takes the scale's type", model: modelMS(21,
			input(vinfo("a", tUint8, 2, 3, 8)), input(vinfo("b", tInt8, 8, 5)), input(scalar("as", tFloat16)), input(scalar("bs", tFloat16)),
			msOp("MatMulIntegerToFloat", []string{"a", "b", "as", "bs"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 3, 5)}},
		{name: "blocked dequantize", model: modelP(21,
			input(vinfo("q", tInt8, 4, 64)), input(vinfo("s", tFloat16, 4, 2)),
			op("DequantizeLinear", []string{"q", "s"}, []string{"y"}, aInt("axis", 1), aInt("block_size", 32))),
			want: map[string]wantTensor{"y": f16(4, 64)}},
		{name: "blocked dequantize with a scale of the wrong blocks", model: modelP(21,
			input(vinfo("q", tInt8, 4, 64)), input(vinfo("s", tFloat16, 4, 3)),
			op("DequantizeLinear", []string{"q", "s"}, []string{"y"}, aInt("axis", 1), aInt("block_size", 32))),
			errSub: "the scale has shape [4 3]; blocks of 32 along axis 1 of [4 64] need [4 2]"},
		{name: "quantize to the output_dtype attribute", model: modelP(21,
			input(vinfo("x", tFloat, 4, 64)), input(scalar("s", tFloat)),
			op("QuantizeLinear", []string{"x", "s"}, []string{"y"}, aInt("output_dtype", tInt8))),
			want: map[string]wantTensor{"y": {[]int64{4, 64}, ir.I8}}},
		{name: "quantize with no type given is uint8", model: modelP(21,
			input(vinfo("x", tFloat, 4, 64)), input(scalar("s", tFloat)),
			op("QuantizeLinear", []string{"x", "s"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{4, 64}, ir.U8}}},
	}
	runRuleCases(t, cases)
}

func TestQLinearRules(t *testing.T) {
	u8 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.U8} }
	i8 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.I8} }
	// qp is a quantized tensor's scale and zero point, graph inputs.
	qp := func(name string, el int64) []part {
		return []part{input(scalar(name+"_s", tFloat)), input(scalar(name+"_z", el))}
	}
	model := func(x []part, node part) []byte {
		var parts []part
		parts = append(parts, x...)
		parts = append(parts, qp("a", tUint8)...)
		parts = append(parts, qp("b", tUint8)...)
		parts = append(parts, qp("c", tUint8)...)
		parts = append(parts, input(scalar("ci8", tInt8)))
		return modelMS(13, append(parts, node)...)
	}
	x := input(vinfo("x", tUint8, 2, 8, 6, 6))
	xl := input(vinfo("xl", tUint8, 2, 6, 6, 8))
	b := input(vinfo("b", tUint8, 8, 1, 1))
	unary := func(op string, in string, attrs ...attrFn) part {
		return msOp(op, []string{in, "a_s", "a_z", "c_s", "c_z"}, []string{"y"}, attrs...)
	}
	cases := []ruleCase{
		{name: "qlinear add broadcasts", model: model([]part{x, b},
			msOp("QLinearAdd", []string{"x", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "c_z"}, []string{"y"})),
			want: map[string]wantTensor{"y": u8(2, 8, 6, 6)}},
		{name: "qlinear mul takes C's zero point type", model: model([]part{x, b},
			msOp("QLinearMul", []string{"x", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "ci8"}, []string{"y"})),
			want: map[string]wantTensor{"y": i8(2, 8, 6, 6)}},
		{name: "qlinear mul without C's zero point is A's type", model: model([]part{x, b},
			msOp("QLinearMul", []string{"x", "a_s", "", "b", "b_s", "", "c_s"}, []string{"y"})),
			want: map[string]wantTensor{"y": u8(2, 8, 6, 6)}},
		{name: "qlinear add that does not broadcast", model: model([]part{x, input(vinfo("b3", tUint8, 3, 6))},
			msOp("QLinearAdd", []string{"x", "a_s", "a_z", "b3", "b_s", "b_z", "c_s", "c_z"}, []string{"y"})),
			errSub: "QLinearAdd broadcasts A and B: dim 2 of the rank-4 result is 6 vs 3"},
		{name: "qlinear add with too few inputs", model: model([]part{x, b},
			msOp("QLinearAdd", []string{"x", "a_s", "a_z", "b"}, []string{"y"})),
			errSub: "graph.node[0]"},
		{name: "qlinear add with too few inputs says which", model: model([]part{x, b},
			msOp("QLinearAdd", []string{"x", "a_s", "a_z", "b"}, []string{"y"})),
			errSub: "QLinearAdd needs 7 to 8 inputs (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, optional C_zero_point), this node has 4"},
		{name: "qlinear sigmoid", model: model([]part{x}, unary("QLinearSigmoid", "x")),
			want: map[string]wantTensor{"y": u8(2, 8, 6, 6)}},
		{name: "qlinear leaky relu", model: model([]part{x}, unary("QLinearLeakyRelu", "x", aFloat("alpha", 0.1))),
			want: map[string]wantTensor{"y": u8(2, 8, 6, 6)}},
		{name: "qlinear softmax", model: model([]part{x}, unary("QLinearSoftmax", "x", aInt("axis", 1), aInt("opset", 13))),
			want: map[string]wantTensor{"y": u8(2, 8, 6, 6)}},
		{name: "qlinear softmax axis out of range", model: model([]part{x}, unary("QLinearSoftmax", "x", aInt("axis", 4), aInt("opset", 13))),
			errSub: "axis 4 is out of range for rank 4"},
		{name: "qlinear sigmoid with six inputs", model: model([]part{x},
			msOp("QLinearSigmoid", []string{"x", "a_s", "a_z", "c_s", "c_z", "c_z"}, []string{"y"})),
			errSub: "QLinearSigmoid needs 4 to 5 inputs"},
		{name: "qlinear global average pool NCHW", model: model([]part{x}, unary("QLinearGlobalAveragePool", "x")),
			want: map[string]wantTensor{"y": u8(2, 8, 1, 1)}},
		{name: "qlinear global average pool channels last", model: model([]part{xl}, unary("QLinearGlobalAveragePool", "xl", aInt("channels_last", 1))),
			want: map[string]wantTensor{"y": u8(2, 1, 1, 8)}},
		{name: "qlinear global average pool of rank 2", model: model([]part{input(vinfo("x2", tUint8, 2, 8))}, unary("QLinearGlobalAveragePool", "x2")),
			errSub: "QLinearGlobalAveragePool needs rank 3 or more, got rank 2"},
		{name: "qlinear average pool", model: model([]part{x}, unary("QLinearAveragePool", "x", aInts("kernel_shape", 3, 3), aInts("strides", 2, 2))),
			want: map[string]wantTensor{"y": u8(2, 8, 2, 2)}},
		{name: "qlinear average pool channels last", model: model([]part{xl},
			unary("QLinearAveragePool", "xl", aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1), aInt("channels_last", 1))),
			want: map[string]wantTensor{"y": u8(2, 3, 3, 8)}},
		{name: "qlinear average pool without a kernel", model: model([]part{x}, unary("QLinearAveragePool", "x")),
			errSub: "kernel_shape [] needs 2 spatial dims"},
		{name: "qlinear concat of triples", model: model([]part{x, input(vinfo("x3", tUint8, 2, 3, 6, 6))},
			msOp("QLinearConcat", []string{"c_s", "c_z", "x", "a_s", "a_z", "x3", "b_s", "b_z"}, []string{"y"}, aInt("axis", 1))),
			want: map[string]wantTensor{"y": u8(2, 11, 6, 6)}},
		{name: "qlinear concat takes Y's zero point type", model: model([]part{x},
			msOp("QLinearConcat", []string{"c_s", "ci8", "x", "a_s", "a_z"}, []string{"y"}, aInt("axis", -1))),
			want: map[string]wantTensor{"y": i8(2, 8, 6, 6)}},
		{name: "qlinear concat with a broken triple", model: model([]part{x},
			msOp("QLinearConcat", []string{"c_s", "c_z", "x", "a_s", "a_z", "x"}, []string{"y"}, aInt("axis", 1))),
			errSub: "QLinearConcat needs Y_scale, Y_zero_point and then a (tensor, scale, zero point) triple per input, 5, 8, 11... inputs; this node has 6"},
		{name: "qlinear concat of unequal ranks", model: model([]part{x, input(vinfo("x3", tUint8, 2, 3, 6))},
			msOp("QLinearConcat", []string{"c_s", "c_z", "x", "a_s", "a_z", "x3", "b_s", "b_z"}, []string{"y"}, aInt("axis", 1))),
			errSub: "QLinearConcat needs inputs of equal rank: input 1 has rank 3, input 0 rank 4"},
		{name: "qlinear concat of unequal dims", model: model([]part{x, input(vinfo("x3", tUint8, 2, 3, 5, 6))},
			msOp("QLinearConcat", []string{"c_s", "c_z", "x", "a_s", "a_z", "x3", "b_s", "b_z"}, []string{"y"}, aInt("axis", 1))),
			errSub: "QLinearConcat along axis 1 needs equal dims elsewhere: dim 2 is 6 vs 5"},
		{name: "qlinear reduce mean keeps dims", model: model([]part{x}, unary("QLinearReduceMean", "x", aInts("axes", 2, 3), aInt("keepdims", 1))),
			want: map[string]wantTensor{"y": u8(2, 8, 1, 1)}},
		{name: "qlinear reduce mean drops dims", model: model([]part{x}, unary("QLinearReduceMean", "x", aInts("axes", -1), aInt("keepdims", 0))),
			want: map[string]wantTensor{"y": u8(2, 8, 6)}},
		{name: "qlinear reduce mean axis out of range", model: model([]part{x}, unary("QLinearReduceMean", "x", aInts("axes", 5), aInt("keepdims", 0))),
			errSub: "axis 5 is out of range for rank 4"},
		{name: "qlinear where", model: model([]part{x, b, input(vinfo("cond", tBool, 6, 1))},
			msOp("QLinearWhere", []string{"cond", "x", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "ci8"}, []string{"y"})),
			want: map[string]wantTensor{"y": i8(2, 8, 6, 6)}},
		{name: "qlinear where without Z's zero point", model: model([]part{x, b, input(vinfo("cond", tBool, 6, 1))},
			msOp("QLinearWhere", []string{"cond", "x", "a_s", "a_z", "b", "b_s", "b_z", "c_s"}, []string{"y"})),
			errSub: "QLinearWhere needs 9 inputs"},
	}
	runRuleCases(t, cases)
}

func TestQuantShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"dequantize int4", 21, []part{
			input(vinfo("x", tInt4, 4, 6)), input(scalar("s", tFloat)),
			op("DequantizeLinear", []string{"x", "s"}, []string{"y"})}, ints64(4, 6), ir.F32},
		{"quantize", 13, []part{
			input(vinfo("x", tFloat, 2, 3)), input(scalar("s", tFloat)), input(scalar("z", tInt8)),
			op("QuantizeLinear", []string{"x", "s", "z"}, []string{"y"})}, ints64(2, 3), ir.I8},
	})
}
