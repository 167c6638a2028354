package onnx

import (
	"testing"

	"memplan/ir"
)

// naivePeak is the models README's check figure: node order as the
// schedule, each tensor live from its producer's step to its last
// consumer's (graph inputs from step 0, graph outputs to the end), and
// params and constants not counted. Views count as tensors of their own.
func naivePeak(t *testing.T, g *ir.Graph) int64 {
	step := map[string]int{}
	size := map[string]int64{}
	death := map[string]int{}
	s := 0
	for _, n := range g.Nodes {
		if n.Op == ir.OpInput || n.Op == ir.OpParam {
			for _, o := range n.Outputs {
				step[o.Name] = 0
			}
			if n.Op == ir.OpParam {
				continue
			}
		} else {
			for _, in := range n.Inputs {
				death[in] = max(death[in], s)
			}
			for _, o := range n.Outputs {
				step[o.Name] = s
			}
			s++
		}
		if n.Op == ir.OpConstant {
			continue
		}
		for _, o := range n.Outputs {
			dims, err := g.Bind(o.Shape, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ir.TensorBytes(dims, o.DType)
			if err != nil {
				t.Fatal(err)
			}
			size[o.Name] = b
		}
	}
	for _, o := range g.Outputs {
		death[o] = s
	}
	live := make([]int64, s+1)
	for name, b := range size {
		for k := step[name]; k <= max(death[name], step[name]); k++ {
			live[k] += b
		}
	}
	var peak int64
	for _, v := range live {
		peak = max(peak, v)
	}
	return peak
}

// TestNaivePeakMatchesReadme recomputes the README's peak figures from
// the decoded graphs: a check of every shape, dtype and constant at once.
func TestNaivePeakMatchesReadme(t *testing.T) {
	for _, tc := range []struct {
		file string
		syms map[string]int64
		peak int64
	}{
		{"mnist.onnx", nil, 60416},
		{"light_resnet50.onnx", nil, 9633792},
		{"light_shufflenet.onnx", nil, 3110912},
		{"light_densenet121.onnx", nil, 8430464},
		{"ppocr_mobile_v2_cls.onnx", pp, 485376},
		{"bert_toy.static.onnx", nil, 570240},
		{"tf_bert_qa.onnx", map[string]int64{"batch_size": 1}, 3124},
		{"silero_vad_op18_16k.onnx", map[string]int64{"batch": 1, "sequence": 512}, 7216},
	} {
		g, err := Decode(tc.file, readModel(t, tc.file), ir.DecodeOptions{Symbols: tc.syms})
		if err != nil {
			t.Fatal(err)
		}
		if got := naivePeak(t, g); got != tc.peak {
			t.Errorf("%s: naive peak %d, README says %d", tc.file, got, tc.peak)
		}
	}
}
