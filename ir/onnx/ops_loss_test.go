package onnx

import (
	"testing"

	"memplan/ir"
)

func TestLossRandomAndDetRules(t *testing.T) {
	str := func(name, v string) attrFn {
		return func(b pb) pb { return b.msg(5, pb{}.str(1, name).i64(20, 3).str(4, v)) }
	}
	scores, target := input(vinfo("x", tFloat, 3, 5, 2)), input(vinfo("t", tInt64, 3, 2))
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	runRuleCases(t, []ruleCase{
		{name: "nll loss, mean", model: modelP(13, scores, target,
			op("NegativeLogLikelihoodLoss", []string{"x", "t"}, []string{"y"})),
			want: map[string]wantTensor{"y": f32()}},
		{name: "nll loss, none", model: modelP(13, scores, target,
			op("NegativeLogLikelihoodLoss", []string{"x", "t"}, []string{"y"}, str("reduction", "none"))),
			want: map[string]wantTensor{"y": f32(3, 2)}},
		{name: "softmax cross entropy with log-probabilities", model: modelP(13, scores, target,
			op("SoftmaxCrossEntropyLoss", []string{"x", "t"}, []string{"y", "lp"}, str("reduction", "sum"))),
			want: map[string]wantTensor{"y": f32(), "lp": f32(3, 5, 2)}},
		{name: "targets that miss the scores", model: modelP(13, scores, input(vinfo("t2", tInt64, 3, 4)),
			op("NegativeLogLikelihoodLoss", []string{"x", "t2"}, []string{"y"})),
			errSub: "the targets [3 4] do not match the scores [3 5 2] past the class axis"},
		{name: "unknown reduction", model: modelP(13, scores, target,
			op("NegativeLogLikelihoodLoss", []string{"x", "t"}, []string{"y"}, str("reduction", "max"))),
			errSub: `reduction "max" is not none, mean or sum`},
		{name: "det of a batch", model: modelP(13, input(vinfo("m", tFloat, 4, 3, 3)), op("Det", []string{"m"}, []string{"y"})),
			want: map[string]wantTensor{"y": f32(4)}},
		{name: "det of a non-square", model: modelP(13, input(vinfo("m", tFloat, 3, 2)), op("Det", []string{"m"}, []string{"y"})),
			errSub: "Det needs square matrices [*, M, M], got [3 2]"},
		{name: "bernoulli to the dtype attribute", model: modelP(15, input(vinfo("p", tFloat, 2, 3)),
			op("Bernoulli", []string{"p"}, []string{"y"}, aInt("dtype", tFloat16))),
			want: map[string]wantTensor{"y": {[]int64{2, 3}, ir.F16}}},
		{name: "random uniform like the input", model: modelP(13, input(vinfo("p", tDouble, 4)),
			op("RandomUniformLike", []string{"p"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{4}, ir.F64}}},
		{name: "qlinear matmul in the output zero point's type", model: modelP(13,
			input(vinfo("a", tUint8, 2, 4)), input(scalar("as", tFloat)), input(scalar("az", tUint8)),
			input(vinfo("b", tUint8, 4, 3)), input(scalar("bs", tFloat)), input(scalar("bz", tUint8)),
			input(scalar("ys", tFloat)), input(scalar("yz", tInt8)),
			op("QLinearMatMul", []string{"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{2, 3}, ir.I8}}},
	})
}
