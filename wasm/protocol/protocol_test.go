package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"memplan/ir"
	_ "memplan/ir/onnx" // the worker links it: its format is one the page offers
	"memplan/planner"
)

func TestErrorOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Error
	}{
		{"located", &ir.Error{File: "m.json", Line: 3, Column: 9, Path: "nodes[1].dtype", Node: "y", Msg: "unknown dtype"},
			Error{Message: `m.json:3:9: nodes[1].dtype: node "y": unknown dtype`, File: "m.json", Line: 3, Column: 9, Path: "nodes[1].dtype", Node: "y", Kind: "input"}},
		{"wrapped", fmt.Errorf("--forward: %w", &ir.Error{File: "f.json", Msg: "bad"}),
			Error{Message: "--forward: f.json: bad", File: "f.json", Kind: "input"}},
		{"memory", &ir.MemoryError{File: "big.csv", What: "planning 9 buffers", Need: 9 << 30, Limit: 1 << 30},
			Error{Message: "big.csv: planning 9 buffers needs about 9 GiB, over the memory limit of 1 GiB", File: "big.csv", Kind: "memory"}},
		{"bug", &planner.UnverifiedPlanError{Strategy: "auto", Err: fmt.Errorf("invalid plan: x")},
			Error{Message: "memplan bug: strategy auto produced a plan that fails verification; please report it with the input file: invalid plan: x", Kind: "bug"}},
		{"one symbol: the page's hint names it, the message is the planner's",
			&ir.Error{File: "m.onnx", Msg: "unbound symbol batch has no value", Need: ir.NeedSymbols, Symbols: []string{"batch"}},
			Error{Message: "m.onnx: unbound symbol batch has no value", File: "m.onnx", Need: "symbols", Kind: "input",
				Hint: "Give batch a value under Symbols (name=value, e.g. batch=1).", Symbols: []string{"batch"}}},
		{"symbols", &ir.Error{File: "m.onnx", Msg: "unbound symbols", Need: ir.NeedSymbols, Symbols: []string{"batch", "past", "seq"}},
			Error{Message: "m.onnx: unbound symbols", File: "m.onnx", Need: "symbols", Kind: "input",
				Hint: "Give batch, past and seq values under Symbols (name=value, e.g. batch=1).", Symbols: []string{"batch", "past", "seq"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorOf(tc.err); !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

// TestOptionsWireNames: the page sends these JSON names; renaming a Go
// field must not silently drop an option.
func TestOptionsWireNames(t *testing.T) {
	in := `{"strategy":"exact","alignment":8,"guard":-1,"f32_uniform":true,"no_reuse":true,"skip_params":true,"skip_inputs":true,"skip_constants":true,"symbols":{"batch":2},"budget":1024,"if_branch":"then"}`
	var o Options
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatal(err)
	}
	want := Options{Options: planner.Options{Alignment: 8, Guard: -1, F32Uniform: true, NoReuse: true, SkipParams: true, SkipInputs: true, SkipConstants: true, Symbols: map[string]int64{"batch": 2}},
		Strategy: "exact", Budget: 1024, IfBranch: "then"}
	got, _ := json.Marshal(o)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Fatalf("decoded %s\nwant    %s", got, wantJSON)
	}
}

func TestOptionsResolveSymbolsText(t *testing.T) {
	o := Options{SymbolsText: "batch=2, seq=9007199254740993"}
	if err := o.Resolve(); err != nil || o.Symbols["batch"] != 2 || o.Symbols["seq"] != 9007199254740993 {
		t.Fatalf("Resolve: %v, %v", o.Symbols, err)
	}
	bad := Options{SymbolsText: "batch"}
	if err := bad.Resolve(); err == nil || !strings.Contains(err.Error(), `Symbols field: column 1: "batch" is not name=value`) {
		t.Fatalf("Resolve of %q: %v", bad.SymbolsText, err)
	}
}

// Every extension the page's file picker offers is one a decoder the
// worker links takes by name, and every such decoder is offered.
func TestFileTypesAreTheDecoders(t *testing.T) {
	offered := map[string]bool{}
	for _, ext := range FileTypes {
		f, err := ir.DetectFormat("model"+ext, nil)
		if err != nil {
			t.Errorf("%s: %v", ext, err)
		}
		offered[f] = true
	}
	for _, f := range ir.FormatNames() {
		if !offered[f] {
			t.Errorf("format %s has no extension in FileTypes", f)
		}
	}
}
