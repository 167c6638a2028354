package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"memplan/tools/npm/npmpkg"
	"memplan/tools/site"
)

// The package as its users call it: node runs npm/test/driver.mjs with
// the package make npm writes, and the answers are judged here against
// the command line's.

// pkgDir builds the package and the command line once for the tests.
var built struct {
	pkg, cli, root string
	err            error
}

func setup(t *testing.T) (pkg, cli, root string) {
	t.Helper()
	if built.pkg == "" && built.err == nil {
		built.err = func() error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			if built.root, err = site.ModuleRoot(wd); err != nil {
				return err
			}
			dir, err := os.MkdirTemp("", "memplan-npm-test")
			if err != nil {
				return err
			}
			built.pkg, built.cli = filepath.Join(dir, "package"), filepath.Join(dir, "memplan")
			if _, err := npmpkg.Build(context.Background(), built.root, built.pkg); err != nil {
				return err
			}
			cmd := exec.Command("go", "build", "-o", built.cli, "./tools/memplan")
			cmd.Dir = built.root
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building the command line: %v\n%s", err, b)
			}
			return nil
		}()
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.pkg, built.cli, built.root
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.pkg != "" {
		os.RemoveAll(filepath.Dir(built.pkg))
	}
	os.Exit(code)
}

type job struct {
	Op       string         `json:"op"`
	File     string         `json:"file,omitempty"`
	FileB    string         `json:"fileB,omitempty"`
	Name     string         `json:"name,omitempty"`
	Record   string         `json:"record,omitempty"`
	Tensor   string         `json:"tensor,omitempty"`
	Options  map[string]any `json:"options,omitempty"`
	OptionsB map[string]any `json:"optionsB,omitempty"`
	// Forward and ForwardB are forward graphs' files, which the driver
	// reads into options.forward and optionsB.forward: as bytes, or as
	// text with ForwardText.
	Forward     string `json:"forward,omitempty"`
	ForwardB    string `json:"forwardB,omitempty"`
	ForwardText bool   `json:"forwardText,omitempty"`
}

type result struct {
	Value json.RawMessage `json:"value"`
	Error *jsError        `json:"error"`
}

// jsError is a MemplanError's fields as the driver writes them.
type jsError struct {
	Name    string   `json:"name"`
	Message string   `json:"message"`
	IsError bool     `json:"isError"`
	Kind    string   `json:"kind"`
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Column  int      `json:"column"`
	Path    string   `json:"path"`
	Node    string   `json:"node"`
	Need    string   `json:"need"`
	Symbols []string `json:"symbols"`
}

// runNode runs the jobs in one node process and returns their results.
func runNode(t *testing.T, jobs []job) []result {
	t.Helper()
	pkg, _, root := setup(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to test the package (Node 20 or later):", err)
	}
	b, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(root, "npm", "test", "driver.mjs"), pkg, file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var results []result
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("node's answer does not read: %v\n%.2000s\n%s", err, out, stderr.Bytes())
	}
	if len(results) != len(jobs) {
		t.Fatalf("node answered %d jobs of %d", len(results), len(jobs))
	}
	return results
}

// record is what the tests compare of a plan record.
type record struct {
	Format    string `json:"format"`
	ArenaSize int64  `json:"arena_size"`
	Strategy  string `json:"strategy"`
	Tensors   []struct {
		Name   string `json:"name"`
		Offset int64  `json:"offset"`
		Size   int64  `json:"size"`
	} `json:"tensors"`
}

// models are the repository's test models: every example, benchmark
// instance and ONNX test model (-short: the examples).
func models(t *testing.T, root string) []string {
	globs := []string{"examples/*.json", "planner/testdata/*.csv", "ir/testdata/*.csv", "ir/testdata/*.json", "ir/onnx/testdata/*.onnx"}
	if testing.Short() {
		globs = globs[:1]
	}
	var files []string
	for _, g := range globs {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d test models under %s: the test data is missing", len(files), root)
	}
	return files
}

// nodeLimit is far above any auto slice's own budget: given, it leaves
// the budget as it is. The plans of every model compare with no node
// limit at all, since auto's slice has no clock by default and both
// sides must make the same plan however loaded the machine is.
const nodeLimit = 1 << 40

