package onnx

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"memplan/ir"
)

// reluChain is a model of n chained Relu nodes: a small file of many
// small nodes.
func reluChain(n int) []byte {
	parts := []part{input(vinfo("t0", tFloat, 16, 16))}
	for i := range n {
		parts = append(parts, op("Relu", []string{fmt.Sprintf("t%d", i)}, []string{fmt.Sprintf("t%d", i+1)}))
	}
	parts = append(parts, output(vinfo(fmt.Sprintf("t%d", n), tFloat)))
	return modelP(13, parts...)
}

// TestDecodeMemoryIsHeldBeforeTheWork: a million nodes in 24 MB pass the
// file-size check of a 256 MiB limit, but are refused before decoding
// starts: with an error naming them, and with next to no allocation.
func TestDecodeMemoryIsHeldBeforeTheWork(t *testing.T) {
	const limit = 256 << 20
	data := reluChain(1_000_000)
	if int64(len(data))*8 > limit {
		t.Fatalf("the file (%d bytes) would fail the file-size check; the test needs one that passes it", len(data))
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode("chain.onnx", data, ir.DecodeOptions{MaxMemory: limit})
	runtime.ReadMemStats(&after)
	var me *ir.MemoryError
	if !errors.As(err, &me) || me.Need <= limit || me.What != "decoding 1000000 ONNX nodes and 2 other graph entries" {
		t.Fatalf("error %v, want a memory error for a million nodes", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing took %d bytes of allocation: the decoder did work before the check", alloc)
	}
	// Under the default limit the same kind of file, smaller, decodes.
	if _, err := Decode("chain.onnx", reluChain(1000), ir.DecodeOptions{MaxMemory: 8 << 30}); err != nil {
		t.Fatal(err)
	}
}
