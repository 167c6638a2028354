//go:build !js

package onnx

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

// onnxruntime is the oracle of the ONNX decoder's shape inference: the
// tests write models in Go, run them with onnxruntime's CPU provider
// (ortoracle/shapes.mjs under Node, onnxruntime-node pinned in
// ortoracle/package.json) and compare, for every graph output, the dims,
// dtype and byte size memplan infers with what onnxruntime produced.
// Every expected value comes from onnxruntime; none is written by hand.
//
// Setup, once per checkout (CI's .ci/run does it through make test):
//
//	make ortoracle
//
// Regenerate the models kept in testdata/ortoracle:
//
//	go test ./ir/onnx -run TestOnnxruntimeOracle -update

// update rewrites what tests generate: the models under testdata/ortoracle
// from their builders, and docs/onnx-ops.md from the rule table.
var update = flag.Bool("update", false, "rewrite generated test data and docs")

const ortDir = "ortoracle"

// ortFeed is one graph input as the oracle script takes it.
type ortFeed struct {
	Name   string    `json:"name"`
	DType  string    `json:"dtype"`
	Dims   []int64   `json:"dims"`
	Values []float64 `json:"values,omitempty"`
	Fill   *float64  `json:"fill,omitempty"`
}

type ortRequest struct {
	Model  string            `json:"model"`
	Inputs []ortFeed         `json:"inputs"`
	Shapes map[string]string `json:"shapes,omitempty"`
}

// ortOutput is one graph output as onnxruntime produced it.
type ortOutput struct {
	Name  string  `json:"name"`
	Elem  int64   `json:"elem"`
	DType string  `json:"dtype"`
	Dims  []int64 `json:"dims"`
	Bytes int64   `json:"bytes"`
	// ViaShape: a 4-bit output, described from the value of its Shape
	// and the session's element type, its bytes by ONNX's packing.
	ViaShape bool `json:"viaShape"`
}

type ortAnswer struct {
	Outputs []ortOutput `json:"outputs"`
	Error   string      `json:"error"`
}

func (a ortAnswer) String() string {
	if a.Error != "" {
		return "error: " + a.Error
	}
	var b strings.Builder
	for i, o := range a.Outputs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s%v", o.Name, o.DType, o.Dims)
	}
	return b.String()
}

// ortSetupHint says how to install the oracle; every setup failure says it.
const ortSetupHint = "the ONNX oracle tests need Node.js with npm (Debian: nodejs, npm) and onnxruntime-node: run `make ortoracle` (npm ci --ignore-scripts in ir/onnx/ortoracle)"

// ortPinned is the onnxruntime-node version package.json pins.
func ortPinned(t testing.TB) string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile(filepath.Join(ortDir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		t.Fatalf("reading %s/package.json: %v", ortDir, err)
	}
	v := pkg.Dependencies["onnxruntime-node"]
	if v == "" {
		t.Fatalf("%s/package.json does not depend on onnxruntime-node", ortDir)
	}
	return v
}

// ortNode finds node and checks that the installed onnxruntime-node is
// the pinned one: a missing or stale install fails the test, naming the
// setup step.
func ortNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH: %s", ortSetupHint)
	}
	want := ortPinned(t)
	var inst struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(ortDir, "node_modules", "onnxruntime-node", "package.json"))
	if err != nil {
		t.Fatalf("onnxruntime-node is not installed (%v): %s", err, ortSetupHint)
	}
	if err := json.Unmarshal(b, &inst); err != nil || inst.Version != want {
		t.Fatalf("installed onnxruntime-node is %q, package.json pins %q: %s", inst.Version, want, ortSetupHint)
	}
	return node
}

