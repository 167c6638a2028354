package onnx

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"memplan/ir"
)

// TestFolding checks the contents computed for small constant tensors.
func TestFolding(t *testing.T) {
	a := initz(tproto("a", tInt64, ints64(4), 7, -7, 3, 0))
	b := initz(tproto("b", tInt64, ints64(4), 2, 2, -2, 5))
	m := initz(tproto("m", tInt64, ints64(2, 3), 1, 2, 3, 4, 5, 6))
	one := initz(tproto("one", tInt64, ints64(1), 1))
	for _, tc := range []struct {
		name  string
		opset int64
		parts []part
		want  []int64
	}{
		{"add", 13, []part{a, b, op("Add", []string{"a", "b"}, []string{"y"})}, ints64(9, -5, 1, 5)},
		{"sub", 13, []part{a, b, op("Sub", []string{"a", "b"}, []string{"y"})}, ints64(5, -9, 5, -5)},
		{"mul broadcast", 13, []part{a, one, op("Mul", []string{"a", "one"}, []string{"y"})}, ints64(7, -7, 3, 0)},
		{"div truncates", 13, []part{a, b, op("Div", []string{"a", "b"}, []string{"y"})}, ints64(3, -3, -1, 0)},
		{"mod sign of divisor", 13, []part{a, b, op("Mod", []string{"a", "b"}, []string{"y"})}, ints64(1, 1, -1, 0)},
		{"fmod sign of dividend", 13, []part{a, b, op("Mod", []string{"a", "b"}, []string{"y"}, aInt("fmod", 1))}, ints64(1, -1, 1, 0)},
		{"min", 13, []part{a, b, op("Min", []string{"a", "b"}, []string{"y"})}, ints64(2, -7, -2, 0)},
		{"max", 13, []part{a, b, op("Max", []string{"a", "b"}, []string{"y"})}, ints64(7, 2, 3, 5)},
		{"equal", 13, []part{a, op("Equal", []string{"a", "a"}, []string{"y"})}, ints64(1, 1, 1, 1)},
		{"less", 13, []part{a, b, op("Less", []string{"a", "b"}, []string{"y"})}, ints64(0, 1, 0, 1)},
		{"greater", 13, []part{a, b, op("Greater", []string{"a", "b"}, []string{"y"})}, ints64(1, 0, 1, 0)},
		{"where", 13, []part{a, b, op("Less", []string{"a", "b"}, []string{"c"}), op("Where", []string{"c", "a", "b"}, []string{"y"})}, ints64(2, -7, -2, 0)},
		{"not and or", 13, []part{a, b, op("Less", []string{"a", "b"}, []string{"c"}), op("Not", []string{"c"}, []string{"n"}),
			op("Or", []string{"c", "n"}, []string{"o"}), op("And", []string{"o", "c"}, []string{"y"})}, ints64(0, 1, 0, 1)},
		{"neg abs", 13, []part{a, op("Neg", []string{"a"}, []string{"n"}), op("Abs", []string{"n"}, []string{"y"})}, ints64(7, 7, 3, 0)},
		{"cast to int32 wraps", 13, []part{initz(tproto("big", tInt64, ints64(2), math.MaxInt64, 5)),
			op("Cast", []string{"big"}, []string{"y"}, aInt("to", tInt32))}, ints64(-1, 5)},
		{"cast via float", 13, []part{a, op("Cast", []string{"a"}, []string{"f"}, aInt("to", tFloat)),
			op("Cast", []string{"f"}, []string{"y"}, aInt("to", tInt64))}, ints64(7, -7, 3, 0)},
		{"reduceprod keepdims 0", 13, []part{m, op("ReduceProd", []string{"m"}, []string{"y"}, aInt("keepdims", 0))}, ints64(720)},
		{"reducesum axis 1", 13, []part{m, one, op("ReduceSum", []string{"m", "one"}, []string{"y"})}, ints64(6, 15)},
		{"gather axis 1", 13, []part{m, initz(tproto("i", tInt64, ints64(2), -1, 0)),
			op("Gather", []string{"m", "i"}, []string{"y"}, aInt("axis", 1))}, ints64(3, 1, 6, 4)},
		{"slice 2-D step", 13, []part{m, initz(tproto("s", tInt64, ints64(1), -1)), initz(tproto("e", tInt64, ints64(1), math.MinInt64)),
			initz(tproto("ax", tInt64, ints64(1), 1)), initz(tproto("st", tInt64, ints64(1), -2)),
			op("Slice", []string{"m", "s", "e", "ax", "st"}, []string{"y"})}, ints64(3, 1, 6, 4)},
		{"concat axis 1", 13, []part{m, op("Concat", []string{"m", "m"}, []string{"y"}, aInt("axis", 1))}, ints64(1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6)},
		{"transpose", 13, []part{m, op("Transpose", []string{"m"}, []string{"y"})}, ints64(1, 4, 2, 5, 3, 6)},
		{"expand", 13, []part{one, initz(tproto("s", tInt64, ints64(1), 3)), op("Expand", []string{"one", "s"}, []string{"y"})}, ints64(1, 1, 1)},
		{"range negative step", 13, []part{initz(tproto("s", tInt64, nil, 5)), initz(tproto("l", tInt64, nil, 0)), initz(tproto("d", tInt64, nil, -2)),
			op("Range", []string{"s", "l", "d"}, []string{"y"})}, ints64(5, 3, 1)},
		{"shape size", 13, []part{m, op("Size", []string{"m"}, []string{"n"}), op("Shape", []string{"m"}, []string{"s"}),
			op("Unsqueeze", []string{"n", "zero"}, []string{"u"}), initz(tproto("zero", tInt64, ints64(1), 0)), op("Concat", []string{"s", "u"}, []string{"y"}, aInt("axis", 0))}, ints64(2, 3, 6)},
		{"split values", 13, []part{a, op("Split", []string{"a"}, []string{"x", "y"})}, ints64(3, 0)},
		{"constant value_ints", 13, []part{op("Constant", nil, []string{"y"}, aInts("value_ints", 4, 5))}, ints64(4, 5)},
		{"constant of shape int fill", 13, []part{initz(tproto("s", tInt64, ints64(1), 2)),
			op("ConstantOfShape", []string{"s"}, []string{"y"}, aTensor("value", tproto("", tInt64, ints64(1), 9)))}, ints64(9, 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseModel(modelP(tc.opset, tc.parts...))
			if err != nil {
				t.Fatal(err)
			}
			d := &decoder{file: "f.onnx", m: m, g: m.graph, opset: tc.opset}
			if err := d.analyze(); err != nil {
				t.Fatal(err)
			}
			y := d.infos["y"]
			if y == nil || y.val == nil || y.val.isF {
				t.Fatalf("y not folded to integers: %+v", y)
			}
			if !slices.Equal(y.val.i, tc.want) {
				t.Errorf("y = %v, want %v", y.val.i, tc.want)
			}
		})
	}
}

