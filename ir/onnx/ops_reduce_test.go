package onnx

import (
	"testing"

	"memplan/ir"
)

func TestReduceShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"reduce keepdims 0 opset 18 input", 18, []part{
			input(vinfo("x", tFloat, 2, 3, 4)), initz(tproto("ax", tInt64, ints64(1), -1)),
			op("ReduceMean", []string{"x", "ax"}, []string{"y"}, aInt("keepdims", 0))}, ints64(2, 3), ir.F32},
		{"reduce attr", 13, []part{
			input(vinfo("x", tFloat, 2, 3, 4)),
			op("ReduceMax", []string{"x"}, []string{"y"}, aInts("axes", 0, 2))}, ints64(1, 3, 1), ir.F32},
		{"topk", 13, []part{
			input(vinfo("x", tFloat, 2, 9)), initz(tproto("k", tInt64, ints64(1), 4)),
			op("TopK", []string{"x", "k"}, []string{"v", "y"})}, ints64(2, 4), ir.I64},
	})
}
