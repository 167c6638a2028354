//go:build !js

package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// A model builder for the onnxruntime oracle: graph inputs whose dims are
// numbers or dim_params, initializers of any element type with real
// bytes, nodes in any domain, and graph outputs that declare only their
// element type, so that their shapes come from inference alone.

// ONNX element types, by their TensorProto.DataType numbers.
const (
	elF32  int64 = 1
	elU8   int64 = 2
	elI8   int64 = 3
	elU16  int64 = 4
	elI16  int64 = 5
	elI32  int64 = 6
	elI64  int64 = 7
	elBool int64 = 9
	elF16  int64 = 10
	elF64  int64 = 11
	elU32  int64 = 12
	elU64  int64 = 13
	elU4   int64 = 21
	elI4   int64 = 22
)

// elBits is the width of one element in bits.
var elBits = map[int64]int64{elF32: 32, elU8: 8, elI8: 8, elU16: 16, elI16: 16, elI32: 32, elI64: 64,
	elBool: 8, elF16: 16, elF64: 64, elU32: 32, elU64: 64, elU4: 4, elI4: 4}

// elOnnx is the TensorProto name of each element type, as the oracle
// script reads and writes them.
var elOnnx = map[int64]string{elF32: "float", elU8: "uint8", elI8: "int8", elU16: "uint16", elI16: "int16",
	elI32: "int32", elI64: "int64", elBool: "bool", elF16: "float16", elF64: "double", elU32: "uint32",
	elU64: "uint64", elU4: "uint4", elI4: "int4"}

// oxModel is a model under construction.
type oxModel struct {
	opsets  []oxOpset
	nodes   []pb
	inits   []pb
	inputs  []oxInput
	outputs []pb
	feeds   map[string]oxFeed
	names   map[string]bool // every initializer and input, to catch a typo twice defined
	// shapes maps a 4-bit output to the Shape of it the model also
	// outputs: onnxruntime-node cannot return 4-bit tensors.
	shapes map[string]string
}

type oxOpset struct {
	domain  string
	version int64
}

// oxInput is a graph input: its dims are int (dim_value) or string
// (dim_param, bound from the case's symbols when fed).
type oxInput struct {
	name   string
	elem   int64
	dims   []any
	scalar bool // rank 0; no dims and not scalar is an unknown rank
}

// oxFeed gives an input values other than zeros: one value everywhere,
// or every element.
type oxFeed struct {
	fill   *float64
	values []float64
}

func newModel(opset int64) *oxModel {
	return &oxModel{opsets: []oxOpset{{"", opset}}, feeds: map[string]oxFeed{}, names: map[string]bool{}, shapes: map[string]string{}}
}

// use imports another operator set, com.microsoft for onnxruntime's
// contrib ops.
func (m *oxModel) use(domain string, version int64) *oxModel {
	m.opsets = append(m.opsets, oxOpset{domain, version})
	return m
}

func (m *oxModel) define(name string) string {
	if m.names[name] {
		panic(fmt.Sprintf("test model defines %q twice", name))
	}
	m.names[name] = true
	return name
}

// in adds a graph input and returns its name.
func (m *oxModel) in(name string, elem int64, dims ...any) string {
	m.inputs = append(m.inputs, oxInput{name: m.define(name), elem: elem, dims: dims})
	return name
}

// scalarIn adds a rank-0 graph input.
func (m *oxModel) scalarIn(name string, elem int64) string {
	m.inputs = append(m.inputs, oxInput{name: m.define(name), elem: elem, scalar: true})
	return name
}

// fill feeds input name with v in every element.
func (m *oxModel) fill(name string, v float64) {
	m.feeds[name] = oxFeed{fill: &v}
}

// values feeds input name with exactly these elements.
func (m *oxModel) values(name string, vs ...float64) {
	m.feeds[name] = oxFeed{values: vs}
}

// out makes tensors graph outputs, intermediates included. A 4-bit
// output gets its Shape as an output too, through which the oracle reads
// its dims; onnxruntime's CPU Shape takes no 4-bit input, so the Shape is
// of an 8-bit Cast of it.
func (m *oxModel) out(elem int64, names ...string) {
	for _, n := range names {
		m.outputs = append(m.outputs, pb{}.str(1, n).msg(2, pb{}.msg(1, pb{}.i64(1, elem))))
		if elBits[elem] == 4 {
			m.shapes[n] = n + "_shape"
			m.op("Cast", []string{n}, []string{n + "_8bit"}, aInt("to", elI8))
			m.op("Shape", []string{n + "_8bit"}, []string{n + "_shape"})
			m.out(elI64, n+"_shape")
		}
	}
}

