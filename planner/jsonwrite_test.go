package planner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"memplan/examples"
	"memplan/ir"
)

// TestRecordsEncodeAsEncodingJSON: the planner worker writes plan
// records with ir.EncodeJSON (it links no encoding/json); they are the
// bytes the command line writes with encoding/json, compact and
// indented, for every example and buffer list here, under tensor binding
// too.
func TestRecordsEncodeAsEncodingJSON(t *testing.T) {
	var inputs []string
	csvs, _ := filepath.Glob("testdata/*.csv")
	inputs = append(inputs, csvs...)
	ents, _ := examples.FS.ReadDir(".")
	for _, e := range ents {
		inputs = append(inputs, "example:"+e.Name())
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for _, in := range inputs {
		var data []byte
		var err error
		name := filepath.Base(in)
		if ex, ok := cutPrefix(in, "example:"); ok {
			name = ex
			data, err = examples.FS.ReadFile(ex)
		} else {
			data, err = os.ReadFile(in)
		}
		if err != nil {
			t.Fatal(err)
		}
		src, err := Load(name, data, ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, gpu := range []bool{false, true} {
			o := DefaultOptions()
			if gpu {
				o.F32Uniform = true
				if o.GPU, err = NewGPU("desktop", BindTensor); err != nil {
					t.Fatal(err)
				}
			}
			p, err := PlanSource(context.Background(), src.Source, o, "best-fit", PlaceOptions{})
			if err != nil {
				continue // a buffer list with no GPU to fit, say: the other case covers it
			}
			for _, indent := range []string{"", "  "} {
				var want []byte
				if indent == "" {
					want, _ = json.Marshal(p)
				} else {
					want, _ = json.MarshalIndent(p, "", indent)
				}
				got, err := ir.EncodeJSON(p, indent)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Fatalf("%s (gpu %v, indent %q): ir.EncodeJSON and encoding/json differ", in, gpu, indent)
				}
			}
		}
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}
