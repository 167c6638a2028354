package onnx

import (
	"errors"
	"strings"
	"testing"

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
			`e.onnx: graph.node[0]: node "` + strings.Repeat("a", 79) + `… (181 bytes)": node inputs are not produced by any node, graph input or initializer: "ghost"`},
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
