package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The subset of onnx.proto that planning needs, decoded with wire.go.
// Field numbers follow onnx.proto (IR version 10); unknown fields are
// skipped so newer files still decode.

type model struct {
	irVersion int64
	opsets    map[string]int64 // domain ("" = ai.onnx) -> version
	graph     *graph
}

type graph struct {
	name      string
	nodes     []node
	inits     []tensor
	inputs    []valueInfo
	outputs   []valueInfo
	valueInfo []valueInfo
}

type node struct {
	inputs, outputs []string
	name, op        string
	domain          string
	attrs           []attr
	off             int64 // byte offset of the NodeProto, for errors
}

type attr struct {
	name   string
	typ    int64
	f      float32
	i      int64
	s      []byte
	t      *tensor
	g      *graph
	floats []float32
	ints   []int64
	graphs []*graph
}

// tensor is a TensorProto. Data fields alias the file's bytes.
type tensor struct {
	name     string
	dims     []int64
	dtype    int64
	raw      []byte
	hasRaw   bool
	floats   []float32
	int32s   []int64 // int32_data also carries int8/16, uint8/16, bool, f16
	int64s   []int64
	doubles  []float64
	uint64s  []uint64
	external bool
	// dataFile: the data lives in a file beside the model
	// (data_location EXTERNAL), which memplan does not read.
	dataFile bool
	off      int64
}

type valueInfo struct {
	name     string
	hasType  bool // a tensor_type was present
	elem     int64
	hasShape bool
	dims     []vdim
	// kind names a value that is not a tensor (a sequence, map, optional
	// or sparse tensor), for the message that memplan does not plan it.
	kind string
}

// vdim is one TensorShapeProto.Dimension: a value, a parameter, or neither.
type vdim struct {
	value    int64
	hasValue bool
	param    string
}

// maxDepth bounds subgraph nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// wireErr is a decoding failure at an absolute byte offset.
type wireErr struct {
	off int64
	msg string
}

func (e *wireErr) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

// walk calls fn for each field of the message in b, which starts at
// absolute offset base. For length-delimited fields v is the payload and
// voff its offset; for others x is the varint or fixed value.
func walk(b []byte, base int64, fn func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error) error {
	pos := 0
	for pos < len(b) {
		num, typ, n := consumeTag(b[pos:])
		if n < 0 {
			return &wireErr{base + int64(pos), "bad field tag: " + wireError(n)}
		}
		start := pos
		pos += n
		var x uint64
		var v []byte
		voff := base + int64(start) // the payload's offset for bytes fields

		switch typ {
		case varintType:
			x, n = consumeVarint(b[pos:])
		case fixed32Type:
			var y uint32
			y, n = consumeFixed32(b[pos:])
			x = uint64(y)
		case fixed64Type:
			x, n = consumeFixed64(b[pos:])
		case bytesType:
			_, m := consumeVarint(b[pos:])
			v, n = consumeBytes(b[pos:])
			voff = base + int64(pos+m)
		default:
			// Groups are not used by onnx.proto; skip them generically.
			n = consumeFieldValue(num, typ, b[pos:])
		}
		if n < 0 {
			msg := fmt.Sprintf("field %d: %v", num, wireError(n))
			if l, m := consumeVarint(b[pos:]); typ == bytesType && m > 0 {
				msg = fmt.Sprintf("field %d claims %d bytes but its message has %d left (truncated file?)", num, l, len(b)-pos-m)
			}
			return &wireErr{base + int64(start), msg}
		}
		pos += n
		if err := fn(num, typ, x, v, voff); err != nil {
			return err
		}
	}
	return nil
}

// ints appends the values of a repeated integer field, packed or not.
func ints(dst []int64, typ wireType, x uint64, v []byte, voff int64) ([]int64, error) {
	switch typ {
	case varintType:
		return append(dst, int64(x)), nil
	case bytesType:
		for pos := 0; pos < len(v); {
			y, n := consumeVarint(v[pos:])
			if n < 0 {
				return dst, &wireErr{voff + int64(pos), "bad packed varint"}
			}
			dst = append(dst, int64(y))
			pos += n
		}
		return dst, nil
	}
	return dst, &wireErr{voff, "wrong wire type for integer field"}
}

