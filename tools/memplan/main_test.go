package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"memplan/ir"
	"memplan/planner"
	"memplan/wasm/protocol"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodesAndMessages(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"format": "memplan.graph/v1", "nodes": [`), 0o644)
	likeRecord := filepath.Join(dir, "like-a-record.json")
	os.WriteFile(likeRecord, []byte(`{"format": "memplan.graph/v1", "name": "memplan.plan/v1", "nodes": [{"name": "x", "op": "input", "shape": [4], "dtype": "f32"}]}`), 0o644)
	badPlan := filepath.Join(dir, "badplan.json")
	os.WriteFile(badPlan, []byte("{\"format\": \"memplan.plan/v1\",\n \"arena_size\": \"lots\"}"), 0o644)
	bwdPlan := filepath.Join(dir, "bwd.plan.json")
	if code, _, errs := runCLI(t, "plan", "--json", "-o", bwdPlan, "../../examples/train-backward.json"); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{"report", []string{"plan", "../../examples/r1-chain.json"}, exitOK, "# arena_size=", ""},
		{"flags after the file", []string{"plan", "../../examples/mlp.json", "--set", "batch=2", "--json"}, exitOK, `"format": "memplan.plan/v1"`, ""},
		{"phases", []string{"plan", "../../examples/streaming.json"}, exitOK, "# phase prefill: steps 0-12, peak 27.13 MiB live\n# phase decode: steps 13-48, peak 22.67 MiB live\n", ""},
		{"fits the budget", []string{"plan", "--budget", "2MiB", "../../examples/r1-chain.json"}, exitOK, "arena_size=1640832", ""},
		{"over budget", []string{"plan", "--budget", "1MiB", "../../examples/r1-chain.json"}, exitOverBudget, "", "arena 1.56 MiB exceeds budget 1 MiB by 578.38 KiB"},
		{"estimate over budget", []string{"estimate", "--budget", "1MiB", "../../examples/mlp.json"}, exitOverBudget, "peak", "exceeds budget 1 MiB by"},
		{"broken file says where", []string{"plan", broken}, exitBadInput, "", "broken.json:1:"},
		{"a graph named like a plan record is a graph", []string{"plan", likeRecord}, exitOK, "# memplan.plan/v1: 1 tensors", ""},
		{"malformed plan record says where", []string{"verify", "../../examples/mlp.json", badPlan}, exitBadPlan, "", `badplan.json:2:16: arena_size: got string "lots", want an integer`},
		{"missing file", []string{"plan", filepath.Join(dir, "none.json")}, exitBadInput, "", "no such file"},
		// The forward graph is planned as the page plans it (protocol),
		// but its errors name the flag.
		{"forward graph broken", []string{"plan", "--forward", broken, "../../examples/train-backward.json"}, exitBadInput, "", "--forward: " + broken + ":1:"},
		{"forward graph missing", []string{"plan", "--forward", filepath.Join(dir, "none.json"), "../../examples/train-backward.json"}, exitBadInput, "", "--forward: open "},
		{"verify with a bad flag", []string{"verify", "--time-limit", "-1s", "../../examples/train-backward.json", bwdPlan}, exitBadInput, "", "--time-limit -1s is negative"},
		{"verify's forward graph broken", []string{"verify", "--forward", broken, "../../examples/train-backward.json", bwdPlan}, exitBadInput, "", "--forward: " + broken + ":1:"},
		{"unknown strategy", []string{"plan", "--strategy", "magic", "../../examples/mlp.json"}, exitBadInput, "", `unknown strategy "magic"`},
		{"bad alignment", []string{"plan", "--align", "48", "../../examples/mlp.json"}, exitBadInput, "", "want a power of two up to 1 GiB, got 48"},
		{"alignment 0", []string{"plan", "--align", "0", "../../examples/mlp.json"}, exitBadInput, "", "want a power of two up to 1 GiB, got 0"},
		{"budget 0", []string{"plan", "--budget", "0", "../../examples/mlp.json"}, exitBadInput, "", "want a size above 0 (leave the budget out for none)"},
		{"bad switch", []string{"plan", "--f32-uniform=maybe", "../../examples/mlp.json"}, exitBadInput, "", `want true or false (or 1 or 0) for a switch, got "maybe"`},
		{"bad branch", []string{"plan", "--if-branch", "both", "../../examples/mlp.json"}, exitBadInput, "", `want then or else, got "both"`},
		{"bad skip", []string{"plan", "--skip", "weights", "../../examples/mlp.json"}, exitBadInput, "", `unknown kind "weights"`},
		{"bad budget", []string{"plan", "--budget", "lots", "../../examples/mlp.json"}, exitBadInput, "", `bad size "lots"`},
		{"no command", nil, exitBadInput, "", "Usage:"},
		{"unknown command", []string{"frobnicate"}, exitBadInput, "", `unknown command "frobnicate"`},
		{"moe fits", []string{"moe", "--expert-bytes", "64MiB", "--layers", "4", "--experts", "8", "--budget", "1GiB", "--reserve", "0.25"}, exitOK, "resident experts per layer 3 of 8 (5 offloaded)", ""},
		{"moe does not fit", []string{"moe", "--expert-bytes", "1GiB", "--layers", "4", "--experts", "8", "--budget", "1GiB"}, exitOverBudget, "", "exceeds budget"},
		{"help", []string{"-h"}, exitOK, "Exit status", ""},
		{"f32-uniform fits WebGPU's binding", []string{"plan", "--f32-uniform", "../../examples/transformer.json"}, exitOK, "# fits WebGPU's 128 MiB storage-binding limit", ""},
		{"f32-uniform over WebGPU's binding", []string{"plan", "--f32-uniform", "--set", "seq=2048", "../../examples/transformer.json"}, exitOverBudget,
			"# exceeds WebGPU's 128 MiB storage-binding limit by 56.01 MiB", "memplan: exceeds WebGPU's 128 MiB storage-binding limit by 56.01 MiB"},
		{"f32-uniform over WebGPU's binding, as a record", []string{"plan", "--json", "--f32-uniform", "--set", "seq=2048", "../../examples/transformer.json"}, exitOverBudget,
			`"f32_uniform": true`, "# exceeds WebGPU's 128 MiB storage-binding limit by 56.01 MiB"},
		{"a budget over WebGPU's binding wins", []string{"plan", "--f32-uniform", "--budget", "1GiB", "--set", "seq=2048", "../../examples/transformer.json"}, exitOK, "# fits the budget of 1 GiB (184.01 MiB of 1 GiB)", ""},
		{"fits a WebGPU profile", []string{"plan", "--webgpu", "default", "--f32-uniform", "../../examples/transformer.json"}, exitOK, "# fits WebGPU profile default (arena binding)", ""},
		{"over a WebGPU profile", []string{"plan", "--webgpu", "default", "--f32-uniform", "--set", "seq=2048", "../../examples/transformer.json"}, exitOverBudget,
			"over maxStorageBufferBindingSize 128 MiB by 56.01 MiB (its size grows with batch and seq; here batch=4, seq=2048)", "does not fit WebGPU profile default"},
		{"a tensor over the binding", []string{"plan", "--webgpu", "default", "--binding", "tensor", "--f32-uniform", "--set", "seq=8192", "--skip", "params", "../../examples/transformer.json"}, exitOverBudget,
			`tensor "l0.up" is 256 MiB (268435456 bytes), over maxStorageBufferBindingSize 128 MiB`, "does not fit WebGPU profile default (tensor binding)"},
		{"custom limits", []string{"plan", "--webgpu", "default", "--limits", "binding=256MiB,buffer=256MiB", "--binding", "tensor", "--f32-uniform", "--set", "seq=8192", "../../examples/transformer.json"}, exitOK,
			"# fits WebGPU profile custom (tensor binding)", ""},
		{"bad limits", []string{"plan", "--webgpu", "default", "--limits", "binding=2GiB", "../../examples/mlp.json"}, exitBadInput, "", "limits: maxStorageBufferBindingSize 2147483648 is larger than maxBufferSize"},
		// Binding and limits apply only with a profile: typed without one
		// they are an error, not dropped.
		{"binding without a device", []string{"plan", "--binding", "tensor", "../../examples/mlp.json"}, exitBadInput, "", "--binding and --limits apply to a WebGPU device: name its profile with --webgpu"},
		{"limits without a device", []string{"plan", "--limits", "binding=1GiB,buffer=1GiB", "../../examples/mlp.json"}, exitBadInput, "", "--binding and --limits apply to a WebGPU device"},
		// A device and a budget: the plan must fit both.
		{"within the budget, over the device", []string{"plan", "--webgpu", "default", "--budget", "1GiB", "--f32-uniform", "--set", "seq=2048", "../../examples/transformer.json"}, exitOverBudget,
			"# does not fit WebGPU profile default (arena binding): 1 violation; fits the budget of 1 GiB (184.01 MiB of 1 GiB)", "does not fit WebGPU profile default"},
		{"within the device, over the budget", []string{"plan", "--webgpu", "default", "--budget", "1MiB", "--f32-uniform", "../../examples/transformer.json"}, exitOverBudget,
			"# fits WebGPU profile default (arena binding); exceeds the budget of 1 MiB by", "exceeds budget 1 MiB by"},
		{"unknown profile", []string{"plan", "--webgpu", "gtx", "../../examples/mlp.json"}, exitBadInput, "", `unknown WebGPU profile "gtx"`},
		{"largest fit", []string{"fit", "--symbol", "seq", "--webgpu", "default", "--f32-uniform", "../../examples/transformer.json"}, exitOK,
			"# seq=1332 was planned and does not fit:\n# does not fit WebGPU profile default (arena binding): 1 violation\n", ""},
		{"nothing fits", []string{"fit", "--symbol", "seq", "--webgpu", "default", "--limits", "binding=1MiB,buffer=1MiB", "../../examples/transformer.json"}, exitOverBudget, "# even seq=1 needs more than the device has:", ""},
		{"fit needs a device", []string{"fit", "--symbol", "seq", "../../examples/transformer.json"}, exitBadInput, "", "fit needs a device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.wantOut) || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, want %d\nstdout: %.300s\nstderr: %.300s\nwant stdout containing %q, stderr containing %q",
					code, tc.code, out, errs, tc.wantOut, tc.wantErr)
			}
		})
	}
}

// Plans written with --json pass verify; a tampered plan fails with exit 2.
func TestPlanThenVerify(t *testing.T) {
	inputs, _ := filepath.Glob("../../examples/*.json")
	csvs, _ := filepath.Glob("../../planner/testdata/*.csv")
	inputs = append(inputs, csvs...)
	if len(inputs) < 8 {
		t.Fatalf("found only %d inputs", len(inputs))
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plan.json")
			args := []string{"plan", "--json", "-o", out, "--skip", "constants", in}
			if code, _, errs := runCLI(t, args...); code != exitOK {
				t.Fatalf("plan: exit %d: %s", code, errs)
			}
			if code, stdout, errs := runCLI(t, "verify", in, out); code != exitOK || !strings.HasPrefix(stdout, "ok:") {
				t.Fatalf("verify: exit %d: %s%s", code, stdout, errs)
			}
			data, _ := os.ReadFile(out)
			var plan planner.Plan
			if err := json.Unmarshal(data, &plan); err != nil {
				t.Fatal(err)
			}
			// Move the largest placed tensor onto its neighbour's bytes.
			var big, other *planner.PlanTensor
			for i := range plan.Tensors {
				tt := &plan.Tensors[i]
				if !tt.Placed() || tt.Size == 0 {
					continue
				}
				if big == nil || tt.Size > big.Size {
					big = tt
				}
			}
			for i := range plan.Tensors {
				tt := &plan.Tensors[i]
				if tt.Placed() && tt != big && tt.Size > 0 && tt.Birth <= big.Death && big.Birth <= tt.Death {
					other = tt
					break
				}
			}
			if other == nil {
				t.Skip("no two tensors live together")
			}
			big.Offset = other.Offset
			data, _ = json.Marshal(plan)
			os.WriteFile(out, data, 0o644)
			if code, _, errs := runCLI(t, "verify", in, out); code != exitBadPlan || !strings.Contains(errs, "overlap") {
				t.Fatalf("tampered plan: exit %d, stderr %s", code, errs)
			}
		})
	}
}

func TestForwardBackward(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bwd.json")
	code, _, errs := runCLI(t, "plan", "--json", "-o", out, "--forward", "../../examples/train-forward.json", "../../examples/train-backward.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fwdOut := filepath.Join(t.TempDir(), "fwd.json")
	if code, _, errs := runCLI(t, "plan", "--json", "-o", fwdOut, "../../examples/train-forward.json"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	offsets := func(path string) map[string]int64 {
		data, _ := os.ReadFile(path)
		var p planner.Plan
		json.Unmarshal(data, &p)
		m := map[string]int64{}
		for _, tt := range p.Tensors {
			m[tt.Name] = tt.Offset
		}
		return m
	}
	f, b := offsets(fwdOut), offsets(out)
	for _, w := range []string{"w1", "w2"} {
		if f[w] != b[w] {
			t.Errorf("%s: backward offset %d, forward %d", w, b[w], f[w])
		}
	}
	if code, _, errs := runCLI(t, "verify", "--forward", "../../examples/train-forward.json", "../../examples/train-backward.json", out); code != exitOK {
		t.Errorf("verify backward: exit %d: %s", code, errs)
	}
	// Without the forward graph the source has no fixed weights, and the
	// record's note says it had.
	code, _, errs = runCLI(t, "verify", "../../examples/train-backward.json", out)
	if want := `notes differ from the source's: [0] is "2 params share the forward plan's weight slots", which the source does not have`; code != exitBadPlan || !strings.Contains(errs, want) {
		t.Errorf("verify backward without --forward: exit %d, stderr %s; want %d and %q", code, errs, exitBadPlan, want)
	}
}

