package planner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"memplan/ir"
)

// FuzzVerify feeds VerifyAgainst a buffer CSV and a plan record for it.
// It must never panic, and a record it accepts must also pass the
// big-integer oracle: fuzzed offsets, sizes and guards cannot sneak an
// overlap or an out-of-arena buffer past it.
func FuzzVerify(f *testing.F) {
	const csv = "id,lower,upper,size\na,0,3,16\nb,1,4,8\nc,3,5,16\n"
	p, err := FromTable(mustDecodeTable(f, csv), 1)
	if err != nil {
		f.Fatal(err)
	}
	plan, _, err := PlanProblem(context.Background(), p, "auto", PlaceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal(plan)
	f.Add([]byte(csv), good)
	for _, edit := range []func(*Plan){
		func(p *Plan) { p.Tensors[0].Offset = 1<<63 - 16 },
		func(p *Plan) { p.Tensors[1].Guard = 1<<63 - 1 },
		func(p *Plan) { p.Tensors[1].Offset = p.Tensors[0].Offset },
		func(p *Plan) { p.ArenaSize = 0 },
	} {
		var bad Plan
		json.Unmarshal(good, &bad)
		edit(&bad)
		data, _ := json.Marshal(&bad)
		f.Add([]byte(csv), data)
	}
	f.Fuzz(func(t *testing.T, csvData, record []byte) {
		table, err := ir.DecodeBufferCSV("fuzz.csv", csvData)
		if err != nil {
			return
		}
		p, err := FromTable(table, 1)
		if err != nil || p.Check() != nil {
			return
		}
		plan, err := DecodePlan("fuzz.json", record)
		if err != nil {
			return
		}
		if VerifyAgainst(p, plan) == nil && !oracleValid(plan) {
			t.Fatalf("VerifyAgainst accepted a plan the oracle rejects:\n%s", describePlan(plan))
		}
	})
}

// FuzzPlanPipeline runs the whole path a file takes — decode, analyze,
// place, verify — on small graphs. Bad input must give an error, never a
// panic, and every plan that comes out must be proven valid: an
// *UnverifiedPlanError here is a bug in a strategy.
func FuzzPlanPipeline(f *testing.F) {
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no example graphs to seed the corpus: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Add([]byte(`{"format":"memplan.graph/v1","nodes":[{"name":"x","op":"input","shape":[4611686018427387904],"dtype":"u8"},{"name":"y","op":"input","shape":[4611686018427387904],"dtype":"u8"}]}`), uint8(1))
	f.Add([]byte("id,lower,upper,size,offset\nb1,0,3,16,0\nb2,0,3,16,8\n"), uint8(2))
	// Graphs with no compute step: their records once failed verify.
	for _, src := range zeroStepSources {
		knobs := uint8(0)
		if filepath.Ext(src.file) == ".csv" {
			knobs = 1
		}
		f.Add([]byte(src.data), knobs)
	}
	strategies := StrategyNames()
	f.Fuzz(func(t *testing.T, data []byte, knobs uint8) {
		if len(data) > 1<<16 {
			return // small inputs: the search explores shapes, not sizes
		}
		name := "fuzz.json"
		if knobs&1 != 0 {
			name = "fuzz.csv"
		}
		src, err := ir.Decode(name, data, ir.DecodeOptions{MaxMemory: 64 << 20})
		if err != nil {
			return
		}
		opts := DefaultOptions()
		opts.F32Uniform = knobs&2 != 0
		opts.SkipParams = knobs&4 != 0
		if knobs&8 != 0 {
			opts.Alignment = 1
		}
		p, err := Lower(src, opts)
		if err != nil {
			return
		}
		if len(p.Buffers) > 200 {
			return // the reference strategy is cubic
		}
		strategy := strategies[int(knobs>>4)%len(strategies)]
		if strategy == "exact" {
			strategy = "auto" // exact's time limit would make runs depend on speed
		}
		plan, _, err := PlanProblem(context.Background(), p, strategy, PlaceOptions{})
		var bug *UnverifiedPlanError
		if errors.As(err, &bug) {
			t.Fatalf("%v", err)
		}
		if err != nil {
			return
		}
		// The record survives a round trip and is still proven.
		out, err := json.Marshal(plan)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodePlan("round-trip.json", out)
		if err != nil {
			t.Fatalf("the plan record does not decode: %v", err)
		}
		if err := VerifyAgainst(p, back); err != nil {
			t.Fatalf("the decoded record fails: %v", err)
		}
	})
}

func mustDecodeTable(tb testing.TB, csv string) *ir.BufferTable {
	tb.Helper()
	t, err := ir.DecodeBufferCSV("seed.csv", []byte(csv))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}
