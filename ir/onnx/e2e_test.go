package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

// models lists every test model with the binding its .static twin (or
// the models README) uses, and what its notes must say.
var models = []struct {
	file     string
	syms     map[string]int64
	sorted   bool // the decoder had to re-sort the nodes
	subgraph bool // If/Loop/Scan nodes whose insides are not planned
}{
	{file: "mnist.onnx"},
	{file: "light_resnet50.onnx"},
	{file: "light_resnet50.static.onnx"},
	{file: "light_shufflenet.onnx"},
	{file: "light_shufflenet.static.onnx"},
	{file: "light_densenet121.onnx"},
	{file: "light_densenet121.static.onnx"},
	{file: "ppocr_mobile_v2_cls.onnx", syms: pp},
	{file: "ppocr_mobile_v2_cls.static.onnx"},
	{file: "bert_toy.onnx", syms: map[string]int64{"batch": 1, "max_seq_len_in_batch": 128}, sorted: true},
	{file: "bert_toy.static.onnx"},
	{file: "bert_toy.symbolic.onnx", syms: map[string]int64{"batch": 1, "max_seq_len_in_batch": 128}},
	{file: "tf_bert_qa.onnx", syms: map[string]int64{"batch_size": 1}},
	{file: "tf_bert_qa.static.onnx"},
	{file: "tf_bert_qa.symbolic.onnx", syms: map[string]int64{"batch_size": 1}},
	{file: "attention_mask1d_fp16.onnx", syms: map[string]int64{"batch": 2, "sequence": 16}},
	{file: "silero_vad_op18.onnx", syms: map[string]int64{"batch": 1, "sequence": 512}, subgraph: true},
	{file: "silero_vad_op18_16k.onnx", syms: map[string]int64{"batch": 1, "sequence": 512}},
	{file: "silero_vad_op18_16k.static.onnx"},
	{file: "silero_vad_op18_16k.symbolic.onnx", syms: map[string]int64{"batch": 1}},
	{file: "silero_vad_16k_op15.onnx", syms: map[string]int64{"batch": 1, "sequence": 512}, subgraph: true},
}

func TestDecodeModels(t *testing.T) {
	for _, tc := range models {
		t.Run(tc.file, func(t *testing.T) {
			g, err := Decode(tc.file, readModel(t, tc.file), ir.DecodeOptions{Symbols: tc.syms})
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(g.Notes, "\n")
			if got := strings.Contains(notes, "topological order"); got != tc.sorted {
				t.Errorf("sort note %v, want %v: %q", got, tc.sorted, g.Notes)
			}
			if got := strings.Contains(notes, "not planned"); got != tc.subgraph {
				t.Errorf("subgraph note %v, want %v: %q", got, tc.subgraph, g.Notes)
			}
			if strings.Contains(notes, "value_info disagrees") {
				t.Errorf("value_info disagrees with inference: %q", g.Notes)
			}
			views := 0
			for _, n := range g.Nodes {
				for _, o := range n.Outputs {
					for _, dim := range o.Shape {
						if dim.Symbol != "" {
							t.Fatalf("%s: symbolic dim %q left with every symbol bound", o.Name, dim.Symbol)
						}
					}
				}
				if n.Alias != ir.NoAlias {
					views++
				}
			}
			for s, v := range tc.syms {
				if g.Symbols[s] != v {
					t.Errorf("symbol %s = %d, want %d", s, g.Symbols[s], v)
				}
			}
			t.Logf("%d nodes, %d views, notes %q", len(g.Nodes), views, g.Notes)
		})
	}
}

func TestBadGPT2NamesEveryDuplicate(t *testing.T) {
	_, err := Decode("bad_gpt2_past.onnx", readModel(t, "bad_gpt2_past.onnx"), ir.DecodeOptions{Symbols: map[string]int64{"batch_size": 1, "seq_len": 3}})
	var e *ir.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *ir.Error", err)
	}
	if !strings.Contains(e.Msg, "48 tensors are produced more than once") {
		t.Errorf("message %q", e.Msg)
	}
	// Each GPT-2 layer redefines the same four constants; all 48 are named.
	for _, name := range []string{`"284"`, `"308"`, `"332"`, `"356"`, `"1976"`, `"3458"`} {
		if !strings.Contains(e.Msg, name) {
			t.Errorf("message lacks %s", name)
		}
	}
	if n := strings.Count(e.Msg, `"`); n != 2*48 {
		t.Errorf("message quotes %d names, want 48", n/2)
	}
}

