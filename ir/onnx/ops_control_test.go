package onnx

import (
	"testing"

	"memplan/ir"
)

func TestControlShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"lstm bidirectional", 14, []part{
			input(vinfo("x", tFloat, 7, 2, 5)), input(vinfo("w", tFloat, 2, 64, 5)), input(vinfo("r", tFloat, 2, 64, 16)),
			op("LSTM", []string{"x", "w", "r"}, []string{"", "y", "c"}, aInt("hidden_size", 16),
				func(b pb) pb { return b.msg(5, pb{}.str(1, "direction").i64(20, 3).str(4, "bidirectional")) })}, ints64(2, 2, 16), ir.F32},
	})
}

func TestScanRules(t *testing.T) {
	// The body sums a running state [2] with each slice x [2] and emits the
	// slice times the state as a scan output.
	sumBody := graphP(input(vinfo("s", tFloat)), input(vinfo("x", tFloat)),
		op("Add", []string{"s", "x"}, []string{"s2"}), op("Mul", []string{"s2", "x"}, []string{"e"}),
		output(vinfo("s2", tFloat)), output(vinfo("e", tFloat)))
	scan := func(opset int64, ins []string, parts []part, body pb, attrs ...attrFn) []byte {
		attrs = append(attrs, aGraph("body", body))
		return modelP(opset, append(parts, op("Scan", ins, []string{"final", "ys"}, attrs...))...)
	}
	state := input(vinfo("s0", tFloat, 2))
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	// growBody doubles its state's length every iteration.
	growBody := graphP(input(vinfo("s", tFloat)), input(vinfo("x", tFloat)),
		op("Concat", []string{"s", "s"}, []string{"s2"}, aInt("axis", 0)), op("Identity", []string{"x"}, []string{"e"}),
		output(vinfo("s2", tFloat)), output(vinfo("e", tFloat)))
	cases := []ruleCase{
		{name: "scan over axis 0", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 5, 2))}, sumBody,
			aInt("num_scan_inputs", 1)),
			want: map[string]wantTensor{"final": f32(2), "ys": f32(5, 2)}},
		{name: "scan over axis 1 stacked on a negative output axis", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 2, 7))}, sumBody,
			aInt("num_scan_inputs", 1), aInts("scan_input_axes", 1), aInts("scan_output_axes", -1)),
			want: map[string]wantTensor{"final": f32(2), "ys": f32(2, 7)}},
		{name: "scan at opset 8 with a batch axis", model: scan(8, []string{"", "s0", "xs"},
			[]part{input(vinfo("s0", tFloat, 3, 2)), input(vinfo("xs", tFloat, 3, 4, 2))}, sumBody, aInt("num_scan_inputs", 1)),
			want: map[string]wantTensor{"final": f32(3, 2), "ys": f32(3, 4, 2)}},
		{name: "scan whose body grows its state", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 5, 2))}, growBody,
			aInt("num_scan_inputs", 1)),
			errSub: "the body turns state 0 from [2] float into [4] float, so its shape may change every iteration"},
		{name: "scan without num_scan_inputs", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 5, 2))}, sumBody),
			errSub: "num_scan_inputs 0 must be 1 or more and at most the node's 2 inputs"},
		{name: "scan body of the wrong arity", model: scan(11, []string{"s0", "xs", "zs"},
			[]part{state, input(vinfo("xs", tFloat, 5, 2)), input(vinfo("zs", tFloat, 5, 2))}, sumBody, aInt("num_scan_inputs", 2)),
			errSub: "the body has 2 inputs and 2 outputs; 1 states, 2 scan inputs and 1 scan outputs need 3 and 2"},
		{name: "scan inputs of different lengths", model: scan(11, []string{"xs", "zs"},
			[]part{input(vinfo("xs", tFloat, 5, 2)), input(vinfo("zs", tFloat, 4, 2))}, sumBody, aInt("num_scan_inputs", 2)),
			errSub: "scan input 1 has 4 slices along its axis, scan input 0 has 5"},
		{name: "scan input axis out of range", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 5, 2))}, sumBody,
			aInt("num_scan_inputs", 1), aInts("scan_input_axes", 2)),
			errSub: "scan input 0 (input 1, [5 2]) has no axis 2 to scan"},
		{name: "scan output axes of the wrong count", model: scan(11, []string{"s0", "xs"}, []part{state, input(vinfo("xs", tFloat, 5, 2))}, sumBody,
			aInt("num_scan_inputs", 1), aInts("scan_output_axes", 0, 1)),
			errSub: "scan_input_axes and scan_output_axes need 1 and 1 values"},
		{name: "scan at opset 8 with batches that differ", model: scan(8, []string{"", "s0", "xs"},
			[]part{input(vinfo("s0", tFloat, 3, 2)), input(vinfo("xs", tFloat, 2, 4, 2))}, sumBody, aInt("num_scan_inputs", 1)),
			errSub: "input 2 has batch 2, input 1 batch 3"},
	}
	runRuleCases(t, cases)
}