// cliPlan is the command line's plan record of file, or its error; set
// are --set's definitions.
func cliPlan(t *testing.T, cli, file string, set ...string) (*record, []byte, string) {
	args := []string{"plan", "--json"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(cli, append(args, file)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) { // 3: a plan over its budget, still written
		return nil, nil, strings.TrimPrefix(strings.SplitN(stderr.String(), "\n", 2)[0], "memplan: ")
	}
	var r record
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: the command line's record does not read: %v", file, err)
	}
	return &r, out, ""
}

// TestPlansAsTheCommandLine: on every test model, plan in Node gives the
// command line's arena and every tensor's offset, or fails as it does. A
// model that fails for want of symbol values is planned again with each
// of them 1, by both.
func TestPlansAsTheCommandLine(t *testing.T) {
	_, cli, root := setup(t)
	files := models(t, root)
	symbols := map[string][]string{} // file: the symbols it needs
	planned := 0
	for round := 0; round < 2; round++ {
		var jobs []job
		var cases []string
		for _, f := range files {
			if round == 1 && symbols[f] == nil {
				continue
			}
			o := map[string]any{}
			if syms := symbols[f]; syms != nil {
				values := map[string]any{}
				for _, s := range syms {
					values[s] = 1
				}
				o["symbols"] = values
			}
			jobs = append(jobs, job{Op: "plan", File: f, Name: filepath.Base(f), Options: o})
			cases = append(cases, f)
		}
		if len(jobs) == 0 {
			break
		}
		results := runNode(t, jobs)
		for i, f := range cases {
			rel, _ := filepath.Rel(root, f)
			var set []string
			for _, s := range symbols[f] {
				set = append(set, s+"=1")
			}
			want, _, wantErr := cliPlan(t, cli, f, set...)
			got := results[i]
			switch {
			case want == nil && got.Error == nil:
				t.Errorf("%s %v: the command line fails (%s), the package plans", rel, set, wantErr)
				continue
			case want == nil:
				// The same words: the message is Go's, the file's name as given.
				first, _, _ := strings.Cut(got.Error.Message, "\n")
				first = strings.ReplaceAll(first, filepath.Base(f), f)
				if !strings.HasPrefix(wantErr, first) {
					t.Errorf("%s %v: the package's error %q is not the command line's %q", rel, set, first, wantErr)
				}
				if round == 0 && got.Error.Need == "symbols" && len(got.Error.Symbols) > 0 {
					symbols[f] = got.Error.Symbols
				}
				continue
			case got.Error != nil:
				t.Errorf("%s %v: the package fails (%s), the command line plans", rel, set, got.Error.Message)
				continue
			}
			var r record
			if err := json.Unmarshal(got.Value, &r); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			if r.Format != want.Format || r.ArenaSize != want.ArenaSize || r.Strategy != want.Strategy || len(r.Tensors) != len(want.Tensors) {
				t.Errorf("%s %v: the package's plan is %s %s, arena %d, %d tensors; the command line's %s %s, arena %d, %d tensors", rel, set,
					r.Format, r.Strategy, r.ArenaSize, len(r.Tensors), want.Format, want.Strategy, want.ArenaSize, len(want.Tensors))
				continue
			}
			for k, tw := range want.Tensors {
				if tg := r.Tensors[k]; tg != tw {
					t.Errorf("%s %v: tensor %d is %+v in the package's plan, %+v in the command line's", rel, set, k, tg, tw)
					break
				}
			}
			planned++
		}
	}
	if planned == 0 {
		t.Fatal("no model planned")
	}
	t.Logf("%d of %d models planned alike (%d with their symbols bound), the rest failed alike", planned, len(files), len(symbols))
}