func TestTensorValue(t *testing.T) {
	le := func(size int, vals ...uint64) []byte {
		b := make([]byte, size*len(vals))
		for i, v := range vals {
			switch size {
			case 1:
				b[i] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
			case 8:
				binary.LittleEndian.PutUint64(b[8*i:], v)
			}
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		t     tensor
		ints  []int64
		flts  []float64
		isNil bool
	}{
		{"raw f16", tensor{dtype: tFloat16, dims: ints64(3), raw: le(2, 0x3c00, 0xc000, 0x0001), hasRaw: true}, nil, []float64{1, -2, math.Ldexp(1, -24)}, false},
		{"raw bf16", tensor{dtype: tBFloat16, dims: ints64(1), raw: le(2, 0x3fc0), hasRaw: true}, nil, []float64{1.5}, false},
		{"raw f64", tensor{dtype: tDouble, dims: ints64(1), raw: le(8, math.Float64bits(2.25)), hasRaw: true}, nil, []float64{2.25}, false},
		{"raw i32", tensor{dtype: tInt32, dims: ints64(2), raw: le(4, 0xffffffff, 3), hasRaw: true}, ints64(-1, 3), nil, false},
		{"raw i8 u8 bool", tensor{dtype: tInt8, dims: ints64(2), raw: le(1, 0xff, 1), hasRaw: true}, ints64(-1, 1), nil, false},
		{"raw u16", tensor{dtype: tUint16, dims: ints64(1), raw: le(2, 0xffff), hasRaw: true}, ints64(65535), nil, false},
		{"raw u32", tensor{dtype: tUint32, dims: ints64(1), raw: le(4, 0xffffffff), hasRaw: true}, ints64(4294967295), nil, false},
		{"raw wrong length", tensor{dtype: tInt64, dims: ints64(2), raw: le(8, 1), hasRaw: true}, nil, nil, true},
		{"int32_data f16 bits", tensor{dtype: tFloat16, dims: ints64(1), int32s: ints64(0x3c00)}, nil, []float64{1}, false},
		{"double_data", tensor{dtype: tDouble, dims: ints64(1), doubles: []float64{0.5}}, nil, []float64{0.5}, false},
		{"uint64_data", tensor{dtype: tUint64, dims: ints64(1), uint64s: []uint64{7}}, ints64(7), nil, false},
		{"missing data", tensor{dtype: tInt64, dims: ints64(2)}, nil, nil, true},
		{"external", tensor{dtype: tInt64, dims: ints64(1), int64s: ints64(1), external: true}, nil, nil, true},
		{"too big", tensor{dtype: tInt64, dims: ints64(maxVal + 1)}, nil, nil, true},
		{"string", tensor{dtype: tString, dims: ints64(1)}, nil, nil, true},
	} {
		v := tensorValue(&tc.t)
		switch {
		case tc.isNil:
			if v != nil {
				t.Errorf("%s: got %+v, want nil", tc.name, v)
			}
		case v == nil:
			t.Errorf("%s: got nil", tc.name)
		case !slices.Equal(v.i, tc.ints) || !slices.Equal(v.f, tc.flts):
			t.Errorf("%s: got %v %v, want %v %v", tc.name, v.i, v.f, tc.ints, tc.flts)
		}
	}
}

func TestConstantAttributes(t *testing.T) {
	for _, tc := range []struct {
		attr  attrFn
		shape []int64
		dtype ir.DType
	}{
		{func(b pb) pb { return b.msg(5, pb{}.str(1, "value_float").i64(20, 1)) }, ints64(), ir.F32},
		{func(b pb) pb { return b.msg(5, pb{}.str(1, "value_int").i64(20, 2).i64(3, 4)) }, ints64(), ir.I64},
		{aInts("value_ints", 1, 2, 3), ints64(3), ir.I64},
		{aTensor("value", tproto("", tInt32, ints64(2, 0))), ints64(2, 0), ir.I32},
	} {
		g, err := Decode("c.onnx", modelP(13, op("Constant", nil, []string{"y"}, tc.attr)), ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tt, _ := g.Tensor("y")
		if got := shapeOf(t, g, "y"); !slices.Equal(got, tc.shape) || tt.DType != tc.dtype {
			t.Errorf("got %v %s, want %v %s", got, tt.DType, tc.shape, tc.dtype)
		}
	}
}
