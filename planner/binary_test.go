package planner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"memplan/ir"
)

// TestBinaryRoundTrip: every example's plan, and a buffer list's, comes
// back from its binary form equal to itself, down to nil and empty lists.
func TestBinaryRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	files = append(files, "testdata/C.1048576.csv")
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			in, err := Load(name, data, ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			if filepath.Base(name) == "train-backward.json" {
				opts.SkipParams = true // no forward plan here; params skipped instead
			}
			plan, err := PlanSource(context.Background(), in.Source, opts, "", PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := plan.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeBinary(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan, back) {
				want, _ := json.Marshal(plan)
				got, _ := json.Marshal(back)
				t.Fatalf("round trip differs:\n got %.400s\nwant %.400s", got, want)
			}
			// Every cut of the data is an error, never a panic or a plan.
			for k := 0; k < len(b); k += max(1, len(b)/97) {
				if _, err := DecodeBinary(b[:k]); err == nil {
					t.Fatalf("a record cut at byte %d of %d decodes", k, len(b))
				}
			}
		})
	}
}

func FuzzDecodeBinary(f *testing.F) {
	p := &Plan{Format: PlanFormat, Name: "x", Tensors: []PlanTensor{{Name: "a", Shape: []int64{2}, Size: 8}}, Symbols: map[string]int64{"n": 2}}
	b, err := p.AppendBinary(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("MPB1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeBinary(data)
		if err != nil {
			return
		}
		// What decodes encodes back to the same bytes.
		again, err := p.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if q, err := DecodeBinary(again); err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("re-encoding changes the plan: %v", err)
		}
	})
}