func floats32(dst []float32, typ wireType, x uint64, v []byte, voff int64) ([]float32, error) {
	switch typ {
	case fixed32Type:
		return append(dst, math.Float32frombits(uint32(x))), nil
	case bytesType:
		if len(v)%4 != 0 {
			return dst, &wireErr{voff, "packed float field length is not a multiple of 4"}
		}
		for i := 0; i < len(v); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(v[i:])))
		}
		return dst, nil
	}
	return dst, &wireErr{voff, "wrong wire type for float field"}
}

func fixed64s(dst []uint64, typ wireType, x uint64, v []byte, voff int64) ([]uint64, error) {
	switch typ {
	case fixed64Type:
		return append(dst, x), nil
	case bytesType:
		if len(v)%8 != 0 {
			return dst, &wireErr{voff, "packed fixed64 field length is not a multiple of 8"}
		}
		for i := 0; i < len(v); i += 8 {
			dst = append(dst, binary.LittleEndian.Uint64(v[i:]))
		}
		return dst, nil
	}
	return dst, &wireErr{voff, "wrong wire type for fixed64 field"}
}

func needBytes(typ wireType, voff int64, what string) error {
	if typ != bytesType {
		return &wireErr{voff, what + ": wrong wire type"}
	}
	return nil
}

func parseModel(b []byte) (*model, error) {
	m := &model{opsets: map[string]int64{}}
	err := walk(b, 0, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		switch num {
		case 1:
			m.irVersion = int64(x)
		case 7:
			if err := needBytes(typ, voff, "ModelProto.graph"); err != nil {
				return err
			}
			g, err := parseGraph(v, voff, 0)
			if err != nil {
				return err
			}
			m.graph = g
		case 8:
			if err := needBytes(typ, voff, "ModelProto.opset_import"); err != nil {
				return err
			}
			var domain string
			var version int64
			err := walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, _ int64) error {
				switch num {
				case 1:
					domain = string(v)
				case 2:
					version = int64(x)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if domain == "ai.onnx" {
				domain = ""
			}
			m.opsets[domain] = version
		}
		return nil
	})
	return m, err
}

func parseGraph(b []byte, base int64, depth int) (*graph, error) {
	if depth > maxDepth {
		return nil, &wireErr{base, "subgraphs nested too deeply"}
	}
	g := &graph{}
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		switch num {
		case 1, 5, 11, 12, 13, 15:
			if err := needBytes(typ, voff, "GraphProto field"); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			n, err := parseNode(v, voff, depth)
			if err != nil {
				return err
			}
			g.nodes = append(g.nodes, n)
		case 2:
			g.name = string(v)
		case 5:
			t, err := parseTensor(v, voff)
			if err != nil {
				return err
			}
			g.inits = append(g.inits, t)
		case 15:
			t, err := parseSparse(v, voff)
			if err != nil {
				return err
			}
			g.inits = append(g.inits, t)
		case 11, 12, 13:
			vi, err := parseValueInfo(v, voff)
			if err != nil {
				return err
			}
			switch num {
			case 11:
				g.inputs = append(g.inputs, vi)
			case 12:
				g.outputs = append(g.outputs, vi)
			default:
				g.valueInfo = append(g.valueInfo, vi)
			}
		}
		return nil
	})
	return g, err
}

func parseNode(b []byte, base int64, depth int) (node, error) {
	n := node{off: base}
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		switch num {
		case 1:
			n.inputs = append(n.inputs, string(v))
		case 2:
			n.outputs = append(n.outputs, string(v))
		case 3:
			n.name = string(v)
		case 4:
			n.op = string(v)
		case 7:
			n.domain = string(v)
		case 5:
			if err := needBytes(typ, voff, "NodeProto.attribute"); err != nil {
				return err
			}
			a, err := parseAttr(v, voff, depth)
			if err != nil {
				return err
			}
			n.attrs = append(n.attrs, a)
		}
		return nil
	})
	if n.domain == "ai.onnx" {
		n.domain = ""
	}
	return n, err
}