// w adds an initializer of zeros.
func (m *oxModel) w(name string, elem int64, dims ...int64) string {
	return m.wv(name, elem, dims)
}

// wv adds an initializer holding vals, then zeros.
func (m *oxModel) wv(name string, elem int64, dims []int64, vals ...float64) string {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	t := pb{}
	for _, d := range dims {
		t = t.i64(1, d)
	}
	t = t.i64(2, elem).str(8, m.define(name))
	t = protowire.AppendTag(t, 9, protowire.BytesType)
	m.inits = append(m.inits, protowire.AppendBytes(t, encodeElems(elem, n, vals)))
	return name
}

// encodeElems is the raw_data of n elements, vals first, then zeros;
// 4-bit types pack two per byte, low nibble first.
func encodeElems(elem, n int64, vals []float64) []byte {
	bits, ok := elBits[elem]
	if !ok {
		panic(fmt.Sprintf("no encoding for element type %d", elem))
	}
	raw := make([]byte, (n*bits+7)/8)
	for i, v := range vals {
		switch elem {
		case elF32:
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(v)))
		case elF64:
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
		case elF16:
			binary.LittleEndian.PutUint16(raw[2*i:], f16Bits(float32(v)))
		case elI64, elU64:
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(int64(v)))
		case elI32, elU32:
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(int32(v)))
		case elI16, elU16:
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(int16(v)))
		case elI8, elU8, elBool:
			raw[i] = byte(int8(v))
		case elI4, elU4:
			raw[i/2] |= (byte(int8(v)) & 0xf) << (4 * (i % 2))
		}
	}
	return raw
}

// f16Bits converts to IEEE half precision, rounding to nearest even.
func f16Bits(f float32) uint16 {
	x := math.Float32bits(f)
	sign := uint16(x>>16) & 0x8000
	exp := int32(x>>23) & 0xff
	mant := x & 0x7fffff
	switch {
	case exp == 0xff: // Inf, NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15:
		return sign | 0x7c00
	case exp-127 < -25:
		return sign
	}
	e := exp - 127 + 15
	shift := uint32(13)
	if e <= 0 { // subnormal: make the implicit bit explicit and shift it in
		mant |= 0x800000
		shift = uint32(14 - e)
		e = 0
	}
	h := uint32(e)<<10 | mant>>shift
	rem, half := mant&(1<<shift-1), uint32(1)<<(shift-1)
	if rem > half || rem == half && h&1 == 1 {
		h++ // a carry into the exponent is the right rounding too
	}
	return sign | uint16(h)
}

// node adds a node of domain ("" = ai.onnx); an empty input name is an
// absent optional input, an empty output name an output not asked for.
func (m *oxModel) node(domain, op string, ins, outs []string, attrs ...attrFn) {
	n := nodeP(op, ins, outs, attrs...).str(3, fmt.Sprintf("%s_%d", op, len(m.nodes)))
	if domain != "" {
		n = n.str(7, domain)
	}
	m.nodes = append(m.nodes, n)
}

// op adds a node of the default domain.
func (m *oxModel) op(op string, ins, outs []string, attrs ...attrFn) {
	m.node("", op, ins, outs, attrs...)
}

// ms adds a com.microsoft node.
func (m *oxModel) ms(op string, ins, outs []string, attrs ...attrFn) {
	m.node("com.microsoft", op, ins, outs, attrs...)
}

// bytes is the ModelProto. The IR version follows the newest default
// opset, as the ONNX exporters set it.
func (m *oxModel) bytes() []byte {
	g := pb{}.str(2, "ortoracle")
	for _, n := range m.nodes {
		g = g.msg(1, n)
	}
	for _, t := range m.inits {
		g = g.msg(5, t)
	}
	for _, in := range m.inputs {
		if in.scalar {
			g = g.msg(11, scalar(in.name, in.elem))
		} else {
			g = g.msg(11, vinfo(in.name, in.elem, in.dims...))
		}
	}
	for _, o := range m.outputs {
		g = g.msg(12, o)
	}
	ir := int64(10)
	switch v := m.opsets[0].version; {
	case v >= 24:
		ir = 12
	case v == 23:
		ir = 11
	}
	b := pb{}.i64(1, ir).str(2, "memplan-ortoracle")
	b = b.msg(7, g)
	for _, o := range m.opsets {
		b = b.msg(8, pb{}.str(1, o.domain).i64(2, o.version))
	}
	return b
}
