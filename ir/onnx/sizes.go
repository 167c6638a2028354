package onnx

import (
	"fmt"

	"memplan/ir"
)

// elemBytes is the size of one element of an ONNX type, 0 for types
// memplan does not plan (dtype reports those by name).
func elemBytes(et int64) int64 {
	switch et {
	case tUint8, tInt8, tBool:
		return 1
	case tUint16, tInt16, tFloat16, tBFloat16:
		return 2
	case tFloat, tInt32, tUint32:
		return 4
	case tInt64, tUint64, tDouble:
		return 8
	}
	return 0
}

// sizeErr checks a known tensor's byte size against ir.ByteLimit with
// checked arithmetic, so no rule ever works on a shape whose size does
// not fit. The caller adds the path.
func (d *decoder) sizeErr(name string, ti *tinfo) *ir.Error {
	if ti == nil || !ti.ok {
		return nil
	}
	eb := elemBytes(ti.dt)
	if eb == 0 {
		eb = 1 // unknown or unplannable type: at least count its elements
	}
	if _, err := ir.Bytes(ti.shape, eb); err != nil {
		return d.errf("tensor %s has shape %v (%s): %v", quote(name), ti.shape, elemName(ti.dt), err)
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
			b, err := ir.Bytes(ti.shape, t.DType.Size())
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
