package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"memplan/ir"
)

// ONNX TensorProto.DataType values.
const (
	tFloat      = 1
	tUint8      = 2
	tInt8       = 3
	tUint16     = 4
	tInt16      = 5
	tInt32      = 6
	tInt64      = 7
	tString     = 8
	tBool       = 9
	tFloat16    = 10
	tDouble     = 11
	tUint32     = 12
	tUint64     = 13
	tComplex64  = 14
	tComplex128 = 15
	tBFloat16   = 16
	// Opset 19 on: 8-bit floats, then 4-bit types packed two to a byte.
	tFloat8E4M3FN   = 17
	tFloat8E4M3FNUZ = 18
	tFloat8E5M2     = 19
	tFloat8E5M2FNUZ = 20
	tUint4          = 21
	tInt4           = 22
	tFloat4E2M1     = 23
	tFloat8E8M0     = 24
)

var elemNames = map[int64]string{
	tFloat: "float", tUint8: "uint8", tInt8: "int8", tUint16: "uint16", tInt16: "int16",
	tInt32: "int32", tInt64: "int64", tString: "string", tBool: "bool", tFloat16: "float16",
	tDouble: "double", tUint32: "uint32", tUint64: "uint64", tComplex64: "complex64",
	tComplex128: "complex128", tBFloat16: "bfloat16", tFloat8E4M3FN: "float8e4m3fn",
	tFloat8E4M3FNUZ: "float8e4m3fnuz", tFloat8E5M2: "float8e5m2", tFloat8E5M2FNUZ: "float8e5m2fnuz",
	tUint4: "uint4", tInt4: "int4", tFloat4E2M1: "float4e2m1", tFloat8E8M0: "float8e8m0",
	25: "uint2", 26: "int2",
}

// irDTypes maps the ONNX element types memplan plans to its dtypes.
var irDTypes = map[int64]ir.DType{
	tFloat: ir.F32, tFloat16: ir.F16, tBFloat16: ir.BF16, tDouble: ir.F64,
	tInt64: ir.I64, tInt32: ir.I32, tInt16: ir.I16, tInt8: ir.I8,
	tUint64: ir.U64, tUint32: ir.U32, tUint16: ir.U16, tUint8: ir.U8, tBool: ir.Bool,
	tInt4: ir.I4, tUint4: ir.U4, tFloat4E2M1: ir.F4E2M1,
	tFloat8E4M3FN: ir.F8E4M3FN, tFloat8E4M3FNUZ: ir.F8E4M3FNUZ,
	tFloat8E5M2: ir.F8E5M2, tFloat8E5M2FNUZ: ir.F8E5M2FNUZ, tFloat8E8M0: ir.F8E8M0,
}

func elemName(et int64) string {
	if s, ok := elemNames[et]; ok {
		return s
	}
	return fmt.Sprintf("data type %d", et)
}

func isFloat(et int64) bool {
	return et == tFloat || et == tFloat16 || et == tBFloat16 || et == tDouble
}

// maxVal bounds the element count of tensors whose contents are tracked:
// shape arithmetic is small, weights are not.
const maxVal = 1 << 12

// tinfo is what is known about one tensor.
type tinfo struct {
	dt     int64   // ONNX element type, 0 if unknown
	shape  []int64 // valid when ok
	ok     bool
	val    *tval   // contents, for small tensors computed from constants
	src    *tensor // an initializer whose contents are not decoded yet
	isInit bool
	huge   bool     // inference gave a shape whose element count overflows int64
	neg    bool     // inference gave a shape with a negative dim (kept for the message)
	cause  *failure // why the shape or type is unknown
}

// tval holds a tensor's contents: integers (and bools) exactly in i,
// floating-point values in f.
type tval struct {
	isF bool
	i   []int64
	f   []float64
}

func (v *tval) len() int {
	if v.isF {
		return len(v.f)
	}
	return len(v.i)
}

func (v *tval) float(k int) float64 {
	if v.isF {
		return v.f[k]
	}
	return float64(v.i[k])
}

func (v *tval) int(k int) (int64, bool) {
	if !v.isF {
		return v.i[k], true
	}
	x := v.f[k]
	if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, false
	}
	return int64(x), true
}

// numel is the element count, or -1 when it overflows or a dim is negative.
func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > math.MaxInt64/d {
			return -1
		}
		n *= d
	}
	return n
}

// tensorValue decodes a small TensorProto's contents, or returns nil.
func tensorValue(t *tensor) *tval {
	n := numel(t.dims)
	if n < 0 || n > maxVal || t.external {
		return nil
	}
	v := &tval{isF: isFloat(t.dtype)}
	if t.hasRaw {
		size := map[int64]int{tFloat: 4, tUint8: 1, tInt8: 1, tUint16: 2, tInt16: 2, tInt32: 4, tInt64: 8,
			tBool: 1, tFloat16: 2, tDouble: 8, tUint32: 4, tUint64: 8, tBFloat16: 2}[t.dtype]
		if size == 0 || int64(len(t.raw)) != n*int64(size) {
			return nil
		}
		r := t.raw
		for k := 0; k < int(n); k++ {
			b := r[k*size:]
			switch t.dtype {
			case tFloat:
				v.f = append(v.f, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
			case tDouble:
				v.f = append(v.f, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			case tFloat16:
				v.f = append(v.f, half(binary.LittleEndian.Uint16(b)))
			case tBFloat16:
				v.f = append(v.f, float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b))<<16)))
			case tUint8, tBool:
				v.i = append(v.i, int64(b[0]))
			case tInt8:
				v.i = append(v.i, int64(int8(b[0])))
			case tUint16:
				v.i = append(v.i, int64(binary.LittleEndian.Uint16(b)))
			case tInt16:
				v.i = append(v.i, int64(int16(binary.LittleEndian.Uint16(b))))
			case tInt32:
				v.i = append(v.i, int64(int32(binary.LittleEndian.Uint32(b))))
			case tUint32:
				v.i = append(v.i, int64(binary.LittleEndian.Uint32(b)))
			case tInt64, tUint64:
				v.i = append(v.i, int64(binary.LittleEndian.Uint64(b)))
			}
		}
		return v
	}
	switch t.dtype {
	case tFloat:
		for _, x := range t.floats {
			v.f = append(v.f, float64(x))
		}
	case tDouble:
		v.f = t.doubles
	case tFloat16:
		for _, x := range t.int32s {
			v.f = append(v.f, half(uint16(x)))
		}
	case tBFloat16:
		for _, x := range t.int32s {
			v.f = append(v.f, float64(math.Float32frombits(uint32(x)<<16)))
		}
	case tInt32, tInt16, tInt8, tUint16, tUint8, tBool:
		v.i = t.int32s
	case tInt64:
		v.i = t.int64s
	case tUint32, tUint64:
		for _, x := range t.uint64s {
			v.i = append(v.i, int64(x))
		}
	default:
		return nil
	}
	if int64(v.len()) != n {
		return nil
	}
	return v
}

// half converts an IEEE 754 binary16 value.
func half(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}
