package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// TestHostileInputs: sizes, offsets, guards and symbols near the int64
// limits, and inputs that used to be planned by guessing, each give a
// located error and never a plan.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	input := func(name, dim, dtype string) string {
		return `{"name":"` + name + `","op":"input","shape":[` + dim + `],"dtype":"` + dtype + `"}`
	}
	graph := func(nodes ...string) string {
		return `{"format":"memplan.graph/v1","symbols":{"batch":1},"nodes":[` + strings.Join(nodes, ",") + `]}`
	}
	two62 := write("two62.json", graph(input("x", "4611686018427387904", "u8"), input("y", "4611686018427387904", "u8")))
	var five []string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		five = append(five, input(n, "2305843009213693952", "u8"))
	}
	five61 := write("five61.json", graph(five...))
	small := write("small.json", graph(input("x", "4", "f32"), `{"name":"y","op":"relu","inputs":["x"],"shape":["batch",4],"dtype":"f32"}`))
	csvMax := write("max.csv", "id,lower,upper,size\nb1,0,3,9223372036854775807\nb2,0,3,9223372036854775807\n")
	csv62 := write("two62.csv", "id,lower,upper,size\nb1,0,3,4611686018427387904\nb2,1,4,4611686018427387904\n")
	csvHalf := write("halves.csv", "id,lower,upper,size\nb1,0,3,2305843009213693952\nb2,1,4,2305843009213693952\n")
	csvOffset := write("offset.csv", "id,lower,upper,size,offset\nb1,0,3,16,9223372036854775792\n")
	csvFixed := write("fixed.csv", "id,lower,upper,size,offset\nb1,0,3,16,0\nb2,0,3,16,8\n")
	bwd := write("bwd.json", `{"format":"memplan.graph/v1","nodes":[{"name":"w1","op":"param","shape":[2,2],"dtype":"f32"},{"name":"g","op":"relu","inputs":["w1"],"shape":[2,2],"dtype":"f32"}]}`)

	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"two u8 inputs of 2^62", []string{"plan", two62}, exitBadInput, `two62.json:1:`},
		{"two u8 inputs of 2^62 name the tensor", []string{"plan", two62}, exitBadInput, `node "x": tensor "x" of shape [4611686018427387904] and dtype u8: exceeds memplan's limit of 2^62 bytes`},
		{"five inputs of 2^61", []string{"plan", five61}, exitBadInput, `five61.json: nodes[1]: node "b": buffer "b": the buffers up to this one need more bytes together than memplan allows`},
		{"guard 2^62", []string{"plan", "--guard", "4611686018427387904", small}, exitBadInput, "guard: 4611686018427387904 bytes exceeds memplan's limit"},
		{"align 2^62", []string{"plan", "--align", "4611686018427387904", small}, exitBadInput, `invalid value "4611686018427387904" for flag -align: 4611686018427387904 bytes exceeds memplan's limit`},
		{"align 2^31", []string{"plan", "--align", "2147483648", small}, exitBadInput, `invalid value "2147483648" for flag -align: want a power of two up to 1 GiB, got 2147483648`},
		{"symbol 2^62", []string{"plan", "--set", "batch=4611686018427387904", small}, exitBadInput, `small.json: nodes[1]: node "y": tensor "y"`},
		{"unknown symbol", []string{"plan", "--set", "nosuch=5", small}, exitBadInput, `"nosuch" given a value but not a symbol of this graph (its symbols are batch)`},
		{"symbols for a CSV", []string{"plan", "--set", "batch=5", csvFixed}, exitBadInput, "a buffer list has no symbols to bind"},
		{"CSV sizes of 2^63-1", []string{"plan", csvMax}, exitBadInput, `max.csv:2: buffer "b1": size: 9223372036854775807 bytes exceeds`},
		{"CSV sizes of 2^62", []string{"plan", csv62}, exitBadInput, `two62.csv:2: buffer "b1": size`},
		{"CSV sizes that sum past 2^62", []string{"plan", csvHalf}, exitBadInput, `halves.csv:3: buffer "b2": the buffers up to this one need more bytes together`},
		{"CSV offset near 2^63", []string{"plan", csvOffset}, exitBadInput, `offset.csv:2: buffer "b1": offset: 9223372036854775792 bytes exceeds`},
		{"overlapping fixed offsets", []string{"plan", csvFixed}, exitBadInput, `fixed.csv:3: buffer "b2": fixed at [8, 24), it overlaps fixed buffer "b1" at [0, 16) (lines 2 and 3) while both are live (steps 0..2)`},
		{"memory limit", []string{"plan", "--max-memory", "1KiB", small}, exitBadInput, "over the memory limit of 1 KiB (raise it with --max-memory)"},
		{"a forward weight of another size names both files", []string{"plan", "--forward", "../../examples/train-forward.json", bwd}, exitBadInput,
			`bwd.json: nodes[0]: node "w1": param "w1" is 16 bytes here but 802816 bytes in the forward plan of ../../examples/train-forward.json`},
		{"bad memory limit", []string{"plan", "--max-memory", "lots", small}, exitBadInput, `--max-memory "lots"`},
		{"align 0", []string{"plan", "--align", "0", small}, exitBadInput, `invalid value "0" for flag -align: want a power of two up to 1 GiB, got 0`},
		{"align 48", []string{"plan", "--align", "48", small}, exitBadInput, `invalid value "48" for flag -align: want a power of two up to 1 GiB, got 48`},
		{"negative node limit", []string{"plan", "--node-limit", "-5", small}, exitBadInput, `invalid value "-5" for flag -node-limit: want 0 (none) or more search nodes, got -5`},
		{"negative time limit", []string{"plan", "--strategy", "exact", "--time-limit", "-1s", small}, exitBadInput, "--time-limit -1s is negative"},
		{"negative auto slice", []string{"plan", "--auto-slice", "-1ms", small}, exitBadInput, "--auto-slice -1ms is negative (0 for none)"},
		{"negative node limit for explain", []string{"explain", "--node-limit", "-1", small, "x"}, exitBadInput, `invalid value "-1" for flag -node-limit: want 0 (none) or more search nodes, got -1`},
		{"negative max plans", []string{"fit", "--symbol", "batch", "--webgpu", "default", "--max-plans", "-3", small}, exitBadInput, "--max-plans -3: want at least one plan"},
		{"no plans", []string{"fit", "--symbol", "batch", "--webgpu", "default", "--max-plans", "0", small}, exitBadInput, "--max-plans 0: want at least one plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.wantErr) || out != "" {
				t.Errorf("exit %d, want %d\nstdout: %.300s\nstderr: %.500s\nwant stderr containing %q and no output", code, tc.code, out, errs, tc.wantErr)
			}
		})
	}
}

