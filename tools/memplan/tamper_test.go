package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/planner"
)

// TestVerifyRejectsFalseClaims edits valid records as someone would who
// wants verify to say ok to a claim that is false, recomputing the
// fingerprint (anyone can), or editing the JSON text itself. Every edit
// gets exit status 4 and a message that names the field.
func TestVerifyRejectsFalseClaims(t *testing.T) {
	dir := t.TempDir()
	record := func(name string, args ...string) (src, rec string) {
		rec = filepath.Join(dir, name+".plan.json")
		src = args[len(args)-1]
		if code, _, errs := runCLI(t, append([]string{"plan", "--json", "-o", rec}, args...)...); code != exitOK {
			t.Fatalf("plan %s: exit %d: %s", name, code, errs)
		}
		return src, rec
	}
	const d = "../../planner/testdata/D.1048576.csv"
	dSrc, dRec := record("d", "--strategy", "first-use", d)
	tSrc, tRec := record("transformer", "../../examples/transformer.json")
	sSrc, sRec := record("streaming", "--skip", "params", "../../examples/streaming.json")
	gSrc, gRec := record("gpu", "--webgpu", "default", "--binding", "tensor", "--limits", "buffer=8MiB,binding=8MiB", "--f32-uniform", "../../examples/transformer.json")

	type edit func(p *planner.Plan)
	byName := func(p *planner.Plan, name string) *planner.PlanTensor {
		for i := range p.Tensors {
			if p.Tensors[i].Name == name {
				return &p.Tensors[i]
			}
		}
		t.Fatalf("no tensor %q", name)
		return nil
	}
	firstView := func(p *planner.Plan) *planner.PlanTensor {
		for i := range p.Tensors {
			if p.Tensors[i].Root != "" {
				return &p.Tensors[i]
			}
		}
		t.Fatal("no view")
		return nil
	}
	tests := []struct {
		name     string
		src, rec string
		edit     edit
		text     func(string) string // an edit of the JSON itself, instead
		want     string              // the field the message names
	}{
		// The record: a first-use plan of D relabelled.
		{"D relabelled optimal", dSrc, dRec, func(p *planner.Plan) { p.Optimal = true }, nil, "optimal is true"},
		{"D relabelled exact, optimal, fragmentation 1", dSrc, dRec, func(p *planner.Plan) {
			p.Strategy, p.Optimal, p.Fragmentation = "exact", true, 1
		}, nil, "fragmentation is 1"},
		{"D fragmentation 0.5", dSrc, dRec, func(p *planner.Plan) { p.Fragmentation = 0.5 }, nil, "fragmentation is 0.5"},
		{"D optimal by search", dSrc, dRec, func(p *planner.Plan) { p.OptimalBySearch, p.Optimal = true, true }, nil, "optimal is true"},
		{"D total_unshared 4·10^18, saved to match", dSrc, dRec, func(p *planner.Plan) {
			p.TotalUnshared = 4_000_000_000_000_000_000
			p.Saved = p.TotalUnshared - p.ArenaSize
		}, nil, "total_unshared"},
		{"D total_unshared a little more, saved to match", dSrc, dRec, func(p *planner.Plan) {
			p.TotalUnshared += 1000
			p.Saved += 1000
		}, nil, "total_unshared is"},
		{"D arena past every tensor", dSrc, dRec, func(p *planner.Plan) { p.ArenaSize += 64; p.Saved -= 64 }, nil, "arena_size is"},
		{"D steps 10^12", dSrc, dRec, func(p *planner.Plan) { p.Steps = 1_000_000_000_000 }, nil, "steps is 1000000000000"},
		{"D lower bound", dSrc, dRec, func(p *planner.Plan) { p.LowerBound-- }, nil, "lower_bound is"},
		{"D aligned lower bound", dSrc, dRec, func(p *planner.Plan) { p.AlignedLowerBound++ }, nil, "aligned_lower_bound is"},
		{"D saved", dSrc, dRec, func(p *planner.Plan) { p.Saved++ }, nil, "saved is"},
		{"D reuses", dSrc, dRec, func(p *planner.Plan) { p.Tensors[40].Reuses = p.Tensors[3].Name }, nil, "reuses is"},
		{"D a row's kind", dSrc, dRec, func(p *planner.Plan) { p.Tensors[0].Kind = planner.KindParam }, nil, "kind is"},
		{"D a row's death", dSrc, dRec, func(p *planner.Plan) { p.Tensors[0].Death++ }, nil, "overlap in memory"},
		{"D a row renamed", dSrc, dRec, func(p *planner.Plan) { p.Tensors[0].Name = "x" }, nil, `placement_order leaves out "x"`},
		{"D a row's op", dSrc, dRec, func(p *planner.Plan) { p.Tensors[0].Op = "matmul" }, nil, "op is"},
		{"D the record's name", dSrc, dRec, func(p *planner.Plan) { p.Name = "E" }, nil, "name is"},
		{"D alignment", dSrc, dRec, func(p *planner.Plan) { p.Alignment = 2 }, nil, "alignment"},
		{"D the fingerprint", dSrc, dRec, func(p *planner.Plan) { p.Fingerprint = strings.Repeat("0", 32) }, nil, "fingerprint is"},
		{"D a tensor's own alignment", dSrc, dRec, func(p *planner.Plan) { p.Tensors[0].Alignment = 16 }, nil, "alignment"},

		// A graph's record.
		{"an output dropped", tSrc, tRec, func(p *planner.Plan) { p.IO.Outputs = p.IO.Outputs[1:] }, nil, `kind is "output", but its op "add" and the outputs make it "activation"`},
		{"an input renamed in the manifest", tSrc, tRec, func(p *planner.Plan) { p.IO.Inputs[0] = "y" }, nil, "io.inputs"},
		{"a schedule entry renamed", tSrc, tRec, func(p *planner.Plan) { p.Schedule[3] = "l0.renamed" }, nil, "schedule"},
		{"a shape", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").Shape[0]++ }, nil, "shape"},
		{"a dtype", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").DType = "f32" }, nil, "dtype"},
		{"a size and the totals with it", tSrc, tRec, func(p *planner.Plan) { byName(p, "x").Size -= 64 }, nil, "size"},
		{"a kind", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").Kind = planner.KindOutput }, nil, "kind is"},
		{"an op", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").Op = "relu" }, nil, "op is"},
		{"a node", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").Node = "l0.up" }, nil, `not its node "l0.up"`},
		{"a birth", tSrc, tRec, func(p *planner.Plan) { byName(p, "l0.gelu").Birth-- }, nil, "birth"},
		{"a guard", tSrc, tRec, func(p *planner.Plan) { byName(p, "x").Guard += 64 }, nil, "guard"},
		{"a view's offset in its root", tSrc, tRec, func(p *planner.Plan) { firstView(p).ViewOffset += 2 }, nil, "view"},
		{"a view's root", tSrc, tRec, func(p *planner.Plan) { firstView(p).Root = "x" }, nil, "root"},
		{"a tensor skipped", tSrc, tRec, func(p *planner.Plan) { t := byName(p, "x"); t.Skipped, t.Offset = true, -1 }, nil, "skipped"},
		{"a symbol", tSrc, tRec, func(p *planner.Plan) { p.Symbols["seq"]++ }, nil, "symbols"},
		{"an output's death", tSrc, tRec, func(p *planner.Plan) { byName(p, p.IO.Outputs[0]).Death-- }, nil, "an output, but its live range ends"},
		{"an activation's death, bytes still free", dSrc, dRec, func(p *planner.Plan) { p.Tensors[len(p.Tensors)-1].Death-- }, nil, "death is"},
		{"an option", tSrc, tRec, func(p *planner.Plan) { p.Options.F32Uniform = true }, nil, "size is"},
		{"the guard option", tSrc, tRec, func(p *planner.Plan) { p.Options.Guard = 256 }, nil, "guard is 128, the source's is 256"},
		{"a note", tSrc, tRec, func(p *planner.Plan) { p.Notes = append(p.Notes, "verified by hand") }, nil, "notes"},
		{"what a step reads", tSrc, tRec, func(p *planner.Plan) { p.Reads[2] = p.Reads[2][:0] }, nil, "reads"},
		{"a label of the wrong form", tSrc, tRec, func(p *planner.Plan) { p.PlacementRule = "magic" }, nil, "placement_rule is"},
		{"a placement order naming a tensor twice", tSrc, tRec, func(p *planner.Plan) {
			p.PlacementOrder[1] = p.PlacementOrder[0]
		}, nil, "placement_order names"},
		{"phases", sSrc, sRec, func(p *planner.Plan) { p.Phases[0] = "decode" }, nil, "phase"},
		{"a tensor's phase", sSrc, sRec, func(p *planner.Plan) { byName(p, "dec1.attn").Phase = "prefill" }, nil, "phase is"},

		// Under tensor binding.
		{"GPU buffers cut elsewhere", gSrc, gRec, func(p *planner.Plan) { p.Buffers[0].Size -= 256; p.Buffers[1].Offset -= 256 }, nil, "buffers"},
		{"a tensor's GPU buffer", gSrc, gRec, func(p *planner.Plan) {
			for i := range p.Tensors {
				if s := p.Tensors[i].BufferSlot; s != nil && s.Buffer == 0 {
					s.Buffer = 1
					return
				}
			}
		}, nil, "GPU buffer"},
		{"the limits", gSrc, gRec, func(p *planner.Plan) { p.Limits.MaxBufferSize *= 2 }, nil, "limits"},
		{"the binding left out", gSrc, gRec, func(p *planner.Plan) { p.Binding = "" }, nil, "binding"},

		// Two readers, two plans: the JSON itself.
		{"an offset given twice", tSrc, tRec, nil, func(s string) string {
			return strings.Replace(s, `"offset": `, `"offset": 0, "offset": `, 1)
		}, `duplicate field "offset"`},
		{"an offset in another case", tSrc, tRec, nil, func(s string) string {
			return strings.Replace(s, `"offset": `, `"Offset": 20972416, "offset": `, 1)
		}, `unknown field "Offset"`},
		{"the format in another case", tSrc, tRec, nil, func(s string) string {
			return strings.Replace(s, `"format": `, `"Format": "x", "format": `, 1)
		}, `unknown field "Format"`},
		{"an offset JSON.parse would round", tSrc, tRec, nil, func(s string) string {
			return strings.Replace(s, `"arena_size": `, `"arena_size": 9007199254740993, "x": `, 1)
		}, "arena_size: integer 9007199254740993 is beyond ±2^53"},
		{"a field left out", tSrc, tRec, nil, func(s string) string {
			return strings.Replace(s, `"lower_bound": `, `"lower_bonud": `, 1)
		}, `unknown field "lower_bonud"; did you mean "lower_bound"?`},
	}
	for _, tc := range tests {
		// Each edit twice: with the fingerprint recomputed, and left
		// stale, when the message must still name the field (not only
		// the hash, which the source's fields are not checked without).
		for _, stale := range []bool{false, true} {
			if stale && tc.text != nil {
				continue
			}
			name := tc.name
			if stale {
				name += ", fingerprint stale"
			}
			t.Run(name, func(t *testing.T) {
				data, err := os.ReadFile(tc.rec)
				if err != nil {
					t.Fatal(err)
				}
				if tc.text != nil {
					data = []byte(tc.text(string(data)))
				} else {
					p, err := planner.DecodePlan(tc.rec, data)
					if err != nil {
						t.Fatal(err)
					}
					before := p.Fingerprint
					tc.edit(p)
					if p.Fingerprint == before && !stale {
						p.Fingerprint = p.ComputeFingerprint()
					}
					data, _ = json.MarshalIndent(p, "", "  ")
				}
				tampered := filepath.Join(t.TempDir(), "tampered.json")
				os.WriteFile(tampered, data, 0o644)
				code, out, errs := runCLI(t, "verify", tc.src, tampered)
				if code != exitBadPlan || !strings.Contains(errs, tc.want) || out != "" {
					t.Errorf("verify: exit %d, want %d\nstdout: %.200s\nstderr: %.700s\nwant stderr naming %q", code, exitBadPlan, out, errs, tc.want)
				}
			})
		}
	}
}

// Labels say how a plan was made, not what it is: verify checks their
// form, not their truth (docs/plan-format.md), so a record with another
// strategy's name or its placement order shuffled is still the same
// valid plan.
func TestVerifyTakesLabelsAsLabels(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "p.json")
	src := "../../examples/transformer.json"
	if code, _, errs := runCLI(t, "plan", "--json", "-o", rec, src); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(rec)
	p, err := planner.DecodePlan(rec, data)
	if err != nil {
		t.Fatal(err)
	}
	p.Strategy, p.PlacementRule = "another solver", planner.RuleFirstFit
	slices.Reverse(p.PlacementOrder)
	p.Fingerprint = p.ComputeFingerprint()
	data, _ = json.Marshal(p)
	os.WriteFile(rec, data, 0o644)
	if code, out, errs := runCLI(t, "verify", src, rec); code != exitOK || !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify: exit %d: %s%s", code, out, errs)
	}
}