// TestVerifyWebGPUPlan: a plan made for a device verifies against its
// source with the device the record names, and not once its limits are
// edited.
func TestVerifyWebGPUPlan(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan.json")
	if code, _, errs := runCLI(t, "plan", "--json", "-o", out, "--webgpu", "default", "--binding", "tensor", "--limits", "binding=8MiB,buffer=16MiB", "--f32-uniform", "../../examples/transformer.json"); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	if code, stdout, errs := runCLI(t, "verify", "../../examples/transformer.json", out); code != exitOK || !strings.Contains(stdout, "ok:") {
		t.Fatalf("verify: exit %d: %s %s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	rec["limits"].(map[string]any)["maxBufferSize"] = 32 << 20
	data, _ = json.Marshal(rec)
	os.WriteFile(out, data, 0o644)
	if code, _, errs := runCLI(t, "verify", "../../examples/transformer.json", out); code != exitBadPlan {
		t.Fatalf("verify of a record with other limits: exit %d, want %d: %s", code, exitBadPlan, errs)
	}
}

// plan --svg and --csv write the picture and the buffer CSV beside the
// report; the CSV plans again (as a buffer list) to the same arena, and
// the picture has a rectangle per buffer.
func TestPlanExports(t *testing.T) {
	dir := t.TempDir()
	svg, csv := filepath.Join(dir, "p.svg"), filepath.Join(dir, "p.csv")
	code, out, errs := runCLI(t, "plan", "--svg", svg, "--csv", csv, "--json", "../../examples/transformer.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec planner.Plan
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, tn := range rec.Tensors {
		if tn.Placed() {
			placed++
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `class="buffer"`); n != placed || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("the SVG has %d buffer rectangles for %d placed tensors", n, placed)
	}
	if code, out, errs = runCLI(t, "plan", csv); code != exitOK || !strings.Contains(out, "arena_size="+strconv.FormatInt(rec.ArenaSize, 10)+" ") {
		t.Errorf("planning the CSV again: exit %d, %s%s", code, out, errs)
	}
	// A file that cannot be written is an error, not a silent loss.
	if code, _, errs = runCLI(t, "plan", "--svg", filepath.Join(dir, "missing", "p.svg"), "../../examples/mlp.json"); code == exitOK || !strings.Contains(errs, "p.svg") {
		t.Errorf("unwritable --svg: exit %d, %q", code, errs)
	}
}

// explain names the producing op, the last reader and the buffers the
// tensor had to avoid, with the plan flags applied.
func TestExplain(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"a view's root in r1-views", []string{"explain", "../../examples/r1-views.json", "mm"}, exitOK,
			[]string{"Born at step 0: op mm (matmul) writes it", "its view n is a graph output", "x [0, 256) w [256, 448)", "placed 3 of 3"}},
		{"an activation in the transformer", []string{"explain", "../../examples/transformer.json", "l0.gelu"}, exitOK,
			[]string{"op l0.gelu (gelu) writes it", "op l0.down reads it last", "placed before it (1): l0.up [0, 4194304)"}},
		{"the plan flags apply", []string{"explain", "--strategy", "first-use", "../../examples/transformer.json", "l0.res1"}, exitOK,
			[]string{"op l0.res2 reads it last", "Rule: first use", "[12583808, 13632384) (taken)"}},
		{"a view kept alive", []string{"explain", "../../examples/transformer.json", "l0.qkv"}, exitOK,
			[]string{"is read last there, by op l0.attn"}},
		{"the record", []string{"explain", "--json", "../../examples/r1-views.json", "w"}, exitOK,
			[]string{`"death_reason": "loaded"`, `"rule": "best-fit"`}},
		{"an unknown tensor", []string{"explain", "../../examples/r1-views.json", "nope"}, exitBadInput, []string{`no tensor "nope"`}},
		{"one argument", []string{"explain", "../../examples/r1-views.json"}, exitBadInput, []string{"wants 2 file argument(s), got 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			for _, w := range tc.want {
				if code != tc.code || !strings.Contains(out+errs, w) {
					t.Errorf("exit %d, want %d and %q in\n%s%s", code, tc.code, w, out, errs)
				}
			}
		})
	}
}

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "bestfit.json")
	if code, _, errs := runCLI(t, "plan", "--strategy", "best-fit", "--json", "-o", record, "../../planner/testdata/input.12.csv"); code != exitOK {
		t.Fatalf("plan: %d %s", code, errs)
	}
	const csv = "../../planner/testdata/input.12.csv"
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string // lines the output holds
		wantErr  string
		wantNots []string
	}{
		{"two strategies on one file", []string{"diff", "--strategy", "best-fit", "--strategy-b", "no-reuse", csv}, exitOK,
			[]string{"arena          12 B    20 B    +8 B", "# 5 of 5 matched tensors changed", "b5      0         16        0-20     0-20     4       4       offset"}, "", nil},
		{"a record against an input", []string{"diff", record, csv, "--strategy", "first-use"}, exitOK,
			[]string{"# A: " + record + " (plan record), strategy best-fit", "# B: " + csv + ", strategy first-use", "matched tensors changed"}, "", []string{"# 0 of"}},
		{"the same plan twice", []string{"diff", record, record}, exitOK, []string{"# 0 of 5 matched tensors changed"}, "", []string{"tensor  offset"}},
		{"f32-uniform on B only", []string{"diff", "--f32-uniform-b", "../../examples/r1-chain.json"}, exitOK, []string{", f32-uniform"}, "", nil},
		{"three files", []string{"diff", csv, csv, csv}, exitBadInput, nil, "got 3 file arguments", nil},
		{"bad input names the file", []string{"diff", csv, "no-such.csv"}, exitBadInput, nil, "no-such.csv", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, tt.code, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNots {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
	// --json is the record the page shows.
	_, out, _ := runCLI(t, "diff", "--json", "--strategy", "best-fit", "--strategy-b", "no-reuse", csv)
	var d planner.Diff
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.ArenaDelta != 8 || len(d.Changed) != 5 || d.B.Strategy != "no-reuse" {
		t.Errorf("json %v: %+v", err, d)
	}
}

// The planning flags are the options' table's (protocol.OptionTable),
// as a link's parameters and <memplan-plan>'s attributes are: every
// command that plans lists each, with the table's default in words, and
// --budget is plan's alone (estimate and moe have their own).
func TestPlanFlagsAreTheTable(t *testing.T) {
	for _, cmd := range []string{"plan", "explain", "diff", "fit", "verify", "estimate"} {
		_, _, help := runCLI(t, cmd, "-h")
		for _, opt := range protocol.OptionTable() {
			if opt.Flag == "" || opt.Flag == "budget" && cmd != "plan" {
				continue
			}
			line := "  -" + opt.Flag
			if !strings.Contains(help, line) {
				t.Errorf("%s -h lacks %s", cmd, line)
			}
			if d := opt.DefaultWords(); d != "" && !strings.Contains(help, "(default "+d+")") {
				t.Errorf("%s -h lacks --%s's default %q", cmd, opt.Flag, d)
			}
		}
		if cmd != "plan" && cmd != "estimate" && strings.Contains(help, "  -budget") {
			t.Errorf("%s -h offers --budget", cmd)
		}
	}
}

// memplan fit on a model whose weights alone are over the device answers
// seq=0, says so, and says what would change it with the value each
// gives (planner.LargestFit), exit status 3.
func TestFitWhenTheWeightsAloneAreOver(t *testing.T) {
	// Three f32 weights of 4096×4096 (192 MiB) and matmuls over [seq, 4096].
	act, w := `"shape": ["seq", 4096], "dtype": "f32"`, `"op": "param", "shape": [4096, 4096], "dtype": "f32"`
	graph := `{"format": "memplan.graph/v1", "name": "heavy", "symbols": {"seq": 1}, "nodes": [
		{"name": "x", "op": "input", ` + act + `},
		{"name": "w0", ` + w + `}, {"name": "w1", ` + w + `}, {"name": "w2", ` + w + `},
		{"name": "h0", "op": "matmul", "inputs": ["x", "w0"], ` + act + `},
		{"name": "h1", "op": "matmul", "inputs": ["h0", "w1"], ` + act + `},
		{"name": "h2", "op": "matmul", "inputs": ["h1", "w2"], ` + act + `}], "outputs": ["h2"]}`
	file := filepath.Join(t.TempDir(), "heavy.json")
	if err := os.WriteFile(file, []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string // lines of the output, in order
	}{
		{[]string{"--webgpu", "default"}, []string{
			"# even seq=1 needs more than the device has:",
			"# what would change it, each searched the same way:",
			"#   params skipped: seq=2730 fits", "#   tensor binding: seq=8192 fits", "#   profile ios: seq=1365 fits", "seq=0"}},
		{[]string{"--webgpu", "default", "--max-plans", "7"}, []string{
			"#   params skipped: seq=2 fits, and larger values were not all tried (the plans ran out)", "seq=0"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append(append([]string{"fit", "--symbol", "seq", "--node-limit", "1000"}, tt.args...), file)...)
		rest := out
		for _, want := range tt.want {
			i := strings.Index(rest, want+"\n")
			if i < 0 {
				t.Fatalf("%v: output lacks %q (in order):\n%s%s", tt.args, want, out, errs)
			}
			rest = rest[i+len(want):]
		}
		if code != exitOverBudget || !strings.Contains(errs, "the weights alone take 192.0004 MiB of the arena, over the device's 128 MiB binding: no seq fits while they are in it") {
			t.Errorf("%v: exit %d, stderr %q; want 3 and the weights named", tt.args, code, errs)
		}
	}
}

// decoderGraph is a decoder's attention step whose symbols are the ONNX
// decoders' three: the cache's length, the new tokens' and their sum, a
// symbol of its own.
const decoderGraph = `{"format": "memplan.graph/v1", "name": "decoder",
 "symbols": {"past_sequence_length": 1, "sequence_length": 1, "total_sequence_length": 2},
 "nodes": [
  {"name": "x", "op": "input", "shape": ["sequence_length", 1024], "dtype": "f32"},
  {"name": "past_k", "op": "input", "shape": ["past_sequence_length", 1024], "dtype": "f32"},
  {"name": "k", "op": "concat", "inputs": ["past_k", "x"], "shape": ["total_sequence_length", 1024], "dtype": "f32"},
  {"name": "s", "op": "matmul", "inputs": ["x", "k"], "shape": ["sequence_length", "total_sequence_length"], "dtype": "f32"}
 ],
 "outputs": ["s"]}`

// --set binds a symbol to an expression of others, resolved once into
// the values the plan uses and its record keeps; verify takes the record
// against the file as it is. Errors name --set and say what is wrong.
func TestSetExpressions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "decoder.json")
	if err := os.WriteFile(file, []byte(decoderGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	set := []string{"--set", "total_sequence_length=past_sequence_length+sequence_length", "--set", "past_sequence_length=4095", "--set", "sequence_length=1"}
	want := map[string]int64{"total_sequence_length": 4096, "past_sequence_length": 4095, "sequence_length": 1}
	for _, args := range [][]string{
		set,
		{"--set", "total_sequence_length = past_sequence_length + sequence_length, past_sequence_length=4095 sequence_length=1"},
		// A later --set replaces a symbol's definition.
		{"--set", "past_sequence_length=7, total_sequence_length=past_sequence_length*2", "--set", "past_sequence_length=4095,sequence_length=1",
			"--set", "total_sequence_length=(past_sequence_length+sequence_length)*1"},
	} {
		rec := filepath.Join(dir, "plan.json")
		code, _, errs := runCLI(t, append(append([]string{"plan", "--json", "-o", rec}, args...), file)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		var plan planner.Plan
		if err := json.Unmarshal(data, &plan); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(plan.Symbols, want) || !maps.Equal(plan.Options.Symbols, want) {
			t.Errorf("%v: the record's symbols %v, options.symbols %v; want %v", args, plan.Symbols, plan.Options.Symbols, want)
		}
		for _, tt := range plan.Tensors {
			if tt.Name == "k" && tt.Size != 4096*1024*4 {
				t.Errorf("%v: k is %d bytes, want total_sequence_length=4096 rows", args, tt.Size)
			}
		}
		if code, out, errs := runCLI(t, "verify", file, rec); code != exitOK || !strings.HasPrefix(out, "ok:") {
			t.Errorf("%v: verify: exit %d: %s%s", args, code, out, errs)
		}
	}
	// The same values in diff's labels, and --set-b over --set.
	code, out, errs := runCLI(t, append(append([]string{"diff"}, set...), "--set-b", "past_sequence_length=15", file)...)
	if code != exitOK || !strings.Contains(out, "past_sequence_length=4095,sequence_length=1,total_sequence_length=4096") ||
		!strings.Contains(out, "past_sequence_length=15,sequence_length=1,total_sequence_length=16") {
		t.Errorf("diff with --set-b: exit %d\n%s%s", code, out, errs)
	}

	for _, tt := range []struct {
		name string
		args []string
		err  []string // lines of standard error, in order
	}{
		{"an unknown name", []string{"--set", "total_sequence_length=past_sequence_length+sequence_length,sequence_length=1"},
			[]string{"memplan: --set: total_sequence_length=past_sequence_length+sequence_length uses past_sequence_length, which has no value",
				"memplan: give it a value with --set past_sequence_length=value"}},
		{"a cycle", []string{"--set", "past_sequence_length=total_sequence_length-1", "--set", "total_sequence_length=past_sequence_length+1"},
			[]string{"memplan: --set: symbols defined by each other: past_sequence_length=total_sequence_length-1, total_sequence_length=past_sequence_length+1"}},
		{"overflow", []string{"--set", "past_sequence_length=3037000500*3037000500"},
			[]string{"memplan: --set: past_sequence_length=3037000500*3037000500 overflows: 3037000500 * 3037000500 is past int64"}},
		{"negative", []string{"--set", "sequence_length=1, past_sequence_length=sequence_length-2"},
			[]string{"memplan: --set: past_sequence_length=sequence_length-2 is -1: a symbol's value is a whole number of 0 or more"}},
		{"bad syntax, with its column", []string{"--set", "total_sequence_length=past_sequence_length+*2"},
			[]string{`memplan: plan: invalid value "total_sequence_length=past_sequence_length+*2" for flag -set: column 44: want a number, a symbol or (, got "*"`}},
		{"--set-b's own", []string{"--set-b", "q=r"}, []string{"memplan: --set and --set-b: q=r uses r, which has no value"}},
		{"a symbol the graph lacks", []string{"--set", "past=3"}, []string{`"past" given a value but not a symbol of this graph`}},
	} {
		cmd := "plan"
		if tt.name == "--set-b's own" {
			cmd = "diff"
		}
		code, _, errs := runCLI(t, append(append([]string{cmd}, tt.args...), file)...)
		rest := errs
		for _, w := range tt.err {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: stderr lacks %q (in order):\n%s", tt.name, w, errs)
				break
			}
			rest = rest[i+len(w):]
		}
		if code != exitBadInput {
			t.Errorf("%s: exit %d, want %d", tt.name, code, exitBadInput)
		}
	}
}

// memplan fit --symbol past_sequence_length needs no value of it: the
// symbols bound to expressions of it follow each value tried, and the
// answer is the largest past_sequence_length whose plan, with
// total_sequence_length following, fits; planned again here at it and
// the next.
func TestFitFollows(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "decoder.json")
	if err := os.WriteFile(file, []byte(decoderGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	device := []string{"--webgpu", "default", "--limits", "binding=8MiB,buffer=8MiB", "--node-limit", "1000"}
	code, out, errs := runCLI(t, append(append([]string{"fit", "--symbol", "past_sequence_length",
		"--set", "total_sequence_length=past_sequence_length+sequence_length,sequence_length=1"}, device...), file)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	value, err := strconv.ParseInt(strings.TrimPrefix(last, "past_sequence_length="), 10, 64)
	if err != nil || value < 2 {
		t.Fatalf("the answer %q is not past_sequence_length=N", last)
	}
	for _, w := range []string{"with total_sequence_length=past_sequence_length+sequence_length following it:",
		fmt.Sprintf("#   past_sequence_length=%d (total_sequence_length=%d): fits", value, value+1),
		fmt.Sprintf("#   past_sequence_length=%d (total_sequence_length=%d): does not fit", value+1, value+2),
		fmt.Sprintf("(its size grows with past_sequence_length and sequence_length; here past_sequence_length=%d, sequence_length=1)", value+1)} {
		if !strings.Contains(out, w) {
			t.Errorf("the answer lacks %q:\n%s", w, out)
		}
	}
	// At the answer and the next, the plan with total following fits and
	// does not.
	for _, c := range []struct {
		past int64
		code int
	}{{value, exitOK}, {value + 1, exitOverBudget}} {
		set := fmt.Sprintf("past_sequence_length=%d,sequence_length=1,total_sequence_length=past_sequence_length+sequence_length", c.past)
		if got, out, errs := runCLI(t, append(append([]string{"plan", "--set", set}, device...), file)...); got != c.code {
			t.Errorf("past_sequence_length=%d: exit %d, want %d\n%s%s", c.past, got, c.code, out, errs)
		}
	}
	// The searched symbol may not follow others.
	code, _, errs = runCLI(t, append(append([]string{"fit", "--symbol", "total_sequence_length",
		"--set", "total_sequence_length=past_sequence_length+sequence_length,sequence_length=1,past_sequence_length=1"}, device...), file)...)
	if code != exitBadInput || !strings.Contains(errs, "the search sets total_sequence_length, but it is bound to total_sequence_length=past_sequence_length+sequence_length") {
		t.Errorf("searching a follower: exit %d, %s", code, errs)
	}
}

// A plan that runs past progressAfter prints the planner's progress on
// stderr, word for word, and one done sooner prints none. (The delay is
// set to both extremes: how long a plan takes is the machine's business.)
func TestPlanProgressOnStderr(t *testing.T) {
	defer func(d time.Duration) { progressAfter = d }(progressAfter)
	const csv = "../../planner/testdata/A.1048576.csv"
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	table, err := ir.DecodeBufferCSV(csv, data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.FromTable(table, 1)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	if _, err := planner.Place(context.Background(), p, "auto", planner.PlaceOptions{Progress: func(m string) { said = append(said, m) }}); err != nil {
		t.Fatal(err)
	}
	if len(said) == 0 {
		t.Fatalf("auto says nothing on %s: the input no longer tests progress", csv)
	}
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{0, strings.Join(said, "\n") + "\n"},
		{time.Hour, ""},
	} {
		progressAfter = tc.after
		code, _, errs := runCLI(t, "plan", "-o", filepath.Join(t.TempDir(), "plan.csv"), csv)
		if code != exitOK || errs != tc.want {
			t.Errorf("progress after %v: exit %d, stderr %q, want %q", tc.after, code, errs, tc.want)
		}
	}
}
