package ir

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Building blocks for one-line graph files.
const (
	nX  = `{"name":"x","op":"input","shape":["batch",4],"dtype":"f32"}`
	nW  = `{"name":"w","op":"param","shape":[4,4],"dtype":"f32"}`
	nMM = `{"name":"mm","op":"matmul","inputs":["x","w"],"shape":["batch",4],"dtype":"f32"}`
)

// graphOf is a one-line graph file with the given nodes and extra
// top-level fields (each starting with a comma).
func graphOf(nodes string, extra string) string {
	return `{"format":"memplan.graph/v1","symbols":{"batch":8},"nodes":[` + nodes + `]` + extra + `}`
}

func join3(nodes ...string) string { return strings.Join(nodes, ",") }

type errCase struct {
	name string
	in   string
	// Where the error must point. at is a substring of in whose first
	// byte is the expected line:column; line and col are used instead
	// when at is empty.
	at        string
	line, col int
	path      string
	node      string
	msg       string // substring of Msg
}

func checkErr(t *testing.T, tc errCase, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", tc.msg)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *ir.Error", err, err)
	}
	line, col := tc.line, tc.col
	if tc.at != "" {
		i := strings.Index(tc.in, tc.at)
		if i < 0 {
			t.Fatalf("bad test: %q not in input", tc.at)
		}
		line, col = lineCol([]byte(tc.in), i)
	}
	if line != 0 && (e.Line != line || e.Column != col) {
		t.Errorf("at %d:%d, want %d:%d (%v)", e.Line, e.Column, line, col, err)
	}
	if e.Path != tc.path {
		t.Errorf("path %q, want %q (%v)", e.Path, tc.path, err)
	}
	if e.Node != tc.node {
		t.Errorf("node %q, want %q (%v)", e.Node, tc.node, err)
	}
	if !strings.Contains(e.Msg, tc.msg) {
		t.Errorf("message %q does not contain %q", e.Msg, tc.msg)
	}
}

