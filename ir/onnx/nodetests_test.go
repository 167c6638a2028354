//go:build !js

package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"memplan/ir"
	"memplan/planner"
)

// ONNX's own node tests as an oracle. Each is a one-node model (or the
// node's function, expanded) with its inputs and the outputs ONNX's
// reference implementation computed, as TensorProto files. Every test is
// decoded with its graph inputs bound to the recorded inputs' dims and
// types, and planned; each graph output's shape, dtype and size in the
// plan must equal the recorded output's, or the whole model must be a
// refusal: an *ir.Error with a place. A wrong answer or a panic fails.
//
// Two passes: "declared" keeps the models' declared output types and
// shapes (which the decoder trusts over its inference, with a note), and
// "inferred" removes them and all value_info of the main graph, so every
// output comes from memplan's own shape rules.
//
// The tests come from Debian's libonnx-testdata (not under js: the wasm
// test runner cannot reach them). ONNX_NODE_TESTS may name another copy
// of onnx/backend/test/data/node.

const nodeTestsDir = "/usr/share/libonnx-testdata/data/node"

// expectTypes is what each ONNX element type must plan as: memplan's
// dtype name and the width of one element, written out here rather than
// taken from the decoder, so the oracle does not lean on the code it
// checks. Types missing here (string, complex) cannot be planned.
var expectTypes = map[int64]struct {
	name string
	bits int64
}{
	1: {"f32", 32}, 2: {"u8", 8}, 3: {"i8", 8}, 4: {"u16", 16}, 5: {"i16", 16}, 6: {"i32", 32},
	7: {"i64", 64}, 9: {"bool", 8}, 10: {"f16", 16}, 11: {"f64", 64}, 12: {"u32", 32}, 13: {"u64", 64},
	16: {"bf16", 16}, 17: {"f8e4m3fn", 8}, 18: {"f8e4m3fnuz", 8}, 19: {"f8e5m2", 8}, 20: {"f8e5m2fnuz", 8},
	21: {"u4", 4}, 22: {"i4", 4}, 23: {"f4e2m1", 4}, 24: {"f8e8m0", 8},
}

// refusalFamilies sorts refusals by what they are, each with why it is
// legitimate or what is missing. Models with values that are not tensors,
// or with string or complex tensors, are families of their own; then the
// first family whose pattern matches the error wins, $1 of its pattern
// (an op or domain) added to its name.
var refusalFamilies = []struct {
	name    string
	pattern *regexp.Regexp
	why     string
}{
	{"loop-carried values without shapes", regexp.MustCompile(`declares no shape for loop-carried value`),
		"legitimate: a Loop body that does not declare a carried value's shape may change it every iteration"},
	{"Loop scan outputs", regexp.MustCompile(`is a scan output, whose shape memplan does not infer`),
		"legitimate: their length is the number of iterations, which the trip count and condition decide at run time"},
	{"shape from the values of graph inputs", regexp.MustCompile(`is not a constant memplan can compute`),
		"legitimate: the output's shape depends on values given at run time (a graph input's), which memplan does not read"},
	{"length counted in the data", regexp.MustCompile(`depends on the values of input \d+, known only at run time`),
		"legitimate: the output's length counts something in its inputs' values (true conditions, non-zero or distinct elements, boxes kept)"},
	{"no shape rule for the domain", regexp.MustCompile(`lacks a shape rule for the op \S+ of domain "([^"]*)"`),
		"a missing rule"},
	{"no shape rule for", regexp.MustCompile(`lacks a shape rule for the op ([A-Za-z0-9_.]+)`),
		"a missing rule"},
}

const (
	nonTensorFamily = "sequence, optional or map values"
	stringFamily    = "string or complex tensors"
)

type nodeTest struct {
	inputs, output []valueType // graph inputs (not initializers) and outputs
}

// valueType is a ValueInfoProto as far as the oracle needs it.
type valueType struct {
	name     string
	isTensor bool
	elem     int64 // the declared element type of a tensor, 0 if none
}

type recorded struct {
	dims  []int64
	dtype int64
}

// nodeTally counts one pass's results.
type nodeTally struct {
	exact, refused, wrong, crashed int
	families                       map[string][]string
	disagree                       []string // declared pass: inference disagreed with the file
}

