package onnx

import (
	"testing"

	"memplan/ir"
)

func TestMatmulShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"matmul broadcast", 13, []part{
			input(vinfo("a", tFloat, 2, 1, 3, 4)), input(vinfo("b", tFloat, 5, 4, 6)),
			op("MatMul", []string{"a", "b"}, []string{"y"})}, ints64(2, 5, 3, 6), ir.F32},
		{"matmul vector", 13, []part{
			input(vinfo("a", tFloat, 4)), input(vinfo("b", tFloat, 2, 4, 6)),
			op("MatMul", []string{"a", "b"}, []string{"y"})}, ints64(2, 6), ir.F32},
		{"gemm trans", 13, []part{
			input(vinfo("a", tFloat, 4, 3)), input(vinfo("b", tFloat, 5, 4)),
			op("Gemm", []string{"a", "b"}, []string{"y"}, aInt("transA", 1), aInt("transB", 1))}, ints64(3, 5), ir.F32},
		{"einsum", 13, []part{
			input(vinfo("a", tFloat, 2, 3)), input(vinfo("b", tFloat, 3, 5)),
			op("Einsum", []string{"a", "b"}, []string{"y"}, func(b pb) pb {
				return b.msg(5, pb{}.str(1, "equation").i64(20, 3).str(4, "ij,jk->ki"))
			})}, ints64(5, 2), ir.F32},
	})
}