func TestDecodeGraphErrors(t *testing.T) {
	mlp, err := os.ReadFile("testdata/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(string(mlp), `"shape": [784, 256]`)
	truncated := string(mlp[:cut+10])

	cases := []errCase{
		// JSON syntax.
		{name: "empty", in: "", line: 1, col: 1, msg: "empty file"},
		{name: "blank", in: "  \n ", line: 2, col: 2, msg: "empty file"},
		{name: "truncated", in: truncated, line: 7, col: 46, msg: "unexpected end of file"},
		{name: "truncated in string", in: `{"format":"memp`, line: 1, col: 16, msg: "truncated"},
		{name: "missing comma", in: "{\"format\":\"memplan.graph/v1\"\n  \"nodes\":[]}", line: 2, col: 3, msg: `want ','`},
		{name: "trailing comma", in: `{"format":"memplan.graph/v1","nodes":[],}`, at: `}`, msg: "want a quoted field name"},
		{name: "garbage after", in: graphOf(nX, "") + " @", at: "@", msg: "after the top-level value"},
		{name: "bad literal", in: `{"format":tru}`, at: "tru", msg: "want a JSON value"},
		{name: "leading zero", in: graphOf(`{"name":"x","op":"input","shape":[04],"dtype":"f32"}`, ""), at: "04", msg: "leading zero"},
		{name: "control char", in: "{\"format\":\"a\tb\"}", at: "\t", msg: "control character"},
		{name: "bad escape", in: `{"format":"\q"}`, at: `"\q"`, msg: "invalid escape"},
		{name: "deep", in: strings.Repeat("[", 300), line: 1, col: maxDepth + 1, msg: "nested more than"},
		{name: "duplicate key", in: graphOf(`{"name":"x","name":"y","op":"input","shape":[1],"dtype":"f32"}`, ""), at: `"name":"y"`, msg: `duplicate field "name"`},

		// Top level.
		{name: "not an object", in: `[1]`, line: 1, col: 1, msg: "want a graph object"},
		{name: "no format", in: `{"nodes":[]}`, line: 1, col: 1, msg: `missing "format"`},
		{name: "wrong format", in: `{"format":"memplan.plan/v1","nodes":[]}`, at: `"memplan.plan`, path: "format", msg: `format is "memplan.plan/v1", want "memplan.graph/v1"`},
		{name: "unknown top field", in: graphOf(nX, `,"outptus":["x"]`), at: `["x"]}`, path: "outptus", msg: `unknown field "outptus"; did you mean "outputs"?`},
		{name: "no nodes", in: `{"format":"memplan.graph/v1"}`, line: 1, col: 1, msg: `missing "nodes"`},
		{name: "nodes not array", in: `{"format":"memplan.graph/v1","nodes":{}}`, at: `{}`, path: "nodes", msg: "want an array"},
		{name: "name not string", in: `{"format":"memplan.graph/v1","name":3,"nodes":[]}`, at: "3", path: "name", msg: "want a string"},
		{name: "symbol not int", in: `{"format":"memplan.graph/v1","symbols":{"b":1.5},"nodes":[]}`, at: "1.5", path: "symbols.b", msg: "want an integer"},
		{name: "symbol negative", in: `{"format":"memplan.graph/v1","symbols":{"b":-1},"nodes":[]}`, at: "-1", path: "symbols.b", msg: `symbol "b" is -1`},
		{name: "symbol odd name", in: `{"format":"memplan.graph/v1","symbols":{"a b":-1},"nodes":[]}`, at: "-1", path: `symbols["a b"]`, msg: "want >= 0"},
		{name: "symbols not object", in: `{"format":"memplan.graph/v1","symbols":[],"nodes":[]}`, at: "[]", path: "symbols", msg: "want an object"},
		{name: "outputs not strings", in: graphOf(nX, `,"outputs":["x",1]`), at: `1]`, path: "outputs[1]", msg: "want a string"},

		// Node fields.
		{name: "node not object", in: graphOf(`7`, ""), at: "7", path: "nodes[0]", msg: "want a node object"},
		{name: "typo shpae", in: graphOf(`{"name":"x","op":"input","shpae":[1],"dtype":"f32"}`, ""), at: `[1]`, path: "nodes[0].shpae", node: "x", msg: `unknown field "shpae"; did you mean "shape"?`},
		{name: "no name", in: graphOf(`{"op":"input","shape":[1],"dtype":"f32"}`, ""), at: `{"op"`, path: "nodes[0]", msg: `missing "name"`},
		{name: "no op", in: graphOf(`{"name":"x","shape":[1],"dtype":"f32"}`, ""), at: `{"name"`, path: "nodes[0]", node: "x", msg: `missing "op"`},
		{name: "no shape", in: graphOf(`{"name":"x","op":"input","dtype":"f32"}`, ""), at: `{"name"`, path: "nodes[0]", node: "x", msg: `missing "shape"`},
		{name: "no dtype", in: graphOf(`{"name":"x","op":"input","shape":[1]}`, ""), at: `{"name"`, path: "nodes[0]", node: "x", msg: `missing "dtype"`},
		{name: "no outputs at all", in: graphOf(`{"name":"x","op":"input"}`, ""), at: `{"name"`, path: "nodes[0]", node: "x", msg: "node has no outputs"},
		{name: "empty outputs", in: graphOf(`{"name":"x","op":"input","outputs":[]}`, ""), at: `[]`, path: "nodes[0].outputs", node: "x", msg: "node has no outputs"},
		{name: "outputs and shape", in: graphOf(`{"name":"x","op":"input","shape":[1],"outputs":[{"name":"a","shape":[1],"dtype":"f32"}]}`, ""), at: `[1],"outputs"`, path: "nodes[0].shape", node: "x", msg: "belongs on each output"},
		{name: "output unknown field", in: graphOf(`{"name":"x","op":"input","outputs":[{"name":"a","shape":[1],"dtype":"f32","axis":0}]}`, ""), at: `0}]`, path: "nodes[0].outputs[0].axis", node: "x", msg: `unknown field "axis" (known: name, shape, dtype, pin, pin_producers)`},
		{name: "output no name", in: graphOf(`{"name":"x","op":"input","outputs":[{"shape":[1],"dtype":"f32"}]}`, ""), at: `{"shape"`, path: "nodes[0].outputs[0]", node: "x", msg: `missing "name"`},
		{name: "unknown dtype", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f8"}`, ""), at: `"f8"`, path: "nodes[0].dtype", node: "x", msg: `unknown dtype "f8"`},
		{name: "dim float", in: graphOf(`{"name":"x","op":"input","shape":[1,2.5],"dtype":"f32"}`, ""), at: `2.5`, path: "nodes[0].shape[1]", node: "x", msg: "want an integer"},
		{name: "dim huge", in: graphOf(`{"name":"x","op":"input","shape":[99999999999999999999],"dtype":"f32"}`, ""), at: `999`, path: "nodes[0].shape[0]", node: "x", msg: "out of range"},
		{name: "dim bool", in: graphOf(`{"name":"x","op":"input","shape":[true],"dtype":"f32"}`, ""), at: `true`, path: "nodes[0].shape[0]", node: "x", msg: "want an integer or a symbol name"},
		{name: "dim empty symbol", in: graphOf(`{"name":"x","op":"input","shape":[""],"dtype":"f32"}`, ""), at: `""`, path: "nodes[0].shape[0]", node: "x", msg: "empty symbol name"},
		{name: "inputs not array", in: graphOf(nX+`,{"name":"y","op":"relu","inputs":"x","shape":[1],"dtype":"f32"}`, ""), at: `"x","shape":[1]`, path: "nodes[1].inputs", node: "y", msg: "want an array"},
		{name: "pin word", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin":"forever"}`, ""), at: `"forever"`, path: "nodes[0].pin", node: "x", msg: `want "end" or a step number`},
		{name: "pin float", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin":1.5}`, ""), at: `1.5`, path: "nodes[0].pin", node: "x", msg: "want an integer"},
		{name: "pin huge", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin":4294967296}`, ""), at: `4294967296`, path: "nodes[0].pin", node: "x", msg: "too large"},
		{name: "pin producers alone", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin_producers":true}`, ""), at: `true`, path: "nodes[0].pin_producers", node: "x", msg: `needs "pin"`},
		{name: "pin producers type", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin":1,"pin_producers":1}`, ""), at: `1}`, path: "nodes[0].pin_producers", node: "x", msg: "want true or false"},
		{name: "axis on matmul", in: graphOf(nX+","+nW+`,{"name":"mm","op":"matmul","inputs":["x","w"],"axis":0,"shape":["batch",4],"dtype":"f32"}`, ""), at: `0,"shape"`, path: "nodes[2].axis", node: "mm", msg: `applies only to op "narrow"`},
		{name: "to on relu", in: graphOf(nX+`,{"name":"r","op":"relu","inputs":["x"],"to":"f16","shape":["batch",4],"dtype":"f32"}`, ""), at: `"f16"`, path: "nodes[1].to", node: "r", msg: `applies only to op "cast"`},
		{name: "narrow without len", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":0,"shape":[1,4],"dtype":"f32"}`, ""), at: `{"name":"n"`, path: "nodes[1]", node: "n", msg: `op narrow needs "len"`},
		{name: "narrow start string", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":"0","len":1,"shape":[1,4],"dtype":"f32"}`, ""), at: `"0"`, path: "nodes[1].start", node: "n", msg: "want an integer"},
		{name: "cast without to", in: graphOf(nX+`,{"name":"c","op":"cast","inputs":["x"],"shape":["batch",4],"dtype":"f16"}`, ""), at: `{"name":"c"`, path: "nodes[1]", node: "c", msg: `op cast needs "to"`},
		{name: "cast to unknown", in: graphOf(nX+`,{"name":"c","op":"cast","inputs":["x"],"to":"f12","shape":["batch",4],"dtype":"f16"}`, ""), at: `"f12"`, path: "nodes[1].to", node: "c", msg: `unknown dtype "f12"`},
		{name: "custom without name", in: graphOf(nX+`,{"name":"k","op":"custom","inputs":["x"],"shape":[1],"dtype":"i64"}`, ""), at: `{"name":"k"`, path: "nodes[1]", node: "k", msg: `needs "custom"`},
		{name: "custom empty", in: graphOf(nX+`,{"name":"k","op":"custom","custom":"","inputs":["x"],"shape":[1],"dtype":"i64"}`, ""), at: `""`, path: "nodes[1].custom", node: "k", msg: "empty"},
		{name: "phase empty", in: graphOf(nX+`,{"name":"k","op":"relu","phase":"","inputs":["x"],"shape":[1],"dtype":"f32"}`, ""), at: `""`, path: "nodes[1].phase", node: "k", msg: "phase name is empty"},
		{name: "phase not a string", in: graphOf(nX+`,{"name":"k","op":"relu","phase":2,"inputs":["x"],"shape":[1],"dtype":"f32"}`, ""), at: `2,"inputs"`, path: "nodes[1].phase", node: "k", msg: "want a string"},

		// Schedule.
		{name: "schedule unknown node", in: graphOf(join3(nX, nW, nMM), `,"schedule":["x","w","m"]`), at: `"m"]`, path: "schedule[2]", msg: `unknown node "m"`},
		{name: "schedule duplicate", in: graphOf(join3(nX, nW, nMM), `,"schedule":["x","w","x","mm"]`), at: `"x","mm"`, path: "schedule[2]", node: "x", msg: `node "x" twice (also at schedule[0])`},
		{name: "schedule omits", in: graphOf(join3(nX, nW, nMM), `,"schedule":["x","mm"]`), at: `["x","mm"]`, path: "schedule", node: "w", msg: `omits node "w" (nodes[1])`},
		{name: "schedule not strings", in: graphOf(join3(nX, nW, nMM), `,"schedule":[0,1,2]`), at: `0,1,2`, path: "schedule[0]", msg: "want a string"},
		{name: "schedule not topological", in: graphOf(join3(nX, nW, nMM), `,"schedule":["x","mm","w"]`), at: `"w"]`, path: "nodes[2].inputs[1]", node: "mm", msg: `tensor "w" is used before node "w" (nodes[1]) defines it`},

		// Validation, located through the JSON path.
		{name: "unknown input", in: graphOf(join3(nX, nW, `{"name":"mm","op":"matmul","inputs":["x","v"],"shape":["batch",4],"dtype":"f32"}`), ""), at: `"v"`, path: "nodes[2].inputs[1]", node: "mm", msg: `unknown tensor "v"`},
		{name: "use before definition", in: graphOf(join3(nX, nMM, nW), ""), at: `"w"],"shape"`, path: "nodes[1].inputs[1]", node: "mm", msg: `tensor "w" is used before node "w" (nodes[2]) defines it`},
		{name: "cycle", in: graphOf(join3(nX, `{"name":"a","op":"add","inputs":["x","b"],"shape":[1],"dtype":"f32"}`, `{"name":"b","op":"relu","inputs":["a"],"shape":[1],"dtype":"f32"}`), ""), at: `{"name":"a"`, path: "nodes[1]", node: "a", msg: "nodes form a cycle: a -> b -> a"},
		{name: "self loop", in: graphOf(`{"name":"a","op":"relu","inputs":["a"],"shape":[1],"dtype":"f32"}`, ""), at: `{"name":"a"`, path: "nodes[0]", node: "a", msg: "cycle: a -> a"},
		{name: "duplicate node", in: graphOf(join3(nX, nW, `{"name":"x","op":"relu","outputs":[{"name":"y","shape":[1],"dtype":"f32"}]}`), ""), at: `"x","op":"relu"`, path: "nodes[2].name", node: "x", msg: `duplicate node name "x" (also nodes[0])`},
		{name: "duplicate tensor", in: graphOf(join3(nX, nW, `{"name":"s","op":"split","inputs":["x"],"outputs":[{"name":"a","shape":[1],"dtype":"f32"},{"name":"w","shape":[1],"dtype":"f32"}]}`), ""), at: `{"name":"w","shape"`, path: "nodes[2].outputs[1]", node: "s", msg: `duplicate tensor name "w" (also produced by node "w", nodes[1])`},
		{name: "unknown symbol", in: graphOf(`{"name":"x","op":"input","shape":["batch","seq"],"dtype":"f32"}`, ""), at: `"seq"`, path: "nodes[0].shape[1]", node: "x", msg: `unknown symbol "seq"`},
		{name: "negative dim", in: graphOf(`{"name":"x","op":"input","shape":[3,-2],"dtype":"f32"}`, ""), at: `-2`, path: "nodes[0].shape[1]", node: "x", msg: "negative dimension -2"},
		{name: "overflow", in: graphOf(`{"name":"x","op":"input","shape":[4294967296,4294967296],"dtype":"f32"}`, ""), at: `[4294967296`, path: "nodes[0].shape", node: "x", msg: "limit of 2^62 bytes"},
		{name: "overflow by dtype", in: graphOf(`{"name":"x","op":"input","shape":[2305843009213693952],"dtype":"f32"}`, ""), at: `[2305`, path: "nodes[0].shape", node: "x", msg: "limit of 2^62 bytes"},
		{name: "overflow via symbol", in: `{"format":"memplan.graph/v1","symbols":{"n":4611686018427387904},"nodes":[{"name":"x","op":"input","shape":["n",2],"dtype":"i8"}]}`, at: `["n"`, path: "nodes[0].shape", node: "x", msg: "limit of 2^62 bytes"},
		{name: "narrow past end", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":6,"len":4,"shape":[4,4],"dtype":"f32"}`, ""), at: `4,"shape"`, path: "nodes[1].len", node: "n", msg: "start 6 + len 4 exceeds 8, the size of axis 0"},
		{name: "narrow changes dtype", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":0,"len":4,"shape":[4,4],"dtype":"f16"}`, ""), at: `"f16"`, path: "nodes[1].dtype", node: "n", msg: `narrow keeps its input's dtype: "x" is f32, but the output is f16`},
		{name: "lone surrogate in a name", in: graphOf(`{"name":"a\ud800","op":"input","shape":[1],"dtype":"f32"}`, ""), at: `"a\ud800"`, msg: "lone UTF-16 surrogate"},
		{name: "invalid UTF-8 in an escaped name", in: graphOf(`{"name":"a\n`+"\xff"+`","op":"input","shape":[1],"dtype":"f32"}`, ""), at: `"a\n`, msg: "not valid UTF-8"},
		{name: "invalid UTF-8 in a plain name", in: graphOf(`{"name":"a`+"\xfe"+`","op":"input","shape":[1],"dtype":"f32"}`, ""), at: `"a` + "\xfe", msg: "not valid UTF-8"},
		{name: "narrow negative start", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":-1,"len":4,"shape":[4,4],"dtype":"f32"}`, ""), at: `-1`, path: "nodes[1].start", node: "n", msg: "start -1 is negative"},
		{name: "narrow negative len", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":0,"len":-4,"shape":[4,4],"dtype":"f32"}`, ""), at: `-4`, path: "nodes[1].len", node: "n", msg: "len -4 is negative"},
		{name: "narrow axis out of range", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":2,"start":0,"len":1,"shape":[8,1],"dtype":"f32"}`, ""), at: `2,"start"`, path: "nodes[1].axis", node: "n", msg: "axis 2 is out of range for input \"x\" of rank 2"},
		{name: "narrow negative axis", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":-1,"start":0,"len":1,"shape":[8,1],"dtype":"f32"}`, ""), at: `-1`, path: "nodes[1].axis", node: "n", msg: "axis -1 is out of range"},
		{name: "narrow wrong shape", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":1,"start":0,"len":2,"shape":["batch",3],"dtype":"f32"}`, ""), at: `["batch",3]`, path: "nodes[1].shape", node: "n", msg: "narrow output shape is [batch, 3], want [batch, 2]"},
		{name: "narrow drops symbol", in: graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":1,"start":0,"len":2,"shape":[8,2],"dtype":"f32"}`, ""), at: `[8,2]`, path: "nodes[1].shape", node: "n", msg: "want [batch, 2]"},
		{name: "narrow no input", in: graphOf(`{"name":"n","op":"narrow","axis":0,"start":0,"len":1,"shape":[1],"dtype":"f32"}`, ""), at: `{"name":"n"`, path: "nodes[0].inputs", node: "n", msg: "needs an input"},
		{name: "reshape larger", in: graphOf(nX+`,{"name":"r","op":"reshape","inputs":["x"],"shape":[64],"dtype":"f32"}`, ""), at: `[64]`, path: "nodes[1].shape", node: "r", msg: `view "r" (256 bytes) is larger than its input "x" (128 bytes)`},
		{name: "reshape two outputs", in: graphOf(nX+`,{"name":"r","op":"reshape","inputs":["x"],"outputs":[{"name":"a","shape":[1],"dtype":"f32"},{"name":"b","shape":[1],"dtype":"f32"}]}`, ""), at: `[{"name":"a"`, path: "nodes[1].outputs", node: "r", msg: "exactly one output, got 2"},
		{name: "cast to mismatch", in: graphOf(nX+`,{"name":"c","op":"cast","inputs":["x"],"to":"f16","shape":["batch",4],"dtype":"bf16"}`, ""), at: `"f16"`, path: "nodes[1].to", node: "c", msg: "cast to f16, but the output's dtype is bf16"},
		{name: "unknown graph output", in: graphOf(nX, `,"outputs":["x","y"]`), at: `"y"]`, path: "outputs[1]", msg: `graph output "y" is not a tensor`},
		{name: "graph output twice", in: graphOf(nX, `,"outputs":["x","x"]`), at: `"x"]`, path: "outputs[1]", msg: "listed twice"},
		{name: "input with inputs", in: graphOf(nW+`,{"name":"x","op":"input","inputs":["w"],"shape":[1],"dtype":"f32"}`, ""), at: `["w"]`, path: "nodes[1].inputs", node: "x", msg: "op input takes no inputs, got 1"},
		{name: "param with inputs", in: graphOf(nX+`,{"name":"p","op":"param","inputs":["x"],"shape":[1],"dtype":"f32"}`, ""), at: `["x"],"shape":[1]`, path: "nodes[1].inputs", node: "p", msg: "op param takes no inputs"},
		{name: "constant with inputs", in: graphOf(nX+`,{"name":"k","op":"constant","inputs":["x"],"shape":[1],"dtype":"f32"}`, ""), at: `["x"],"shape":[1]`, path: "nodes[1].inputs", node: "k", msg: "op constant takes no inputs"},
		{name: "pin negative", in: graphOf(`{"name":"x","op":"input","shape":[1],"dtype":"f32","pin":-3}`, ""), at: `-3`, path: "nodes[0].pin", node: "x", msg: "pin step -3 is negative"},
		{name: "pin negative on output", in: graphOf(`{"name":"s","op":"input","outputs":[{"name":"a","shape":[1],"dtype":"f32","pin":-1}]}`, ""), at: `-1`, path: "nodes[0].outputs[0].pin", node: "s", msg: "pin step -1 is negative"},
		{name: "empty node name", in: graphOf(`{"name":"","op":"input","shape":[1],"dtype":"f32"}`, ""), at: `""`, path: "nodes[0].name", msg: "node name is empty"},
		{name: "empty op", in: graphOf(`{"name":"x","op":"","shape":[1],"dtype":"f32"}`, ""), at: `""`, path: "nodes[0].op", node: "x", msg: "op is empty"},
		{name: "empty output name", in: graphOf(`{"name":"s","op":"input","outputs":[{"name":"","shape":[1],"dtype":"f32"}]}`, ""), at: `""`, path: "nodes[0].outputs[0].name", node: "s", msg: "tensor name is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := DecodeGraph("g.json", []byte(tc.in))
			if g != nil {
				t.Errorf("got a graph with an error")
			}
			checkErr(t, tc, err)
			if e, ok := err.(*Error); ok && e.File != "g.json" {
				t.Errorf("file %q, want g.json", e.File)
			}
		})
	}
}

func TestDecodeGraphErrorString(t *testing.T) {
	in := "{\"format\": \"memplan.graph/v1\",\n \"nodes\": [\n  {\"name\": \"x\", \"op\": \"input\", \"shape\": [2, -1], \"dtype\": \"f32\"}]}"
	_, err := DecodeGraph("m.json", []byte(in))
	want := `m.json:3:45: nodes[0].shape[1]: node "x": negative dimension -1`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestDecodeGraphValid(t *testing.T) {
	mlp, err := os.ReadFile("testdata/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := DecodeGraph("mlp.json", mlp)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "mlp" || !reflect.DeepEqual(g.Symbols, map[string]int64{"batch": 8}) || !reflect.DeepEqual(g.Outputs, []string{"h"}) {
		t.Errorf("name %q symbols %v outputs %v", g.Name, g.Symbols, g.Outputs)
	}
	want := []Node{
		{Name: "x", Op: OpInput, Outputs: []Tensor{{Name: "x", Shape: []Dim{Sym("batch"), Int(784)}, DType: F32}}, Path: "nodes[0]"},
		{Name: "w1", Op: OpParam, Outputs: []Tensor{{Name: "w1", Shape: []Dim{Int(784), Int(256)}, DType: F32}}, Path: "nodes[1]"},
		{Name: "h", Op: "matmul", Inputs: []string{"x", "w1"}, Outputs: []Tensor{{Name: "h", Shape: []Dim{Sym("batch"), Int(256)}, DType: F32}}, Path: "nodes[2]"},
		{Name: "hv", Op: OpNarrow, Inputs: []string{"h"}, Outputs: []Tensor{{Name: "hv", Shape: []Dim{Int(4), Int(256)}, DType: F32}},
			Alias: AliasNarrow, Axis: 0, Start: 2, Len: 4, Path: "nodes[3]"},
		{Name: "split", Op: "split", Inputs: []string{"h"}, Outputs: []Tensor{
			{Name: "a", Shape: []Dim{Sym("batch"), Int(128)}, DType: F32},
			{Name: "b", Shape: []Dim{Sym("batch"), Int(128)}, DType: F32, Pin: Pin{Until: PinEnd}},
		}, Path: "nodes[4]"},
		{Name: "c", Op: OpCast, Inputs: []string{"a"}, Outputs: []Tensor{{Name: "c", Shape: []Dim{Sym("batch"), Int(128)}, DType: F16, Pin: Pin{Until: 5, Producers: true}}},
			To: F16, Path: "nodes[5]"},
		{Name: "k", Op: OpCustom, Custom: "onnx.TopK", Inputs: []string{"c"}, Outputs: []Tensor{{Name: "k", Shape: []Dim{Int(1)}, DType: I64}}, Path: "nodes[6]"},
	}
	if !reflect.DeepEqual(g.Nodes, want) {
		for i := range max(len(g.Nodes), len(want)) {
			if i >= len(g.Nodes) || i >= len(want) || !reflect.DeepEqual(g.Nodes[i], want[i]) {
				t.Errorf("node %d:\n got %+v\nwant %+v", i, at(g.Nodes, i), at(want, i))
			}
		}
	}
}

func at(ns []Node, i int) any {
	if i < len(ns) {
		return ns[i]
	}
	return nil
}

func TestDecodeGraphCases(t *testing.T) {
	type nodeWant struct {
		name  string
		alias Alias
		path  string
	}
	cases := []struct {
		name  string
		in    string
		nodes []nodeWant // in schedule order
		check func(t *testing.T, g *Graph)
	}{
		{
			name: "views",
			in: graphOf(join3(nX, nW, nMM,
				`{"name":"r","op":"reshape","inputs":["mm"],"shape":[32],"dtype":"f32"}`,
				`{"name":"c","op":"cast","inputs":["r"],"to":"f32","shape":[32],"dtype":"f32"}`,
				`{"name":"n","op":"narrow","inputs":["c"],"axis":0,"start":8,"len":16,"shape":[16],"dtype":"f32"}`,
				`{"name":"h","op":"cast","inputs":["n"],"to":"f16","shape":[16],"dtype":"f16"}`,
				`{"name":"col","op":"narrow","inputs":["mm"],"axis":1,"start":1,"len":2,"shape":["batch",2],"dtype":"f32"}`,
				`{"name":"small","op":"reshape","inputs":["mm"],"shape":[2,2],"dtype":"f32"}`), `,"outputs":["n"]`),
			nodes: []nodeWant{{"x", NoAlias, "nodes[0]"}, {"w", NoAlias, "nodes[1]"}, {"mm", NoAlias, "nodes[2]"},
				{"r", AliasWhole, "nodes[3]"}, {"c", AliasWhole, "nodes[4]"}, {"n", AliasNarrow, "nodes[5]"},
				{"h", NoAlias, "nodes[6]"}, {"col", NoAlias, "nodes[7]"}, {"small", AliasWhole, "nodes[8]"}},
		},
		{
			name:  "phases",
			in:    graphOf(nX+`,{"name":"a","op":"relu","phase":"prefill","inputs":["x"],"shape":[1],"dtype":"f32"},{"name":"b","op":"relu","phase":"decode","inputs":["a"],"shape":[1],"dtype":"f32"}`, ""),
			nodes: []nodeWant{{"x", NoAlias, "nodes[0]"}, {"a", NoAlias, "nodes[1]"}, {"b", NoAlias, "nodes[2]"}},
			check: func(t *testing.T, g *Graph) {
				if got := []string{g.Nodes[0].Phase, g.Nodes[1].Phase, g.Nodes[2].Phase}; !slices.Equal(got, []string{"", "prefill", "decode"}) {
					t.Errorf("phases %q", got)
				}
			},
		},
		{
			name:  "schedule reorders",
			in:    graphOf(join3(nMM, nW, nX), `,"schedule":["w","x","mm"],"outputs":["mm"]`),
			nodes: []nodeWant{{"w", NoAlias, "nodes[1]"}, {"x", NoAlias, "nodes[2]"}, {"mm", NoAlias, "nodes[0]"}},
		},
		{
			name:  "zero size",
			in:    graphOf(`{"name":"e","op":"input","shape":[0,4],"dtype":"f32"},{"name":"z","op":"narrow","inputs":["e"],"axis":0,"start":0,"len":0,"shape":[0,4],"dtype":"f32"},{"name":"s","op":"input","shape":[],"dtype":"bool"}`, ""),
			nodes: []nodeWant{{"e", NoAlias, "nodes[0]"}, {"z", AliasNarrow, "nodes[1]"}, {"s", NoAlias, "nodes[2]"}},
			check: func(t *testing.T, g *Graph) {
				if len(g.Nodes[2].Outputs[0].Shape) != 0 {
					t.Errorf("scalar shape %v", g.Nodes[2].Outputs[0].Shape)
				}
			},
		},
		{
			name: "symbols, escapes, CRLF, every dtype",
			in: "{\r\n\"format\":\"memplan.graph/v1\",\"symbols\":{\"b\":0,\"s\":3},\r\n\"nodes\":[" +
				`{"name":"in\u00e9\"q","op":"input","outputs":[` +
				`{"name":"t0","shape":["b"],"dtype":"f32"},{"name":"t1","shape":["s"],"dtype":"f16"},{"name":"t2","shape":[1],"dtype":"bf16"},` +
				`{"name":"t3","shape":[1],"dtype":"f64"},{"name":"t4","shape":[1],"dtype":"i64"},{"name":"t5","shape":[1],"dtype":"i32"},` +
				`{"name":"t6","shape":[1],"dtype":"i16"},{"name":"t7","shape":[1],"dtype":"i8"},{"name":"t8","shape":[1],"dtype":"u8"},` +
				`{"name":"t9","shape":[1],"dtype":"bool","pin":0,"pin_producers":false}]}]}` + "\r\n",
			nodes: []nodeWant{{"iné\"q", NoAlias, "nodes[0]"}},
			check: func(t *testing.T, g *Graph) {
				var got []DType
				for _, o := range g.Nodes[0].Outputs {
					got = append(got, o.DType)
				}
				if want := []DType{F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool}; !reflect.DeepEqual(got, want) {
					t.Errorf("dtypes %v, want %v", got, want)
				}
				if g.Symbols["b"] != 0 || g.Symbols["s"] != 3 {
					t.Errorf("symbols %v", g.Symbols)
				}
			},
		},
		{
			name:  "byte order mark",
			in:    "\ufeff" + graphOf(nX, ""),
			nodes: []nodeWant{{"x", NoAlias, "nodes[0]"}},
		},
		{
			name:  "empty graph",
			in:    `{"format":"memplan.graph/v1","nodes":[],"outputs":[],"schedule":[]}`,
			nodes: []nodeWant{},
		},
		{
			name:  "reshape from symbolic",
			in:    graphOf(nX+`,{"name":"r","op":"reshape","inputs":["x"],"shape":[4,"batch"],"dtype":"f32"}`, ""),
			nodes: []nodeWant{{"x", NoAlias, "nodes[0]"}, {"r", AliasWhole, "nodes[1]"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := DecodeGraph("g.json", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Nodes) != len(tc.nodes) {
				t.Fatalf("%d nodes, want %d", len(g.Nodes), len(tc.nodes))
			}
			for i, w := range tc.nodes {
				n := g.Nodes[i]
				if n.Name != w.name || n.Alias != w.alias || n.Path != w.path {
					t.Errorf("step %d: %s alias %d path %s, want %s alias %d path %s", i, n.Name, n.Alias, n.Path, w.name, w.alias, w.path)
				}
			}
			if err := g.Validate(); err != nil {
				t.Errorf("Validate after decode: %v", err)
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"shpae", "shape"},   // swap
		{"dtpye", "dtype"},   // swap
		{"inputz", "inputs"}, // substitution
		{"pin_producer", "pin_producers"},
		{"outptus", "outputs"},
		{"colour", ""}, // nothing close
		{"ln", "len"},
		{"zz", ""}, // too short to guess from
		{"x", ""},
		{strings.Repeat("a", 100), ""},
	} {
		if got := nearest(tc.in, nodeFields); got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLookupPath(t *testing.T) {
	in := `{"a":{"b c":[1,{"d":2}],"e\"]":3}}`
	root, perr := parseJSON([]byte(in))
	if perr != nil {
		t.Fatal(perr.msg)
	}
	for _, tc := range []struct{ path, at string }{
		{"", `{"a"`},
		{"a", `{"b c"`},
		{`a["b c"][1].d`, `2}`},
		{`a["b c"][0]`, `1,`},
		{`a["b c"][7]`, `[1,`},        // missing index: deepest value
		{`a.zz.yy`, `{"b c"`},         // missing key
		{`a["e\"]"]`, `3}`},           // quoted key with a quote
		{`a["unterminated`, `{"b c"`}, // malformed path
	} {
		v := root.lookup(tc.path)
		if want := strings.Index(in, tc.at); v == nil || v.off != want {
			t.Errorf("lookup(%q) = %v, want offset %d", tc.path, v, want)
		}
	}
}

func TestDecodeDispatch(t *testing.T) {
	in := []byte(`{"format":"memplan.graph/v1","nodes":[{"name":"x","op":"input","shape":[2],"dtype":"u8"}]}`)
	for _, name := range []string{"g.json", "G.JSON", "noext"} {
		src, err := Decode(name, in, DecodeOptions{})
		if err != nil || src.Graph == nil || src.Buffers != nil {
			t.Fatalf("%s: %+v %v", name, src, err)
		}
		// Symbols is never nil, so callers may add bindings.
		if src.Graph.Symbols == nil {
			t.Errorf("%s: nil Symbols", name)
		}
	}
	_, err := Decode("g.json", in[:20], DecodeOptions{})
	var e *Error
	if !errors.As(err, &e) || e.File != "g.json" || e.Line != 1 || e.Column != 21 {
		t.Errorf("truncated through Decode: %#v", err)
	}
}

// bigGraph is a graph file of n chained nodes with views and symbols.
func bigGraph(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"format":"memplan.graph/v1","symbols":{"batch":8},"nodes":[` + "\n")
	b.WriteString(`{"name":"t0","op":"input","shape":["batch",64],"dtype":"f32"}`)
	for i := 1; i < n; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&b, ",\n{\"name\":\"t%d\",\"op\":\"reshape\",\"inputs\":[\"t%d\"],\"shape\":[64,\"batch\"],\"dtype\":\"f32\"}", i, i-1)
		} else {
			fmt.Fprintf(&b, ",\n{\"name\":\"t%d\",\"op\":\"relu\",\"inputs\":[\"t%d\"],\"shape\":[\"batch\",64],\"dtype\":\"f32\"}", i, i-1)
		}
	}
	fmt.Fprintf(&b, "\n],\"outputs\":[\"t%d\"]}\n", n-1)
	return []byte(b.String())
}

func TestDecodeGraphLarge(t *testing.T) {
	g, err := DecodeGraph("big.json", bigGraph(20000))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 20000 || g.Nodes[3].Alias != AliasWhole || g.Nodes[19999].Path != "nodes[19999]" {
		t.Errorf("%d nodes, node 3 alias %d", len(g.Nodes), g.Nodes[3].Alias)
	}
}

func BenchmarkDecodeGraph(b *testing.B) {
	data := bigGraph(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeGraph("big.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
