package onnx

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"memplan/ir"
)

// rawTensor is a TensorProto whose data is raw_data of n bytes.
func rawTensor(name string, elem int64, dims []int64, n int) pb {
	t := pb{}
	for _, d := range dims {
		t = t.i64(1, d)
	}
	t = t.i64(2, elem).str(8, name)
	t = protowire.AppendTag(t, 9, protowire.BytesType)
	return protowire.AppendBytes(t, make([]byte, n))
}

// typedTensor is a TensorProto with n zero entries in typed field f
// (4 float_data, 5 int32_data, 7 int64_data, 10 double_data, 11 uint64_data).
func typedTensor(name string, elem int64, dims []int64, f protowire.Number, n int) pb {
	t := pb{}
	for _, d := range dims {
		t = t.i64(1, d)
	}
	t = t.i64(2, elem).str(8, name)
	for i := 0; i < n; i++ {
		switch f {
		case 4:
			t = protowire.AppendTag(t, f, protowire.Fixed32Type)
			t = protowire.AppendFixed32(t, 0)
		case 10:
			t = protowire.AppendTag(t, f, protowire.Fixed64Type)
			t = protowire.AppendFixed64(t, 0)
		default:
			t = t.i64(f, 0)
		}
	}
	return t
}

// TestInitializerData: an initializer's data, or a Constant's value's,
// must be exactly what its dims and type say; a short or padded one is a located error naming the
// initializer, its dims and type, and both counts. 4-bit types are packed
// two to a byte in raw_data and two to an int32_data entry.
func TestInitializerData(t *testing.T) {
	// w is read by a Relu so that the accepted cases plan a whole graph.
	model := func(elem int64, dims []int64, w pb) []byte {
		return modelP(21, initz(w), op("Identity", []string{"w"}, []string{"y"}), output(vinfo("y", elem)))
	}
	ok := []struct {
		name string
		elem int64
		dims []int64
		w    pb
		want int64 // the initializer's planned bytes
	}{
		{"float raw", tFloat, ints64(4, 4), rawTensor("w", tFloat, ints64(4, 4), 64), 64},
		{"int4 raw odd count", tInt4, ints64(3, 3), rawTensor("w", tInt4, ints64(3, 3), 5), 5},
		{"uint4 raw", tUint4, ints64(6), rawTensor("w", tUint4, ints64(6), 3), 3},
		{"float4e2m1 raw", tFloat4E2M1, ints64(1), rawTensor("w", tFloat4E2M1, ints64(1), 1), 1},
		{"float8e4m3fn raw", tFloat8E4M3FN, ints64(5), rawTensor("w", tFloat8E4M3FN, ints64(5), 5), 5},
		{"float8e8m0 raw", tFloat8E8M0, ints64(2, 2), rawTensor("w", tFloat8E8M0, ints64(2, 2), 4), 4},
		{"uint16 raw", tUint16, ints64(3), rawTensor("w", tUint16, ints64(3), 6), 6},
		{"uint64 raw", tUint64, ints64(3), rawTensor("w", tUint64, ints64(3), 24), 24},
		{"empty raw", tFloat, ints64(0, 4), rawTensor("w", tFloat, ints64(0, 4), 0), 0},
		{"no data: stripped weights", tFloat, ints64(4, 4), tproto("w", tFloat, ints64(4, 4)), 64},
		{"float_data", tFloat, ints64(2, 2), typedTensor("w", tFloat, ints64(2, 2), 4, 4), 16},
		{"int4 int32_data two a entry", tInt4, ints64(5), typedTensor("w", tInt4, ints64(5), 5, 3), 3},
		{"float16 int32_data one an entry", tFloat16, ints64(5), typedTensor("w", tFloat16, ints64(5), 5, 5), 10},
		{"uint32 uint64_data", tUint32, ints64(3), typedTensor("w", tUint32, ints64(3), 11, 3), 12},
		{"double_data", tDouble, ints64(2), typedTensor("w", tDouble, ints64(2), 10, 2), 16},
		{"Constant value int4 raw", tInt4, ints64(3), rawTensor("", tInt4, ints64(3), 2), 2},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			data := model(tc.elem, tc.dims, tc.w)
			if strings.HasPrefix(tc.name, "Constant") { // w is a Constant's value
				data = modelP(21, op("Constant", nil, []string{"w"}, aTensor("value", tc.w)),
					op("Identity", []string{"w"}, []string{"y"}), output(vinfo("y", tc.elem)))
			}
			g, err := Decode("i.onnx", data, ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, _ := g.Tensor("w")
			dims, _ := g.Bind(w.Shape, nil)
			if b, err := ir.TensorBytes(dims, w.DType); err != nil || b != tc.want {
				t.Errorf("w is %v %s, %d bytes (%v); want %d", dims, w.DType, b, err, tc.want)
			}
		})
	}
	bad := func(w pb) []byte {
		return modelP(21, initz(tproto("a", tInt64, ints64(1), 1)), initz(w), op("Identity", []string{"w"}, []string{"y"}), output(vinfo("y", 0)))
	}
	runErrCases(t, []errCase{
		{"float raw short", bad(rawTensor("w", tFloat, ints64(4, 4), 8)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 8 bytes of raw_data, but dims [4 4] of float are 64 bytes`},
		{"float raw long", bad(rawTensor("w", tFloat, ints64(4, 4), 1000)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 1000 bytes of raw_data, but dims [4 4] of float are 64 bytes`},
		{"int4 raw unpacked", bad(rawTensor("w", tInt4, ints64(3, 3), 9)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 9 bytes of raw_data, but dims [3 3] of int4 are 5 bytes`},
		{"uint4 raw short", bad(rawTensor("w", tUint4, ints64(3, 3), 4)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 4 bytes of raw_data, but dims [3 3] of uint4 are 5 bytes`},
		{"float8 raw as if 2 bytes", bad(rawTensor("w", tFloat8E5M2, ints64(3), 6)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 6 bytes of raw_data, but dims [3] of float8e5m2 are 3 bytes`},
		{"uint32 raw as if 8 bytes", bad(rawTensor("w", tUint32, ints64(2), 16)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 16 bytes of raw_data, but dims [2] of uint32 are 8 bytes`},
		{"complex64 raw short", bad(rawTensor("w", tComplex64, ints64(2), 8)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 8 bytes of raw_data, but dims [2] of complex64 are 16 bytes`},
		{"scalar raw empty", bad(rawTensor("w", tFloat, nil, 0)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].raw_data: initializer "w" has 0 bytes of raw_data, but dims [] of float are 4 bytes`},
		{"float_data short", bad(typedTensor("w", tFloat, ints64(4, 4), 4, 3)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].float_data: initializer "w" has 3 values in float_data, but dims [4 4] of float are 16 values`},
		{"int4 int32_data one an entry", bad(typedTensor("w", tInt4, ints64(5), 5, 5)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].int32_data: initializer "w" has 5 values in int32_data, but dims [5] of int4 are 3 values`},
		{"int64_data long", bad(typedTensor("w", tInt64, ints64(2), 7, 3)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].int64_data: initializer "w" has 3 values in int64_data, but dims [2] of int64 are 2 values`},
		{"uint64_data short", bad(typedTensor("w", tUint64, ints64(2), 11, 1)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].uint64_data: initializer "w" has 1 values in uint64_data, but dims [2] of uint64 are 2 values`},
		{"complex128 double_data one a number", bad(typedTensor("w", tComplex128, ints64(2), 10, 2)), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1].double_data: initializer "w" has 2 values in double_data, but dims [2] of complex128 are 4 values`},
		{"Constant value raw short", modelP(21, op("Constant", nil, []string{"c"}, aTensor("value", rawTensor("", tFloat, ints64(4, 4), 8))), output(vinfo("c", 0))), ir.DecodeOptions{},
			`e.onnx: graph.node[0].attribute[0].t.raw_data: the value of Constant "c" has 8 bytes of raw_data, but dims [4 4] of float are 64 bytes`},
		{"Constant value int4 int32_data", modelP(21, op("Constant", nil, []string{"c"}, aTensor("value", typedTensor("", tInt4, ints64(4), 5, 4))), output(vinfo("c", 0))), ir.DecodeOptions{},
			`e.onnx: graph.node[0].attribute[0].t.int32_data: the value of Constant "c" has 4 values in int32_data, but dims [4] of int4 are 2 values`},
	})
}

// TestPackedSliceView: an axis-0 Slice of int4 rows is a view when the
// rows before it fill whole bytes, and a copy when they end inside one.
func TestPackedSliceView(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start int64
		view  bool
	}{
		{"from an even element", 2, true},
		{"from inside a byte", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := modelP(21, input(vinfo("x", tInt4, 4, 3)),
				initz(tproto("st", tInt64, ints64(1), tc.start)), initz(tproto("en", tInt64, ints64(1), 4)),
				op("Slice", []string{"x", "st", "en"}, []string{"y"}), output(vinfo("y", 0)))
			g, err := Decode("s.onnx", data, ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, n := range g.Nodes {
				if n.Name == "y" {
					found = true
					if (n.Alias == ir.AliasNarrow) != tc.view {
						t.Errorf("y alias %v, want a view: %v", n.Alias, tc.view)
					}
				}
			}
			if !found {
				t.Fatal("no node y")
			}
		})
	}
}