func TestONNXNodeTests(t *testing.T) {
	root := os.Getenv("ONNX_NODE_TESTS")
	if root == "" {
		root = nodeTestsDir
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("ONNX's node tests are not at %s (%v): install the Debian package libonnx-testdata, or set ONNX_NODE_TESTS to a copy of onnx/backend/test/data/node", root, err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "test_") {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no node tests under %s: install the Debian package libonnx-testdata", root)
	}
	for _, pass := range []string{"declared", "inferred"} {
		t.Run(pass, func(t *testing.T) {
			tally := nodeTally{families: map[string][]string{}}
			for _, name := range dirs {
				nt, model, outs, ins, err := loadNodeTest(filepath.Join(root, name))
				if err != nil {
					t.Errorf("%s: the test data: %v", name, err)
					continue
				}
				bound, err := bindInputs(model, ins, pass == "inferred")
				if err != nil {
					t.Errorf("%s: rewriting the inputs: %v", name, err)
					continue
				}
				res, detail, notes := runNodeTest(nt, bound, outs)
				switch res {
				case "exact":
					tally.exact++
					if strings.Contains(notes, "value_info disagrees") {
						tally.disagree = append(tally.disagree, name)
					}
				case "refused":
					tally.refused++
					fam := refusalFamily(nt, detail)
					tally.families[fam] = append(tally.families[fam], name)
				case "wrong":
					tally.wrong++
					t.Errorf("%s: WRONG (%s pass; if the shape rule is in infer.go, it is that rule's bug): %s", name, pass, detail)
				case "crashed":
					tally.crashed++
					t.Errorf("%s: CRASHED (%s pass): %s", name, pass, detail)
				}
			}
			total := tally.exact + tally.refused + tally.wrong + tally.crashed
			t.Logf("ONNX node tests, %s pass: %d in all: %d exact, %d refused, %d wrong, %d crashed",
				pass, total, tally.exact, tally.refused, tally.wrong, tally.crashed)
			logFamilies(t, tally.families)
			if len(tally.disagree) > 0 {
				t.Logf("exact, but only because the file's declared shapes won over inference (%d): %s", len(tally.disagree), strings.Join(tally.disagree, " "))
			}
			// Refusing is always safe, so refusing everything would pass
			// the checks above: most of these tests must plan exactly. (With
			// ONNX 1.12's tests, 95% and 71% do.)
			if floor := map[string]int{"declared": 90, "inferred": 65}[pass]; tally.exact*100 < total*floor {
				t.Errorf("only %d of %d node tests plan exactly in the %s pass; want at least %d%%", tally.exact, total, pass, floor)
			}
		})
	}
}

func refusalFamily(nt *nodeTest, msg string) string {
	for _, v := range slices.Concat(nt.inputs, nt.output) {
		switch {
		case !v.isTensor:
			return nonTensorFamily
		case v.elem == 8 || v.elem == 14 || v.elem == 15:
			return stringFamily
		}
	}
	for _, f := range refusalFamilies {
		if m := f.pattern.FindStringSubmatch(msg); m != nil {
			if len(m) > 1 {
				return f.name + " " + m[1]
			}
			return f.name
		}
	}
	return "unsorted: " + msg
}

// familyWhy says why a family's refusals are legitimate, or that they
// are not.
func familyWhy(f string) string {
	switch f {
	case nonTensorFamily:
		return "legitimate: not tensors, and memplan plans tensors"
	case stringFamily:
		return "legitimate: no fixed element size, and no WebGPU buffer holds them"
	}
	if strings.HasPrefix(f, "no shape rule for ") {
		return "NOT legitimate: a missing shape rule, the outputs following from the input shapes and attributes"
	}
	for _, k := range refusalFamilies {
		if strings.HasPrefix(f, k.name) {
			return k.why
		}
	}
	return "not sorted: read the message"
}

func logFamilies(t *testing.T, families map[string][]string) {
	names := make([]string, 0, len(families))
	for f := range families {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := families[names[i]], families[names[j]]
		return len(a) > len(b) || len(a) == len(b) && names[i] < names[j]
	})
	for _, f := range names {
		t.Logf("refused, %s (%s): %d: %s", f, familyWhy(f), len(families[f]), strings.Join(families[f], " "))
	}
}