// runOrt runs every request in one Node process and returns the answers
// in order, each with its outputs or its own error.
func runOrt(t testing.TB, reqs []ortRequest) []ortAnswer {
	t.Helper()
	node := ortNode(t)
	in, err := json.Marshal(map[string]any{"requests": reqs})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "shapes.mjs")
	cmd.Dir = ortDir
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res struct {
		ORT     string      `json:"ort"`
		Answers []ortAnswer `json:"answers"`
		Error   string      `json:"error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("oracle script: %v; stdout %q, stderr %q (run error %v)", err, stdout.String(), stderr.String(), runErr)
	}
	if res.Error != "" {
		t.Fatalf("oracle script: %s", res.Error)
	}
	if want := ortPinned(t); res.ORT != want {
		t.Fatalf("oracle ran onnxruntime %s, package.json pins %s: %s", res.ORT, want, ortSetupHint)
	}
	if len(res.Answers) != len(reqs) {
		t.Fatalf("oracle answered %d of %d requests", len(res.Answers), len(reqs))
	}
	failed := slices.ContainsFunc(res.Answers, func(a ortAnswer) bool { return a.Error != "" })
	if failed != (runErr != nil) {
		t.Fatalf("oracle exit %v does not match its answers (any failed: %v)", runErr, failed)
	}
	return res.Answers
}

// feedsFor derives the oracle's feeds from the model's graph inputs, with
// dim_params bound from syms.
func feedsFor(m *oxModel, syms map[string]int64) ([]ortFeed, error) {
	var feeds []ortFeed
	for _, in := range m.inputs {
		f := ortFeed{Name: in.name, DType: elOnnx[in.elem], Dims: []int64{}}
		for _, d := range in.dims {
			switch d := d.(type) {
			case int:
				f.Dims = append(f.Dims, int64(d))
			case string:
				v, ok := syms[d]
				if !ok {
					return nil, fmt.Errorf("input %s: dim_param %q has no value", in.name, d)
				}
				f.Dims = append(f.Dims, v)
			}
		}
		if v, ok := m.feeds[in.name]; ok {
			f.Values, f.Fill = v.values, v.fill
		}
		feeds = append(feeds, f)
	}
	for name := range m.feeds {
		if !slices.ContainsFunc(m.inputs, func(in oxInput) bool { return in.name == name }) {
			return nil, fmt.Errorf("feed for %q, which is no graph input", name)
		}
	}
	return feeds, nil
}

// memplanDType is the dtype memplan must give a tensor of ONNX element
// type elem: its own name for it.
func memplanDType(elem int64) (ir.DType, bool) {
	names := map[int64][]string{
		elF32: {"f32"}, elF16: {"f16"}, 16: {"bf16"}, elF64: {"f64"}, elI64: {"i64"}, elI32: {"i32"},
		elI16: {"i16"}, elI8: {"i8"}, elU8: {"u8"}, elBool: {"bool"},
		elU16: {"u16"}, elU32: {"u32"}, elU64: {"u64"}, elU4: {"u4"}, elI4: {"i4"},
	}[elem]
	for _, n := range names {
		if dt, ok := ir.ParseDType(n); ok {
			return dt, true
		}
	}
	return ir.InvalidDType, false
}

// compareOrt checks memplan's graph against onnxruntime's outputs and
// returns every difference.
func compareOrt(g *ir.Graph, syms map[string]int64, ort []ortOutput) []string {
	tensors := map[string]ir.Tensor{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			tensors[o.Name] = o
		}
	}
	var diffs []string
	seen := map[string]bool{}
	for _, o := range ort {
		seen[o.Name] = true
		if !slices.Contains(g.Outputs, o.Name) {
			diffs = append(diffs, fmt.Sprintf("%s: not a graph output in memplan's graph", o.Name))
			continue
		}
		t, ok := tensors[o.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: memplan's graph has no tensor of that name", o.Name))
			continue
		}
		dims, err := g.Bind(t.Shape, syms)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("%s: memplan's shape %v: %v", o.Name, t.Shape, err))
			continue
		}
		if !slices.Equal(dims, o.Dims) {
			diffs = append(diffs, fmt.Sprintf("%s: memplan dims %v, onnxruntime %v", o.Name, dims, o.Dims))
		}
		want, ok := memplanDType(o.Elem)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: onnxruntime gives %s, for which memplan has no dtype (memplan says %s)", o.Name, o.DType, t.DType))
		case t.DType != want:
			diffs = append(diffs, fmt.Sprintf("%s: memplan dtype %s, onnxruntime %s", o.Name, t.DType, o.DType))
		}
		// The planner sizes a tensor as ir.TensorBytes of its dims and dtype.
		size, err := ir.TensorBytes(dims, t.DType)
		if err != nil || size != o.Bytes {
			diffs = append(diffs, fmt.Sprintf("%s: memplan %d bytes (%v), onnxruntime %d", o.Name, size, err, o.Bytes))
		}
	}
	for _, name := range g.Outputs {
		if !seen[name] {
			diffs = append(diffs, fmt.Sprintf("%s: a graph output in memplan's graph that onnxruntime did not produce", name))
		}
	}
	return diffs
}

// oracleCase is one model and the binding of its dim_params.
type oracleCase struct {
	name  string
	build func() *oxModel
	syms  map[string]int64
	save  bool // kept as testdata/ortoracle/<name>.onnx
}

// ortModels builds every case's model into dir and asks onnxruntime for
// their outputs, in one run.
func ortModels(t *testing.T, dir string, cases []oracleCase) ([][]byte, []ortAnswer) {
	t.Helper()
	var reqs []ortRequest
	var models [][]byte
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("two cases named %s", c.name)
		}
		names[c.name] = true
		m := c.build()
		data := m.bytes()
		feeds, err := feedsFor(m, c.syms)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		path := filepath.Join(dir, c.name+".onnx")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, ortRequest{Model: abs, Inputs: feeds, Shapes: m.shapes})
		models = append(models, data)
	}
	return models, runOrt(t, reqs)
}

func TestOnnxruntimeOracle(t *testing.T) {
	cases := oracleCases()
	models, answers := ortModels(t, t.TempDir(), cases)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans := answers[i]
			if ans.Error != "" {
				t.Fatalf("onnxruntime refused the model: %s", ans.Error)
			}
			t.Logf("onnxruntime: %s", ans)
			g, err := Decode(c.name+".onnx", models[i], ir.DecodeOptions{Symbols: c.syms})
			if err != nil {
				t.Fatalf("memplan: %v\nonnxruntime gave: %s", err, ans)
			}
			for _, d := range compareOrt(g, c.syms, ans.Outputs) {
				t.Error(d)
			}
		})
	}
}

// TestOrtTestdataCurrent: the models kept in testdata/ortoracle are what
// their builders write now; -update rewrites them.
func TestOrtTestdataCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "ortoracle")
	want := map[string]bool{}
	for _, c := range oracleCases() {
		if !c.save {
			continue
		}
		file := c.name + ".onnx"
		want[file] = true
		data := c.build().bytes()
		if len(data) >= 200<<10 {
			t.Errorf("%s is %d bytes, over the 200 KB kept in testdata", file, len(data))
		}
		path := filepath.Join(dir, file)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v: run go test ./ir/onnx -run TestOrtTestdataCurrent -update", err)
		} else if !bytes.Equal(have, data) {
			t.Errorf("%s differs from what its builder writes: run go test ./ir/onnx -run TestOrtTestdataCurrent -update", path)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".onnx") && !want[e.Name()] {
			t.Errorf("%s/%s is built by no case", dir, e.Name())
		}
	}
}

// TestOrtOracleHarness checks the oracle itself: it reports onnxruntime's
// refusals as errors, feeds the values it is given, and its answers for a
// model of standard ops agree with memplan (which decodes those already).
func TestOrtOracleHarness(t *testing.T) {
	dir := t.TempDir()
	// A Gather whose index must be in range: fed 1 it runs, fed 9 it fails.
	gather := func() *oxModel {
		m := newModel(17)
		m.w("table", elF32, 3, 4)
		m.in("i", elI64, 2)
		m.op("Gather", []string{"table", "i"}, []string{"y"})
		m.out(elF32, "y")
		return m
	}
	ok, bad := gather(), gather()
	ok.values("i", 1, 2)
	bad.values("i", 1, 9)
	var reqs []ortRequest
	for k, m := range []*oxModel{ok, bad} {
		path := filepath.Join(dir, fmt.Sprintf("gather%d.onnx", k))
		if err := os.WriteFile(path, m.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(path)
		feeds, err := feedsFor(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, ortRequest{Model: abs, Inputs: feeds})
	}
	reqs = append(reqs, ortRequest{Model: filepath.Join(dir, "absent.onnx")})
	ans := runOrt(t, reqs)
	if ans[0].Error != "" || len(ans[0].Outputs) != 1 {
		t.Fatalf("in-range Gather: %s", ans[0])
	}
	if o := ans[0].Outputs[0]; o.Name != "y" || o.DType != "float" || !slices.Equal(o.Dims, []int64{2, 4}) || o.Bytes != 32 {
		t.Errorf("in-range Gather gave %+v", o)
	}
	if !strings.Contains(ans[1].Error, "running") {
		t.Errorf("out-of-range index: %s, want onnxruntime's run error", ans[1])
	}
	if !strings.Contains(ans[2].Error, "loading") {
		t.Errorf("absent model: %s, want a load error", ans[2])
	}
	// The comparison finds a wrong dim, dtype and size, and a missing output.
	g := &ir.Graph{Outputs: []string{"y", "z"}, Nodes: []ir.Node{{Name: "y", Outputs: []ir.Tensor{
		{Name: "y", Shape: []ir.Dim{ir.Int(2), ir.Sym("n")}, DType: ir.F16}}}, {Name: "z", Outputs: []ir.Tensor{{Name: "z", Shape: []ir.Dim{}, DType: ir.F32}}}}}
	diffs := compareOrt(g, map[string]int64{"n": 5}, ans[0].Outputs)
	for _, want := range []string{"dims [2 5]", "dtype f16", "20 bytes", "z: a graph output"} {
		if !slices.ContainsFunc(diffs, func(d string) bool { return strings.Contains(d, want) }) {
			t.Errorf("comparison missed %q: %q", want, diffs)
		}
	}
}

// TestOrtRefuses: the models of refusedCases are refused by onnxruntime's
// CPU provider, which is why they are no oracle cases.
func TestOrtRefuses(t *testing.T) {
	cases := refusedCases()
	_, answers := ortModels(t, t.TempDir(), cases)
	for i, c := range cases {
		if answers[i].Error == "" {
			t.Errorf("%s: onnxruntime now runs it (%s): make it an oracle case", c.name, answers[i])
		} else {
			t.Logf("%s: %s", c.name, answers[i].Error)
		}
	}
}
