package onnx

import (
	"fmt"

	"memplan/ir"
)

// sizeErr checks a known tensor's byte size against ir.ByteLimit with
// checked arithmetic, so no rule ever works on a shape whose size does
// not fit. The caller adds the path.
func (d *decoder) sizeErr(name string, ti *tinfo) *ir.Error {
	if ti == nil || !ti.ok {
		return nil
	}
	dt, ok := irDTypes[ti.dt]
	if !ok {
		dt = ir.U8 // unknown or unplannable type (dtype names it): at least count its elements
	}
	if _, err := ir.TensorBytes(ti.shape, dt); err != nil {
		return d.errf("tensor %s has shape %v (%s): %v", quote(name), ti.shape, elemName(ti.dt), err)
	}
	return nil
}

// rawBytes is the length raw_data must have for a tensor of dims and
// ONNX type et (ok false for types without a fixed width, such as
// string): ir.TensorBytes for the planned types, two floats or doubles an
// element for the complex ones.
func rawBytes(dims []int64, et int64) (int64, bool, error) {
	if dt, ok := irDTypes[et]; ok {
		b, err := ir.TensorBytes(dims, dt)
		return b, true, err
	}
	var width int64
	switch et {
	case tComplex64:
		width = 8
	case tComplex128:
		width = 16
	default:
		return 0, false, nil
	}
	n, err := ir.NumElements(dims)
	if err == nil {
		n, err = ir.MulSize(n, width)
	}
	return n, true, err
}

// dataErr checks that the data of an initializer or a Constant's value
// (what names it in the message) holds exactly what its dims and type say, so a file cut short or padded is not planned as if it
// were whole. raw_data holds the tensor's bytes (4-bit types two to a
// byte); a typed field holds one entry an element, but two 4-bit
// elements to an int32_data entry and two numbers to a complex one. A
// tensor with no data at all passes: files whose weights were stripped
// still plan. Data in a file beside the model is not read, so not
// checked; sizeErr and dtype speak for sizes that overflow and types
// memplan does not know.
func (d *decoder) dataErr(t *tensor, what, path string) *ir.Error {
	if t.external {
		return nil
	}
	n, err := ir.NumElements(t.dims)
	if err != nil {
		return nil
	}
	located := func(field, format string, args ...any) *ir.Error {
		e := d.errf(format, args...)
		e.Path = path + "." + field
		return e
	}
	if t.hasRaw {
		want, ok, err := rawBytes(t.dims, t.dtype)
		if ok && err == nil && int64(len(t.raw)) != want {
			return located("raw_data", "%s has %d bytes of raw_data, but dims %v of %s are %d bytes",
				what, len(t.raw), t.dims, elemName(t.dtype), want)
		}
		return nil
	}
	if _, ok := irDTypes[t.dtype]; !ok && t.dtype != tComplex64 && t.dtype != tComplex128 {
		return nil
	}
	field, got, want := "", 0, n
	switch {
	case len(t.floats) > 0:
		field, got = "float_data", len(t.floats)
	case len(t.doubles) > 0:
		field, got = "double_data", len(t.doubles)
	case len(t.int32s) > 0:
		field, got = "int32_data", len(t.int32s)
		if dt := irDTypes[t.dtype]; dt.Valid() && dt.Bits() == 4 {
			want = n/2 + n%2
		}
	case len(t.int64s) > 0:
		field, got = "int64_data", len(t.int64s)
	case len(t.uint64s) > 0:
		field, got = "uint64_data", len(t.uint64s)
	default:
		return nil
	}
	if t.dtype == tComplex64 || t.dtype == tComplex128 {
		want = 2 * n // n < 2^62: no wrap
	}
	if int64(got) != want {
		return located(field, "%s has %d values in %s, but dims %v of %s are %d values",
			what, got, field, t.dims, elemName(t.dtype), want)
	}
	return nil
}

// checkTotal fails when the planned tensors' sizes sum to 2^62 bytes or
// more: below that, every offset of any packing of them fits too.
func (d *decoder) checkTotal(g *ir.Graph) error {
	var sum int64
	for i := range g.Nodes {
		n := &g.Nodes[i]
		for _, t := range n.Outputs {
			ti := d.infos[t.Name]
			b, err := ir.TensorBytes(ti.shape, t.DType)
			if err == nil {
				sum, err = ir.AddSize(sum, b)
			}
			if err != nil {
				return &ir.Error{File: d.file, Path: n.Path, Node: n.Name,
					Msg: fmt.Sprintf("the tensors up to %s (%v %s) total 2^62 bytes or more, and memplan plans arenas below 2^62 bytes",
						quote(t.Name), ti.shape, t.DType)}
			}
		}
	}
	return nil
}