// loadNodeTest reads a node test: its model, graph inputs and outputs,
// and the recorded tensors (nil where a value is not a tensor).
func loadNodeTest(dir string) (nt *nodeTest, model []byte, outs, ins []*recorded, err error) {
	model, err = os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if nt, err = readNodeTest(model); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("model.onnx: %v", err)
	}
	set := filepath.Join(dir, "test_data_set_0")
	ins = make([]*recorded, len(nt.inputs))
	for i, in := range nt.inputs {
		if in.isTensor {
			if ins[i], err = readRecorded(filepath.Join(set, fmt.Sprintf("input_%d.pb", i))); err != nil {
				return nil, nil, nil, nil, err
			}
		}
	}
	if _, err := os.Stat(filepath.Join(set, fmt.Sprintf("input_%d.pb", len(nt.inputs)))); err == nil {
		return nil, nil, nil, nil, fmt.Errorf("more recorded inputs than the model's %d graph inputs", len(nt.inputs))
	}
	outs = make([]*recorded, len(nt.output))
	for i, o := range nt.output {
		if o.isTensor {
			if outs[i], err = readRecorded(filepath.Join(set, fmt.Sprintf("output_%d.pb", i))); err != nil {
				return nil, nil, nil, nil, err
			}
		}
	}
	return nt, model, outs, ins, nil
}

// runNodeTest decodes and plans one bound model and compares its outputs
// with the recorded ones: "exact", "refused", "wrong" or "crashed", with
// a detail, and the plan's notes.
func runNodeTest(nt *nodeTest, model []byte, outs []*recorded) (res, detail, notes string) {
	defer func() {
		if p := recover(); p != nil {
			res, detail = "crashed", fmt.Sprint(p)
		}
	}()
	const file = "model.onnx"
	g, err := Decode(file, model, ir.DecodeOptions{})
	var p *planner.Problem
	if err == nil {
		notes = strings.Join(g.Notes, "; ")
		p, err = planner.Analyze(g, planner.DefaultOptions())
	}
	if err != nil {
		var e *ir.Error
		if !errors.As(err, &e) || e.File != file || e.Path == "" && e.Node == "" && !e.HasOffset {
			return "wrong", fmt.Sprintf("refused without a place (%T): %v", err, err), ""
		}
		return "refused", err.Error(), ""
	}
	var bad []string
	for i, o := range nt.output {
		var got *planner.TensorInfo
		for k := range p.Tensors {
			if p.Tensors[k].Name == o.name {
				got = &p.Tensors[k]
			}
		}
		switch {
		case got == nil:
			bad = append(bad, fmt.Sprintf("output %s is not in the plan", ir.Quote(o.name)))
			continue
		case outs[i] == nil:
			bad = append(bad, fmt.Sprintf("output %s is not a tensor in ONNX, but planned as %v %s", ir.Quote(o.name), got.Shape, got.DType))
			continue
		}
		want := outs[i]
		et, ok := expectTypes[recordedType(want, o)]
		if !ok {
			bad = append(bad, fmt.Sprintf("output %s is ONNX type %d, which memplan cannot plan, but planned as %v %s", ir.Quote(o.name), want.dtype, got.Shape, got.DType))
			continue
		}
		n := int64(1)
		for _, d := range want.dims {
			n *= d
		}
		size := (n*et.bits + 7) / 8
		if !slices.Equal(got.Shape, want.dims) || got.DType != et.name || got.Size != size {
			bad = append(bad, fmt.Sprintf("output %s: memplan %v %s %d bytes, ONNX %v %s %d bytes",
				ir.Quote(o.name), got.Shape, got.DType, got.Size, want.dims, et.name, size))
		}
	}
	if len(bad) > 0 {
		return "wrong", strings.Join(bad, "; ") + nodeOps(g), notes
	}
	return "exact", "", notes
}

// nodeOps names the ops of a wrong model, so its failure says which shape
// rule to look at.
func nodeOps(g *ir.Graph) string {
	var ops []string
	for _, n := range g.Nodes {
		switch n.Op {
		case ir.OpInput, ir.OpParam, ir.OpConstant:
		default:
			ops = append(ops, n.Op)
		}
	}
	return " (shape rule of " + strings.Join(ops, ", ") + ")"
}

// field is one field of a message: its number, wire type, value (x for
// varints, v for bytes) and its whole encoding, tag included.
type field struct {
	num protowire.Number
	typ protowire.Type
	x   uint64
	v   []byte
	raw []byte
}

