package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

// phased returns node n in phase ph.
func phased(n ir.Node, ph string) ir.Node { n.Phase = ph; return n }

// peakBetween is the most bytes placed tensors hold at one step of
// [first, last], summed step by step.
func peakBetween(p *Plan, first, last int) int64 {
	var peak int64
	for s := first; s <= last; s++ {
		var live int64
		for i := range p.Tensors {
			if t := &p.Tensors[i]; t.Placed() && t.Birth <= s && s <= t.Death {
				live += t.Size + t.Guard
			}
		}
		peak = max(peak, live)
	}
	return peak
}

func TestPhases(t *testing.T) {
	f32 := ir.F32
	g := &ir.Graph{Name: "stream", Nodes: []ir.Node{
		node("x", ir.OpInput, f32, []int64{16, 64}),
		node("w", ir.OpParam, f32, []int64{64, 64}),
		phased(node("h", "matmul", f32, []int64{16, 64}, "x", "w"), "prefill"),
		phased(node("big", "expand", f32, []int64{256, 64}, "h"), "prefill"),
		phased(node("kv", "reduce", f32, []int64{16, 64}, "big"), "prefill"),
		phased(node("t1", "matmul", f32, []int64{1, 64}, "kv", "w"), "decode"),
		phased(node("t2", "matmul", f32, []int64{1, 64}, "t1", "kv"), "decode"),
		node("post", "relu", f32, []int64{1, 64}, "t2"),
		phased(node("again", "matmul", f32, []int64{16, 64}, "kv", "post"), "prefill"),
	}, Outputs: []string{"again"}}
	for _, strategy := range []string{"auto", "no-reuse"} {
		t.Run(strategy, func(t *testing.T) {
			plan := planGraph(t, g, Options{}, strategy)
			// x and w are loaded before the run: they take no step.
			want := []string{"prefill", "prefill", "prefill", "decode", "decode", "", "prefill"}
			if !slices.Equal(plan.Phases, want) {
				t.Fatalf("phases %q, want %q", plan.Phases, want)
			}
			for _, c := range []struct{ tensor, phase string }{{"x", ""}, {"big", "prefill"}, {"t2", "decode"}, {"post", ""}} {
				if got := tensorOf(t, plan, c.tensor).Phase; got != c.phase {
					t.Errorf("tensor %s: phase %q, want %q", c.tensor, got, c.phase)
				}
			}
			runs := plan.PhaseRuns()
			wantRuns := []PhaseRun{{"prefill", 0, 2, 0}, {"decode", 3, 4, 0}, {"prefill", 6, 6, 0}}
			if len(runs) != len(wantRuns) {
				t.Fatalf("runs %+v, want %d", runs, len(wantRuns))
			}
			for k, r := range runs {
				w := wantRuns[k]
				w.Peak = peakBetween(plan, w.First, w.Last)
				if r != w {
					t.Errorf("run %d: %+v, want %+v", k, r, w)
				}
			}
			// The prefill run holds the expanded tensor; decode does not.
			if runs[0].Peak <= runs[1].Peak {
				t.Errorf("prefill peak %d not above decode peak %d", runs[0].Peak, runs[1].Peak)
			}
		})
	}
}

func TestPhasesAbsentOrBroken(t *testing.T) {
	f32 := ir.F32
	g := &ir.Graph{Name: "plain", Nodes: []ir.Node{
		node("x", ir.OpInput, f32, []int64{4}),
		node("y", "relu", f32, []int64{4}, "x"),
		node("z", "relu", f32, []int64{4}, "y"),
	}, Outputs: []string{"z"}}
	plan := planGraph(t, g, Options{}, "auto")
	if plan.Phases != nil || plan.PhaseRuns() != nil {
		t.Fatalf("a graph without phases has phases %q, runs %v", plan.Phases, plan.PhaseRuns())
	}
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"phase`) {
		t.Fatalf("record of a graph without phases mentions them: %s", data)
	}

	g.Nodes[1].Phase = "decode"
	withPhase := planGraph(t, g, Options{}, "auto")
	if withPhase.Fingerprint == plan.Fingerprint {
		t.Error("a phase does not change the fingerprint")
	}
	withPhase.Phases = withPhase.Phases[:1]
	if err := Verify(withPhase); err == nil || !strings.Contains(err.Error(), "phases has length 1, but schedule 2") {
		t.Errorf("Verify of a short phases list: %v", err)
	}
}
