package onnx

import (
	"testing"

	"memplan/ir"
)

func TestConvShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"conv pads strides", 13, []part{
			input(vinfo("x", tFloat, 1, 3, 10, 9)), initz(tproto("w", tFloat, ints64(8, 3, 3, 3))),
			op("Conv", []string{"x", "w"}, []string{"y"}, aInts("pads", 1, 0, 1, 0), aInts("strides", 2, 2))}, ints64(1, 8, 5, 4), ir.F32},
		{"maxpool ceil", 13, []part{
			input(vinfo("x", tFloat, 1, 2, 10, 10)),
			op("MaxPool", []string{"x"}, []string{"y"}, aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aInt("ceil_mode", 1))}, ints64(1, 2, 5, 5), ir.F32},
		{"convtranspose", 13, []part{
			input(vinfo("x", tFloat, 1, 4, 5, 5)), initz(tproto("w", tFloat, ints64(4, 2, 2, 2))),
			op("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInts("strides", 2, 2), aInt("group", 2))}, ints64(1, 4, 10, 10), ir.F32},
		{"avgpool same upper", 13, []part{
			input(vinfo("x", tFloat, 1, 2, 7, 8)),
			op("AveragePool", []string{"x"}, []string{"y"}, aInts("kernel_shape", 3, 3), aInts("strides", 2, 3),
				func(b pb) pb { return b.msg(5, pb{}.str(1, "auto_pad").i64(20, 3).str(4, "SAME_UPPER")) })}, ints64(1, 2, 4, 3), ir.F32},
	})
}

func TestConvRules(t *testing.T) {
	// QLinearConv over x [1 4 8 8] uint8 with weights w, output zero point
	// of type zt.
	qconv := func(w, b pb, zt int64, attrs ...attrFn) []byte {
		ins := []string{"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}
		parts := []part{input(vinfo("x", tUint8, 1, 4, 8, 8)), input(scalar("xs", tFloat)), input(scalar("xz", tUint8)),
			input(w), input(scalar("ws", tFloat)), input(scalar("wz", tInt8)), input(scalar("ys", tFloat)), input(scalar("yz", zt))}
		if b != nil {
			ins = append(ins, "b")
			parts = append(parts, input(b))
		}
		return modelP(10, append(parts, op("QLinearConv", ins, []string{"y"}, attrs...))...)
	}
	unpool := func(x, i pb, ins []string, extra []part, attrs ...attrFn) []byte {
		parts := append([]part{input(x), input(i)}, extra...)
		return modelP(11, append(parts, op("MaxUnpool", ins, []string{"y"}, attrs...))...)
	}
	xi := func(dims ...any) (pb, pb) { return vinfo("x", tFloat, dims...), vinfo("i", tInt64, dims...) }
	x4, i4 := xi(1, 3, 2, 2)
	k2 := aInts("kernel_shape", 2, 2)
	s2 := aInts("strides", 2, 2)
	cases := []ruleCase{
		{name: "qlinearconv pads strides", model: qconv(vinfo("w", tInt8, 6, 4, 3, 3), nil, tUint8, aInts("pads", 1, 1, 1, 1), s2),
			want: map[string]wantTensor{"y": {[]int64{1, 6, 4, 4}, ir.U8}}},
		{name: "qlinearconv int8 output grouped with bias", model: qconv(vinfo("w", tInt8, 6, 2, 3, 3), vinfo("b", tInt32, 6), tInt8, aInt("group", 2)),
			want: map[string]wantTensor{"y": {[]int64{1, 6, 6, 6}, ir.I8}}},
		{name: "qlinearconv channels disagree", model: qconv(vinfo("w", tInt8, 6, 3, 3, 3), nil, tUint8),
			errSub: "the weights [6 3 3 3] take 3 input channels × group 1, but the data [1 4 8 8] has 4 channels"},
		{name: "qlinearconv bias of the wrong length", model: qconv(vinfo("w", tInt8, 6, 4, 3, 3), vinfo("b", tInt32, 5), tUint8),
			errSub: "input 8 (B) has shape [5], want [6]"},
		{name: "qlinearconv without y_zero_point", model: modelP(10,
			input(vinfo("x", tUint8, 1, 4, 8, 8)), input(scalar("xs", tFloat)), input(scalar("xz", tUint8)), input(vinfo("w", tInt8, 6, 4, 3, 3)),
			op("QLinearConv", []string{"x", "xs", "xz", "w"}, []string{"y"})),
			errSub: "QLinearConv needs 8 or 9 inputs"},
		{name: "convinteger", model: modelP(10, input(vinfo("x", tUint8, 1, 4, 8, 8)), input(vinfo("w", tUint8, 2, 4, 2, 2)),
			op("ConvInteger", []string{"x", "w"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{1, 2, 7, 7}, ir.I32}}},
		{name: "maxunpool default output", model: unpool(x4, i4, []string{"x", "i"}, nil, k2, s2),
			want: map[string]wantTensor{"y": {[]int64{1, 3, 4, 4}, ir.F32}}},
		{name: "maxunpool pads", model: unpool(x4, i4, []string{"x", "i"}, nil, aInts("kernel_shape", 3, 3), s2, aInts("pads", 1, 0, 0, 1)),
			want: map[string]wantTensor{"y": {[]int64{1, 3, 4, 4}, ir.F32}}},
		{name: "maxunpool output_shape", model: unpool(x4, i4, []string{"x", "i", "os"}, []part{initz(tproto("os", tInt64, ints64(4), 1, 3, 5, 5))}, k2, s2),
			want: map[string]wantTensor{"y": {[]int64{1, 3, 5, 5}, ir.F32}}},
		{name: "maxunpool output_shape of the wrong rank", model: unpool(x4, i4, []string{"x", "i", "os"}, []part{initz(tproto("os", tInt64, ints64(2), 5, 5))}, k2, s2),
			errSub: "input 2 (output_shape) is [5 5]; it needs 4 dims"},
		{name: "maxunpool output_shape computed at run time", model: unpool(x4, i4, []string{"x", "i", "os"}, []part{input(vinfo("os", tInt64, 4))}, k2, s2),
			errSub: "input 2 (output_shape) is not a constant memplan can compute"},
		{name: "maxunpool without kernel_shape", model: unpool(x4, i4, []string{"x", "i"}, nil, s2),
			errSub: "kernel_shape [] needs 2 values"},
		{name: "maxunpool indices of another shape", model: unpool(x4, vinfo("i", tInt64, 1, 3, 2, 3), []string{"x", "i"}, nil, k2),
			errSub: "the indices' shape [1 3 2 3] differs from the data's [1 3 2 2]"},
		{name: "maxunpool pads eat the output", model: unpool(x4, i4, []string{"x", "i"}, nil, k2, aInts("pads", 2, 2, 1, 1)),
			errSub: "spatial axis 0: pads 2 and 1 leave no output"},
		{name: "maxunpool stride overflows", model: unpool(x4, i4, []string{"x", "i"}, nil, k2, aInts("strides", 1<<62, 1)),
			errSub: "spatial axis 0: (2-1)×stride"},
		{name: "maxunpool without indices", model: modelP(11, input(x4), op("MaxUnpool", []string{"x"}, []string{"y"}, k2)),
			errSub: "input 1 (I, the indices MaxPool gave) is missing"},
	}
	runRuleCases(t, cases)
}
