package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"memplan/planner"
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
	badPlan := filepath.Join(dir, "badplan.json")
	os.WriteFile(badPlan, []byte("{\"format\": \"memplan.plan/v1\",\n \"arena_size\": \"lots\"}"), 0o644)
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
		{"over budget", []string{"plan", "--budget", "1MiB", "../../examples/r1-chain.json"}, exitOverBudget, "", "arena 1.56 MiB exceeds budget 1.00 MiB by 578.38 KiB"},
		{"estimate over budget", []string{"estimate", "--budget", "1MiB", "../../examples/mlp.json"}, exitOverBudget, "peak", "exceeds budget 1.00 MiB by"},
		{"broken file says where", []string{"plan", broken}, exitBadInput, "", "broken.json:1:"},
		{"malformed plan record says where", []string{"verify", "../../examples/mlp.json", badPlan}, exitBadInput, "", "badplan.json:2:16: arena_size: got a JSON string, want int64"},
		{"missing file", []string{"plan", filepath.Join(dir, "none.json")}, exitBadInput, "", "no such file"},
		{"unknown strategy", []string{"plan", "--strategy", "magic", "../../examples/mlp.json"}, exitBadInput, "", `unknown strategy "magic"`},
		{"bad alignment", []string{"plan", "--align", "48", "../../examples/mlp.json"}, exitBadInput, "", "not a power of two"},
		{"bad skip", []string{"plan", "--skip", "weights", "../../examples/mlp.json"}, exitBadInput, "", `unknown kind "weights"`},
		{"bad budget", []string{"plan", "--budget", "lots", "../../examples/mlp.json"}, exitBadInput, "", `bad size "lots"`},
		{"no command", nil, exitBadInput, "", "Usage:"},
		{"unknown command", []string{"frobnicate"}, exitBadInput, "", `unknown command "frobnicate"`},
		{"moe fits", []string{"moe", "--expert-bytes", "64MiB", "--layers", "4", "--experts", "8", "--budget", "1GiB", "--reserve", "0.25"}, exitOK, "resident experts per layer 3 of 8 (5 offloaded)", ""},
		{"moe does not fit", []string{"moe", "--expert-bytes", "1GiB", "--layers", "4", "--experts", "8", "--budget", "1GiB"}, exitOverBudget, "", "exceeds budget"},
		{"help", []string{"-h"}, exitOK, "Exit status", ""},
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
