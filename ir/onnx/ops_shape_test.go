package onnx

import (
	"testing"

	"memplan/ir"
)

func TestShapeShapes(t *testing.T) {
	runShapeCases(t, []shapeCase{
		{"split opset 13 input", 13, []part{
			input(vinfo("x", tFloat, 2, 10)), initz(tproto("s", tInt64, ints64(2), 3, 7)),
			op("Split", []string{"x", "s"}, []string{"a", "y"}, aInt("axis", 1))}, ints64(2, 7), ir.F32},
		{"split opset 11 attr", 11, []part{
			input(vinfo("x", tFloat, 2, 10)),
			op("Split", []string{"x"}, []string{"a", "y"}, aInt("axis", -1), aInts("split", 4, 6))}, ints64(2, 6), ir.F32},
		{"split opset 18 uneven", 18, []part{
			input(vinfo("x", tFloat, 10)),
			op("Split", []string{"x"}, []string{"a", "b", "y"}, aInt("num_outputs", 3))}, ints64(2), ir.F32},
		{"shape start end", 15, []part{
			input(vinfo("x", tFloat, 2, 3, 4)),
			op("Shape", []string{"x"}, []string{"y"}, aInt("start", -2))}, ints64(2), ir.I64},
		{"gather", 13, []part{
			input(vinfo("x", tFloat, 5, 6)), input(vinfo("i", tInt64, 2, 3)),
			op("Gather", []string{"x", "i"}, []string{"y"}, aInt("axis", 1))}, ints64(5, 2, 3), ir.F32},
		{"pad", 13, []part{
			input(vinfo("x", tFloat, 1, 5)), initz(tproto("p", tInt64, ints64(4), 0, 2, 0, 3)),
			op("Pad", []string{"x", "p"}, []string{"y"})}, ints64(1, 10), ir.F32},
		{"resize sizes", 13, []part{
			input(vinfo("x", tFloat, 1, 2, 4, 4)), initz(tproto("sz", tInt64, ints64(4), 1, 2, 8, 12)),
			op("Resize", []string{"x", "", "", "sz"}, []string{"y"})}, ints64(1, 2, 8, 12), ir.F32},
		{"range folds", 13, []part{
			initz(tproto("s", tInt64, nil, 2)), initz(tproto("l", tInt64, nil, 11)), initz(tproto("d", tInt64, nil, 3)),
			op("Range", []string{"s", "l", "d"}, []string{"y"})}, ints64(3), ir.I64},
		{"shape arithmetic folds into reshape", 13, []part{
			input(vinfo("x", tFloat, 2, 3, 4)),
			op("Shape", []string{"x"}, []string{"sh"}),
			initz(tproto("i", tInt64, ints64(1), 0)),
			op("Gather", []string{"sh", "i"}, []string{"n"}),
			initz(tproto("m1", tInt64, ints64(1), -1)),
			op("Concat", []string{"n", "m1"}, []string{"s"}, aInt("axis", 0)),
			op("Reshape", []string{"x", "s"}, []string{"y"})}, ints64(2, 12), ir.F32},
		{"expand", 13, []part{
			input(vinfo("x", tFloat, 3, 1)), initz(tproto("s", tInt64, ints64(3), 2, 1, 4)),
			op("Expand", []string{"x", "s"}, []string{"y"})}, ints64(2, 3, 4), ir.F32},
		{"constant of shape zero size", 13, []part{
			initz(tproto("s", tInt64, ints64(2), 0, 4)),
			op("ConstantOfShape", []string{"s"}, []string{"y"})}, ints64(0, 4), ir.F32},
		{"gathernd", 13, []part{
			input(vinfo("x", tFloat, 2, 3, 4)), input(vinfo("i", tInt64, 5, 2)),
			op("GatherND", []string{"x", "i"}, []string{"y"})}, ints64(5, 4), ir.F32},
		{"onehot", 13, []part{
			input(vinfo("x", tInt64, 2, 3)), initz(tproto("dep", tInt64, nil, 10)), input(vinfo("v", tFloat, 2)),
			op("OneHot", []string{"x", "dep", "v"}, []string{"y"}, aInt("axis", 1))}, ints64(2, 10, 3), ir.F32},
		{"resize scales opset 13", 13, []part{
			input(vinfo("x", tFloat, 1, 2, 5, 4)), initz(tproto("roi", tFloat, ints64(0))),
			initz(ftproto("sc", 1, 1, 2, 1.5)),
			op("Resize", []string{"x", "roi", "sc"}, []string{"y"})}, ints64(1, 2, 10, 6), ir.F32},
		{"resize scales in float32", 13, []part{
			input(vinfo("x", tFloat, 1, 1, 10, 10)), initz(ftproto("sc", 1, 1, 0.7, 0.35)),
			op("Resize", []string{"x", "", "sc"}, []string{"y"})}, ints64(1, 1, 7, 3), ir.F32},
		{"resize not_larger", 18, []part{
			input(vinfo("x", tFloat, 1, 1, 10, 20)), initz(tproto("sz", tInt64, ints64(2), 5, 5)),
			op("Resize", []string{"x", "", "", "sz"}, []string{"y"}, aInts("axes", 2, 3),
				func(b pb) pb {
					return b.msg(5, pb{}.str(1, "keep_aspect_ratio_policy").i64(20, 3).str(4, "not_larger"))
				})},
			ints64(1, 1, 3, 5), ir.F32},
		{"tile", 13, []part{
			input(vinfo("x", tFloat, 2, 3)), initz(tproto("r", tInt64, ints64(2), 3, 1)),
			op("Tile", []string{"x", "r"}, []string{"y"})}, ints64(6, 3), ir.F32},
		{"squeeze all ones", 13, []part{
			input(vinfo("x", tFloat, 1, 3, 1, 2)), op("Squeeze", []string{"x"}, []string{"y"})}, ints64(3, 2), ir.F32},
	})
}
