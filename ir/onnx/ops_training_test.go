package onnx

import (
	"testing"

	"memplan/ir"
)

func TestTrainingRules(t *testing.T) {
	// modelT imports the preview training domain beside the default one.
	modelT := func(opName string, ins, outs []string, parts ...part) []byte {
		node := part{1, nodeP(opName, ins, outs, aFloat("decay_factor", 0)).str(7, trainingDomain)}
		return append(modelP(17, append(parts, node)...), pb{}.msg(8, pb{}.str(1, trainingDomain).i64(2, 1))...)
	}
	rt := []part{input(scalar("r", tFloat)), input(scalar("t", tInt64))}
	tensors := func(dims map[string][]any) []part {
		out := append([]part(nil), rt...)
		for _, name := range []string{"x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"} {
			if d, ok := dims[name]; ok {
				out = append(out, input(vinfo(name, tFloat, d...)))
			}
		}
		return out
	}
	two := map[string][]any{"x1": {3, 4}, "x2": {5}, "g1": {3, 4}, "g2": {5}, "v1": {3, 4}, "v2": {5}, "h1": {3, 4}, "h2": {5}}
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	cases := []ruleCase{
		{name: "adam two tensors", model: modelT("Adam", []string{"r", "t", "x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"},
			[]string{"x1n", "x2n", "v1n", "v2n", "h1n", "h2n"}, tensors(two)...),
			want: map[string]wantTensor{"x1n": f32(3, 4), "x2n": f32(5), "v1n": f32(3, 4), "v2n": f32(5), "h1n": f32(3, 4), "h2n": f32(5)}},
		{name: "adagrad two tensors", model: modelT("Adagrad", []string{"r", "t", "x1", "x2", "g1", "g2", "h1", "h2"},
			[]string{"x1n", "x2n", "h1n", "h2n"}, tensors(two)...),
			want: map[string]wantTensor{"x1n": f32(3, 4), "x2n": f32(5), "h1n": f32(3, 4), "h2n": f32(5)}},
		{name: "momentum one tensor", model: modelT("Momentum", []string{"r", "t", "x1", "g1", "v1"}, []string{"x1n", "v1n"}, tensors(two)...),
			want: map[string]wantTensor{"x1n": f32(3, 4), "v1n": f32(3, 4)}},
		{name: "adam outputs for a tensor it does not take", model: modelT("Adam", []string{"r", "t", "x1", "g1", "v1", "h1"},
			[]string{"x1n", "x2n", "v1n", "v2n", "h1n", "h2n"}, tensors(two)...),
			errSub: "Adam takes R, T and 4 groups of n tensors (X, G, V, H) and gives 3 groups of n; this node has 6 inputs and 6 outputs"},
		{name: "momentum gradient of another shape", model: modelT("Momentum", []string{"r", "t", "x1", "g1", "v1"}, []string{"x1n", "v1n"},
			tensors(map[string][]any{"x1": {3, 4}, "g1": {4, 3}, "v1": {3, 4}})...),
			errSub: "input 3 has shape [4 3], but the tensor it belongs to (input 2) has [3 4]"},
		{name: "adagrad state of another shape", model: modelT("Adagrad", []string{"r", "t", "x1", "g1", "h1"}, []string{"x1n", "h1n"},
			tensors(map[string][]any{"x1": {3, 4}, "g1": {3, 4}, "h1": {3}})...),
			errSub: "input 4 has shape [3], but the tensor it belongs to (input 2) has [3 4]"},
		{name: "momentum without its tensor", model: modelT("Momentum", []string{"r", "t", "", "g1", "v1"}, []string{"x1n", "v1n"},
			tensors(map[string][]any{"g1": {3, 4}, "v1": {3, 4}})...),
			errSub: "input 2 (X1) is missing"},
	}
	runRuleCases(t, cases)
}
