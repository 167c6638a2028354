package planner

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"memplan/ir"
)

// sample is a valid plan record and the problem it was planned from.
type sample struct {
	name string
	p    *Problem
	plan *Plan
}

// sampleRecords plans sources that between them fill every field a plan
// record has: views, phases, skipped tensors and views of them, symbols,
// notes,
// f32-uniform sizes, tensor binding cut into several GPU
// buffers, a buffer list with alignments of its own, a placement order
// and rule, and exact's optimal_by_search.
func sampleRecords(tb testing.TB) []sample {
	tb.Helper()
	graph := func(file string, opts Options, strategy string) (*Problem, *Plan) {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		src, err := ir.Decode(file, data, ir.DecodeOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		p, err := Lower(src, opts)
		if err != nil {
			tb.Fatal(err)
		}
		plan, _, err := PlanProblem(context.Background(), p, strategy, PlaceOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		return p, plan
	}
	table := func(csv string, align int64, strategy string) (*Problem, *Plan) {
		p, err := FromTable(mustDecodeTable(tb, csv), align)
		if err != nil {
			tb.Fatal(err)
		}
		plan, _, err := PlanProblem(context.Background(), p, strategy, PlaceOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		return p, plan
	}
	var out []sample
	add := func(name string, p *Problem, plan *Plan) { out = append(out, sample{name, p, plan}) }

	p, plan := graph("../examples/transformer.json", DefaultOptions(), "auto")
	add("transformer", p, plan)

	opts := DefaultOptions()
	opts.SkipParams, opts.Symbols = true, map[string]int64{"prompt": 24}
	p, plan = graph("../examples/streaming.json", opts, "best-fit")
	add("streaming, params skipped", p, plan)

	opts = DefaultOptions()
	opts.F32Uniform = true
	gpu, err := ResolveGPU("default", "buffer=8MiB,binding=8MiB", BindTensor)
	if err != nil {
		tb.Fatal(err)
	}
	opts.GPU = gpu
	p, plan = graph("../examples/transformer.json", opts, "first-use")
	add("transformer, f32-uniform, tensor binding", p, plan)

	p, plan = graph("../examples/dynamic.json", DefaultOptions(), "no-reuse")
	add("dynamic, no reuse", p, plan)

	// A backward graph with the forward plan's weights fixed: notes.
	_, fwd := graph("../examples/train-forward.json", DefaultOptions(), "auto")
	opts = DefaultOptions()
	opts.SharedWeights = WeightLayoutOf(fwd)
	p, plan = graph("../examples/train-backward.json", opts, "auto")
	add("backward with the forward's weights", p, plan)

	p, plan = table("id,lower,upper,size,alignment\na,0,2,3,1\nb,0,2,5,2\nc,1,3,7,16\nd,2,4,9,4\n", 8, "best-fit")
	add("buffer list with alignments", p, plan)

	// exact proves this one optimal above the aligned bound (58 > 57).
	p, plan = table("id,lower,upper,size\nb0,3,6,19\nb1,4,8,18\nb2,0,1,9\nb3,0,1,6\nb4,0,2,16\nb5,4,8,14\n", 8, "exact")
	add("exact above the bound", p, plan)

	// What the samples must cover, or they test less than they claim.
	var views, skipped, phases, slots, cuts, aligned, order, bySearch, notes bool
	for _, s := range out {
		for i := range s.plan.Tensors {
			t := &s.plan.Tensors[i]
			views = views || t.Root != ""
			skipped = skipped || t.Skipped
			slots = slots || t.BufferSlot != nil
			aligned = aligned || t.Alignment != 0
		}
		phases = phases || len(s.plan.Phases) > 0
		order = order || s.plan.PlacementOrder != nil
		bySearch = bySearch || s.plan.OptimalBySearch
		cuts = cuts || len(s.plan.Buffers) > 1
		notes = notes || len(s.plan.Notes) > 0
	}
	if !(views && skipped && phases && slots && cuts && aligned && order && bySearch && notes) {
		tb.Fatalf("samples miss a field: views %v skipped %v phases %v slots %v cuts %v aligned %v order %v by search %v notes %v",
			views, skipped, phases, slots, cuts, aligned, order, bySearch, notes)
	}
	return out
}

// recordJSON is a plan's record as memplan writes it.
func recordJSON(tb testing.TB, plan *Plan) []byte {
	tb.Helper()
	data, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
