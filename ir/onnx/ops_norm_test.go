package onnx

import (
	"testing"

	"memplan/ir"
)

func TestNormRules(t *testing.T) {
	x := input(vinfo("x", tFloat16, 2, 7, 64))
	skip := input(vinfo("skip", tFloat16, 2, 7, 64))
	gamma := input(vinfo("g", tFloat16, 64))
	f16 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F16} }
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	cases := []ruleCase{
		{name: "simplified layer norm in the default domain", model: modelP(17, x, gamma,
			op("SimplifiedLayerNormalization", []string{"x", "g"}, []string{"y", "inv"}, aInt("axis", -1))),
			want: map[string]wantTensor{"y": f16(2, 7, 64), "inv": f32(2, 7, 1)}},
		{name: "simplified layer norm under com.microsoft", model: modelMS(17, x, gamma,
			msOp("SimplifiedLayerNormalization", []string{"x", "g"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "skip simplified layer norm with every output", model: modelMS(17, x, skip, gamma,
			msOp("SkipSimplifiedLayerNormalization", []string{"x", "skip", "g"}, []string{"y", "mean", "inv", "sum"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64), "mean": f32(2, 7, 1), "inv": f32(2, 7, 1), "sum": f16(2, 7, 64)}},
		{name: "skip simplified layer norm, the sum alone", model: modelMS(17, x, skip, gamma,
			msOp("SkipSimplifiedLayerNormalization", []string{"x", "skip", "g"}, []string{"y", "", "", "sum"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64), "sum": f16(2, 7, 64)}},
		{name: "skip layer norm with a 2-D skip", model: modelMS(17, x, input(vinfo("s2", tFloat16, 7, 64)), gamma, input(vinfo("b", tFloat16, 64)),
			msOp("SkipLayerNormalization", []string{"x", "s2", "g", "b"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "skip of another hidden size", model: modelMS(17, x, input(vinfo("s2", tFloat16, 2, 7, 32)), gamma,
			msOp("SkipSimplifiedLayerNormalization", []string{"x", "s2", "g"}, []string{"y"})),
			errSub: "the skip [2 7 32] does not match the input [2 7 64]"},
		{name: "gamma of another hidden size", model: modelMS(17, x, skip, input(vinfo("g2", tFloat16, 32)),
			msOp("SkipSimplifiedLayerNormalization", []string{"x", "skip", "g2"}, []string{"y"})),
			errSub: "input 2 (gamma) has shape [32], want [64], the hidden size"},
		{name: "rms normalization, opset 23", model: modelP(23, x, gamma,
			op("RMSNormalization", []string{"x", "g"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "rms normalization with a scale over two axes", model: modelP(23, x, input(vinfo("g2", tFloat16, 7, 64)),
			op("RMSNormalization", []string{"x", "g2"}, []string{"y"}, aInt("axis", 1))),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "rms normalization scale too big", model: modelP(23, x, input(vinfo("g2", tFloat16, 7, 64)),
			op("RMSNormalization", []string{"x", "g2"}, []string{"y"})),
			errSub: "the scale [7 64] does not broadcast to the normalized dims [64]"},
		{name: "group norm NHWC", model: modelMS(17, input(vinfo("img", tFloat16, 1, 8, 8, 32)), input(vinfo("ga", tFloat, 32)), input(vinfo("be", tFloat, 32)),
			msOp("GroupNorm", []string{"img", "ga", "be"}, []string{"y"}, aInt("groups", 8))),
			want: map[string]wantTensor{"y": f16(1, 8, 8, 32)}},
		{name: "skip group norm gives the sum too", model: modelMS(17, input(vinfo("img", tFloat16, 1, 8, 8, 32)), input(vinfo("ga", tFloat, 32)), input(vinfo("be", tFloat, 32)),
			input(vinfo("sk", tFloat16, 1, 8, 8, 32)),
			msOp("SkipGroupNorm", []string{"img", "ga", "be", "sk"}, []string{"y", "s"}, aInt("groups", 8))),
			want: map[string]wantTensor{"y": f16(1, 8, 8, 32), "s": f16(1, 8, 8, 32)}},
		{name: "group norm groups do not divide channels", model: modelMS(17, input(vinfo("img", tFloat16, 1, 8, 8, 30)), input(vinfo("ga", tFloat, 30)), input(vinfo("be", tFloat, 30)),
			msOp("GroupNorm", []string{"img", "ga", "be"}, []string{"y"}, aInt("groups", 8))),
			errSub: "groups 8 must be positive and divide the 30 channels"},
		{name: "group normalization, opset 18: a scale per group", model: modelP(18, input(vinfo("img", tFloat16, 2, 32, 8, 8)), input(vinfo("sc", tFloat16, 4)), input(vinfo("bi", tFloat16, 4)),
			op("GroupNormalization", []string{"img", "sc", "bi"}, []string{"y"}, aInt("num_groups", 4))),
			want: map[string]wantTensor{"y": f16(2, 32, 8, 8)}},
		{name: "group normalization, opset 21: a scale per channel", model: modelP(21, input(vinfo("img", tFloat16, 2, 32, 8, 8)), input(vinfo("sc", tFloat16, 32)), input(vinfo("bi", tFloat16, 32)),
			op("GroupNormalization", []string{"img", "sc", "bi"}, []string{"y"}, aInt("num_groups", 4))),
			want: map[string]wantTensor{"y": f16(2, 32, 8, 8)}},
		{name: "group normalization, opset 21, with a scale per group", model: modelP(21, input(vinfo("img", tFloat16, 2, 32, 8, 8)), input(vinfo("sc", tFloat16, 4)), input(vinfo("bi", tFloat16, 32)),
			op("GroupNormalization", []string{"img", "sc", "bi"}, []string{"y"}, aInt("num_groups", 4))),
			errSub: "input 1 (scale) has shape [4], want [32], one value per channel in opset 21"},
		{name: "group normalization groups do not divide channels", model: modelP(18, input(vinfo("img", tFloat16, 2, 30, 8, 8)), input(vinfo("sc", tFloat16, 4)), input(vinfo("bi", tFloat16, 4)),
			op("GroupNormalization", []string{"img", "sc", "bi"}, []string{"y"}, aInt("num_groups", 4))),
			errSub: "num_groups 4 must be positive and divide the 30 channels"},
		{name: "group normalization without a bias", model: modelP(18, input(vinfo("img", tFloat16, 2, 32, 8, 8)), input(vinfo("sc", tFloat16, 4)),
			op("GroupNormalization", []string{"img", "sc"}, []string{"y"}, aInt("num_groups", 4))),
			errSub: "GroupNormalization needs 3 inputs (X, scale, bias), this node has 2"},
		{name: "lp normalization", model: modelP(17, x, op("LpNormalization", []string{"x"}, []string{"y"}, aInt("p", 1))),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "lp normalization axis out of range", model: modelP(17, x, op("LpNormalization", []string{"x"}, []string{"y"}, aInt("axis", 3))),
			errSub: "axis 3 is out of range for rank 3"},
		{name: "lp normalization of p 3", model: modelP(17, x, op("LpNormalization", []string{"x"}, []string{"y"}, aInt("p", 3))),
			errSub: "p is 3; LpNormalization takes 1 or 2"},
	}
	runRuleCases(t, cases)
}

func TestElementwiseAndContribRules(t *testing.T) {
	x := input(vinfo("x", tFloat16, 2, 7, 64))
	f16 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F16} }
	cases := []ruleCase{
		{name: "gelu opset 20", model: modelP(20, x, op("Gelu", []string{"x"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "cumprod opset 26", model: modelP(26, x, initz(tproto("ax", tInt64, nil, 1)), op("CumProd", []string{"x", "ax"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "swish opset 24", model: modelP(24, x, op("Swish", []string{"x"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "quick gelu", model: modelMS(17, x, msOp("QuickGelu", []string{"x"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "fast gelu", model: modelMS(17, x, input(vinfo("b", tFloat16, 64)), msOp("FastGelu", []string{"x", "b"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "bias add", model: modelMS(17, x, input(vinfo("b", tFloat16, 64)), input(vinfo("s", tFloat16, 2, 7, 64)),
			msOp("BiasAdd", []string{"x", "b", "s"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 64)}},
		{name: "bias split gelu halves the last axis", model: modelMS(17, x, input(vinfo("b", tFloat16, 64)),
			msOp("BiasSplitGelu", []string{"x", "b"}, []string{"y"})),
			want: map[string]wantTensor{"y": f16(2, 7, 32)}},
		{name: "bias split gelu of an odd width", model: modelMS(17, input(vinfo("odd", tFloat16, 2, 7, 63)), input(vinfo("b", tFloat16, 63)),
			msOp("BiasSplitGelu", []string{"odd", "b"}, []string{"y"})),
			errSub: "BiasSplitGelu needs input [N, S, D] with D even, got [2 7 63]"},
		{name: "tensor scatter keeps the cache's shape", model: modelP(24,
			input(vinfo("past", tFloat16, 1, 4, 128, 16)), input(vinfo("upd", tFloat16, 1, 4, 1, 16)), input(vinfo("wi", tInt64, 1)),
			op("TensorScatter", []string{"past", "upd", "wi"}, []string{"present"})),
			want: map[string]wantTensor{"present": f16(1, 4, 128, 16)}},
		{name: "tensor scatter update longer than the cache", model: modelP(24,
			input(vinfo("past", tFloat16, 1, 4, 8, 16)), input(vinfo("upd", tFloat16, 1, 4, 9, 16)),
			op("TensorScatter", []string{"past", "upd"}, []string{"present"})),
			errSub: "the update [1 4 9 16] must match the cache [1 4 8 16] except along axis 2"},
	}
	runRuleCases(t, cases)
}

func TestNormShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"layernorm mean output", 17, []part{
			input(vinfo("x", tFloat16, 2, 3, 4)), input(vinfo("sc", tFloat16, 4)),
			op("LayerNormalization", []string{"x", "sc"}, []string{"o", "y"})}, ints64(2, 3, 1), ir.F32},
	})
}
