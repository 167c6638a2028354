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
