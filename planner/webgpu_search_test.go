package planner_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
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

// Out of plans, the search says so, with what fit so far.
func TestLargestFitOutOfPlans(t *testing.T) {
	gpu, err := planner.ResolveGPU("default", "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.GPU = gpu
	s := planner.FitSearch{Symbol: "prompt", Lower: lowerer(t, "../examples/streaming.json", opts), MaxPlans: 3, Place: planner.PlaceOptions{NodeLimit: 1000}}
	r, err := planner.LargestFit(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "no answer within 3 plans") || r == nil || r.Value != 4 || r.At == nil || r.Next != nil || len(r.Trials) != 3 {
		t.Fatalf("%+v, %v; want prompt=4 fitting and the plans out after 3", r, err)
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

// heavyGraph is a graph of three f32 weights of side x side and a chain
// of matmuls over a [seq, side] input: 12·side² bytes of weights, the
// activations growing with seq.
func heavyGraph(side int) []byte {
	node := func(name, op, inputs, shape string) string {
		if inputs != "" {
			inputs = `, "inputs": [` + inputs + `]`
		}
		return fmt.Sprintf(`{"name": %q, "op": %q%s, "shape": [%s], "dtype": "f32"}`, name, op, inputs, shape)
	}
	act := fmt.Sprintf(`"seq", %d`, side)
	w := fmt.Sprintf(`%d, %d`, side, side)
	nodes := []string{
		node("x", "input", "", act),
		node("w0", "param", "", w), node("w1", "param", "", w), node("w2", "param", "", w),
		node("h0", "matmul", `"x", "w0"`, act), node("h1", "matmul", `"h0", "w1"`, act), node("h2", "matmul", `"h1", "w2"`, act),
	}
	return []byte(`{"format": "memplan.graph/v1", "name": "heavy", "symbols": {"seq": 1}, "nodes": [` + strings.Join(nodes, ",\n") + `], "outputs": ["h2"]}`)
}

// lowererWith reads a graph and lowers it for a device at any symbol
// values, with the options changed as LargestFit asks.
func lowererWith(data []byte, opts planner.Options) func(map[string]int64, func(*planner.Options)) (*planner.Problem, error) {
	return func(syms map[string]int64, change func(*planner.Options)) (*planner.Problem, error) {
		src, err := ir.Decode("heavy.json", data, ir.DecodeOptions{Symbols: syms})
		if err != nil {
			return nil, err
		}
		o := opts
		o.Symbols = syms
		if change != nil {
			change(&o)
		}
		return planner.Lower(src, o)
	}
}

// TestLargestFitWhenTheWeightsAloneAreOver: a model whose weights alone
// are over the device fits at no sequence length. The answer (WhatIf)
// says so, and what would change it (params skipped, tensor binding, the
// smallest profile that holds it), each with the value it gives: checked
// here by planning that value and the next with the change, apart from
// the search. All the searches share the plan budget.
func TestLargestFitWhenTheWeightsAloneAreOver(t *testing.T) {
	tests := []struct {
		name        string
		side        int
		profile     string
		limits      string
		binding     string
		maxPlans    int
		weightsOver bool
		changes     []string // the changes, in order
		atLeast     bool     // the plans ran out in every change
		text        []string // parts of Text, in order
	}{
		{"192 MiB of weights, 128 MiB binding", 4096, "default", "", "arena", 0, true,
			[]string{"params skipped", "tensor binding", "profile ios"}, false,
			[]string{"seq=0: even seq=1 does not fit WebGPU profile default (arena binding): the arena is ",
				"; the weights alone take 192.0004 MiB of the arena, over the device's 128 MiB binding: no seq fits while they are in it; with params skipped seq=2730, tensor binding seq=8192, profile ios seq=1365"}},
		{"a weight over a tensor binding", 4096, "default", "binding=32MiB,buffer=256MiB", "tensor", 0, true,
			[]string{"params skipped", "profile default"}, false,
			[]string{"seq=0: even seq=1 does not fit WebGPU profile custom (tensor binding): ", "; a weight alone is over a binding of the device: no seq fits; with params skipped seq="}},
		{"the plans run out", 4096, "default", "", "arena", 10, true,
			[]string{"params skipped", "tensor binding", "profile ios"}, true, []string{"the weights alone take 192.0004 MiB of the arena", "with params skipped seq=4 or more, "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gpu, err := planner.ResolveGPU(tt.profile, tt.limits, tt.binding)
			if err != nil {
				t.Fatal(err)
			}
			opts := planner.DefaultOptions()
			opts.GPU = gpu
			with := lowererWith(heavyGraph(tt.side), opts)
			place := planner.PlaceOptions{NodeLimit: 1000}
			s := planner.FitSearch{Symbol: "seq", Lower: func(syms map[string]int64) (*planner.Problem, error) { return with(syms, nil) },
				LowerWith: with, Place: place, MaxPlans: tt.maxPlans}
			r, err := planner.LargestFit(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			r.Describe(gpu)
			if err := r.WhatIf(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if r.Value != 0 || r.At != nil || r.WeightsOver != tt.weightsOver || r.Weights < 3*int64(tt.side*tt.side*4) {
				t.Fatalf("value %d, weights %d (over: %v), want 0 with %d bytes of weights over", r.Value, r.Weights, r.WeightsOver, 3*tt.side*tt.side*4)
			}
			var names []string
			plans := len(r.Trials)
			for _, c := range r.Changes {
				names = append(names, c.Change)
				plans += c.Plans
				if c.AtLeast != tt.atLeast || c.Value < 1 {
					t.Errorf("%s: %s=%d (at least: %v), want a value that fits, at least %v", c.Change, r.Symbol, c.Value, c.AtLeast, tt.atLeast)
				}
			}
			max := tt.maxPlans
			if max == 0 {
				max = planner.DefaultMaxPlans
			}
			if !slices.Equal(names, tt.changes) || plans > max {
				t.Fatalf("changes %q in %d plans, want %q within %d", names, plans, tt.changes, max)
			}
			// Plan each change's value, and the next, apart from the search.
			changes := map[string]func(*planner.Options){
				"params skipped": func(o *planner.Options) { o.SkipParams = true },
				"tensor binding": func(o *planner.Options) { o.GPU = &planner.GPU{Binding: planner.BindTensor, Limits: gpu.Limits} },
			}
			for _, name := range planner.ProfileNames() {
				l, _ := planner.ProfileLimits(name)
				changes["profile "+name] = func(o *planner.Options) { o.GPU = &planner.GPU{Binding: gpu.Binding, Limits: l} }
			}
			for _, c := range r.Changes {
				for _, v := range []int64{c.Value, c.Value + 1} {
					if v > c.Value && c.AtLeast {
						continue
					}
					p, err := with(map[string]int64{"seq": v}, changes[c.Change])
					if err != nil {
						t.Fatal(err)
					}
					plan, _, err := planner.PlanProblem(context.Background(), p, "", place)
					fits := err == nil && plan.FitGPU().Fits
					if _, ok := err.(*planner.LimitError); err != nil && !ok {
						t.Fatal(err)
					}
					if fits != (v == c.Value) {
						t.Errorf("%s: seq=%d fits=%v, want %v", c.Change, v, fits, v == c.Value)
					}
				}
			}
			rest := r.Text
			for _, want := range tt.text {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("Text %q lacks %q (in order)", r.Text, want)
				}
				rest = rest[i+len(want):]
			}
			if last := r.Lines[len(r.Lines)-1]; !strings.HasPrefix(last, "  "+tt.changes[len(tt.changes)-1]+": seq=") {
				t.Errorf("the last line %q, want the last change's value\n%s", last, strings.Join(r.Lines, "\n"))
			}
		})
	}
}

// Without weights over the device, even 1 may not fit: the answer does
// not blame them, and a change that does not help says so.
func TestLargestFitNothingFitsWithoutWeights(t *testing.T) {
	// One input of 64M f32 a row: 256 MiB at seq=1, no weights.
	graph := []byte(`{"format": "memplan.graph/v1", "name": "wide", "symbols": {"seq": 1}, "nodes": [
		{"name": "x", "op": "input", "shape": ["seq", 67108864], "dtype": "f32"},
		{"name": "y", "op": "relu", "inputs": ["x"], "shape": ["seq", 67108864], "dtype": "f32"}], "outputs": ["y"]}`)
	gpu, err := planner.ResolveGPU("default", "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.GPU = gpu
	with := lowererWith(graph, opts)
	s := planner.FitSearch{Symbol: "seq", Lower: func(syms map[string]int64) (*planner.Problem, error) { return with(syms, nil) }, LowerWith: with}
	r, err := planner.LargestFit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	r.Describe(gpu)
	if err := r.WhatIf(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if r.Value != 0 || r.Weights != 0 || r.WeightsOver || len(r.Changes) == 0 || r.Changes[0].Change != "tensor binding" || r.Changes[0].Value != 0 {
		t.Fatalf("value %d, weights %d (over %v), changes %+v; want 0, no weights, tensor binding no help", r.Value, r.Weights, r.WeightsOver, r.Changes)
	}
	if strings.Contains(r.Text, "weights") || !slices.Contains(r.Lines, "  tensor binding: even seq=1 does not fit") {
		t.Errorf("Text %q\n%s", r.Text, strings.Join(r.Lines, "\n"))
	}
}
