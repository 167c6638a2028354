//go:build !js

package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The page plans exactly what the command line plans: every model and
// buffer file we have, under options that take each path of the planner
// (strategies, f32-uniform, WebGPU tensor binding, skipped params), planned
// in the page's real viewer and workers and by the memplan binary, must
// give the same plan record tensor for tensor, or the same error.
//
// -conformance.extra=DIR[,DIR] adds every .onnx, .csv and .json file under
// those folders (the shared models and data beside the repository), for a
// run by hand:
//
//	xvfb-run -a go test -run TestBrowserConformance -timeout 2h ./web/ -args -conformance.extra=../../shared/models,../../shared/data
var conformanceExtra = flag.String("conformance.extra", "", "comma-separated folders whose inputs the conformance test also plans")

// conformanceCase is one input planned with one set of options.
type conformanceCase struct {
	file string // path from the repository root, or absolute
	opts conformanceOptions
}

// conformanceOptions are one set of options, as the page sends them and as
// the command line's flags say them.
type conformanceOptions struct {
	label string
	page  map[string]any
	flags []string
}

// searchNodes is the node budget of the strategies that search, so that
// their plans are the same on any machine, however loaded.
const searchNodes = 20_000

func conformanceMatrix(root string, files []string) []conformanceCase {
	common := []conformanceOptions{
		// No node limit: auto's slice has no clock by default, so the
		// page and the command line make one plan however loaded the
		// machine is.
		{"default", map[string]any{}, nil},
		{"f32-uniform, WebGPU default, tensor binding",
			map[string]any{"f32_uniform": true, "webgpu": "default", "binding": "tensor"},
			[]string{"--f32-uniform", "--webgpu", "default", "--binding", "tensor"}},
		{"params skipped", map[string]any{"skip_params": true},
			[]string{"--skip", "params"}},
	}
	var cases []conformanceCase
	for _, f := range files {
		for _, o := range common {
			cases = append(cases, conformanceCase{f, o})
		}
	}
	// The models with symbols again, bound as the models' README records
	// them: Silero VAD's op-15 export stopped the page's planner here.
	for _, f := range files {
		sym, ok := conformanceSymbols[filepath.Base(f)]
		if !ok {
			continue
		}
		for _, o := range common[:2] {
			page := maps.Clone(o.page)
			page["symbols_text"] = sym
			cases = append(cases, conformanceCase{f, conformanceOptions{o.label + ", " + sym, page, append(slices.Clone(o.flags), "--set", sym)}})
		}
	}
	// Every strategy, on a graph, a model and buffer lists: reference is
	// cubic, so none of these is large.
	for _, f := range []string{"examples/transformer.json", "ir/onnx/testdata/mnist.onnx", "planner/testdata/input.12.csv", "planner/testdata/A.1048576.csv"} {
		for _, s := range conformanceStrategies {
			page, flags := map[string]any{"strategy": s}, []string{"--strategy", s}
			if s == "exact" || s == "improve" { // searches, bounded by a clock unless given nodes
				page["node_limit"] = searchNodes
				flags = append(flags, "--node-limit", fmt.Sprint(searchNodes))
			}
			cases = append(cases, conformanceCase{f, conformanceOptions{"strategy " + s, page, flags}})
		}
	}
	return cases
}

// conformanceSymbols are symbol values for the models that need them.
var conformanceSymbols = map[string]string{
	"attention_mask1d_fp16.onnx":        "batch=1,sequence=128",
	"bert_toy.onnx":                     "batch=1,max_seq_len_in_batch=128",
	"bert_toy.symbolic.onnx":            "batch=1,max_seq_len_in_batch=128",
	"genai_decoder_f32_symbolic.onnx":   "batch_size=1,sequence_length=3,past_sequence_length=5,total_sequence_length=past_sequence_length+sequence_length",
	"ppocr_mobile_v2_cls.onnx":          "p2o.DynamicDimension.0=1,p2o.DynamicDimension.1=48,p2o.DynamicDimension.2=192",
	"silero_vad_16k_op15.onnx":          "batch=1,sequence=512",
	"silero_vad_op18.onnx":              "batch=1,sequence=512",
	"silero_vad_op18_16k.onnx":          "batch=1,sequence=512",
	"silero_vad_op18_16k.symbolic.onnx": "batch=1",
	"tf_bert_qa.onnx":                   "batch_size=1",
	"tf_bert_qa.symbolic.onnx":          "batch_size=1",
}

// conformanceStrategies is every strategy the planner offers
// (memplan strategies); TestBrowserConformance checks the list is whole.
var conformanceStrategies = []string{"auto", "improve", "exact", "best-fit", "best-fit-temporal", "first-use", "breadth", "reference", "no-reuse"}

