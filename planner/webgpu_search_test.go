package planner_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"

	"memplan/ir"
	_ "memplan/ir/onnx"
	"memplan/planner"
)

// lowerer reads a file and lowers it for a device at any symbol values,
// as the command line does: an ONNX model's shapes are inferred again.
func lowerer(t *testing.T, path string, opts planner.Options) func(map[string]int64) (*planner.Problem, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err) // missing test input is a failure
	}
	return func(syms map[string]int64) (*planner.Problem, error) {
		src, err := ir.Decode(path, data, ir.DecodeOptions{Symbols: syms})
		if err != nil {
			return nil, err
		}
		o := opts
		o.Symbols = syms
		return planner.Lower(src, o)
	}
}

// TestLargestFit: the search returns a value whose plan fits and a next
// value whose plan does not, each checked here by planning it again, and
// the last trials are those two.
func TestLargestFit(t *testing.T) {
	tests := []struct {
		file    string
		symbol  string
		others  map[string]int64
		profile string
		binding string
		limit   string // the limit that stops the next value
	}{
		{"../ir/onnx/testdata/bert_toy.symbolic.onnx", "batch", map[string]int64{"max_seq_len_in_batch": 128}, "default", "arena", "maxStorageBufferBindingSize"},
		{"../ir/onnx/testdata/bert_toy.symbolic.onnx", "batch", map[string]int64{"max_seq_len_in_batch": 128}, "default", "tensor", "maxStorageBufferBindingSize"},
		{"../examples/streaming.json", "prompt", nil, "default", "arena", "maxStorageBufferBindingSize"},
		{"../examples/streaming.json", "prompt", nil, "ios", "tensor", "maxStorageBufferBindingSize"},
	}
	for _, tt := range tests {
		name := tt.file + "/" + tt.symbol + "/" + tt.binding
		gpu, err := planner.ResolveGPU(tt.profile, "", tt.binding)
		if err != nil {
			t.Fatal(err)
		}
		opts := planner.DefaultOptions()
		opts.F32Uniform, opts.GPU = true, gpu
		s := planner.FitSearch{Symbol: tt.symbol, Symbols: tt.others, Lower: lowerer(t, tt.file, opts), Place: planner.PlaceOptions{NodeLimit: 1000}}
		r, err := planner.LargestFit(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.At == nil || r.Next == nil || r.Next.Value != r.Value+1 || len(r.Trials) > planner.DefaultMaxPlans {
			t.Fatalf("%s: value %d, at %v, next %v after %d trials", name, r.Value, r.At, r.Next, len(r.Trials))
		}
		if err := r.Explain(s); err != nil {
			t.Fatal(err)
		}
		if v := r.Next.Fit.Violations; len(v) == 0 || v[0].Limit != tt.limit || len(v[0].Symbols) == 0 {
			t.Errorf("%s: %s=%d stopped by %+v, want %s driven by a symbol", name, tt.symbol, r.Next.Value, v, tt.limit)
		}
		// Plan both values again, apart from the search.
		for _, c := range []struct {
			v    int64
			fits bool
		}{{r.Value, true}, {r.Value + 1, false}} {
			syms := maps.Clone(tt.others)
			if syms == nil {
				syms = map[string]int64{}
			}
			syms[tt.symbol] = c.v
			p, err := s.Lower(syms)
			if err != nil {
				t.Fatal(err)
			}
			plan, _, err := planner.PlanProblem(context.Background(), p, "", s.Place)
			fits := err == nil && plan.FitGPU().Fits
			if err != nil {
				if _, ok := err.(*planner.LimitError); !ok {
					t.Fatalf("%s at %d: %v", name, c.v, err)
				}
			}
			if fits != c.fits {
				t.Errorf("%s: %s=%d fits=%v, want %v", name, tt.symbol, c.v, fits, c.fits)
			}
		}
	}
}

// TestLargestFitNothing: when even 1 does not fit, the answer is 0 with
// the reason at 1.
func TestLargestFitNothing(t *testing.T) {
	gpu, err := planner.ResolveGPU("default", "binding=1KiB,buffer=1KiB", "arena")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.GPU = gpu
	s := planner.FitSearch{Symbol: "prompt", Lower: lowerer(t, "../examples/streaming.json", opts)}
	r, err := planner.LargestFit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Value != 0 || r.At != nil || r.Next == nil || r.Next.Value != 1 || r.Next.Fits || len(r.Trials) != 1 {
		t.Fatalf("got value %d, at %v, next %+v, %d trials; want 0 with the verdict at 1", r.Value, r.At, r.Next, len(r.Trials))
	}
}

// TestSymbolFitDescribe: the answer in words names the value, the next
// one and what stops it, or says that nothing (or everything) fits; the
// lines list every trial.
func TestSymbolFitDescribe(t *testing.T) {
	tests := []struct {
		name    string
		limits  string
		ceiling int64
		text    []string // substrings of Text, in order
		last    string   // the last of Lines
	}{
		{"boundary", "", 0, []string{": the largest prompt that fits WebGPU profile default (arena binding); at prompt=", ": the arena is ", "over maxStorageBufferBindingSize"}, "runs on:"},
		{"nothing fits", "binding=4KiB,buffer=4KiB", 0, []string{"prompt=0: even prompt=1 does not fit WebGPU profile custom (arena binding): "}, "runs on:"},
		{"everything fits", "", 4, []string{"prompt=4: every prompt up to 4 fits WebGPU profile default (arena binding)"}, "every prompt up to 4 fits: it does not limit this plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gpu, err := planner.ResolveGPU("default", tt.limits, "")
			if err != nil {
				t.Fatal(err)
			}
			opts := planner.DefaultOptions()
			opts.F32Uniform, opts.GPU = true, gpu
			s := planner.FitSearch{Symbol: "prompt", Lower: lowerer(t, "../examples/streaming.json", opts), Place: planner.PlaceOptions{NodeLimit: 1000}, Ceiling: tt.ceiling}
			r, err := planner.LargestFit(context.Background(), s)
			if err == nil {
				err = r.Explain(s)
			}
			if err != nil {
				t.Fatal(err)
			}
			r.Describe(gpu)
			rest := r.Text
			for _, want := range tt.text {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("Text %q lacks %q (in order)", r.Text, want)
				}
				rest = rest[i+len(want):]
			}
			if r.Next != nil && !strings.Contains(r.Text, fmt.Sprintf("prompt=%d", r.Next.Value)) {
				t.Errorf("Text %q does not name the next value %d", r.Text, r.Next.Value)
			}
			trials := 0
			for _, l := range r.Lines {
				if strings.HasPrefix(l, "  prompt=") {
					trials++
				}
			}
			if trials != len(r.Trials) || !strings.HasPrefix(r.Lines[len(r.Lines)-1], tt.last) && !strings.HasPrefix(strings.TrimSpace(r.Lines[len(r.Lines)-1]), tt.last) {
				t.Errorf("%d trial lines for %d trials, last line %q (want %q):\n%s", trials, len(r.Trials), r.Lines[len(r.Lines)-1], tt.last, strings.Join(r.Lines, "\n"))
			}
		})
	}
}
