package onnx

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

func ints64(vs ...int64) []int64 { return vs }

func shapeOf(t *testing.T, g *ir.Graph, name string) []int64 {
	t.Helper()
	tt, _ := g.Tensor(name)
	if tt == nil {
		t.Fatalf("no tensor %q", name)
	}
	dims, err := g.Bind(tt.Shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dims
}

func TestViews(t *testing.T) {
	x := input(vinfo("x", tFloat, 4, 6))
	for _, tc := range []struct {
		name        string
		opset       int64
		parts       []part
		alias       ir.Alias
		start, len_ int64
		shape       []int64
	}{
		{"reshape", 13, []part{
			initz(tproto("s", tInt64, ints64(2), 3, 8)),
			op("Reshape", []string{"x", "s"}, []string{"y"})}, ir.AliasWhole, 0, 0, ints64(3, 8)},
		{"reshape -1 and 0", 13, []part{
			initz(tproto("s", tInt64, ints64(3), 0, -1, 2)),
			op("Reshape", []string{"x", "s"}, []string{"y"})}, ir.AliasWhole, 0, 0, ints64(4, 3, 2)},
		{"flatten", 13, []part{op("Flatten", []string{"x"}, []string{"y"}, aInt("axis", 0))}, ir.AliasWhole, 0, 0, ints64(1, 24)},
		{"unsqueeze attr", 11, []part{op("Unsqueeze", []string{"x"}, []string{"y"}, aInts("axes", 0, -1))}, ir.AliasWhole, 0, 0, ints64(1, 4, 6, 1)},
		{"unsqueeze input", 13, []part{
			initz(tproto("a", tInt64, ints64(1), 1)),
			op("Unsqueeze", []string{"x", "a"}, []string{"y"})}, ir.AliasWhole, 0, 0, ints64(4, 1, 6)},
		{"identity", 13, []part{op("Identity", []string{"x"}, []string{"y"})}, ir.AliasWhole, 0, 0, ints64(4, 6)},
		{"slice axis 0", 13, []part{
			initz(tproto("b", tInt64, ints64(1), 1)), initz(tproto("e", tInt64, ints64(1), -1)),
			op("Slice", []string{"x", "b", "e"}, []string{"y"})}, ir.AliasNarrow, 1, 2, ints64(2, 6)},
		{"slice axis 0 end clamped", 13, []part{
			initz(tproto("b", tInt64, ints64(1), -3)), initz(tproto("e", tInt64, ints64(1), math.MaxInt64)),
			initz(tproto("a", tInt64, ints64(1), -2)),
			op("Slice", []string{"x", "b", "e", "a"}, []string{"y"})}, ir.AliasNarrow, 1, 3, ints64(3, 6)},
		{"slice whole axis 1 too", 13, []part{
			initz(tproto("b", tInt64, ints64(2), 2, 0)), initz(tproto("e", tInt64, ints64(2), 3, 100)),
			op("Slice", []string{"x", "b", "e"}, []string{"y"})}, ir.AliasNarrow, 2, 1, ints64(1, 6)},
		{"slice empty", 13, []part{
			initz(tproto("b", tInt64, ints64(1), 3)), initz(tproto("e", tInt64, ints64(1), 1)),
			op("Slice", []string{"x", "b", "e"}, []string{"y"})}, ir.AliasNarrow, 3, 0, ints64(0, 6)},
		{"slice attrs opset 9", 9, []part{
			op("Slice", []string{"x"}, []string{"y"}, aInts("starts", 1), aInts("ends", 3))}, ir.AliasNarrow, 1, 2, ints64(2, 6)},
		{"slice axis 1 is a copy", 13, []part{
			initz(tproto("b", tInt64, ints64(1), 1)), initz(tproto("e", tInt64, ints64(1), 3)),
			initz(tproto("a", tInt64, ints64(1), 1)),
			op("Slice", []string{"x", "b", "e", "a"}, []string{"y"})}, ir.NoAlias, 0, 0, ints64(4, 2)},
		{"slice step 2 is a copy", 13, []part{
			initz(tproto("b", tInt64, ints64(1), 0)), initz(tproto("e", tInt64, ints64(1), 4)),
			initz(tproto("a", tInt64, ints64(1), 0)), initz(tproto("st", tInt64, ints64(1), 2)),
			op("Slice", []string{"x", "b", "e", "a", "st"}, []string{"y"})}, ir.NoAlias, 0, 0, ints64(2, 6)},
		{"slice reversed is a copy", 13, []part{
			initz(tproto("b", tInt64, ints64(1), -1)), initz(tproto("e", tInt64, ints64(1), math.MinInt64)),
			initz(tproto("a", tInt64, ints64(1), 0)), initz(tproto("st", tInt64, ints64(1), -1)),
			op("Slice", []string{"x", "b", "e", "a", "st"}, []string{"y"})}, ir.NoAlias, 0, 0, ints64(4, 6)},
		{"transpose is a copy", 13, []part{op("Transpose", []string{"x"}, []string{"y"})}, ir.NoAlias, 0, 0, ints64(6, 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := append([]part{x}, tc.parts...)
			parts = append(parts, output(vinfo("y", tFloat)))
			g, err := Decode("t.onnx", modelP(tc.opset, parts...), ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, n := g.Tensor("y")
			if n.Alias != tc.alias || n.Inputs[0] != "x" {
				t.Errorf("alias %d inputs %v, want %d with x first", n.Alias, n.Inputs, tc.alias)
			}
			if tc.alias == ir.AliasNarrow && (n.Axis != 0 || n.Start != tc.start || n.Len != tc.len_) {
				t.Errorf("narrow axis %d start %d len %d, want 0 %d %d", n.Axis, n.Start, n.Len, tc.start, tc.len_)
			}
			if got := shapeOf(t, g, "y"); !slices.Equal(got, tc.shape) {
				t.Errorf("shape %v, want %v", got, tc.shape)
			}
		})
	}
}

// shapeCase is one row of the op families' tables of single-output
// rules: the model's parts and the shape and dtype of its tensor "y".
type shapeCase struct {
	name  string
	opset int64
	parts []part
	shape []int64
	dtype ir.DType
}

func runShapeCases(t *testing.T, cases []shapeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parts := append(tc.parts, output(vinfo("y", 0)))
			g, err := Decode("t.onnx", modelP(tc.opset, parts...), ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tt, _ := g.Tensor("y")
			if got := shapeOf(t, g, "y"); !slices.Equal(got, tc.shape) || tt.DType != tc.dtype {
				t.Errorf("got %v %s, want %v %s", got, tt.DType, tc.shape, tc.dtype)
			}
		})
	}
}