// TestCalls: verify rejects a record with one field changed, a file over
// the size limit and a malformed one give memplan's located error as
// fields, an options object is read by Go's table, abort stops a call,
// and fit, explain and diff answer as the command line's fit, explain
// --json and diff --json do.
func TestCalls(t *testing.T) {
	_, cli, root := setup(t)
	dir := t.TempDir()
	mlp := filepath.Join(root, "examples", "mlp.json")
	_, good, _ := cliPlan(t, cli, mlp)
	if good == nil {
		t.Fatal("the command line does not plan examples/mlp.json")
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodFile := write("good.plan.json", good)
	// One field changed: the first tensor's offset moved by one alignment.
	var rec map[string]any
	if err := json.Unmarshal(good, &rec); err != nil {
		t.Fatal(err)
	}
	tensors := rec["tensors"].([]any)
	first := tensors[len(tensors)-1].(map[string]any)
	first["offset"] = first["offset"].(float64) + 64
	moved, _ := json.Marshal(rec)
	movedFile := write("moved.plan.json", moved)
	// A file one byte over the limit, sparse: refused by its size.
	big := filepath.Join(dir, "big.onnx")
	malformed := write("bad.json", bytes.Replace(mustRead(t, mlp), []byte(`"inputs": ["a1", "w2"]`), []byte(`"inputs": ["a1", "nope"]`), 1))

	jobs := []job{
		{Op: "limit"},
		{Op: "verify", Record: goodFile, File: mlp, Name: "mlp.json"},
		{Op: "verify", Record: movedFile, File: mlp, Name: "mlp.json"},
		{Op: "plan", File: malformed, Name: "bad.json"},
		{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"strategy": "no-such"}},
		{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"symbols": map[string]any{"batch": 2}, "f32Uniform": true, "alignment": 256}},
		{Op: "abort", File: mlp, Name: "mlp.json"},
		{Op: "abort-before", File: mlp, Name: "mlp.json"},
		{Op: "svg", Record: goodFile, Options: map[string]any{"width": 300, "height": 200, "theme": "dark"}},
		{Op: "explain", File: mlp, Name: "mlp.json", Tensor: "h1", Options: map[string]any{"nodeLimit": nodeLimit}},
		{Op: "diff", File: mlp, FileB: mlp, Name: "mlp.json", Options: map[string]any{"nodeLimit": nodeLimit},
			OptionsB: map[string]any{"name": "mlp.json", "strategy": "no-reuse", "nodeLimit": nodeLimit}},
		{Op: "fit", File: mlp, Name: "mlp.json", Options: map[string]any{"symbol": "batch", "webgpu": "default"}},
		// A second file's tensor: explained in its own plan, not the last one's.
		{Op: "explain", File: filepath.Join(root, "examples", "transformer.json"), Name: "transformer.json", Tensor: "l0.w_o", Options: map[string]any{"nodeLimit": nodeLimit}},
	}
	// The limit is Go's: ask it first, then make the file one byte over.
	limit := runNode(t, jobs[:1])[0]
	var max int64
	if limit.Error != nil || json.Unmarshal(limit.Value, &max) != nil || max <= 0 {
		t.Fatalf("maxInputBytes: %s %+v", limit.Value, limit.Error)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(max + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	jobs[0] = job{Op: "plan-url", File: big, Name: "big.onnx"}
	res := runNode(t, jobs)

	if e := res[0].Error; e == nil || !e.IsError || e.Name != "MemplanError" || e.Kind != "memory" || e.File != "big.onnx" {
		t.Errorf("a file over the limit: %+v, want a MemplanError of kind memory naming big.onnx", e)
	}
	var v struct {
		OK     bool      `json:"ok"`
		Errors []jsError `json:"errors"`
	}
	if json.Unmarshal(res[1].Value, &v); res[1].Error != nil || !v.OK || len(v.Errors) != 0 {
		t.Errorf("verify of the command line's record: %s %+v, want ok", res[1].Value, res[1].Error)
	}
	v.OK, v.Errors = true, nil
	if json.Unmarshal(res[2].Value, &v); res[2].Error != nil || v.OK || len(v.Errors) == 0 || v.Errors[0].File == "" || !v.Errors[0].IsError {
		t.Errorf("verify of a record with an offset moved: %s %+v, want not ok, with errors naming the file", res[2].Value, res[2].Error)
	}
	if e := res[3].Error; e == nil || e.File != "bad.json" || e.Line != 15 || e.Path != "nodes[9].inputs[1]" || e.Node != "h2" || e.Kind != "input" {
		t.Errorf("a malformed file: %+v, want bad.json line 15, path nodes[9].inputs[1], node h2", e)
	}
	if e := res[4].Error; e == nil || e.Kind != "message" || !strings.Contains(e.Message, "strategy") {
		t.Errorf("an unknown strategy: %+v, want an error naming the option", e)
	}
	var r struct {
		Options map[string]any   `json:"options"`
		Symbols map[string]int64 `json:"symbols"`
	}
	if json.Unmarshal(res[5].Value, &r); res[5].Error != nil || r.Options["f32_uniform"] != true || r.Options["alignment"] != float64(256) || r.Symbols["batch"] != 2 {
		t.Errorf("options object: %s %+v, want f32_uniform, alignment 256, batch 2 in the record", res[5].Value, res[5].Error)
	}
	var ab struct {
		Progress int      `json:"progress"`
		Aborted  *jsError `json:"aborted"`
		Next     int64    `json:"next"`
	}
	if json.Unmarshal(res[6].Value, &ab); res[6].Error != nil || ab.Progress != 1 || ab.Aborted == nil || ab.Aborted.Name != "AbortError" || ab.Next <= 0 {
		t.Errorf("abort while planning: %s %+v, want AbortError after one progress message, then a plan", res[6].Value, res[6].Error)
	}
	if json.Unmarshal(res[7].Value, &ab); res[7].Error != nil || ab.Aborted == nil || ab.Aborted.Name != "AbortError" {
		t.Errorf("abort before the call: %s %+v, want AbortError", res[7].Value, res[7].Error)
	}
	var svgText string
	if json.Unmarshal(res[8].Value, &svgText); res[8].Error != nil || !strings.HasPrefix(strings.TrimSpace(svgText), "<svg") || !strings.Contains(svgText, `width="300"`) {
		t.Errorf("svg: %.200s %+v, want an SVG 300 wide", svgText, res[8].Error)
	}
	for _, c := range []struct {
		res          result
		file, tensor string
	}{{res[9], "mlp.json", "h1"}, {res[12], "transformer.json", "l0.w_o"}} {
		explainCmd := exec.Command(cli, "explain", "--json", "--node-limit", fmt.Sprint(nodeLimit), c.file, c.tensor)
		explainCmd.Dir = filepath.Dir(mlp)
		wantEx, err := explainCmd.Output()
		if err != nil {
			t.Fatalf("memplan explain %s %s: %v", c.file, c.tensor, err)
		}
		var gotE, wantE any
		if json.Unmarshal(c.res.Value, &gotE); c.res.Error != nil || json.Unmarshal(wantEx, &wantE) != nil || !reflect.DeepEqual(gotE, wantE) {
			t.Errorf("explain %s %s: %.400s %+v\nwant the command line's %.400s", c.file, c.tensor, c.res.Value, c.res.Error, wantEx)
		}
	}
	// The command line's comparison, run beside the file so that its
	// labels name it as the package's do.
	diffCmd := exec.Command(cli, "diff", "--json", "--node-limit", fmt.Sprint(nodeLimit), "--strategy-b", "no-reuse", "mlp.json")
	diffCmd.Dir = filepath.Dir(mlp)
	wantDiff, err := diffCmd.Output()
	if err != nil {
		t.Fatalf("memplan diff: %v", err)
	}
	var gotD, wantD any
	if json.Unmarshal(res[10].Value, &gotD); res[10].Error != nil || json.Unmarshal(wantDiff, &wantD) != nil || !reflect.DeepEqual(gotD, wantD) {
		t.Errorf("diff against no-reuse: %.400s %+v\nwant the command line's %.400s", res[10].Value, res[10].Error, wantDiff)
	}
	var fitted struct {
		Symbol string `json:"symbol"`
		Value  int64  `json:"value"`
	}
	// The command line's answer: its last line, batch=N.
	out, err := exec.Command(cli, "fit", "--symbol", "batch", "--webgpu", "default", mlp).Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		t.Fatalf("memplan fit: %v\n%s", err, out)
	}
	want := lines[len(lines)-1]
	if json.Unmarshal(res[11].Value, &fitted); res[11].Error != nil || fmt.Sprintf("%s=%d", fitted.Symbol, fitted.Value) != want {
		t.Errorf("fit batch: %.300s %+v, want the command line's %s", res[11].Value, res[11].Error, want)
	}
}

