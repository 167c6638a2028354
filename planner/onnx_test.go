package planner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"memplan/ir"
	_ "memplan/ir/onnx"
	"memplan/planner"
)

// The bindings under which each .symbolic model was recorded as .static.
var modelBindings = map[string]map[string]int64{
	"bert_toy":            {"batch": 1, "max_seq_len_in_batch": 128},
	"tf_bert_qa":          {"batch_size": 1},
	"silero_vad_op18_16k": {"batch": 1},
}

func planModel(t *testing.T, path string, symbols map[string]int64) *planner.Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ir.Decode(path, data, ir.DecodeOptions{Symbols: symbols})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	opts := planner.DefaultOptions()
	opts.Symbols = symbols
	plan, err := planner.PlanSource(context.Background(), src, opts, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if err := planner.Verify(plan); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if plan.ArenaSize < plan.LowerBound || plan.ArenaSize > plan.TotalUnshared {
		t.Fatalf("arena %d outside [lower bound %d, unshared %d]", plan.ArenaSize, plan.LowerBound, plan.TotalUnshared)
	}
	return plan
}

func TestRealModelsPlan(t *testing.T) {
	dir := "../ir/onnx/testdata"
	statics, _ := filepath.Glob(filepath.Join(dir, "*.static.onnx"))
	if len(statics) < 6 {
		t.Fatalf("found %d static models in %s", len(statics), dir)
	}
	for _, path := range statics {
		base := filepath.Base(path)
		base = base[:len(base)-len(".static.onnx")]
		t.Run(base, func(t *testing.T) {
			static := planModel(t, path, nil)
			t.Logf("%s: %d tensors, arena %d, lower bound %d (%.4f)", base, len(static.Tensors), static.ArenaSize, static.LowerBound, static.Fragmentation)
			symPath := filepath.Join(dir, base+".symbolic.onnx")
			if _, err := os.Stat(symPath); err != nil {
				return
			}
			bind, ok := modelBindings[base]
			if !ok {
				t.Fatalf("no binding known for %s", symPath)
			}
			sym := planModel(t, symPath, bind)
			if sym.ArenaSize != static.ArenaSize || sym.LowerBound != static.LowerBound || len(sym.Tensors) != len(static.Tensors) {
				t.Fatalf("symbolic plan: arena %d lb %d tensors %d; static: %d %d %d",
					sym.ArenaSize, sym.LowerBound, len(sym.Tensors), static.ArenaSize, static.LowerBound, len(static.Tensors))
			}
			for i := range sym.Tensors {
				a, b := &sym.Tensors[i], &static.Tensors[i]
				if a.Name != b.Name || a.Size != b.Size || a.Offset != b.Offset || a.Birth != b.Birth || a.Death != b.Death {
					t.Fatalf("tensor %d differs: symbolic %+v, static %+v", i, *a, *b)
				}
			}
		})
	}
}