func TestMapping(t *testing.T) {
	data := modelP(13,
		input(vinfo("x", tFloat, "N", 4)),
		input(vinfo("w", tFloat, 4, 4)), // also an initializer: a param
		initz(tproto("w", tFloat, ints64(4, 4))),
		initz(tproto("shp", tInt64, ints64(2), 4, 4)),
		op("ConstantOfShape", []string{"shp"}, []string{"c"}),
		op("Constant", nil, []string{"k"}, aTensor("value", tproto("", tInt64, ints64(1), 7))),
		op("MatMul", []string{"x", "w"}, []string{"h"}),
		op("Dropout", []string{"h"}, []string{"d", ""}),
		op("Shape", []string{"x"}, []string{"s"}),
		op("ConstantOfShape", []string{"s"}, []string{"z"}),
		op("Add", []string{"d", "c"}, []string{"y"}),
		output(vinfo("y", tFloat, "N", 4)),
	)
	g, err := Decode("m.onnx", data, ir.DecodeOptions{Symbols: map[string]int64{"N": 5, "unused": 1}})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]string{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			ops[o.Name] = n.Op
		}
	}
	want := map[string]string{"x": "input", "w": "param", "shp": "param", "c": "constant", "k": "constant",
		"h": "MatMul", "d": "Dropout", "s": "Shape", "z": "ConstantOfShape", "y": "Add"}
	for name, op := range want {
		if ops[name] != op {
			t.Errorf("%s: op %q, want %q", name, ops[name], op)
		}
	}
	if len(ops) != len(want) {
		t.Errorf("tensors %v, want %v", ops, want)
	}
	if got := shapeOf(t, g, "y"); !slices.Equal(got, ints64(5, 4)) {
		t.Errorf("y shape %v", got)
	}
	if g.Symbols["N"] != 5 || len(g.Symbols) != 1 {
		t.Errorf("symbols %v, want N=5 only", g.Symbols)
	}
	_, n := g.Tensor("c")
	if len(n.Inputs) != 0 || n.Path != "graph.node[0]" {
		t.Errorf("constant inputs %v path %q", n.Inputs, n.Path)
	}
	_, n = g.Tensor("shp")
	if n.Path != "graph.initializer[1]" {
		t.Errorf("initializer path %q", n.Path)
	}
	if !slices.Equal(g.Outputs, []string{"y"}) {
		t.Errorf("outputs %v", g.Outputs)
	}
}