// TestVerifyRejectsTamperedRecords: records edited by hand so that sums
// wrap past int64, with a fingerprint recomputed to match, are invalid.
func TestVerifyRejectsTamperedRecords(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "two.csv")
	os.WriteFile(src, []byte("id,lower,upper,size\nb1,0,3,16\nb2,0,3,16\n"), 0o644)
	code, out, errs := runCLI(t, "plan", "--json", src)
	if code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	const near63 = 9223372036854775792 // 2^63 - 16
	tests := []struct {
		name    string
		edit    func(p *planner.Plan)
		wantErr string
	}{
		{"offset near 2^63 wraps the end", func(p *planner.Plan) {
			p.Tensors[0].Offset, p.Tensors[1].Offset = near63, near63
		}, `tensor "b1": offset: 9223372036854775792 bytes exceeds`},
		{"overlap near 2^63, arena below the bound", func(p *planner.Plan) {
			p.Tensors[0].Offset, p.Tensors[1].Offset = near63, near63-8
			p.ArenaSize, p.Saved = 0, p.TotalUnshared
		}, `tensor "b2": offset: 9223372036854775784 bytes exceeds`},
		{"guard of 2^63-1", func(p *planner.Plan) { p.Tensors[1].Guard = 1<<63 - 1 }, `tensor "b2": guard: 9223372036854775807 bytes exceeds`},
		{"guard that overlaps", func(p *planner.Plan) { p.Tensors[0].Guard = 8 }, `tensors "b1" [0, 24) and "b2" [16, 32) overlap`},
		{"arena of -1", func(p *planner.Plan) { p.ArenaSize = -1 }, "arena_size: negative byte count -1"},
		{"saved that does not add up", func(p *planner.Plan) { p.Saved = 1 << 40 }, "saved is 1099511627776, but total_unshared 32 - arena_size 32 is 0"},
		{"death past the schedule", func(p *planner.Plan) { p.Tensors[0].Death = 1 << 62 }, `tensor "b1": live range [0, 4611686018427387904] is empty or outside the schedule's steps 0..3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var plan planner.Plan
			if err := json.Unmarshal([]byte(out), &plan); err != nil {
				t.Fatal(err)
			}
			tc.edit(&plan)
			plan.Fingerprint = plan.ComputeFingerprint() // anyone can; it proves nothing
			data, _ := json.Marshal(&plan)
			rec := filepath.Join(dir, "tampered.json")
			os.WriteFile(rec, data, 0o644)
			// Values past 2^53 are refused as they are read (JSON.parse
			// would read others); the rest by the proof.
			if code, _, errs := runCLI(t, "verify", src, rec); code != exitBadPlan || !strings.Contains(errs, "invalid plan") && !strings.Contains(errs, "beyond ±2^53") {
				t.Errorf("verify: exit %d, want %d; stderr %.600s", code, exitBadPlan, errs)
			}
			// Without its source, as the page checks a dropped record.
			if err := planner.Verify(&plan); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Verify: %v\nwant %q", err, tc.wantErr)
			}
		})
	}
}

// TestNodeLimitIsReproducible: the same input and node budget give the
// same plan, whatever the machine's load.
func TestNodeLimitIsReproducible(t *testing.T) {
	var prints []string
	for range 2 {
		code, out, errs := runCLI(t, "plan", "--json", "--strategy", "exact", "--node-limit", "40000", "../../planner/testdata/D.1048576.csv")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var plan planner.Plan
		if err := json.Unmarshal([]byte(out), &plan); err != nil {
			t.Fatal(err)
		}
		prints = append(prints, plan.Fingerprint)
	}
	if prints[0] != prints[1] {
		t.Fatalf("two runs with the same node budget differ: %v", prints)
	}
}

// TestExactAimsAtTheBudget: --budget is what exact looks for first.
// MiniMalloc's J fits 2^20 within 100,000 nodes when asked for it; without
// a budget the same nodes go to the lower bound and leave it above.
func TestExactAimsAtTheBudget(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "--strategy", "exact", "--node-limit", "100000", "--budget", "1MiB", "../../planner/testdata/J.1048576.csv")
	if code != exitOK {
		t.Fatalf("exit %d, want %d (fits): %s", code, exitOK, errs)
	}
	if !strings.Contains(out, "arena_size=") {
		t.Fatalf("no plan printed: %s", out)
	}
}

// TestExitCodeOfEachVerdict: each kind of error has its own status, and
// none uses 2, Go's own status for a crash.
func TestExitCodeOfEachVerdict(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
	}{
		{"ok", nil, exitOK},
		{"bad input", &ir.Error{File: "x.json", Msg: "bad"}, exitBadInput},
		{"usage", usageError{"wrong flag"}, exitBadInput},
		{"over budget", &planner.BudgetError{What: "arena", Need: 2, Budget: 1}, exitOverBudget},
		{"invalid plan", badPlanError{errors.New("invalid plan: overlap")}, exitBadPlan},
		{"a plan that failed its own proof", fmt.Errorf("plan: %w", &planner.UnverifiedPlanError{Strategy: "auto", Err: errors.New("overlap")}), exitBug},
		{"memory limit", fmt.Errorf("%w (raise it with --max-memory)", &ir.MemoryError{File: "x.csv", What: "planning 9 buffers", Need: 9, Limit: 1}), exitBadInput},
	}
	seen := map[int]string{}
	for _, tc := range tests {
		var stderr strings.Builder
		if code := report(tc.err, &stderr); code != tc.code {
			t.Errorf("%s: exit %d, want %d (%s)", tc.name, code, tc.code, stderr.String())
		}
		if tc.code == 2 {
			t.Errorf("%s uses exit status 2, which Go uses for a crash", tc.name)
		}
		seen[tc.code] = tc.name
	}
	if len(seen) != 5 {
		t.Errorf("want five distinct statuses (0, 1, 3, 4, 5), got %v", seen)
	}
}

// TestHintsForWhatAnErrorNeeds: the decoder names what is missing
// (ir.Error.Need); the CLI says how to give it with its own flags.
func TestHintsForWhatAnErrorNeeds(t *testing.T) {
	for need, want := range map[string]string{ir.NeedSymbols: "--set name=value", ir.NeedIfBranch: "--if-branch then|else"} {
		var stderr strings.Builder
		report(&ir.Error{File: "m.onnx", Msg: "needs something", Need: need}, &stderr)
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("Need %q: stderr %q lacks %q", need, stderr.String(), want)
		}
	}
}

// TestNamesAreData: a tensor named with a line break and a terminal
// escape cannot add a row to the report, a table or a picture, or reach
// the terminal; the buffer CSV, whose ids cannot carry it, refuses it.
func TestNamesAreData(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "names.json")
	os.WriteFile(src, []byte(`{"format":"memplan.graph/v1","name":"g\u001b]0;title\u0007","nodes":[
		{"name":"x\n0 999999 forged","op":"input","shape":[4],"dtype":"f32"},
		{"name":"\u001b[31mred","op":"relu","inputs":["x\n0 999999 forged"],"shape":[4],"dtype":"f32","phase":"p\u202e"}]}`), 0o644)
	clean := func(what, s string) {
		t.Helper()
		for _, line := range strings.Split(s, "\n") {
			if line == "0 999999 forged" || strings.HasPrefix(line, "0 999999 forged") {
				t.Errorf("%s: a name forged the line %q", what, line)
			}
		}
		for _, c := range s {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == '\u202e' {
				t.Errorf("%s: control character %U in the output:\n%s", what, c, s)
				return
			}
		}
	}
	code, out, errs := runCLI(t, "plan", "--svg", filepath.Join(dir, "p.svg"), src)
	if code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	clean("plan", out)
	if !strings.Contains(out, ` "x\n0 999999 forged"`) || !strings.Contains(out, ` "\x1b[31mred"`) {
		t.Errorf("the report does not show the names quoted:\n%s", out)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "p.svg"))
	clean("svg", string(svg))
	_, out, _ = runCLI(t, "explain", src, "\x1b[31mred")
	clean("explain", out)
	_, out, _ = runCLI(t, "diff", "--strategy-b", "no-reuse", src)
	clean("diff", out)
	code, out, errs = runCLI(t, "plan", "--csv", filepath.Join(dir, "p.csv"), src)
	if code != exitBadInput || !strings.Contains(errs, `tensor "x\n0 999999 forged": a name that is empty, has a comma`) {
		t.Errorf("csv: exit %d, stderr %s", code, errs)
	}
	clean("csv's error", errs)
}

// plan --svg X --csv Y writes both files or neither.
func TestExportsAreBothOrNeither(t *testing.T) {
	dir := t.TempDir()
	comma := filepath.Join(dir, "comma.json")
	os.WriteFile(comma, []byte(`{"format":"memplan.graph/v1","nodes":[{"name":"a,b","op":"input","shape":[4],"dtype":"f32"}]}`), 0o644)
	tests := []struct {
		name, src, csv, wantErr string
	}{
		{"a name the CSV cannot carry", comma, filepath.Join(dir, "p.csv"), `tensor "a,b": a name that is empty, has a comma`},
		{"a CSV that cannot be written", "../../examples/mlp.json", filepath.Join(dir, "no", "such", "dir", "p.csv"), "no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svg := filepath.Join(dir, "p.svg")
			code, _, errs := runCLI(t, "plan", "--svg", svg, "--csv", tc.csv, tc.src)
			if code != exitBadInput || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stderr %s; want %d and %q", code, errs, exitBadInput, tc.wantErr)
			}
			if _, err := os.Stat(svg); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the SVG was left written (%v)", err)
			}
		})
	}
}
