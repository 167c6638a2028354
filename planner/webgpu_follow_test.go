package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// decoderGraph is a decoder's attention step: the cache of past tokens,
// the new ones, and the scores over all of them, whose length is a symbol
// of its own (total), as ONNX decoders name it.
const decoderGraph = `{"format": "memplan.graph/v1", "name": "decoder",
 "symbols": {"past": 1, "seq": 1, "total": 2},
 "nodes": [
  {"name": "x", "op": "input", "shape": ["seq", 1024], "dtype": "f32"},
  {"name": "past_k", "op": "input", "shape": ["past", 1024], "dtype": "f32"},
  {"name": "k", "op": "concat", "inputs": ["past_k", "x"], "shape": ["total", 1024], "dtype": "f32"},
  {"name": "s", "op": "matmul", "inputs": ["x", "k"], "shape": ["seq", "total"], "dtype": "f32"}
 ],
 "outputs": ["s"]}`

// TestLargestFitFollows: searching past while total=past+seq follows it.
// Every trial plans total at past+seq; the answer's value fits and the
// next does not when planned again apart from the search with total
// following; the symbols that drive the violation are the ones a user
// sets (past, seq), not total; and without the definitions (total stuck
// at the file's 2) the search answers another value, so the following is
// what the answer rests on.
func TestLargestFitFollows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decoder.json")
	if err := os.WriteFile(path, []byte(decoderGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	gpu, err := planner.ResolveGPU("default", "binding=8MiB,buffer=8MiB", "arena")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.GPU = gpu
	defs, err := ir.ParseSymbolDefs("total=past+seq, seq=1")
	if err != nil {
		t.Fatal(err)
	}
	s := planner.FitSearch{Symbol: "past", Defs: defs, Lower: lowerer(t, path, opts), Place: planner.PlaceOptions{NodeLimit: 1000}}
	r, err := planner.LargestFit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.At == nil || r.Next == nil || r.Next.Value != r.Value+1 {
		t.Fatalf("no boundary: value %d, at %v, next %v", r.Value, r.At, r.Next)
	}
	if !slices.Equal(r.Follows, []string{"total=past+seq"}) {
		t.Errorf("follows %v, want [total=past+seq]", r.Follows)
	}
	for _, tr := range r.Trials {
		if got := tr.Follow["total"]; got != tr.Value+1 || len(tr.Follow) != 1 {
			t.Errorf("past=%d planned with followers %v, want total=%d", tr.Value, tr.Follow, tr.Value+1)
		}
	}
	// Apart from the search: total at past+1.
	for _, c := range []struct {
		past int64
		fits bool
	}{{r.Value, true}, {r.Value + 1, false}} {
		p, err := s.Lower(map[string]int64{"past": c.past, "seq": 1, "total": c.past + 1})
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := planner.PlanProblem(context.Background(), p, "", s.Place)
		if err != nil {
			t.Fatal(err)
		}
		if fits := plan.FitGPU().Fits; fits != c.fits {
			t.Errorf("past=%d, total=%d: fits=%v, want %v", c.past, c.past+1, fits, c.fits)
		}
	}
	if err := r.Explain(s); err != nil {
		t.Fatal(err)
	}
	v := r.Next.Fit.Violations
	if len(v) == 0 {
		t.Fatal("the next value has no violation to explain")
	}
	want := []string{"past=" + itoa(r.Next.Value), "seq=1"}
	if !slices.Equal(v[0].Symbols, want) {
		t.Errorf("the violation is driven by %v, want %v (total follows them)", v[0].Symbols, want)
	}
	r.Describe(gpu)
	lines := strings.Join(r.Lines, "\n")
	for _, w := range []string{"with total=past+seq following it:",
		"  past=" + itoa(r.Value) + " (total=" + itoa(r.Value+1) + "): fits",
		"(its size grows with past and seq; here past=" + itoa(r.Next.Value) + ", seq=1)"} {
		if !strings.Contains(lines, w) {
			t.Errorf("the answer's lines lack %q:\n%s", w, lines)
		}
	}

	// Without the definitions total keeps the file's value: another answer.
	stuck := planner.FitSearch{Symbol: "past", Symbols: map[string]int64{"seq": 1}, Lower: s.Lower, Place: s.Place}
	r2, err := planner.LargestFit(context.Background(), stuck)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Value == r.Value {
		t.Errorf("with total stuck at 2 the answer is the same, past=%d: the test shows nothing", r.Value)
	}
}

// TestLargestFitRefusesAFollower: the searched symbol may not itself be
// bound to an expression of others (the search would contradict it); a
// plain value is replaced by the search.
func TestLargestFitRefusesAFollower(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decoder.json")
	if err := os.WriteFile(path, []byte(decoderGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	gpu, err := planner.ResolveGPU("default", "binding=8MiB,buffer=8MiB", "arena")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.GPU = gpu
	for _, tt := range []struct {
		text, symbol, err string
	}{
		{"total=past+seq, past=4, seq=1", "total", "the search sets total, but it is bound to total=past+seq"},
		{"total=past+seq, past=4095, seq=1", "past", ""},
	} {
		defs, err := ir.ParseSymbolDefs(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		s := planner.FitSearch{Symbol: tt.symbol, Defs: defs, Lower: lowerer(t, path, opts), Place: planner.PlaceOptions{NodeLimit: 1000}, MaxPlans: 3}
		r, err := planner.LargestFit(context.Background(), s)
		var se *ir.SymbolError
		switch {
		case tt.err != "":
			if !errors.As(err, &se) || se.Symbol != tt.symbol || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s searching %s: %v, want a *ir.SymbolError with %q", tt.text, tt.symbol, err, tt.err)
			}
		case r == nil || len(r.Trials) == 0 || r.Trials[0].Value != 1 || r.Trials[0].Follow["total"] != 2:
			t.Errorf("%s searching %s: %+v, %v; want a first trial at past=1 with total=2", tt.text, tt.symbol, r, err)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