// conformanceFiles is every model, graph and buffer list in the
// repository's test data and examples, and under the extra folders.
func conformanceFiles(t *testing.T, root string) []string {
	var files []string
	for _, pat := range []string{"examples/*.json", "ir/testdata/*", "ir/onnx/testdata/*.onnx", "ir/onnx/testdata/ortoracle/*.onnx", "planner/testdata/*.csv", "web/testdata/*.csv", "web/testdata/*.onnx"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if ext := filepath.Ext(f); ext == ".json" || ext == ".csv" || ext == ".onnx" {
				rel, _ := filepath.Rel(root, f)
				files = append(files, rel)
			}
		}
	}
	if *conformanceExtra != "" {
		for _, dir := range strings.Split(*conformanceExtra, ",") {
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			err = filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if ext := filepath.Ext(p); !d.IsDir() && (ext == ".onnx" || ext == ".csv" || ext == ".json") {
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("-conformance.extra: %v", err)
			}
		}
	}
	if len(files) < 30 {
		t.Fatalf("only %d test inputs found: the test data is missing", len(files))
	}
	return files
}

// cliAnswer is what the command line made of a case: its plan record, or
// its error message; over says it exited 3, the plan over its budget or
// device.
type cliAnswer struct {
	record map[string]any
	err    string
	over   bool
}

func runCLI(t *testing.T, bin, root string, c conformanceCase) cliAnswer {
	t.Helper()
	path := c.file
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	out := filepath.Join(t.TempDir(), "plan.json")
	// The file by its base name from its own folder: names in messages are
	// as the page gets them, a dropped file's name.
	args := append([]string{"plan", "--json", "-o", out}, c.opts.flags...)
	cmd := exec.Command(bin, append(args, filepath.Base(path))...)
	cmd.Dir = filepath.Dir(path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	msg, _, _ := strings.Cut(strings.TrimPrefix(stderr.String(), "memplan: "), "\n")
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
		if msg == "" {
			t.Fatalf("%s (%s): the command line failed with no message: %v", c.file, c.opts.label, err)
		}
		return cliAnswer{err: msg}
	}
	// Exit status 3 is a plan over its budget or device, a plan all the
	// same, which the page shows with its verdict; or tensors no binding
	// holds, when there is no plan and the fit report is the error.
	b, err := os.ReadFile(out)
	if errors.Is(err, os.ErrNotExist) && exit != nil && msg != "" {
		return cliAnswer{err: msg}
	}
	if err != nil {
		t.Fatalf("%s (%s): the command line wrote no record: %v\n%s", c.file, c.opts.label, err, stderr.String())
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s (%s): the command line's record: %v", c.file, c.opts.label, err)
	}
	return cliAnswer{record: rec, over: exit != nil}
}

