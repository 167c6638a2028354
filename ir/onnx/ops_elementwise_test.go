package onnx

import (
	"testing"

	"memplan/ir"
)

func TestElementwiseShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"broadcast compare", 13, []part{
			input(vinfo("a", tFloat, 3, 1)), input(vinfo("b", tFloat, 4)),
			op("Less", []string{"a", "b"}, []string{"y"})}, ints64(3, 4), ir.Bool},
		{"cast", 13, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat16))}, ints64(3), ir.F16},
		{"cast to uint16", 13, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tUint16))}, ints64(3), ir.U16},
		{"cast to uint32", 13, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tUint32))}, ints64(3), ir.U32},
		{"cast to uint64", 13, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tUint64))}, ints64(3), ir.U64},
		{"cast to int4", 21, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tInt4))}, ints64(3), ir.I4},
		{"cast to uint4", 21, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tUint4))}, ints64(3), ir.U4},
		{"cast to float4e2m1", 23, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat4E2M1))}, ints64(3), ir.F4E2M1},
		{"cast to float8e4m3fn", 19, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat8E4M3FN))}, ints64(3), ir.F8E4M3FN},
		{"cast to float8e4m3fnuz", 19, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat8E4M3FNUZ))}, ints64(3), ir.F8E4M3FNUZ},
		{"cast to float8e5m2", 19, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat8E5M2))}, ints64(3), ir.F8E5M2},
		{"cast to float8e5m2fnuz", 19, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat8E5M2FNUZ))}, ints64(3), ir.F8E5M2FNUZ},
		{"cast to float8e8m0", 24, []part{
			input(vinfo("x", tFloat, 3)), op("Cast", []string{"x"}, []string{"y"}, aInt("to", tFloat8E8M0))}, ints64(3), ir.F8E8M0},
		{"where broadcast", 13, []part{
			input(vinfo("c", tBool, 4, 1)), input(vinfo("a", tFloat16, 1, 5)), input(scalar("b", tFloat16)),
			op("Where", []string{"c", "a", "b"}, []string{"y"})}, ints64(4, 5), ir.F16},
	})
}
