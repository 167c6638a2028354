package onnx

import (
	"testing"

	"memplan/ir"
)

func TestSignalRules(t *testing.T) {
	i64 := func(name string, v int64) part { return initz(tproto(name, tInt64, nil, v)) }
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	dft17 := func(x pb, ins []string, extra []part, attrs ...attrFn) []byte {
		return modelP(17, append(append([]part{input(x)}, extra...), op("DFT", ins, []string{"y"}, attrs...))...)
	}
	dft20 := func(x pb, ins []string, extra []part, attrs ...attrFn) []byte {
		return modelP(20, append(append([]part{input(x)}, extra...), op("DFT", ins, []string{"y"}, attrs...))...)
	}
	real := vinfo("x", tFloat, 2, 10, 6, 1)
	stft := func(sig pb, ins []string, extra []part, attrs ...attrFn) []byte {
		return modelP(17, append(append([]part{input(sig)}, extra...), op("STFT", ins, []string{"y"}, attrs...))...)
	}
	sig := vinfo("x", tFloat, 2, 128, 1)
	window := func(opName string, size part, attrs ...attrFn) []byte {
		return modelP(17, size, op(opName, []string{"n"}, []string{"y"}, attrs...))
	}
	mel := func(bins, dft part, attrs ...attrFn) []byte {
		return modelP(17, bins, dft, initz(tproto("sr", tInt64, nil, 16000)), initz(ftproto("lo", 0)), initz(ftproto("hi", 8000)),
			op("MelWeightMatrix", []string{"bins", "dft", "sr", "lo", "hi"}, []string{"y"}, attrs...))
	}
	cases := []ruleCase{
		// DFT, opset 17: the axis is an attribute, default 1.
		{name: "dft17 real to complex on the default axis", model: dft17(real, []string{"x"}, nil),
			want: map[string]wantTensor{"y": f32(2, 10, 6, 2)}},
		{name: "dft17 onesided with dft_length", model: dft17(real, []string{"x", "len"}, []part{i64("len", 16)}, aInt("onesided", 1)),
			want: map[string]wantTensor{"y": f32(2, 9, 6, 2)}},
		{name: "dft17 axis 2 inverse complex", model: dft17(vinfo("x", tFloat, 2, 10, 6, 2), []string{"x"}, nil, aInt("axis", 2), aInt("inverse", 1)),
			want: map[string]wantTensor{"y": f32(2, 10, 6, 2)}},
		{name: "dft17 negative axis", model: dft17(real, []string{"x", "len"}, []part{i64("len", 4)}, aInt("axis", -2)),
			want: map[string]wantTensor{"y": f32(2, 10, 4, 2)}},
		{name: "dft17 axis on the complex dim", model: dft17(real, []string{"x"}, nil, aInt("axis", 3)),
			errSub: "the axis attribute is 3; for a signal of rank 4 it must name a dim other than the last, in [-4, 2]"},
		{name: "dft17 last dim neither real nor complex", model: dft17(vinfo("x", tFloat, 2, 10, 3), []string{"x"}, nil),
			errSub: "the signal [2 10 3] needs rank 2 or more and a last dim of 1 (real) or 2 (complex)"},
		{name: "dft17 dft_length zero", model: dft17(real, []string{"x", "len"}, []part{i64("len", 0)}),
			errSub: "input 1 (dft_length) is 0; it must be 1 or more"},
		{name: "dft17 dft_length of two values", model: dft17(real, []string{"x", "len"}, []part{initz(tproto("len", tInt64, ints64(2), 4, 4))}),
			errSub: "input 1 (dft_length) must hold one value, it holds 2"},
		{name: "dft17 dft_length at run time", model: dft17(real, []string{"x", "len"}, []part{input(scalar("len", tInt64))}),
			errSub: "input 1 (dft_length) is not a constant memplan can compute"},
		{name: "dft17 inverse onesided gives a real signal 2*(m-1) long", model: dft17(vinfo("x", tFloat, 2, 5, 2), []string{"x"}, nil, aInt("inverse", 1), aInt("onesided", 1)),
			want: map[string]wantTensor{"y": f32(2, 8, 1)}},
		{name: "dft17 inverse onesided with dft_length", model: dft17(vinfo("x", tFloat, 2, 5, 2), []string{"x", "len"}, []part{i64("len", 9)}, aInt("inverse", 1), aInt("onesided", 1)),
			want: map[string]wantTensor{"y": f32(2, 9, 1)}},
		{name: "dft17 inverse onesided of a real signal", model: dft17(real, []string{"x"}, nil, aInt("inverse", 1), aInt("onesided", 1)),
			errSub: "an inverse one-sided DFT takes a complex half spectrum (last dim 2), this one is [2 10 6 1]"},
		{name: "dft17 inverse onesided of one bin", model: dft17(vinfo("x", tFloat, 2, 1, 2), []string{"x"}, nil, aInt("inverse", 1), aInt("onesided", 1)),
			errSub: "an inverse one-sided DFT of 1 bins without dft_length would give 2×(1-1) values; give dft_length"},
		{name: "dft17 onesided of a complex signal", model: dft17(vinfo("x", tFloat, 2, 5, 2), []string{"x"}, nil, aInt("onesided", 1)),
			errSub: "a one-sided DFT takes a real signal (last dim 1), this one is [2 5 2]"},
		{name: "dft17 onesided 2", model: dft17(real, []string{"x"}, nil, aInt("onesided", 2)),
			errSub: "inverse 0 and onesided 2 must each be 0 or 1"},
		// DFT, opset 20: the axis is input 2, default -2.
		{name: "dft20 default axis is the one before last", model: dft20(real, []string{"x", "len"}, []part{i64("len", 8)}, aInt("onesided", 1)),
			want: map[string]wantTensor{"y": f32(2, 10, 5, 2)}},
		{name: "dft20 axis input", model: dft20(real, []string{"x", "", "ax"}, []part{i64("ax", 1)}, aInt("onesided", 1)),
			want: map[string]wantTensor{"y": f32(2, 6, 6, 2)}},
		{name: "dft20 axis input out of range", model: dft20(real, []string{"x", "", "ax"}, []part{i64("ax", -5)}),
			errSub: "input 2 (axis) is -5; for a signal of rank 4"},
		{name: "dft20 axis as an attribute", model: dft20(real, []string{"x"}, nil, aInt("axis", 1)),
			errSub: "from opset 20 DFT takes its axis as input 2, not as an attribute"},
		{name: "dft20 axis at run time", model: dft20(real, []string{"x", "", "ax"}, []part{input(scalar("ax", tInt64))}),
			errSub: "input 2 (axis) is not a constant memplan can compute"},
		{name: "dft of a double signal keeps its type", model: dft20(vinfo("x", tDouble, 3, 1), []string{"x"}, nil),
			want: map[string]wantTensor{"y": {[]int64{3, 2}, ir.F64}}},
		// STFT.
		{name: "stft window onesided", model: stft(sig, []string{"x", "step", "w"}, []part{i64("step", 8), input(vinfo("w", tFloat, 16))}),
			want: map[string]wantTensor{"y": f32(2, 15, 9, 2)}},
		{name: "stft frame_length two-sided complex", model: stft(vinfo("x", tFloat, 1, 100, 2), []string{"x", "step", "", "len"},
			[]part{i64("step", 30), i64("len", 20)}, aInt("onesided", 0)),
			want: map[string]wantTensor{"y": f32(1, 3, 20, 2)}},
		{name: "stft window and frame_length disagree", model: stft(sig, []string{"x", "step", "w", "len"},
			[]part{i64("step", 8), input(vinfo("w", tFloat, 16)), i64("len", 12)}),
			errSub: "input 3 (frame_length) is 12 but the window is 16 long"},
		{name: "stft neither window nor frame_length", model: stft(sig, []string{"x", "step"}, []part{i64("step", 8)}),
			errSub: "STFT needs a window (input 2) or a frame_length (input 3)"},
		{name: "stft frame longer than the signal", model: stft(sig, []string{"x", "step", "", "len"}, []part{i64("step", 8), i64("len", 129)}),
			errSub: "the frame length 129 must be in [1, 128]"},
		{name: "stft zero step", model: stft(sig, []string{"x", "step", "", "len"}, []part{i64("step", 0), i64("len", 16)}),
			errSub: "input 1 (frame_step) is 0; it must be 1 or more"},
		{name: "stft signal of rank 2", model: stft(vinfo("x", tFloat, 2, 128), []string{"x", "step", "", "len"}, []part{i64("step", 8), i64("len", 16)}),
			errSub: "the signal [2 128] must be [batch, length, 1 or 2]"},
		{name: "stft step at run time", model: stft(sig, []string{"x", "step", "", "len"}, []part{input(scalar("step", tInt64)), i64("len", 16)}),
			errSub: "input 1 (frame_step) is not a constant memplan can compute"},
		// Windows and the mel filter bank.
		{name: "hann window", model: window("HannWindow", i64("n", 10)), want: map[string]wantTensor{"y": f32(10)}},
		{name: "hamming window as double", model: window("HammingWindow", i64("n", 7), aInt("output_datatype", tDouble)),
			want: map[string]wantTensor{"y": {[]int64{7}, ir.F64}}},
		{name: "blackman window symmetric", model: window("BlackmanWindow", i64("n", 3), aInt("periodic", 0)), want: map[string]wantTensor{"y": f32(3)}},
		{name: "window of negative size", model: window("HannWindow", i64("n", -1)), errSub: "input 0 (size) is -1; a window cannot be negative"},
		{name: "window of strings", model: window("HannWindow", i64("n", 4), aInt("output_datatype", tString)),
			errSub: "output_datatype 8 (string) is not a numeric type"},
		{name: "window size at run time", model: window("HannWindow", input(scalar("n", tInt64))),
			errSub: "input 0 (size) is not a constant memplan can compute"},
		{name: "mel weight matrix", model: mel(i64("bins", 8), i64("dft", 16)), want: map[string]wantTensor{"y": f32(9, 8)}},
		{name: "mel weight matrix as float16", model: mel(i64("bins", 40), i64("dft", 511), aInt("output_datatype", tFloat16)),
			want: map[string]wantTensor{"y": {[]int64{256, 40}, ir.F16}}},
		{name: "mel weight matrix without bins", model: mel(i64("bins", 0), i64("dft", 16)),
			errSub: "num_mel_bins 0 and dft_length 16 must be 1 or more"},
		{name: "mel weight matrix too large", model: mel(i64("bins", 1<<40), i64("dft", 1<<40)),
			errSub: "a 549755813889×1099511627776 matrix"},
	}
	runRuleCases(t, cases)
}
