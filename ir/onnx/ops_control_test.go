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
