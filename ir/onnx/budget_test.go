package onnx

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
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

// TestDeclaredShapesDoNotHideBadNodes: a shape the file declares for an
// output does not stand in for an op that cannot be valid.
func TestDeclaredShapesDoNotHideBadNodes(t *testing.T) {
	long := make([]int64, 200_000)
	for i := range long {
		long[i] = int64(i)
	}
	x := input(vinfo("x", tFloat, 2, 3))
	y := output(vinfo("y", tFloat, 3, 2))
	for _, tc := range []struct {
		name  string
		model []byte
		want  string
	}{
		{"a perm of 200,000 axes on rank 2", modelP(13, x, op("Transpose", []string{"x"}, []string{"y"}, aInts("perm", long...)), y),
			`p.onnx: graph.node[0]: cannot determine the shape of "y" (Transpose): input [2 3]: perm [0 1 2 3] … [199996 199997 199998 199999] (200000 values) is not a permutation of the 2 axes`},
		{"two perm attributes", modelP(13, x, op("Transpose", []string{"x"}, []string{"y"}, aInts("perm", 1, 0), aInts("perm", 0, 1)), y),
			`p.onnx: graph.node[0].attribute[1]: Transpose has two attributes named "perm" (attribute[0] and attribute[1])`},
		{"an axis out of range", modelP(13, x, op("Flatten", []string{"x"}, []string{"y"}, aInt("axis", 7)), output(vinfo("y", tFloat, 1, 6))),
			`p.onnx: graph.node[0]: cannot determine the shape of "y" (Flatten): input [2 3]: axis 7 is out of range for rank 2`},
		{"reshape shape of 3 bytes", modelP(13, x,
			initz(pb{}.i64(1, 2).i64(2, tInt64).str(8, "s").str(9, "abc")),
			op("Reshape", []string{"x", "s"}, []string{"y"}), y),
			`p.onnx: graph.initializer[0].raw_data: initializer "s" has 3 bytes of raw_data, but dims [2] of int64 are 16 bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("p.onnx", tc.model, ir.DecodeOptions{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

// allocated is the bytes f allocates in all.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecodeMemoryBeyondTheCount: work no count of the file foresees is
// bounded too. Subgraphs read the enclosing scope without copying it, and
// the constants inference folds are charged against MaxMemory.
func TestDecodeMemoryBeyondTheCount(t *testing.T) {
	const n = 2000
	// n Relu nodes, then n If nodes whose branches read one of them: a
	// decoder that copies the outer scope for each branch allocates
	// about 2n^2 map entries.
	ifs := []part{input(vinfo("t0", tFloat, 4)), input(scalar("c", tBool))}
	for k := range n {
		ifs = append(ifs, op("Relu", []string{fmt.Sprintf("t%d", k)}, []string{fmt.Sprintf("t%d", k+1)}))
	}
	branch := graphP(op("Relu", []string{"t1"}, []string{"b"}), output(vinfo("b", tFloat, 4)))
	for k := range n {
		ifs = append(ifs, op("If", []string{"c"}, []string{fmt.Sprintf("y%d", k)}, aGraph("then_branch", branch), aGraph("else_branch", branch)))
	}
	// n Adds, each folding maxVal values from the last and a constant:
	// a file of tens of kilobytes that folds n*maxVal values.
	folds := []part{initz(ftproto("c0", make([]float32, maxVal)...))}
	for k := range n {
		folds = append(folds, op("Add", []string{fmt.Sprintf("c%d", k), "c0"}, []string{fmt.Sprintf("c%d", k+1)}))
	}
	folds = append(folds, output(vinfo(fmt.Sprintf("c%d", n), tFloat)))
	cases := []struct {
		name     string
		model    []byte
		limit    int64
		wantErr  string // part of the MemoryError's What; "" for success
		maxAlloc uint64
	}{
		{"If nodes decode without copying the scope", modelP(13, ifs...), 8 << 30, "", 64 << 20},
		{"folding past the limit is refused", modelP(13, folds...), 64 << 20, "folding ", 2 * (64 << 20)},
		{"folding within the limit decodes", modelP(13, folds[:50]...), 64 << 20, "", 64 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if int64(len(tc.model))*8 > tc.limit {
				t.Fatalf("the file (%d bytes) fails the file-size check; the case needs one that passes it", len(tc.model))
			}
			var err error
			got := allocated(func() { _, err = Decode("m.onnx", tc.model, ir.DecodeOptions{MaxMemory: tc.limit}) })
			var me *ir.MemoryError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (!errors.As(err, &me) || !strings.Contains(me.What, tc.wantErr) || me.Limit != tc.limit):
				t.Fatalf("error %v, want a memory error about %q", err, tc.wantErr)
			}
			if got > tc.maxAlloc {
				t.Errorf("decoding allocated %d bytes, want at most %d", got, tc.maxAlloc)
			}
			if me != nil {
				t.Log(me)
			}
		})
	}
}
