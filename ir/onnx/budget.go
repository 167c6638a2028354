package onnx

import (
	"fmt"
	"math"

	"memplan/ir"
)

// bytesPerItem bounds what decoding costs for each node, initializer,
// graph input or output and value_info of the main graph: its parsed
// record, tensor info, map entries and ir node. Measured: decoding a chain
// of 10^4 and 10^5 Relu nodes (about 23 bytes each on the wire) allocates
// 1,826 and 1,823 bytes a node in all (runtime.MemStats.TotalAlloc),
// which bounds the live heap; so a small file of many small nodes, which
// the file-size check (8× its bytes) lets through, costs 2 KiB an item.
const bytesPerItem = 2048

// checkDecodeMemory refuses, before any record is built, a file whose
// main graph has more items than MaxMemory can decode. A file that does
// not scan is left to the parser, which says where it is broken.
// It returns the bytes it counts on decoding taking.
func checkDecodeMemory(fileName string, data []byte, limit int64) (int64, error) {
	var items, nodes int64
	_ = walk(data, 0, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
		if num != 7 || typ != bytesType { // ModelProto.graph
			return nil
		}
		return walk(v, voff, func(num fieldNum, typ wireType, x uint64, v []byte, voff int64) error {
			switch num {
			case 1: // node
				nodes++
				items++
			case 5, 11, 12, 13: // initializer, input, output, value_info
				items++
			}
			return nil
		})
	})
	if items > limit/bytesPerItem {
		return 0, &ir.MemoryError{File: fileName, Need: items * bytesPerItem, Limit: limit,
			What: fmt.Sprintf("decoding %d ONNX nodes and %d other graph entries", nodes, items-nodes)}
	}
	return items * bytesPerItem, nil
}

// bytesPerFoldedValue is what one value of a constant computed during
// inference costs: 8 bytes of value, 8 of the broadcast index map that
// computed it, and the slices' growth.
const bytesPerFoldedValue = 24

// foldMeter bounds the constants inference computes, which no count of
// the file foresees: a node of a few bytes folds up to maxVal values, so
// a small file of chained Adds can fill any memory. The decoders of the
// main graph and its subgraphs share one.
type foldMeter struct {
	left, used int64 // values
	base       int64 // bytes checkDecodeMemory counted on
	limit      int64
	where      string // the node being inferred when the meter ran out
}

// charge takes n values from the meter, false once it has run out. A
// decoder without a memory limit has no meter.
func (d *decoder) charge(n int64) bool {
	m := d.meter
	if m == nil {
		return true
	}
	m.used += n
	m.left -= n
	if m.left < 0 && m.where == "" {
		m.where = d.nodePath(d.cur)
	}
	return m.left >= 0
}

// overMemory is the error once the meter has run out, else nil.
func (d *decoder) overMemory() error {
	m := d.meter
	if m == nil || m.left >= 0 {
		return nil
	}
	need := m.base
	if m.used < (math.MaxInt64-need)/bytesPerFoldedValue {
		need += m.used * bytesPerFoldedValue
	}
	return &ir.MemoryError{File: d.file, Need: need, Limit: m.limit, AtLeast: true,
		What: fmt.Sprintf("folding %d constant values (the limit was reached at %s)", m.used, m.where)}
}
