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
