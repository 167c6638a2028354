package onnx

import (
	"fmt"

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
func checkDecodeMemory(fileName string, data []byte, limit int64) error {
	if limit <= 0 {
		return nil
	}
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
		return &ir.MemoryError{File: fileName, Need: items * bytesPerItem, Limit: limit,
			What: fmt.Sprintf("decoding %d ONNX nodes and %d other graph entries", nodes, items-nodes)}
	}
	return nil
}
