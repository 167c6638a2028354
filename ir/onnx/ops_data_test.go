package onnx

import (
	"testing"

	"memplan/ir"
)

func TestDataRules(t *testing.T) {
	// cond is a constant bool condition, its values in int32_data.
	cond := func(vals ...int64) part {
		t := pb{}.i64(1, int64(len(vals))).i64(2, tBool)
		for _, v := range vals {
			t = t.i64(5, v)
		}
		return initz(t.str(8, "c"))
	}
	compress := func(c part, attrs ...attrFn) []byte {
		return modelP(11, input(vinfo("x", tFloat, 3, 4)), c, op("Compress", []string{"x", "c"}, []string{"y"}, attrs...))
	}
	nms := func(boxes, scores pb, attrs ...attrFn) []byte {
		return modelP(11, input(boxes), input(scores), op("NonMaxSuppression", []string{"b", "s"}, []string{"y"}, attrs...))
	}
	cases := []ruleCase{
		{name: "compress along an axis", model: compress(cond(1, 0, 1), aInt("axis", 0)),
			want: map[string]wantTensor{"y": {[]int64{2, 4}, ir.F32}}},
		{name: "compress a short condition along a negative axis", model: compress(cond(0, 1), aInt("axis", -1)),
			want: map[string]wantTensor{"y": {[]int64{3, 1}, ir.F32}}},
		{name: "compress flattened", model: compress(cond(1, 1, 0, 1, 1, 0, 1)),
			want: map[string]wantTensor{"y": {[]int64{5}, ir.F32}}},
		{name: "compress condition at run time", model: compress(input(vinfo("c", tBool, 3)), aInt("axis", 0)),
			errSub: "its output's length is the number of true conditions, which depends on the values of input 1, known only at run time"},
		{name: "compress condition too long", model: compress(cond(1, 0, 1, 1), aInt("axis", 0)),
			errSub: "the condition has 4 values, more than the 3 it selects among"},
		{name: "compress axis out of range", model: compress(cond(1), aInt("axis", 2)),
			errSub: "axis 2 is out of range for rank 2"},
		{name: "compress condition of rank 2", model: compress(input(vinfo("c", tBool, 1, 3))),
			errSub: "input 1 (the condition) has shape [1 3]; it must be 1-D"},
		{name: "nonzero of a constant", model: modelP(13, initz(tproto("x", tInt64, ints64(2, 3), 0, 5, 0, 1, 1, 0)),
			op("NonZero", []string{"x"}, []string{"y"})),
			want: map[string]wantTensor{"y": {[]int64{2, 3}, ir.I64}}},
		{name: "nonzero at run time", model: modelP(13, input(vinfo("x", tFloat, 2, 3)), op("NonZero", []string{"x"}, []string{"y"})),
			errSub: "the number of non-zero elements, which depends on the values of input 0"},
		{name: "unique", model: modelP(11, input(vinfo("x", tFloat, 6)), op("Unique", []string{"x"}, []string{"y", "i", "inv", "n"})),
			errSub: "the number of distinct values, which depends on the values of input 0"},
		{name: "unique axis out of range", model: modelP(11, input(vinfo("x", tFloat, 6)),
			op("Unique", []string{"x"}, []string{"y"}, aInt("axis", 1))),
			errSub: "axis 1 is out of range for rank 1"},
		{name: "nonmaxsuppression", model: nms(vinfo("b", tFloat, 1, 6, 4), vinfo("s", tFloat, 1, 2, 6)),
			errSub: "the number of boxes kept, which depends on the values of input 1"},
		{name: "nonmaxsuppression scores for other boxes", model: nms(vinfo("b", tFloat, 1, 6, 4), vinfo("s", tFloat, 1, 2, 5)),
			errSub: "the boxes [1 6 4] must be [batch, boxes, 4] and the scores [1 2 5] [batch, classes, boxes]"},
		{name: "nonmaxsuppression center_point_box 2", model: nms(vinfo("b", tFloat, 1, 6, 4), vinfo("s", tFloat, 1, 2, 6), aInt("center_point_box", 2)),
			errSub: "center_point_box is 2; it must be 0 or 1"},
	}
	runRuleCases(t, cases)
}