// fields calls fn for each field of the message in b.
func fields(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		f := field{num: num, typ: typ}
		m := 0
		switch typ {
		case protowire.VarintType:
			f.x, m = protowire.ConsumeVarint(b[n:])
		case protowire.BytesType:
			f.v, m = protowire.ConsumeBytes(b[n:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, b[n:])
		}
		if m < 0 {
			return protowire.ParseError(m)
		}
		f.raw, b = b[:n+m], b[n+m:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// graphOf returns the GraphProto of a ModelProto.
func graphOf(model []byte) ([]byte, error) {
	var g []byte
	err := fields(model, func(f field) error {
		if f.num == 7 {
			g = f.v
		}
		return nil
	})
	if err == nil && g == nil {
		err = errors.New("no graph")
	}
	return g, err
}

// initNames is the names of a GraphProto's initializers.
func initNames(g []byte) (map[string]bool, error) {
	inits := map[string]bool{}
	err := fields(g, func(f field) error {
		if f.num != 5 {
			return nil
		}
		return fields(f.v, func(t field) error {
			if t.num == 8 {
				inits[string(t.v)] = true
			}
			return nil
		})
	})
	return inits, err
}

// readNodeTest lists a model's graph inputs (less initializers) and
// outputs, and whether each is a tensor.
func readNodeTest(model []byte) (*nodeTest, error) {
	g, err := graphOf(model)
	if err != nil {
		return nil, err
	}
	inits, err := initNames(g)
	if err != nil {
		return nil, err
	}
	nt := &nodeTest{}
	err = fields(g, func(f field) error {
		if f.num != 11 && f.num != 12 {
			return nil
		}
		vt, err := readValueType(f.v)
		switch {
		case f.num == 12:
			nt.output = append(nt.output, vt)
		case !inits[vt.name]:
			nt.inputs = append(nt.inputs, vt)
		}
		return err
	})
	return nt, err
}

func readValueType(vi []byte) (valueType, error) {
	var vt valueType
	err := fields(vi, func(f field) error {
		switch f.num {
		case 1:
			vt.name = string(f.v)
		case 2: // TypeProto: tensor_type is field 1, its elem_type field 1
			return fields(f.v, func(t field) error {
				if t.num != 1 {
					return nil
				}
				vt.isTensor = true
				return fields(t.v, func(e field) error {
					if e.num == 1 {
						vt.elem = int64(e.x)
					}
					return nil
				})
			})
		}
		return nil
	})
	return vt, err
}

// recordedType is the ONNX element type of a recorded tensor. ONNX 1.12
// recorded bfloat16 tensors as their uint16 bits (numpy has no bfloat16)
// where the model declares them bfloat16: the declaration says which.
func recordedType(r *recorded, declared valueType) int64 {
	if r.dtype == 4 && declared.elem == 16 {
		return 16
	}
	return r.dtype
}

// readRecorded reads a TensorProto file's dims and data_type.
func readRecorded(path string) (*recorded, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &recorded{dims: []int64{}}
	err = fields(b, func(f field) error {
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			r.dims = append(r.dims, int64(f.x))
		case f.num == 1 && f.typ == protowire.BytesType: // packed
			for v := f.v; len(v) > 0; {
				d, n := protowire.ConsumeVarint(v)
				if n < 0 {
					return protowire.ParseError(n)
				}
				r.dims, v = append(r.dims, int64(d)), v[n:]
			}
		case f.num == 2:
			r.dtype = int64(f.x)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r, nil
}

// bindInputs rewrites the model's graph inputs that have a recorded
// tensor (ins, in the order of the non-initializer inputs) to that
// tensor's type and static dims. With strip, the graph outputs keep only
// their names and the main graph's value_info goes, so that nothing but
// inference sizes them. Every other field is copied as it is.
func bindInputs(model []byte, ins []*recorded, strip bool) ([]byte, error) {
	var out []byte
	err := fields(model, func(mf field) error {
		if mf.num != 7 {
			out = append(out, mf.raw...)
			return nil
		}
		inits, err := initNames(mf.v)
		if err != nil {
			return err
		}
		var g pb
		k := 0
		err = fields(mf.v, func(f field) error {
			switch {
			case strip && f.num == 13:
				return nil
			case strip && f.num == 12:
				vt, err := readValueType(f.v)
				g = g.msg(12, pb{}.str(1, vt.name))
				return err
			case f.num != 11:
				g = append(g, f.raw...)
				return nil
			}
			vt, err := readValueType(f.v)
			if err != nil {
				return err
			}
			if inits[vt.name] {
				g = append(g, f.raw...)
				return nil
			}
			r := ins[k]
			k++
			if r == nil { // not a tensor: left as the model has it
				g = append(g, f.raw...)
				return nil
			}
			var shape pb
			for _, d := range r.dims {
				shape = shape.msg(1, pb{}.i64(1, d))
			}
			tt := pb{}.i64(1, recordedType(r, vt)).msg(2, shape)
			g = g.msg(11, pb{}.str(1, vt.name).msg(2, pb{}.msg(1, tt)))
			return nil
		})
		out = pb(out).msg(7, g)
		return err
	})
	return out, err
}