// TestSortMatchesStatic: bert_toy.static.onnx was sorted stably (lowest
// file index first among ready nodes), as the decoder sorts.
func TestSortMatchesStatic(t *testing.T) {
	syms := map[string]int64{"batch": 1, "max_seq_len_in_batch": 128}
	orig, err := Decode("bert_toy.onnx", readModel(t, "bert_toy.onnx"), ir.DecodeOptions{Symbols: syms})
	if err != nil {
		t.Fatal(err)
	}
	static, err := Decode("bert_toy.static.onnx", readModel(t, "bert_toy.static.onnx"), ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nodeNames(orig), nodeNames(static)) {
		t.Error("sorted bert_toy.onnx differs from bert_toy.static.onnx in node order")
	}
}

func nodeNames(g *ir.Graph) []string {
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	return names
}

// TestSymbolicMatchesStatic: the .symbolic files, bound like the .static
// ones, decode to the same graph: tensors, shapes, dtypes, views.
func TestSymbolicMatchesStatic(t *testing.T) {
	for _, tc := range []struct {
		base string
		syms map[string]int64
	}{
		{"bert_toy", map[string]int64{"batch": 1, "max_seq_len_in_batch": 128}},
		{"tf_bert_qa", map[string]int64{"batch_size": 1}},
		{"silero_vad_op18_16k", map[string]int64{"batch": 1}},
	} {
		t.Run(tc.base, func(t *testing.T) {
			sym, err := Decode(tc.base+".symbolic.onnx", readModel(t, tc.base+".symbolic.onnx"), ir.DecodeOptions{Symbols: tc.syms})
			if err != nil {
				t.Fatal(err)
			}
			static, err := Decode(tc.base+".static.onnx", readModel(t, tc.base+".static.onnx"), ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(sym.Nodes) != len(static.Nodes) {
				t.Fatalf("%d nodes, static has %d", len(sym.Nodes), len(static.Nodes))
			}
			for i := range sym.Nodes {
				a, b := &sym.Nodes[i], &static.Nodes[i]
				if a.Name != b.Name || a.Op != b.Op || a.Alias != b.Alias || a.Start != b.Start || a.Len != b.Len ||
					!slices.Equal(a.Inputs, b.Inputs) || !slices.EqualFunc(a.Outputs, b.Outputs, func(x, y ir.Tensor) bool {
					return x.Name == y.Name && x.DType == y.DType && slices.Equal(x.Shape, y.Shape)
				}) {
					t.Fatalf("node %d differs:\n%+v\n%+v", i, *a, *b)
				}
			}
		})
	}
}

// truncations cuts data at a few offsets, always inside the file.
func truncations(data []byte) [][]byte {
	var cuts [][]byte
	for _, at := range []int{1, 2, 5, len(data) / 7, len(data) / 3, len(data) / 2, len(data) * 6 / 7, len(data) - 1} {
		if at > 0 && at < len(data) {
			cuts = append(cuts, data[:at])
		}
	}
	return cuts
}

func TestTruncatedFiles(t *testing.T) {
	files := []string{"bad_gpt2_past.onnx"}
	for _, tc := range models {
		files = append(files, tc.file)
	}
	for _, f := range files {
		data := readModel(t, f)
		for _, cut := range truncations(data) {
			_, err := Decode(f, cut, ir.DecodeOptions{})
			var e *ir.Error
			if !errors.As(err, &e) || !e.HasOffset || e.Offset < 0 || e.Offset > int64(len(cut)) {
				t.Errorf("%s cut at %d: got %v, want *ir.Error with an offset inside the data", f, len(cut), err)
			}
		}
	}
}

func TestCorruptTagOffset(t *testing.T) {
	good := modelP(13, input(vinfo("x", tFloat, 2)), op("Relu", []string{"x"}, []string{"y"}))
	// Replace the Relu node's op_type with a field of the invalid number 0.
	i := strings.Index(string(good), "Relu")
	bad := slices.Clone(good)
	bad[i-2] = 0x00 // the tag byte before the op_type's length
	_, err := Decode("c.onnx", bad, ir.DecodeOptions{})
	var e *ir.Error
	if !errors.As(err, &e) || !e.HasOffset || e.Offset != int64(i-2) {
		t.Fatalf("got %v, want an error at byte %d", err, i-2)
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"mnist.onnx", "attention_mask1d_fp16.onnx"} {
		data := readModel(f, name)
		f.Add(data)
		for _, cut := range truncations(data) {
			f.Add(cut)
		}
	}
	then := graphP(op("Add", []string{"x", "k"}, []string{"t"}), output(vinfo("t", tFloat)))
	f.Add(modelP(13, input(vinfo("x", tFloat, "N", 3)), input(scalar("c", tBool)),
		initz(tproto("s", tInt64, ints64(2), 3, -1)),
		op("Shape", []string{"x"}, []string{"sh"}),
		op("ConstantOfShape", []string{"sh"}, []string{"k"}),
		op("Reshape", []string{"x", "s"}, []string{"r"}),
		op("If", []string{"c"}, []string{"y"}, aGraph("then_branch", then), aGraph("else_branch", then))))
	f.Add(modelP(13, input(vinfo("x", tFloat, 2, 3, 4, 4)), initz(tproto("ax", tInt64, ints64(1), 0)),
		initz(tproto("b", tInt64, ints64(1), 1)), initz(tproto("e", tInt64, ints64(1), 2)),
		initz(tproto("w", tFloat, ints64(5, 3, 3, 3))), initz(ftproto("sc", 1, 1, 2, 2)),
		op("Slice", []string{"x", "b", "e", "ax"}, []string{"s"}),
		op("Conv", []string{"x", "w"}, []string{"c"}, aInts("pads", 1, 1, 1, 1)),
		op("Resize", []string{"c", "", "sc"}, []string{"r"}),
		op("Split", []string{"r"}, []string{"r1", "r2"}, aInt("axis", 0)),
		op("Shape", []string{"r1"}, []string{"sh"}),
		op("Gather", []string{"sh", "b"}, []string{"g"}),
		op("ReduceProd", []string{"sh"}, []string{"p"}, aInt("keepdims", 1)),
		op("Concat", []string{"g", "p"}, []string{"cc"}, aInt("axis", 0)),
		op("Einsum", []string{"x", "x"}, []string{"ein"}, func(b pb) pb {
			return b.msg(5, pb{}.str(1, "equation").i64(20, 3).str(4, "abij,abjk->abik"))
		}),
		op("MaxPool", []string{"x"}, []string{"mp"}, aInts("kernel_shape", 2, 2), aInt("ceil_mode", 1)),
		op("Transpose", []string{"mp"}, []string{"y"}, aInts("perm", 0, 2, 3, 1))))
	// Branches that disagree, an uneven Split-18 and a bad UTF-8 name.
	six := graphP(op("Concat", []string{"x", "x"}, []string{"e"}, aInt("axis", 0)), output(vinfo("e", tFloat)))
	f.Add(modelP(18, input(vinfo("x", tFloat, "N", 3)), input(scalar("c", tBool)),
		op("If", []string{"c"}, []string{"y"}, aGraph("then_branch", then), aGraph("else_branch", six)),
		op("Split", []string{"y"}, []string{"y1", "y2", "y3"}, aInt("num_outputs", 3)),
		op("Relu", []string{"y1"}, []string{"w\xffz"})))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode("f.onnx", data, ir.DecodeOptions{Symbols: map[string]int64{"N": 2, "batch": 1, "sequence": 4}})
		if err == nil {
			if verr := g.Validate(); verr != nil {
				t.Fatalf("decoded graph does not validate: %v", verr)
			}
			return
		}
		var e *ir.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not an *ir.Error", err)
		}
	})
}

func BenchmarkDecodeDensenet(b *testing.B) {
	data := readModel(b, "light_densenet121.onnx")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode("light_densenet121.onnx", data, ir.DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
