package onnx

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"memplan/ir"
)

// The decoder never guesses, and its errors keep their place: each case
// is a file that must fail with exactly this located message.

type errCase struct {
	name string
	data []byte
	opts ir.DecodeOptions
	want string // the whole error text
}

func runErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode("e.onnx", tc.data, tc.opts)
			if err == nil {
				t.Fatalf("decoded %d nodes, want error %q", len(g.Nodes), tc.want)
			}
			var e *ir.Error
			if !errors.As(err, &e) || e.File != "e.onnx" {
				t.Fatalf("got %T %v, want *ir.Error in e.onnx", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
			// A top-level If that needs a branch says so as data, for the
			// CLI and the page to word their own way.
			if strings.HasSuffix(tc.want, "; pick one of them") && e.Need != ir.NeedIfBranch {
				t.Errorf("Need is %q, want %q", e.Need, ir.NeedIfBranch)
			}
		})
	}
}

func TestLongNamesAreCut(t *testing.T) {
	long := strings.Repeat("n", 1<<20)
	// A multi-byte rune straddling the cut is not split.
	longUTF := strings.Repeat("a", 79) + "é" + strings.Repeat("b", 100)
	x := input(vinfo("x", tFloat, 2, 3))
	runErrCases(t, []errCase{
		{"initializer twice", modelP(13, initz(tproto(long, tFloat, ints64(1))), initz(tproto(long, tFloat, ints64(1)))), ir.DecodeOptions{},
			`e.onnx: graph.initializer[1]: initializer "` + long[:80] + `"… (1048576 bytes) appears twice`},
		{"produced twice", modelP(13, x, op("Relu", []string{"x"}, []string{long}), op("Relu", []string{"x"}, []string{long})), ir.DecodeOptions{},
			`e.onnx: graph.node[1]: 1 tensors are produced more than once (an ONNX graph must be in SSA form): "` + long[:80] + `"… (1048576 bytes)`},
		{"node name in Node, rune kept whole", modelP(13, x,
			func() part {
				p := op("Relu", []string{"x", "ghost"}, []string{"y"})
				p.body = p.body.str(3, longUTF)
				return p
			}()), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "` + strings.Repeat("a", 79) + `"… (181 bytes): node inputs are not produced by any node, graph input or initializer: "ghost"`},
	})
}

// badName is a name with a byte that is not UTF-8.
const badName = "w\xffz"

func TestInvalidUTF8Names(t *testing.T) {
	x := input(vinfo("x", tFloat, 2, 3))
	named := func(p part, name string) part { p.body = p.body.str(3, name); return p }
	branch := graphP(op("Relu", []string{"x"}, []string{badName}), output(vinfo(badName, tFloat)))
	runErrCases(t, []errCase{
		{"node output", modelP(13, x, named(op("Relu", []string{"x"}, []string{badName}), "r")), ir.DecodeOptions{},
			`e.onnx: graph.node[0].output[0]: node "r": output name "w\xffz" is not valid UTF-8`},
		{"node input", modelP(13, x, op("Relu", []string{"x"}, []string{"y"}), named(op("Relu", []string{badName}, []string{"z"}), "r2")), ir.DecodeOptions{},
			`e.onnx: graph.node[1].input[0]: node "r2": input name "w\xffz" is not valid UTF-8`},
		{"node name", modelP(13, x, named(op("Relu", []string{"x"}, []string{"y"}), badName)), ir.DecodeOptions{},
			`e.onnx: graph.node[0].name: node name "w\xffz" is not valid UTF-8`},
		{"op type", modelP(13, x, op(badName, []string{"x"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0].op_type: op type "w\xffz" is not valid UTF-8`},
		{"graph input", modelP(13, input(vinfo(badName, tFloat, 2))), ir.DecodeOptions{},
			`e.onnx: graph.input[0].name: tensor name "w\xffz" is not valid UTF-8`},
		{"initializer", modelP(13, initz(tproto(badName, tFloat, ints64(2)))), ir.DecodeOptions{},
			`e.onnx: graph.initializer[0].name: initializer name "w\xffz" is not valid UTF-8`},
		{"symbol", modelP(13, input(vinfo("x", tFloat, badName))), ir.DecodeOptions{},
			`e.onnx: graph.input[0].shape.dim[0].dim_param: symbol "w\xffz" is not valid UTF-8`},
		{"subgraph tensor", modelP(13, x, input(scalar("c", tBool)),
			op("If", []string{"c"}, []string{"y"}, aGraph("then_branch", branch), aGraph("else_branch", branch))), ir.DecodeOptions{},
			`e.onnx: graph.node[0].attribute[0].g.output[0].name: tensor name "w\xffz" is not valid UTF-8`},
	})
}