func mustRead(t *testing.T, file string) []byte {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTypeScript: a user's TypeScript (npm/test/typecheck.ts) type-checks
// against the package's index.d.ts with tsc, the misuses in it marked
// @ts-expect-error included (so declarations that lost their shape fail).
// tsc comes from npm/test's lock file: make npmtest installs it.
func TestTypeScript(t *testing.T) {
	_, _, root := setup(t)
	dir := filepath.Join(root, "npm", "test")
	tsc := filepath.Join(dir, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("no TypeScript compiler at %s: run make npmtest (npm ci from npm/test's lock file)", tsc)
	}
	cmd := exec.Command(tsc, "-p", "tsconfig.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// cli runs the command line in dir: its standard output, and its error's
// first line ("" when it succeeds or exits 3, a plan over its budget).
func cli(t *testing.T, dir string, args ...string) (out []byte, errLine string) {
	t.Helper()
	_, bin, _ := setup(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
		return out, strings.TrimPrefix(strings.SplitN(stderr.String(), "\n", 2)[0], "memplan: ")
	}
	return out, ""
}

// TestCommandLineOnlyFlags: the command line's flags that are not a
// page's, link's or element's options (--time-limit, --auto-slice,
// --max-memory, --forward, diff's -b flags) as the package's options:
// each gives the command line's answer for the same flags, and a bad
// value an error naming the option. Searches run within a node limit,
// so that the answers do not depend on the machine's speed.
func TestCommandLineOnlyFlags(t *testing.T) {
	_, _, root := setup(t)
	examples := filepath.Join(root, "examples")
	testdata := filepath.Join(root, "planner", "testdata")
	fwd, bwd := filepath.Join(examples, "train-forward.json"), filepath.Join(examples, "train-backward.json")
	mlp := filepath.Join(examples, "mlp.json")
	nl := fmt.Sprint(nodeLimit)
	dir := t.TempDir()
	// The command line's backward plan, to verify with and without its
	// forward graph; and a forward graph that does not read.
	bwdRecord, errLine := cli(t, examples, "plan", "--json", "--node-limit", nl, "--forward", "train-forward.json", "train-backward.json")
	if errLine != "" {
		t.Fatalf("memplan plan --forward: %s", errLine)
	}
	bwdFile := filepath.Join(dir, "bwd.plan.json")
	badFwd := filepath.Join(dir, "bad-forward.json")
	if err := os.WriteFile(bwdFile, bwdRecord, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badFwd, bytes.Replace(mustRead(t, fwd), []byte(`"nodes"`), []byte(`"nodes": 7, "x"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	type planCase struct {
		name string
		job  job
		dir  string   // where the command line runs
		args []string // the command line's plan flags and file, for the same plan or error
		// differs, when set, is a plan the answer must not be: the one
		// without the option, so that an option the planner never saw fails.
		differs []string
	}
	plans := []planCase{
		{"timeLimit with exact", job{Op: "plan", File: filepath.Join(testdata, "B.1048576.csv"), Name: "B.1048576.csv", Options: map[string]any{"strategy": "exact", "timeLimit": "10m", "nodeLimit": 200000}},
			testdata, []string{"--strategy", "exact", "--time-limit", "10m", "--node-limit", "200000", "B.1048576.csv"}, nil},
		{"autoSlice none", job{Op: "plan", File: filepath.Join(testdata, "E.1048576.csv"), Name: "E.1048576.csv", Options: map[string]any{"autoSlice": "0s"}},
			testdata, []string{"--auto-slice", "0", "E.1048576.csv"}, []string{"--node-limit", nl, "E.1048576.csv"}},
		{"autoSlice within a node limit", job{Op: "plan", File: filepath.Join(testdata, "E.1048576.csv"), Name: "E.1048576.csv", Options: map[string]any{"autoSlice": "5m", "nodeLimit": nodeLimit}},
			testdata, []string{"--auto-slice", "5m", "--node-limit", nl, "E.1048576.csv"}, nil},
		{"maxMemory", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"maxMemory": "64MiB", "nodeLimit": nodeLimit}},
			examples, []string{"--max-memory", "64MiB", "--node-limit", nl, "mlp.json"}, nil},
		{"maxMemory refuses the file", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"maxMemory": 1024}},
			examples, []string{"--max-memory", "1KiB", "mlp.json"}, nil},
		{"forward as bytes", job{Op: "plan", File: bwd, Name: "train-backward.json", Forward: fwd, Options: map[string]any{"forwardName": "train-forward.json", "nodeLimit": nodeLimit}},
			examples, []string{"--forward", "train-forward.json", "--node-limit", nl, "train-backward.json"}, []string{"--node-limit", nl, "train-backward.json"}},
		{"forward as text, best-fit", job{Op: "plan", File: bwd, Name: "train-backward.json", Forward: fwd, ForwardText: true, Options: map[string]any{"forwardName": "train-forward.json", "strategy": "best-fit"}},
			examples, []string{"--forward", "train-forward.json", "--strategy", "best-fit", "train-backward.json"}, []string{"--strategy", "best-fit", "train-backward.json"}},
	}
	var jobs []job
	for _, c := range plans {
		jobs = append(jobs, c.job)
	}
	// Verify: the command line's backward record is valid with its forward
	// graph, and not without it; diff, with a forward graph on each side
	// and with side B's options (the -b flags); and bad values.
	jobs = append(jobs,
		job{Op: "verify", Record: bwdFile, File: bwd, Name: "train-backward.json", Forward: fwd, Options: map[string]any{"forwardName": "train-forward.json", "nodeLimit": nodeLimit}},
		job{Op: "verify", Record: bwdFile, File: bwd, Name: "train-backward.json", Options: map[string]any{"nodeLimit": nodeLimit}},
		job{Op: "diff", File: bwd, FileB: bwd, Name: "train-backward.json", Forward: fwd, ForwardB: fwd, Options: map[string]any{"forwardName": "train-forward.json", "nodeLimit": nodeLimit},
			OptionsB: map[string]any{"name": "train-backward.json", "forwardName": "train-forward.json", "strategy": "no-reuse", "nodeLimit": nodeLimit}},
		job{Op: "diff", File: mlp, FileB: mlp, Name: "mlp.json", Options: map[string]any{"nodeLimit": nodeLimit},
			OptionsB: map[string]any{"name": "mlp.json", "f32Uniform": true, "symbols": map[string]any{"batch": 2}, "strategy": "best-fit", "nodeLimit": nodeLimit}},
	)
	diffs := []struct {
		name string
		args []string
	}{
		{"diff --forward", []string{"diff", "--json", "--node-limit", nl, "--forward", "train-forward.json", "--strategy-b", "no-reuse", "train-backward.json"}},
		{"diff's -b flags", []string{"diff", "--json", "--node-limit", nl, "--f32-uniform-b", "--set-b", "batch=2", "--strategy-b", "best-fit", "mlp.json"}},
	}
	bad := []struct {
		name string
		job  job
		want []string // in the message
		file string   // the error's file, where it is the forward graph's
		kind string   // memplan's error kind; "TypeError" for JavaScript's
	}{
		{"timeLimit as a number", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"timeLimit": 10}}, []string{"timeLimit", `want a duration as a string, such as "10s"`}, "", "message"},
		{"timeLimit negative", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"timeLimit": "-1s"}}, []string{"timeLimit", "want a duration of 0 or more"}, "", "message"},
		{"autoSlice without a unit", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"autoSlice": "5"}}, []string{"autoSlice", `got "5"`}, "", "message"},
		{"maxMemory over the worker's", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"maxMemory": "4GiB"}}, []string{"maxMemory", "at most 1 GiB"}, "", "message"},
		{"maxMemory not a size", job{Op: "plan", File: mlp, Name: "mlp.json", Options: map[string]any{"maxMemory": "lots"}}, []string{"maxMemory"}, "", "message"},
		{"side B's maxMemory", job{Op: "diff", File: mlp, FileB: mlp, Name: "mlp.json", OptionsB: map[string]any{"maxMemory": 0}}, []string{"maxMemory", "want a size above 0"}, "", "message"},
		{"a forward graph that does not read", job{Op: "plan", File: bwd, Name: "train-backward.json", Forward: badFwd, Options: map[string]any{"forwardName": "bad-forward.json", "nodeLimit": nodeLimit}}, []string{"forward: bad-forward.json"}, "bad-forward.json", "input"},
		{"a forward graph that is not a file", job{Op: "plan", File: bwd, Name: "train-backward.json", Options: map[string]any{"forward": 5}}, []string{"forward: want the file as bytes"}, "", "TypeError"},
	}
	for _, b := range bad {
		jobs = append(jobs, b.job)
	}
	res := runNode(t, jobs)

	for i, c := range plans {
		got := res[i]
		out, wantErr := cli(t, c.dir, append([]string{"plan", "--json"}, c.args...)...)
		if wantErr != "" {
			if got.Error == nil {
				t.Errorf("%s: the package plans; the command line fails: %s", c.name, wantErr)
				continue
			}
			// The same words (the command line adds how to raise its limit).
			if first, _, _ := strings.Cut(got.Error.Message, "\n"); first == "" || !strings.HasPrefix(wantErr, first) {
				t.Errorf("%s: the package's error %q is not the command line's %q", c.name, first, wantErr)
			}
			continue
		}
		if got.Error != nil {
			t.Errorf("%s: the package fails (%s); the command line plans", c.name, got.Error.Message)
			continue
		}
		var g, w record
		if err := json.Unmarshal(got.Value, &g); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("%s: the command line's record: %v", c.name, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: the package's plan (%s, arena %d) is not the command line's (%s, arena %d)", c.name, g.Strategy, g.ArenaSize, w.Strategy, w.ArenaSize)
		}
		if c.differs != nil {
			other, errLine := cli(t, c.dir, append([]string{"plan", "--json"}, c.differs...)...)
			var o record
			if errLine != "" || json.Unmarshal(other, &o) != nil {
				t.Fatalf("%s: memplan plan %v: %s", c.name, c.differs, errLine)
			}
			if reflect.DeepEqual(o, g) {
				t.Errorf("%s: the plan is the same without the option (arena %d): the test shows nothing", c.name, o.ArenaSize)
			}
		}
	}
	k := len(plans)
	var v struct {
		OK     bool      `json:"ok"`
		Errors []jsError `json:"errors"`
	}
	if json.Unmarshal(res[k].Value, &v); res[k].Error != nil || !v.OK {
		t.Errorf("verify with the forward graph: %s %+v, want ok, as memplan verify --forward", res[k].Value, res[k].Error)
	}
	v.OK, v.Errors = true, nil
	const notes = "2 params share the forward plan's weight slots"
	if json.Unmarshal(res[k+1].Value, &v); res[k+1].Error != nil || v.OK || len(v.Errors) == 0 || !strings.Contains(v.Errors[0].Message, notes) {
		t.Errorf("verify without the forward graph: %s %+v, want not ok, saying %q as the command line does", res[k+1].Value, res[k+1].Error, notes)
	}
	for i, d := range diffs {
		got := res[k+2+i]
		dir := examples
		want, errLine := cli(t, dir, d.args...)
		if errLine != "" {
			t.Fatalf("memplan %v: %s", d.args, errLine)
		}
		var g, w any
		if json.Unmarshal(got.Value, &g); got.Error != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %.400s %+v\nwant the command line's %.400s", d.name, got.Value, got.Error, want)
		}
	}
	for i, b := range bad {
		e := res[k+2+len(diffs)+i].Error
		if b.kind == "TypeError" && e != nil && e.Name == "TypeError" && e.IsError {
			e.Kind = b.kind // the package's, before the planner is asked
		} else if e != nil && e.Name != "MemplanError" {
			e = nil
		}
		if e == nil || e.Kind != b.kind || e.File != b.file {
			t.Errorf("%s: %+v, want a MemplanError of kind %s (file %q)", b.name, e, b.kind, b.file)
			continue
		}
		for _, w := range b.want {
			if !strings.Contains(e.Message, w) {
				t.Errorf("%s: %q does not say %q", b.name, e.Message, w)
			}
		}
	}
}