// pageAnswer is what the page made of a case.
type pageAnswer struct {
	Record map[string]any `json:"record"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func TestBrowserConformance(t *testing.T) {
	// A limit for hangs: on a loaded two-core machine the matrix takes
	// a few minutes.
	s := openFor(t, "/index.html", 40*time.Minute)
	p := s.page
	bin := filepath.Join(t.TempDir(), "memplan")
	build := exec.Command("go", "build", "-o", bin, "./tools/memplan")
	build.Dir = s.root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the command line: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "strategies").Output(); err != nil {
		t.Fatal(err)
	} else {
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			name := strings.Fields(line)[0]
			if !slices.Contains(conformanceStrategies, name) {
				t.Fatalf("strategy %s is missing from the conformance matrix", name)
			}
		}
	}
	p.wait("the default example", viewerShows("transformer.json"))
	// The page's answers, as the app hears them: a summary (then the
	// record, asked for) or an error, for the file last sent.
	eval[bool](p, `(() => {
		window.__files = {};
		window.__answer = null;
		window.addEventListener("message", (e) => {
			const m = e.data;
			if (m && m.type !== "hover" && m.type !== "camera") (window.__log = window.__log || []).push(m.type + " " + (m.file || "") + " " + (m.message || ""));
			if (!m || m.source !== "memplan") return;
			if (m.type === "summary" && m.file === window.__asked) {
				window.__asked = null;
				document.getElementById("viewer").contentWindow.postMessage({type: "record"}, "*");
			} else if (m.type === "error" && m.kind !== "cancelled" && window.__asked) {
				window.__asked = null;
				window.__answer = {error: {message: m.message}};
			} else if (m.type === "record" && !window.__answer) {
				window.__answer = {record: m.record};
			}
		});
		return true; })()`)
	files := conformanceFiles(t, s.root)
	cases := conformanceMatrix(s.root, files)
	start := time.Now()
	loaded := map[string]bool{}
	var failures []string
	for i, c := range cases {
		name := filepath.Base(c.file)
		if !loaded[c.file] {
			path := c.file
			if !filepath.IsAbs(path) {
				path = filepath.Join(s.root, path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("test input: %v", err)
			}
			eval[bool](p, fmt.Sprintf(`(window.__files[%q] = Uint8Array.from(atob(%q), c => c.charCodeAt(0)), true)`,
				c.file, base64.StdEncoding.EncodeToString(data)))
			loaded[c.file] = true
		}
		opts, _ := json.Marshal(c.opts.page)
		eval[bool](p, fmt.Sprintf(`(() => { window.__answer = null; window.__asked = %q;
			%s.memplan.send({type: "load", name: %q, data: window.__files[%q].slice(), options: %s});
			return true; })()`, name, frame, name, c.file, opts))
		if !p.poll(`window.__answer !== null`) {
			p.fail("no answer from the page for %s (%s); it said: %s", c.file, c.opts.label, eval[string](p, `(window.__log || []).slice(-20).join("\n")`))
		}
		var got pageAnswer
		if err := json.Unmarshal([]byte(eval[string](p, `JSON.stringify(window.__answer)`)), &got); err != nil {
			t.Fatal(err)
		}
		want := runCLI(t, bin, s.root, c)
		if msg := compareAnswers(got, want); msg != "" {
			failures = append(failures, fmt.Sprintf("%s (%s): %s", c.file, c.opts.label, msg))
		}
		if testing.Verbose() && i%20 == 19 {
			t.Logf("%d of %d cases, %s", i+1, len(cases), time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%d inputs, %d plans, page and command line, in %s", len(files), len(cases), time.Since(start).Round(time.Second))
	for _, f := range failures {
		t.Error(f)
	}
}

// compareAnswers says how the page's answer differs from the command
// line's, or "" when it is the same.
func compareAnswers(got pageAnswer, want cliAnswer) string {
	switch {
	case want.err != "" && got.Error == nil:
		return fmt.Sprintf("the command line fails (%s), the page plans", want.err)
	case want.err == "" && got.Error != nil:
		return fmt.Sprintf("the command line plans, the page fails: %s", got.Error.Message)
	case want.err != "":
		// The planner's message, the same words: the command line's first
		// line (its second, if any, names a flag) and the page's (a fit
		// report lists the violations on the lines after it).
		if first, _, _ := strings.Cut(got.Error.Message, "\n"); first != want.err {
			return fmt.Sprintf("the errors differ:\n page: %s\n  cli: %s", first, want.err)
		}
		return ""
	}
	return compareRecords(got.Record, want.record)
}

// compareRecords compares two plan records field by field and tensor by
// tensor, and names the first differences.
func compareRecords(page, cli map[string]any) string {
	var diffs []string
	keys := map[string]bool{}
	for k := range page {
		keys[k] = true
	}
	for k := range cli {
		keys[k] = true
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range sorted {
		if k == "tensors" {
			continue
		}
		if !reflect.DeepEqual(page[k], cli[k]) {
			diffs = append(diffs, fmt.Sprintf("%s: page %s, cli %s", k, short(page[k]), short(cli[k])))
		}
	}
	pt, _ := page["tensors"].([]any)
	ct, _ := cli["tensors"].([]any)
	if len(pt) != len(ct) {
		diffs = append(diffs, fmt.Sprintf("the page has %d tensors, the command line %d", len(pt), len(ct)))
	} else {
		for i := range pt {
			if !reflect.DeepEqual(pt[i], ct[i]) {
				diffs = append(diffs, fmt.Sprintf("tensor %d: page %s, cli %s", i, short(pt[i]), short(ct[i])))
				break
			}
		}
	}
	if len(diffs) > 6 {
		diffs = append(diffs[:6], fmt.Sprintf("and %d more", len(diffs)-6))
	}
	return strings.Join(diffs, "; ")
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// TestCompareRecords: the comparison sees a change in any field or tensor.
func TestCompareRecords(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"arena_size": 64.0, "lower_bound": 32.0, "strategy": "auto",
			"tensors": []any{map[string]any{"name": "a", "offset": 0.0}, map[string]any{"name": "b", "offset": 32.0}}}
	}
	tests := []struct {
		name   string
		change func(map[string]any)
		want   string
	}{
		{"same", func(map[string]any) {}, ""},
		{"arena", func(r map[string]any) { r["arena_size"] = 96.0 }, "arena_size"},
		{"a field only one side has", func(r map[string]any) { r["optimal"] = true }, "optimal"},
		{"an offset", func(r map[string]any) { r["tensors"].([]any)[1].(map[string]any)["offset"] = 0.0 }, "tensor 1"},
		{"a tensor fewer", func(r map[string]any) { r["tensors"] = r["tensors"].([]any)[:1] }, "1 tensors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := base()
			tc.change(page)
			got := compareRecords(page, base())
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want a difference naming %q", got, tc.want)
			}
		})
	}
}