func TestSizesStayBelow2To62(t *testing.T) {
	const e62, e61 = 4611686018427387904, 2305843009213693952
	runErrCases(t, []errCase{
		{"two u8 inputs of 2^62", modelP(13, input(vinfo("a", tUint8, e62)), input(vinfo("b", tUint8, e62)),
			op("Add", []string{"a", "b"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.input[0]: tensor "a" has shape [4611686018427387904] (uint8): exceeds memplan's limit of 2^62 bytes (4 EiB)`},
		{"f32 input whose bytes overflow", modelP(13, input(vinfo("a", tFloat, e62))), ir.DecodeOptions{},
			`e.onnx: graph.input[0]: tensor "a" has shape [4611686018427387904] (float): exceeds memplan's limit of 2^62 bytes (4 EiB)`},
		{"bound symbol too large", modelP(13, input(vinfo("a", tInt64, "n", 4))), ir.DecodeOptions{Symbols: map[string]int64{"n": e61}},
			`e.onnx: graph.input[0]: tensor "a" has shape [2305843009213693952 4] (int64): exceeds memplan's limit of 2^62 bytes (4 EiB)`},
		{"initializer", modelP(13, initz(tproto("w", tInt8, ints64(e61, 2)))), ir.DecodeOptions{},
			`e.onnx: graph.initializer[0]: tensor "w" has shape [2305843009213693952 2] (int8): exceeds memplan's limit of 2^62 bytes (4 EiB)`},
		{"two u8 inputs of 2^61 sum to 2^62", modelP(13, input(vinfo("a", tUint8, e61)), input(vinfo("b", tUint8, e61)),
			op("Add", []string{"a", "a"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.input[1]: node "b": the tensors up to "b" ([2305843009213693952] u8) total 2^62 bytes or more, and memplan plans arenas below 2^62 bytes`},
		{"inferred output too large", modelP(13, input(vinfo("a", tUint8, e61)),
			op("Concat", []string{"a", "a"}, []string{"y"}, aInt("axis", 0))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Concat): inputs [2305843009213693952] and [2305843009213693952]: Concat along axis 0: the sum of the dims exceeds memplan's limit of 2^62 bytes (4 EiB)`},
		{"inferred element count overflows", modelP(13, input(vinfo("a", tUint8, 1, e61)), initz(tproto("s", tInt64, ints64(2), e61, 1)),
			op("Expand", []string{"a", "s"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: output "y" would have shape [2305843009213693952 2305843009213693952]: more elements than int64 can count`},
	})
}

func TestSliceCountHugeStep(t *testing.T) {
	for _, tc := range []struct{ b, e, step, want int64 }{
		{0, 5, math.MaxInt64, 1}, {0, 5, 2, 3}, {4, -1, math.MinInt64, 1}, {4, -1, -2, 3}, {5, 0, 1, 0},
	} {
		if got := sliceCount(tc.b, tc.e, tc.step); got != tc.want {
			t.Errorf("sliceCount(%d, %d, %d) = %d, want %d", tc.b, tc.e, tc.step, got, tc.want)
		}
	}
}

func TestShapeErrorsSayWhy(t *testing.T) {
	x := input(vinfo("x", tFloat, 2, 3))
	named := func(p part, name string) part { p.body = p.body.str(3, name); return p }
	runErrCases(t, []errCase{
		{"concat", modelP(13, x, input(vinfo("w", tFloat, 4, 5)),
			named(op("Concat", []string{"x", "w"}, []string{"y"}, aInt("axis", 1)), "cat")), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "cat": cannot determine the shape of "y" (Concat): inputs [2 3] and [4 5]: Concat along axis 1 needs equal dims elsewhere: dim 0 is 2 vs 4`},
		{"broadcast", modelP(13, x, input(vinfo("w", tFloat, 4, 5)), op("Add", []string{"x", "w"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Add): inputs [2 3] and [4 5]: Add broadcasts its inputs: dim 1 of the rank-2 result is 3 vs 5, and neither is 1`},
		{"matmul", modelP(13, x, input(vinfo("w", tFloat, 4, 5)), op("MatMul", []string{"x", "w"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (MatMul): inputs [2 3] and [4 5]: MatMul needs A's last dim to equal B's second-to-last: 3 vs 4`},
		{"reshape count", modelP(13, x, initz(tproto("s", tInt64, ints64(1), 7)), op("Reshape", []string{"x", "s"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Reshape): inputs [2 3] and [1]: target shape [7] has 7 elements, the input 6`},
		{"reshape from data", modelP(13, x, input(vinfo("s", tInt64, 2)), op("Reshape", []string{"x", "s"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Reshape): inputs [2 3] and [2]: input 1 (shape) is not a constant memplan can compute`},
		{"unsqueeze axis", modelP(11, x, op("Unsqueeze", []string{"x"}, []string{"y"}, aInts("axes", 5))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Unsqueeze): input [2 3]: axis 5 is out of range for the output rank 3`},
		{"no rule", modelP(20, x, op("ImageDecoder", []string{"x"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (ImageDecoder): input [2 3]: memplan lacks a shape rule for the op ImageDecoder of the ONNX default domain, so its outputs' sizes, and those of every tensor computed from them, are unknown`},
		{"other domain", modelP(13, x, func() part {
			p := op("Thing", []string{"x"}, []string{"y"})
			p.body = p.body.str(7, "my.ops")
			return p
		}()), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (my.ops.Thing): input [2 3]: memplan lacks a shape rule for the op Thing of domain "my.ops", so its outputs' sizes, and those of every tensor computed from them, are unknown`},
		{"negative dim", modelP(13, initz(tproto("s", tInt64, ints64(2), 2, -3)), op("ConstantOfShape", []string{"s"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (ConstantOfShape): input [2]: output 0 would have shape [2 -3], with a negative dim`},
		{"graph input without shape", modelP(13, input(vinfo("x", tFloat)), op("Relu", []string{"x"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.input[0]: cannot determine the shape of "x" (graph input): the graph input declares no shape; 1 tensor depends on it: "y" (Relu)`},
		{"unbound symbols", modelP(13, input(vinfo("x", tFloat, "batch", 3)), input(vinfo("w", tFloat, "seq")),
			op("Relu", []string{"x"}, []string{"y"})), ir.DecodeOptions{},
			`e.onnx: graph.input[0]: unbound symbols batch, seq have no values; until then the shapes of 3 tensors are unknown: "x" (graph input), "w" (graph input), "y" (Relu)`},
		{"loop body may change the shape", modelP(13, x, initz(tproto("m", tInt64, nil, 3)), initz(tproto("c", tBool, nil, 1)),
			op("Loop", []string{"m", "c", "x"}, []string{"y"}, aGraph("body", graphP(
				input(scalar("i", tInt64)), input(scalar("ci", tBool)), input(vinfo("xi", tFloat)),
				op("Identity", []string{"ci"}, []string{"co"}), op("Concat", []string{"xi", "xi"}, []string{"xo"}, aInt("axis", 0)),
				output(scalar("co", tBool)), output(vinfo("xo", tFloat)))))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "y" (Loop): inputs [], [] and [2 3]: the body declares no shape for loop-carried value 0, so it may change from [2 3]`},
	})
}

// TestBlameTheFirstFailure: a node whose shape cannot be determined is
// reported, not the nodes consuming its output, even when the file lists
// the consumers first.
func TestBlameTheFirstFailure(t *testing.T) {
	x := input(vinfo("x", tFloat, 2, 3))
	w := input(vinfo("w", tFloat, 4, 5))
	cat := op("Concat", []string{"x", "w"}, []string{"c"}, aInt("axis", 1))
	consumers := []part{
		op("Relu", []string{"c"}, []string{"r1"}),
		op("Sigmoid", []string{"c"}, []string{"r2"}),
		op("Add", []string{"r1", "r2"}, []string{"z"}),
		op("MatMul", []string{"z", "x"}, []string{"m"}), // would fail on its own too
	}
	const msg = `cannot determine the shape of "c" (Concat): inputs [2 3] and [4 5]: Concat along axis 1 needs equal dims elsewhere: dim 0 is 2 vs 4; 4 tensors depend on it: "r1" (Relu), "r2" (Sigmoid), "z" (Add), "m" (MatMul)`
	runErrCases(t, []errCase{
		{"producer first", modelP(13, append([]part{x, w, cat}, consumers...)...), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: ` + msg},
		{"consumers first in the file", modelP(13, append(append([]part{x, w}, consumers...), cat)...), ir.DecodeOptions{},
			`e.onnx: graph.node[4]: ` + msg},
		{"an independent failure is counted", modelP(13, append([]part{x, w, cat, op("NonZero", []string{"x"}, []string{"nz"})}, consumers...)...), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: ` + msg + `; 1 more tensor is unknown for other reasons: at graph.node[1], cannot determine the shape of "nz" (NonZero): input [2 3]: ` +
				`its output's length is the number of non-zero elements, which depends on the values of input 0, known only at run time (1 tensor)`},
	})
}

// TestSplitFollowsTheSpec: Split sizes as the model's opset defines them.
func TestSplitFollowsTheSpec(t *testing.T) {
	outs := func(k int) []string {
		var s []string
		for i := range k {
			s = append(s, string(rune('a'+i)))
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		opset int64
		dim   int
		parts []part
		want  []int64
	}{
		{"opset 18 num_outputs 10 into 3", 18, 10, []part{op("Split", []string{"x"}, outs(3), aInt("num_outputs", 3))}, ints64(4, 4, 2)},
		{"opset 18 num_outputs 9 into 4 leaves an empty last chunk", 18, 9, []part{op("Split", []string{"x"}, outs(4), aInt("num_outputs", 4))}, ints64(3, 3, 3, 0)},
		{"opset 18 num_outputs even", 18, 8, []part{op("Split", []string{"x"}, outs(4), aInt("num_outputs", 4))}, ints64(2, 2, 2, 2)},
		{"opset 18 without num_outputs, even", 18, 8, []part{op("Split", []string{"x"}, outs(2))}, ints64(4, 4)},
		{"opset 13 even", 13, 9, []part{op("Split", []string{"x"}, outs(3))}, ints64(3, 3, 3)},
		{"opset 13 sizes input", 13, 8, []part{initz(tproto("s", tInt64, ints64(3), 5, 0, 3)), op("Split", []string{"x", "s"}, outs(3))}, ints64(5, 0, 3)},
		{"opset 11 sizes attribute", 11, 8, []part{op("Split", []string{"x"}, outs(2), aInts("split", 1, 7))}, ints64(1, 7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := append([]part{input(vinfo("x", tFloat, tc.dim))}, tc.parts...)
			g, err := Decode("s.onnx", modelP(tc.opset, parts...), ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, name := range outs(len(tc.want)) {
				got = append(got, shapeOf(t, g, name)[0])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("sizes %v, want %v", got, tc.want)
			}
		})
	}
	x := input(vinfo("x", tFloat, 2, 8))
	runErrCases(t, []errCase{
		{"opset 13 uneven is not guessed", modelP(13, x, op("Split", []string{"x"}, []string{"a", "b", "c"}, aInt("axis", 1))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): input [2 8]: Split at opset 13 and without split sizes needs axis 1 (length 8) to divide evenly into 3 outputs; 2 tensors depend on it: "b" (Split), "c" (Split)`},
		{"opset 18 uneven without num_outputs", modelP(18, x, op("Split", []string{"x"}, []string{"a", "b", "c"}, aInt("axis", 1))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): input [2 8]: Split at opset 18 without num_outputs and without split sizes needs axis 1 (length 8) to divide evenly into 3 outputs; 2 tensors depend on it: "b" (Split), "c" (Split)`},
		{"opset 18 num_outputs leaves a negative last chunk", modelP(18, input(vinfo("x", tFloat, 2)),
			op("Split", []string{"x"}, []string{"a", "b", "c", "d"}, aInt("num_outputs", 4))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): input [2]: Split-18 cuts axis 0 (length 2) into num_outputs 4 chunks of ceil(2/4) = 1, which leaves -1 for the last output; 3 tensors depend on it: "b" (Split), "c" (Split), "d" (Split)`},
		{"num_outputs differs from the outputs", modelP(18, x, op("Split", []string{"x"}, []string{"a", "b"}, aInt("axis", 1), aInt("num_outputs", 4))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): input [2 8]: num_outputs is 4, but the node has 2 outputs; 1 tensor depends on it: "b" (Split)`},
		{"sizes do not sum to the axis", modelP(13, x, initz(tproto("s", tInt64, ints64(2), 3, 4)),
			op("Split", []string{"x", "s"}, []string{"a", "b"}, aInt("axis", -1))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): inputs [2 8] and [2]: split sizes [3 4] sum to 7, but axis 1 is 8 long; 1 tensor depends on it: "b" (Split)`},
		{"sizes attribute does not sum", modelP(11, x, op("Split", []string{"x"}, []string{"a", "b"}, aInt("axis", 1), aInts("split", 5, 5))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): input [2 8]: split sizes [5 5] sum to 10, but axis 1 is 8 long; 1 tensor depends on it: "b" (Split)`},
		{"sizes count differs", modelP(13, x, initz(tproto("s", tInt64, ints64(3), 3, 4, 1)),
			op("Split", []string{"x", "s"}, []string{"a", "b"}, aInt("axis", 1))), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: cannot determine the shape of "a" (Split): inputs [2 8] and [3]: split sizes [3 4 1] give 3 outputs, the node has 2; 1 tensor depends on it: "b" (Split)`},
	})
}

// boolScalar is a bool TensorProto of rank 0, its value in raw_data.
func boolScalar(name string, v bool) pb {
	raw := []byte{0}
	if v {
		raw[0] = 1
	}
	t := pb{}.i64(2, tBool).str(8, name)
	t = protowire.AppendTag(t, 9, protowire.BytesType)
	return protowire.AppendBytes(t, raw)
}

// TestIfBranchesMustAgree: an If whose branches give different shapes or
// dtypes is not sized by its first branch unless the user picks one or the
// condition is a constant.
func TestIfBranchesMustAgree(t *testing.T) {
	x := input(vinfo("x", tFloat, 3))
	c := input(scalar("c", tBool))
	same := graphP(op("Neg", []string{"x"}, []string{"s"}), output(vinfo("s", tFloat)))
	three := graphP(op("Relu", []string{"x"}, []string{"t"}), output(vinfo("t", tFloat)))
	six := graphP(op("Concat", []string{"x", "x"}, []string{"e"}, aInt("axis", 0)), output(vinfo("e", tFloat)))
	half := graphP(op("Cast", []string{"x"}, []string{"h"}, aInt("to", tFloat16)), output(vinfo("h", tFloat16)))
	bad := graphP(op("Reshape", []string{"x", "x"}, []string{"b"}), output(vinfo("b", tFloat)))
	huge := graphP(initz(tproto("hs", tInt64, ints64(1), 1<<62)), op("ConstantOfShape", []string{"hs"}, []string{"hu"}),
		op("ReduceSum", []string{"hu"}, []string{"r"}, aInt("keepdims", 0)), output(vinfo("r", tFloat)))
	ifNode := func(cond string, then, els pb) part {
		p := op("If", []string{cond}, []string{"y"}, aGraph("then_branch", then), aGraph("else_branch", els))
		p.body = p.body.str(3, "choose")
		return p
	}
	model := func(parts ...part) []byte {
		return modelP(13, append([]part{x, c}, append(parts, output(vinfo("y", 0)))...)...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		opts ir.DecodeOptions
		want []int64
		dt   ir.DType
	}{
		{"branches agree", model(ifNode("c", three, same)), ir.DecodeOptions{}, ints64(3), ir.F32},
		{"then picked", model(ifNode("c", three, six)), ir.DecodeOptions{IfBranch: "then"}, ints64(3), ir.F32},
		{"else picked", model(ifNode("c", three, six)), ir.DecodeOptions{IfBranch: "else"}, ints64(6), ir.F32},
		{"constant false takes else", model(initz(boolScalar("k", false)), ifNode("k", three, six)), ir.DecodeOptions{}, ints64(6), ir.F32},
		{"constant true wins over a pick", model(initz(boolScalar("k", true)), ifNode("k", three, six)), ir.DecodeOptions{IfBranch: "else"}, ints64(3), ir.F32},
		{"picked branch known, other unknown", model(ifNode("c", six, bad)), ir.DecodeOptions{IfBranch: "then"}, ints64(6), ir.F32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode("if.onnx", tc.data, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt, _ := g.Tensor("y")
			if got := shapeOf(t, g, "y"); !slices.Equal(got, tc.want) || tt.DType != tc.dt {
				t.Errorf("y is %v %s, want %v %s", got, tt.DType, tc.want, tc.dt)
			}
		})
	}
	runErrCases(t, []errCase{
		{"shapes differ", model(ifNode("c", three, six)), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y": the then branch gives [3] float, the else branch [6] float; pick one of them`},
		{"dtypes differ", model(ifNode("c", three, half)), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y": the then branch gives [3] float, the else branch [3] float16; pick one of them`},
		{"a branch is unknown", model(ifNode("c", three, bad)), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y": the then branch gives [3] float, the else branch an unknown shape (graph.node[0].attribute[else_branch].node[0]: cannot determine the shape of "b" (Reshape): inputs [3] and [3]: input 1 (shape) is not a constant memplan can compute); pick one of them`},
		{"the picked branch is unknown", model(ifNode("c", three, bad)), ir.DecodeOptions{IfBranch: "else"},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y" comes from the else branch (picked with --if-branch), which gives an unknown shape (graph.node[0].attribute[else_branch].node[0]: cannot determine the shape of "b" (Reshape): inputs [3] and [3]: input 1 (shape) is not a constant memplan can compute)`},
		{"consumers blame the If", model(ifNode("c", three, six), op("Relu", []string{"y"}, []string{"r"})), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y": the then branch gives [3] float, the else branch [6] float; pick one of them; 1 tensor depends on it: "r" (Relu)`},
		{"a branch's tensor is too large", model(ifNode("c", three, huge)), ir.DecodeOptions{},
			`e.onnx: graph.node[0]: node "choose": cannot determine the shape of "y" (If): input []: output "y": the then branch gives [3] float, the else branch an unknown shape (graph.node[0].attribute[else_branch]: cannot determine the shape of "r" (subgraph): graph.node[0].attribute[else_branch].node[0]: tensor "hu" has shape [4611686018427387904] (float): exceeds memplan's limit of 2^62 bytes (4 EiB)); pick one of them`},
		{"bad pick", model(ifNode("c", three, six)), ir.DecodeOptions{IfBranch: "both"},
			`e.onnx: the If branch to pick is "both"; want then, else or none`},
	})
}
