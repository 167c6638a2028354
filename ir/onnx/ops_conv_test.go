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

func TestVisionRules(t *testing.T) {
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	i64s := func(name string, vals ...int64) part {
		return initz(tproto(name, tInt64, []int64{int64(len(vals))}, vals...))
	}
	col2im := func(x []any, img, blk []int64, attrs ...attrFn) []byte {
		return modelP(18, input(vinfo("x", tFloat, x...)), i64s("img", img...), i64s("blk", blk...),
			op("Col2Im", []string{"x", "img", "blk"}, []string{"y"}, attrs...))
	}
	affine := func(theta []any, size ...int64) []byte {
		return modelP(20, input(vinfo("theta", tFloat, theta...)), i64s("size", size...),
			op("AffineGrid", []string{"theta", "size"}, []string{"grid"}))
	}
	crop := func(shape part, attrs ...attrFn) []byte {
		return modelP(18, input(vinfo("x", tFloat, 3, 10, 8)), shape, op("CenterCropPad", []string{"x", "s"}, []string{"y"}, attrs...))
	}
	deform := func(w, off []any, attrs ...attrFn) []byte {
		return modelP(19, input(vinfo("x", tFloat, 1, 4, 9, 9)), input(vinfo("w", tFloat, w...)), input(vinfo("off", tFloat, off...)),
			op("DeformConv", []string{"x", "w", "off"}, []string{"y"}, attrs...))
	}
	cases := []ruleCase{
		{name: "col2im", model: col2im([]any{2, 12, 12}, []int64{6, 7}, []int64{2, 2}, aInts("strides", 2, 2), aInts("pads", 1, 0, 1, 1), aInts("dilations", 2, 1)),
			want: map[string]wantTensor{"y": f32(2, 3, 6, 7)}},
		{name: "col2im with the wrong number of blocks", model: col2im([]any{1, 5, 25}, []int64{5, 5}, []int64{1, 5}),
			errSub: "input dim 2 is 25, but 5 blocks fit image_shape [5 5]"},
		{name: "col2im channels not a multiple of the block", model: col2im([]any{1, 7, 5}, []int64{5, 5}, []int64{1, 5}),
			errSub: "input dim 1 is 7, not a multiple of the block's 5 elements"},
		{name: "col2im block larger than the image", model: col2im([]any{1, 6, 5}, []int64{2, 2}, []int64{3, 2}),
			errSub: "spatial axis 0: the block's extent 3 exceeds the padded image 2"},
		{name: "col2im with a huge block", model: col2im([]any{1, 5, 5}, []int64{5, 5}, []int64{1 << 40, 1 << 40}, aInts("dilations", 1<<40, 1<<40)),
			errSub: "spatial axis 0: image 5 must be in [1, 2^40], pads 0 and 0 in [0, 2^40], block 1099511627776, stride 1 and dilation 1099511627776 in [1, 2^20]"},
		{name: "col2im with a computed image shape", model: modelP(18, input(vinfo("x", tFloat, 1, 5, 5)), input(vinfo("img", tInt64, 2)), i64s("blk", 1, 5),
			op("Col2Im", []string{"x", "img", "blk"}, []string{"y"})),
			errSub: "input 1 (image_shape) is not a constant memplan can compute"},
		{name: "col2im without block_shape", model: modelP(18, input(vinfo("x", tFloat, 1, 5, 5)), i64s("img", 5, 5),
			op("Col2Im", []string{"x", "img"}, []string{"y"})),
			errSub: "Col2Im needs 3 inputs (input, image_shape, block_shape), this node has 2"},
		{name: "affine grid 2-D", model: affine([]any{2, 2, 3}, 2, 3, 5, 7),
			want: map[string]wantTensor{"grid": f32(2, 5, 7, 2)}},
		{name: "affine grid 3-D", model: affine([]any{1, 3, 4}, 1, 1, 4, 5, 6),
			want: map[string]wantTensor{"grid": f32(1, 4, 5, 6, 3)}},
		{name: "affine grid theta of the wrong rank", model: affine([]any{2, 2, 3}, 2, 3, 4, 5, 6),
			errSub: "theta has shape [2 2 3]; size [2 3 4 5 6] needs [2 3 4]"},
		{name: "affine grid size of 3 values", model: affine([]any{2, 2, 3}, 2, 3, 5),
			errSub: "input 1 (size) is [2 3 5]; it needs 4 values (N, C, H, W) or 5 (N, C, D, H, W)"},
		{name: "affine grid with a computed size", model: modelP(20, input(vinfo("theta", tFloat, 2, 2, 3)), input(vinfo("size", tInt64, 4)),
			op("AffineGrid", []string{"theta", "size"}, []string{"grid"})),
			errSub: "input 1 (size) is not a constant memplan can compute"},
		{name: "center crop pad", model: crop(i64s("s", 3, 6, 12)),
			want: map[string]wantTensor{"y": f32(3, 6, 12)}},
		{name: "center crop pad on axes", model: crop(i64s("s", 4, 5), aInts("axes", -1, 0)),
			want: map[string]wantTensor{"y": f32(5, 10, 4)}},
		{name: "center crop pad shape of the wrong length", model: crop(i64s("s", 4, 5)),
			errSub: "input 1 (shape) has 2 values for 3 axes"},
		{name: "center crop pad axis listed twice", model: crop(i64s("s", 4, 5), aInts("axes", 2, -1)),
			errSub: "axis -1 is listed twice"},
		{name: "center crop pad with a computed shape", model: crop(input(vinfo("s", tInt64, 3))),
			errSub: "input 1 (shape) is not a constant memplan can compute"},
		{name: "center crop pad without a shape", model: modelP(18, input(vinfo("x", tFloat, 3, 10, 8)), op("CenterCropPad", []string{"x"}, []string{"y"})),
			errSub: "CenterCropPad needs 2 inputs (input_data, shape), this node has 1"},
		{name: "deformable convolution", model: deform([]any{6, 2, 3, 3}, []any{1, 36, 5, 5}, aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1), aInt("group", 2)),
			want: map[string]wantTensor{"y": f32(1, 6, 5, 5)}},
		{name: "deformable convolution weights of another rank", model: deform([]any{6, 2, 3}, []any{1, 36, 5, 5}),
			errSub: "the weights' rank 3 differs from the data's rank 4"},
		{name: "deformable convolution of no groups", model: deform([]any{6, 2, 3, 3}, []any{1, 36, 5, 5}, aInt("group", 0)),
			errSub: "DeformConv: group is 0"},
		{name: "fused conv", model: modelMS(13, input(vinfo("x", tFloat, 1, 4, 9, 9)), input(vinfo("w", tFloat, 8, 4, 3, 3)),
			msOp("FusedConv", []string{"x", "w"}, []string{"y"}, aStr("activation", "Relu"), aInts("pads", 1, 1, 1, 1))),
			want: map[string]wantTensor{"y": f32(1, 8, 9, 9)}},
		{name: "fused conv without weights", model: modelMS(13, input(vinfo("x", tFloat, 1, 4, 9, 9)),
			msOp("FusedConv", []string{"x"}, []string{"y"})),
			errSub: "graph.node[0]: cannot determine the shape of \"y\" (com.microsoft.FusedConv): input [1 4 9 9]: input 1 (W, the weights) is missing"},
	}
	runRuleCases(t, cases)
}
