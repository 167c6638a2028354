package onnx

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"memplan/ir"

	"google.golang.org/protobuf/encoding/protowire"
)

// A tiny ModelProto writer for hand-made test graphs.

type pb []byte

func (b pb) str(num protowire.Number, s string) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func (b pb) i64(num protowire.Number, v int64) pb {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func (b pb) msg(num protowire.Number, m pb) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// vinfo is a ValueInfoProto; dims are int (dim_value), string
// (dim_param) or nil (neither).
func vinfo(name string, elem int64, dims ...any) pb {
	var shape pb
	for _, d := range dims {
		var dim pb
		switch d := d.(type) {
		case int:
			dim = dim.i64(1, int64(d))
		case string:
			dim = dim.str(2, d)
		}
		shape = shape.msg(1, dim)
	}
	tt := pb{}.i64(1, elem)
	if len(dims) > 0 { // no dims: no shape at all (unknown rank)
		tt = tt.msg(2, shape)
	}
	return pb{}.str(1, name).msg(2, pb{}.msg(1, tt))
}

// scalar is a ValueInfoProto with a rank-0 shape.
func scalar(name string, elem int64) pb {
	tt := pb{}.i64(1, elem).msg(2, pb{})
	return pb{}.str(1, name).msg(2, pb{}.msg(1, tt))
}

// tproto is a TensorProto with int64_data (unpacked) or no data.
func tproto(name string, elem int64, dims []int64, vals ...int64) pb {
	var t pb
	for _, d := range dims {
		t = t.i64(1, d)
	}
	t = t.i64(2, elem)
	for _, v := range vals {
		t = t.i64(7, v)
	}
	return t.str(8, name)
}

// ftproto is a 1-D float TensorProto with its values in raw_data.
func ftproto(name string, vals ...float32) pb {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	t := pb{}.i64(1, int64(len(vals))).i64(2, tFloat).str(8, name)
	t = protowire.AppendTag(t, 9, protowire.BytesType)
	return protowire.AppendBytes(t, raw)
}

type attrFn func(pb) pb

func aInt(name string, v int64) attrFn {
	return func(b pb) pb { return b.msg(5, pb{}.str(1, name).i64(20, 2).i64(3, v)) }
}

func aInts(name string, vs ...int64) attrFn {
	return func(b pb) pb {
		a := pb{}.str(1, name).i64(20, 7)
		for _, v := range vs {
			a = a.i64(8, v)
		}
		return b.msg(5, a)
	}
}

func aFloat(name string, v float32) attrFn {
	return func(b pb) pb {
		a := pb{}.str(1, name).i64(20, 1)
		a = protowire.AppendTag(a, 2, protowire.Fixed32Type)
		a = protowire.AppendFixed32(a, math.Float32bits(v))
		return b.msg(5, a)
	}
}

func aStr(name, v string) attrFn {
	return func(b pb) pb { return b.msg(5, pb{}.str(1, name).i64(20, 3).str(4, v)) }
}

func aTensor(name string, t pb) attrFn {
	return func(b pb) pb { return b.msg(5, pb{}.str(1, name).i64(20, 4).msg(5, t)) }
}

func aGraph(name string, g pb) attrFn {
	return func(b pb) pb { return b.msg(5, pb{}.str(1, name).i64(20, 5).msg(6, g)) }
}

func nodeP(op string, ins, outs []string, attrs ...attrFn) pb {
	var n pb
	for _, in := range ins {
		n = n.str(1, in)
	}
	for _, o := range outs {
		n = n.str(2, o)
	}
	n = n.str(4, op)
	for _, a := range attrs {
		n = a(n)
	}
	return n
}

// graphP assembles a GraphProto from parts tagged by field: nodes (1),
// initializers (5), inputs (11), outputs (12), value_info (13).
type part struct {
	field protowire.Number
	body  pb
}

func op(op string, ins, outs []string, attrs ...attrFn) part {
	return part{1, nodeP(op, ins, outs, attrs...)}
}
func initz(t pb) part  { return part{5, t} }
func input(v pb) part  { return part{11, v} }
func output(v pb) part { return part{12, v} }
func vi(v pb) part     { return part{13, v} }

func graphP(parts ...part) pb {
	g := pb{}.str(2, "test")
	for _, p := range parts {
		g = g.msg(p.field, p.body)
	}
	return g
}

func modelP(opset int64, parts ...part) []byte {
	m := pb{}.i64(1, 8).str(2, "memplan-test")
	m = m.msg(7, graphP(parts...))
	return m.msg(8, pb{}.str(1, "").i64(2, opset))
}

// msOp is a node of onnxruntime's com.microsoft domain.
func msOp(op string, ins, outs []string, attrs ...attrFn) part {
	return part{1, nodeP(op, ins, outs, attrs...).str(7, msDomain)}
}

// modelMS is modelP importing com.microsoft too.
func modelMS(opset int64, parts ...part) []byte {
	return append(modelP(opset, parts...), pb{}.msg(8, pb{}.str(1, msDomain).i64(2, 1))...)
}

// ruleCase is one table row of the op families' tests: a model, and the
// shape and dtype each named tensor must get; a want of nil means the
// decode must fail with an error containing errSub.
type ruleCase struct {
	name   string
	model  []byte
	want   map[string]wantTensor
	errSub string
}

type wantTensor struct {
	shape []int64
	dtype ir.DType
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode("rule.onnx", tc.model, ir.DecodeOptions{})
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("error %v, want one containing %q", err, tc.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range tc.want {
				tt, _ := g.Tensor(name)
				if tt == nil {
					t.Fatalf("no tensor %q", name)
				}
				dims, err := g.Bind(tt.Shape, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(dims, w.shape) || tt.DType != w.dtype {
					t.Errorf("%s: %v %s, want %v %s", name, dims, tt.DType, w.shape, w.dtype)
				}
			}
		})
	}
}