func parseAttr(b []byte, base int64, depth int) (attr, error) {
	var a attr
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		var err error
		switch num {
		case 1:
			a.name = string(v)
		case 20:
			a.typ = int64(x)
		case 2:
			a.f = math.Float32frombits(uint32(x))
		case 3:
			a.i = int64(x)
		case 4:
			a.s = v
		case 5:
			if err := needBytes(typ, voff, "AttributeProto.t"); err != nil {
				return err
			}
			t, err := parseTensor(v, voff)
			if err != nil {
				return err
			}
			a.t = &t
		case 6, 11:
			if err := needBytes(typ, voff, "AttributeProto graph"); err != nil {
				return err
			}
			g, err := parseGraph(v, voff, depth+1)
			if err != nil {
				return err
			}
			if num == 6 {
				a.g = g
			} else {
				a.graphs = append(a.graphs, g)
			}
		case 22:
			if err := needBytes(typ, voff, "AttributeProto.sparse_tensor"); err != nil {
				return err
			}
			t, err := parseSparse(v, voff)
			if err != nil {
				return err
			}
			a.t = &t
		case 7:
			a.floats, err = floats32(a.floats, typ, x, v, voff)
		case 8:
			a.ints, err = ints(a.ints, typ, x, v, voff)
		}
		return err
	})
	return a, err
}

func parseTensor(b []byte, base int64) (tensor, error) {
	t := tensor{off: base}
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		var err error
		switch num {
		case 1:
			t.dims, err = ints(t.dims, typ, x, v, voff)
		case 2:
			t.dtype = int64(x)
		case 4:
			t.floats, err = floats32(t.floats, typ, x, v, voff)
		case 5:
			t.int32s, err = ints(t.int32s, typ, x, v, voff)
		case 7:
			t.int64s, err = ints(t.int64s, typ, x, v, voff)
		case 8:
			t.name = string(v)
		case 9:
			t.raw, t.hasRaw = v, true
		case 10:
			var u []uint64
			u, err = fixed64s(nil, typ, x, v, voff)
			for _, y := range u {
				t.doubles = append(t.doubles, math.Float64frombits(y))
			}
		case 11:
			var u []int64
			u, err = ints(nil, typ, x, v, voff)
			for _, y := range u {
				t.uint64s = append(t.uint64s, uint64(y))
			}
		case 14:
			t.external = x == 1
			t.dataFile = x == 1
		}
		return err
	})
	return t, err
}

// typeKinds are TypeProto's fields for values other than dense tensors.
var typeKinds = map[fieldNum]string{4: "sequence", 5: "map", 8: "sparse tensor", 9: "optional"}

func parseValueInfo(b []byte, base int64) (valueInfo, error) {
	var vi valueInfo
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		switch num {
		case 1:
			vi.name = string(v)
		case 2: // TypeProto
			return walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
				if k, ok := typeKinds[num]; ok {
					vi.kind = k
				}
				if num != 1 { // only tensor_type
					return nil
				}
				vi.hasType = true
				return walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
					switch num {
					case 1:
						vi.elem = int64(x)
					case 2:
						vi.hasShape = true
						return walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
							if num != 1 {
								return nil
							}
							var d vdim
							err := walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
								switch num {
								case 1:
									d.value, d.hasValue = int64(x), true
								case 2:
									d.param = string(v)
								}
								return nil
							})
							vi.dims = append(vi.dims, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
	return vi, err
}

// parseSparse reads a SparseTensorProto as a tensor of its dense shape,
// without contents: planning needs only its size.
func parseSparse(b []byte, base int64) (tensor, error) {
	t := tensor{off: base, external: true}
	err := walk(b, base, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		var err error
		switch num {
		case 1:
			if err := needBytes(typ, voff, "SparseTensorProto.values"); err != nil {
				return err
			}
			vals, err := parseTensor(v, voff)
			if err != nil {
				return err
			}
			t.name, t.dtype = vals.name, vals.dtype
		case 3:
			t.dims, err = ints(t.dims, typ, x, v, voff)
		}
		return err
	})
	return t, err
}