func TestDecodeErrorMessages(t *testing.T) {
	x := input(vinfo("x", tFloat, 2, 3))
	for _, tc := range []struct {
		name  string
		data  []byte
		syms  map[string]int64
		wants []string
	}{
		{"unbound symbol", modelP(13, input(vinfo("x", tFloat, "batch", 3)),
			op("Relu", []string{"x"}, []string{"y"}), output(vinfo("y", tFloat))),
			nil, []string{`"x" (graph input)`, `"y" (Relu)`, "symbol batch has no value"}},
		{"unknown dim", modelP(13, input(vinfo("x", tFloat, nil, 3)),
			op("Relu", []string{"x"}, []string{"y"})), nil, []string{`graph.input[0]: cannot determine the shape of "x" (graph input): dim 0 has neither a value nor a symbol; 1 tensor depends on it: "y" (Relu)`}},
		{"missing input", modelP(13, x, op("Add", []string{"x", "ghost"}, []string{"y"}),
			op("Add", []string{"y", "ghost2"}, []string{"z"})), nil, []string{"graph.node[0]", `"ghost", "ghost2"`}},
		{"duplicate output", modelP(13, x, op("Relu", []string{"x"}, []string{"y"}),
			op("Relu", []string{"x"}, []string{"y"}), op("Relu", []string{"x"}, []string{"x"})), nil,
			[]string{"graph.node[1]", "2 tensors are produced more than once", `"y"`, `"x"`}},
		{"cycle", modelP(13, x, op("Add", []string{"x", "b"}, []string{"a"}),
			op("Relu", []string{"a"}, []string{"b"})), nil, []string{"cycle", "graph.node[0]", "graph.node[1]"}},
		{"string tensor", modelP(13, input(vinfo("x", tString, 2)), op("Identity", []string{"x"}, []string{"y"})),
			nil, []string{`"x"`, "string"}},
		{"data-dependent shape", modelP(13, x, op("NonZero", []string{"x"}, []string{"y"})),
			nil, []string{`"y" (NonZero)`}},
		{"bad reshape", modelP(13, x, initz(tproto("s", tInt64, ints64(1), 7)),
			op("Reshape", []string{"x", "s"}, []string{"y"})), nil, []string{`"y" (Reshape)`}},
		{"no graph", pb{}.i64(1, 7), nil, []string{"byte 2", "ends without a graph"}},
		{"conv with no groups", modelP(13, input(vinfo("x", tFloat, 1, 3, 10, 9)), initz(tproto("w", tFloat, ints64(8, 3, 3, 3))),
			op("Conv", []string{"x", "w"}, []string{"y"}, aInt("group", 0))), nil, []string{"graph.node[0]", "Conv: group is 0: want a positive number of groups"}},
		{"conv with no groups, its output shape given", modelP(13, input(vinfo("x", tFloat, 1, 3, 10, 9)), initz(tproto("w", tFloat, ints64(8, 3, 3, 3))),
			op("Conv", []string{"x", "w"}, []string{"y"}, aInt("group", 0)), output(vinfo("y", tFloat, 1, 8, 8, 7))), nil, []string{"graph.node[0]", "Conv: group is 0"}},
		{"convtranspose with negative groups", modelP(13, input(vinfo("x", tFloat, 1, 4, 5, 5)), initz(tproto("w", tFloat, ints64(4, 2, 2, 2))),
			op("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInt("group", -2))), nil, []string{"graph.node[0]", "ConvTranspose: group is -2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("e.onnx", tc.data, ir.DecodeOptions{Symbols: tc.syms})
			var e *ir.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *ir.Error", err)
			}
			if e.File != "e.onnx" {
				t.Errorf("file %q", e.File)
			}
			if strings.Contains(err.Error(), "unbound symbol") && (e.Need != ir.NeedSymbols || len(e.Symbols) == 0) {
				t.Errorf("unbound symbols without Need %q and their names: %#v", ir.NeedSymbols, e)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestValueInfoDisagreementIsNoted(t *testing.T) {
	data := modelP(13, input(vinfo("x", tFloat, 2, 3)),
		op("Relu", []string{"x"}, []string{"r"}),
		op("Relu", []string{"r"}, []string{"y"}),
		vi(vinfo("r", tFloat, 2, 4)), // wrong: inference says [2,3]
		output(vinfo("y", tFloat, 2, 4)))
	m, err := parseModel(data)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: "v.onnx", m: m, g: m.graph, opset: 13}
	if err := d.analyze(); err != nil {
		t.Fatal(err)
	}
	if d.viMism != 1 || !slices.Equal(d.infos["r"].shape, ints64(2, 4)) {
		t.Errorf("mismatches %d (%v), r = %v; want 1 and value_info's [2 4]", d.viMism, d.viDiff, d.infos["r"].shape)
	}
	g, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(g.Notes, "\n"), `value_info disagrees with shape inference on 1 tensors (value_info kept): "r"`) {
		t.Errorf("notes %q", g.Notes)
	}
}

func TestSubgraphs(t *testing.T) {
	then := graphP(op("Add", []string{"x", "outer"}, []string{"t"}), output(vinfo("t", tFloat)))
	els := graphP(op("Sub", []string{"x", "outer"}, []string{"e"}), output(vinfo("e", tFloat)))
	data := modelP(13,
		input(vinfo("x", tFloat, 3)), input(scalar("c", tBool)),
		op("Neg", []string{"x"}, []string{"outer"}),
		op("If", []string{"c"}, []string{"y"}, aGraph("then_branch", then), aGraph("else_branch", els)),
		output(vinfo("y", tFloat)))
	g, err := Decode("s.onnx", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, n := g.Tensor("y")
	if !slices.Equal(n.Inputs, []string{"c", "outer", "x"}) {
		t.Errorf("If inputs %v, want the condition then outer-scope reads", n.Inputs)
	}
	if got := shapeOf(t, g, "y"); !slices.Equal(got, ints64(3)) {
		t.Errorf("If output shape %v", got)
	}
	if !strings.Contains(strings.Join(g.Notes, "\n"), "not planned") {
		t.Errorf("notes %q", g.Notes)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"a.ONNX", nil, true},
		{"model.bin", modelP(13), true},
		{"graph.json", []byte(`{"format":"memplan.graph/v1"}`), false},
		{"x.bin", []byte{0x08}, false},
		{"x.bin", []byte{0x08, 0x07, 0x99}, false},
	} {
		if got := match(tc.name, tc.data); got != tc.want {
			t.Errorf("match(%q, % x) = %v", tc.name, tc.data, got)
		}
	}
	src, err := ir.Decode("model.bin", modelP(13, input(vinfo("x", tFloat, 2))), ir.DecodeOptions{})
	if err != nil || src.Graph == nil || len(src.Graph.Nodes) != 1 {
		t.Fatalf("ir.Decode through the registry: %v", err)
	}
}

func TestEvalDim(t *testing.T) {
	d := &decoder{opts: ir.DecodeOptions{Symbols: map[string]int64{"batch": 3, "seq": 7, "a.b": 2}}, symUsed: map[string]int64{}}
	for _, tc := range []struct {
		expr string
		want int64
		ok   bool
	}{
		{"batch", 3, true}, {"a.b", 2, true}, {"7*batch", 21, true}, {"batch*seq", 21, true},
		{"seq - 1", 6, true}, {"seq+1", 8, true}, {"(seq+1)*2", 16, true}, {"seq/2", 3, true},
		{"unknown", 0, false}, {"batch*", 0, false}, {"1-batch", 0, false}, {"seq/0", 0, false},
		{"((((", 0, false}, {"", 0, false},
	} {
		got, ok := d.evalDim(tc.expr)
		if got != tc.want || ok != tc.ok {
			t.Errorf("evalDim(%q) = %d, %v; want %d, %v", tc.expr, got, ok, tc.want, tc.ok)
		}
	}
}

func TestClampSlice(t *testing.T) {
	for _, tc := range []struct {
		start, end, step, dim int64
		b, e, n               int64
	}{
		{1, -1, 1, 4, 1, 3, 2},
		{-10, 100, 1, 4, 0, 4, 4},
		{0, math.MaxInt64, 1, 4, 0, 4, 4},
		{math.MinInt64, 2, 1, 4, 0, 2, 2},
		{-1, math.MinInt64, -1, 4, 3, -1, 4},
		{10, -10, -2, 5, 4, -1, 3},
		{3, 1, 1, 4, 3, 1, 0},
		{0, 0, 1, 0, 0, 0, 0},
	} {
		b, e := clampSlice(tc.start, tc.end, tc.step, tc.dim)
		n := sliceCount(b, e, tc.step)
		if b != tc.b || e != tc.e || n != tc.n {
			t.Errorf("clampSlice(%d, %d, %d, %d) = %d, %d (%d); want %d, %d (%d)",
				tc.start, tc.end, tc.step, tc.dim, b, e, n, tc.b, tc.e, tc.n)
		}
	}
}

func TestLoopCarriedShape(t *testing.T) {
	body := func(outDims ...any) pb {
		return graphP(input(scalar("i", tInt64)), input(scalar("cin", tBool)), input(vinfo("v", tFloat, 3)),
			op("Identity", []string{"cin"}, []string{"cout"}), op("Relu", []string{"v"}, []string{"vo"}),
			output(scalar("cout", tBool)), output(vinfo("vo", tFloat, outDims...)))
	}
	for _, tc := range []struct {
		name string
		body pb
		ok   bool
	}{
		{"declared same shape", body(3), true},
		{"no declared shape", body(), false},
		{"declared other shape", body(4), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := modelP(13, input(vinfo("x", tFloat, 3)), input(scalar("c", tBool)),
				op("Loop", []string{"", "c", "x"}, []string{"y"}, aGraph("body", tc.body)))
			g, err := Decode("l.onnx", data, ir.DecodeOptions{})
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if tc.ok && !slices.Equal(shapeOf(t, g, "y"), ints64(3)) {
				t.Errorf("y shape %v", shapeOf(t, g, "y"))
			}
		})
	}
}

func TestSparseTensors(t *testing.T) {
	sparse := func(name string, dims ...int64) pb {
		s := pb{}.msg(1, tproto(name, tFloat, ints64(2))).msg(2, tproto("", tInt64, ints64(2), 0, 5))
		for _, d := range dims {
			s = s.i64(3, d)
		}
		return s
	}
	data := modelP(13, input(vinfo("x", tFloat, 3, 4)),
		part{15, sparse("w", 3, 4)},
		op("Constant", nil, []string{"k"}, func(b pb) pb {
			return b.msg(5, pb{}.str(1, "sparse_value").i64(20, 11).msg(22, sparse("", 3, 4)))
		}),
		op("Add", []string{"x", "w"}, []string{"a"}),
		op("Add", []string{"a", "k"}, []string{"y"}))
	g, err := Decode("sp.onnx", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w", "k", "y"} {
		if got := shapeOf(t, g, name); !slices.Equal(got, ints64(3, 4)) {
			t.Errorf("%s: shape %v, want [3 4]", name, got)
		}
	}
	if _, n := g.Tensor("w"); n.Op != ir.OpParam {
		t.Errorf("sparse initializer op %q", n.Op)
	}
}

func TestEinsumShape(t *testing.T) {
	for _, tc := range []struct {
		eq     string
		shapes [][]int64
		want   []int64
		ok     bool
	}{
		{"ij,jk->ik", [][]int64{{2, 3}, {3, 4}}, ints64(2, 4), true},
		{"ij,jk", [][]int64{{2, 3}, {3, 4}}, ints64(2, 4), true},
		{"bhqd,bhkd->bhqk", [][]int64{{1, 2, 5, 8}, {1, 2, 7, 8}}, ints64(1, 2, 5, 7), true},
		{"...ij,...jk->...ik", [][]int64{{6, 2, 3}, {1, 3, 4}}, ints64(6, 2, 4), true},
		{"ii->i", [][]int64{{3, 3}}, ints64(3), true},
		{"ij->", [][]int64{{3, 3}}, ints64(), true},
		{"ba", [][]int64{{2, 5}}, ints64(5, 2), true},
		{"ij,jk->ik", [][]int64{{2, 3}, {4, 4}}, nil, false},
		{"ij->ik", [][]int64{{2, 3}}, nil, false},
		{"ijk", [][]int64{{2, 3}}, nil, false},
		{"i,j", [][]int64{{2}}, nil, false},
	} {
		got, ok := einsumShape(tc.eq, tc.shapes)
		if ok != tc.ok || (ok && !slices.Equal(got, tc.want)) {
			t.Errorf("einsumShape(%q) = %v, %v; want %v, %v", tc.eq, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMicrosoftOps(t *testing.T) {
	data := pb{}.i64(1, 8)
	g := graphP(input(vinfo("x", tFloat16, 2, 5, 12)), input(vinfo("w", tFloat16, 12, 36)),
		input(vinfo("a", tFloat, 4, 3)), input(vinfo("b", tFloat, 5, 4)),
		part{1, nodeP("Attention", []string{"x", "w"}, []string{"att"}).str(7, "com.microsoft")},
		part{1, nodeP("SkipLayerNormalization", []string{"att", "x"}, []string{"sln", "", "", "sum"}).str(7, "com.microsoft")},
		part{1, nodeP("FusedMatMul", []string{"a", "b"}, []string{"fmm"}, aInt("transA", 1), aInt("transB", 1)).str(7, "com.microsoft")},
	)
	data = data.msg(7, g).msg(8, pb{}.str(1, "").i64(2, 13)).msg(8, pb{}.str(1, "com.microsoft").i64(2, 1))
	gr, err := Decode("ms.onnx", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]int64{"att": {2, 5, 12}, "sln": {2, 5, 12}, "sum": {2, 5, 12}, "fmm": {3, 5}} {
		if got := shapeOf(t, gr, name); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	if _, n := gr.Tensor("att"); n.Op != "com.microsoft.Attention" {
		t.Errorf("op %q", n.Op)
	}
}

// A subgraph may read an outer tensor that a later node produces in file
// order: the sort must put that producer first, and say so.
func TestSubgraphReadSortsProducerFirst(t *testing.T) {
	then := graphP(op("Identity", []string{"late"}, []string{"t"}), output(vinfo("t", tFloat)))
	data := modelP(13, input(vinfo("x", tFloat, 3)), input(scalar("c", tBool)),
		op("If", []string{"c"}, []string{"y"}, aGraph("then_branch", then), aGraph("else_branch", then)),
		op("Neg", []string{"x"}, []string{"late"}))
	g, err := Decode("s.onnx", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeNames(g); !slices.Equal(got, []string{"x", "c", "late", "y"}) {
		t.Errorf("order %v", got)
	}
	if !strings.Contains(strings.Join(g.Notes, "\n"), "not in topological order (1 inputs") {
		t.Errorf("notes %q", g.Notes)
	}
}

// Initializers whose data lives in files beside the model are planned by
// their dims, and the plan says so.
func TestExternalDataIsNoted(t *testing.T) {
	data := modelP(13, input(vinfo("x", tFloat, 3, 4)),
		initz(tproto("w", tFloat, ints64(3, 4)).i64(14, 1)),
		op("Add", []string{"x", "w"}, []string{"y"}))
	g, err := Decode("ext.onnx", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := shapeOf(t, g, "w"); !slices.Equal(got, ints64(3, 4)) {
		t.Errorf("w: shape %v, want [3 4]", got)
	}
	want := `1 initializers keep their data in files beside the model, which memplan does not read: their sizes come from their dims ("w")`
	if !slices.Contains(g.Notes, want) {
		t.Errorf("notes %q lack %q", g.Notes, want)
	}
}

// TestRuleTable checks the table every op's rule is found through: no op
// is listed twice for a domain, and ai.onnx is the default domain.
func TestRuleTable(t *testing.T) {
	for _, fam := range ruleFamilies {
		for _, rs := range fam.rules {
			if len(rs.ops) == 0 || rs.rule == nil {
				t.Errorf("%s: a rule set for %v has no ops or no rule", fam.file, rs.domains)
			}
		}
	}
	// indexRules panics on an op listed twice for a domain; the package
	// ran it at start-up, so here it must reject a table with one.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("indexRules took an op listed twice")
			}
		}()
		twice := []ruleSet{{ops: []string{"Relu"}, rule: ruleUnary}, {ops: []string{"Relu"}, rule: ruleUnary}}
		indexRules([]family{{"twice", "x.go", twice}})
	}()
	for _, tc := range []struct {
		domain, op string
		want       bool
	}{
		{"", "Relu", true},
		{"ai.onnx", "Relu", true},
		{"com.microsoft", "Relu", false},
		{"com.microsoft", "FusedMatMul", true},
		{"", "FusedMatMul", false},
		{"", "ImageDecoder", false},
	} {
		if _, ok := ruleFor(&node{domain: tc.domain, op: tc.op}); ok != tc.want {
			t.Errorf("ruleFor(%q, %q) found = %v, want %v", tc.domain, tc.op, ok, tc.want)
		}
	}
}
