//go:build !js

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
)

// gpuResult is gpurun.js's result object, as the app keeps it in
// memplanApp.gpu (with the file it ran) or runPlan resolves to.
type gpuResult struct {
	OK             bool    `json:"ok"`
	Error          string  `json:"error"`
	File           string  `json:"file"`
	Binding        string  `json:"binding"`
	Steps          int     `json:"steps"`
	TensorsWritten int     `json:"tensors_written"`
	WordsWritten   int64   `json:"words_written"`
	Checks         int     `json:"checks"`
	WordsChecked   int64   `json:"words_checked"`
	Dispatches     int     `json:"dispatches"`
	Bindings       int     `json:"bindings"`
	MS             float64 `json:"ms"`
	Clobbered      *struct {
		Step   int    `json:"step"`
		Tensor string `json:"tensor"`
		Word   int64  `json:"word"`
		By     string `json:"by"`
	} `json:"clobbered"`
}

// evalJSON evaluates a JS expression (a promise is awaited) that yields
// JSON text, and decodes it into v.
func evalJSON(p *page, js string, v any) {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.fail("evaluating %.200s: %v", js, err)
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		p.fail("decoding %.200s: %v", s, err)
	}
}

// needAdapter fails the test unless the browser offers a WebGPU adapter:
// the browser flags (tools/site/browser) must give it SwiftShader's.
func needAdapter(p *page) {
	p.t.Helper()
	var got string
	evalJSON(p, `(async () => JSON.stringify(!navigator.gpu ? "no navigator.gpu" :
		(await navigator.gpu.requestAdapter()) ? "adapter" : "no adapter"))()`, &got)
	if got != "adapter" {
		p.fail("WebGPU in this Chromium: %s (the browser needs --enable-unsafe-webgpu)", got)
	}
}

// runOnGPU presses the app's "Run on this GPU" from the keyboard and
// waits for its result on the plan of file.
func runOnGPU(p *page, file string) gpuResult {
	p.t.Helper()
	eval[bool](p, `(window.memplanApp.gpu = undefined, document.getElementById("gpu-run").focus(), document.activeElement.id === "gpu-run")`)
	p.run("Enter on the button", chromedp.KeyEvent(kb.Enter))
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!window.memplanApp.gpu`, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		p.fail("waiting for the GPU check of %s: %v", file, err)
	}
	var r gpuResult
	evalJSON(p, `JSON.stringify(window.memplanApp.gpu)`, &r)
	if r.Error != "" || r.File != file {
		p.fail("the GPU check of %s: %+v", file, r)
	}
	return r
}

// checkClean asserts that a run of the plan on screen passed and did all
// its work: every step, and every word of every tensor that owns bytes
// written (f32-uniform: sizes and offsets are whole words) and checked.
func checkClean(p *page, file string, r gpuResult) {
	p.t.Helper()
	var want struct {
		Steps, Owners int
		Words         int64
	}
	evalJSON(p, `JSON.stringify({Steps: window.memplanApp.summary.steps,
		Owners: window.memplanApp.tensors.filter(t => !t.root && !t.skipped && t.size >= 4).length,
		Words: window.memplanApp.tensors.filter(t => !t.root && !t.skipped).reduce((a, t) => a + t.size / 4, 0)})`, &want)
	if !r.OK || r.Clobbered != nil || r.Steps != want.Steps || r.TensorsWritten != want.Owners || r.WordsWritten != want.Words ||
		r.WordsChecked < r.WordsWritten || r.Binding != "arena" {
		p.fail("the GPU check of %s: %+v, want ok with %d steps, %d tensors and %d words written, each checked", file, r, want.Steps, want.Owners, want.Words)
	}
	p.t.Logf("GPU check of %s (f32-uniform): %d steps, %d tensors, %d words written, %d checked, %d dispatches: %.0f ms",
		file, r.Steps, r.TensorsWritten, r.WordsWritten, r.WordsChecked, r.Dispatches, r.MS)
}

// f32Uniform ticks the page's f32-uniform option.
func f32Uniform(p *page) {
	p.t.Helper()
	eval[bool](p, `(() => { const f = document.querySelector("#options [name=f32_uniform]");
		f.checked = true; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
}

// showsF32 waits for the f32-uniform plan of file.
func showsF32(p *page, file string) {
	p.t.Helper()
	p.wait(file+" at f32-uniform", fmt.Sprintf(`%s && window.memplanApp.summary.options.f32_uniform === true`, viewerShows(file)))
}

// TestBrowserGPURunExamples: the page runs every built-in example's
// f32-uniform plan on SwiftShader's WebGPU, and every one runs clean;
// without WebGPU or an adapter it says so.
func TestBrowserGPURunExamples(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	needAdapter(p)
	f32Uniform(p)
	showsF32(p, "transformer.json")
	r := runOnGPU(p, "transformer.json")
	checkClean(p, "transformer.json", r)
	if got := p.text("#gpu-result"); !strings.Contains(got, "ran clean") || !strings.Contains(p.text("#gpu-adapter"), "swiftshader") {
		p.fail("the page shows %q under adapter %q", got, p.text("#gpu-adapter"))
	}
	// The profile row is Go's verdict on the adapter's limits: SwiftShader
	// offers a gibibyte of binding and buffer, the desktop profile.
	p.wait("the adapter's profile", `document.getElementById("gpu-adapter").textContent.includes("WebGPU profiledesktop")`)
	p.screenshot("gpurun-transformer")

	names, err := fs.Glob(examples.FS, "*.json")
	if err != nil || len(names) < 5 {
		t.Fatalf("examples: %v %v", names, err)
	}
	for _, name := range names {
		if name == "transformer.json" {
			continue
		}
		eval[bool](p, fmt.Sprintf(`(() => { const e = document.getElementById("examples"); e.value = %q;
			e.dispatchEvent(new Event("change")); return e.value === %q; })()`, name, name))
		showsF32(p, name)
		checkClean(p, name, runOnGPU(p, name))
	}

	// A browser without WebGPU, or one whose WebGPU offers no adapter, is
	// told so in words, and no result is shown.
	for _, c := range []struct{ name, patch, want string }{
		{"no adapter", `navigator.gpu.requestAdapter = async () => null`, "offers no adapter"},
		{"no WebGPU", `Object.defineProperty(Navigator.prototype, "gpu", {get: () => undefined})`, "has no WebGPU"},
	} {
		eval[bool](p, "("+c.patch+", true)")
		p.run("click Run on this GPU", chromedp.Click("#gpu-run"))
		p.wait(c.name, fmt.Sprintf(`document.getElementById("gpu-status").textContent.includes(%q)`, c.want))
		if eval[bool](p, `!document.getElementById("gpu-result").hidden`) {
			p.fail("%s: a result is shown: %q", c.name, p.text("#gpu-result"))
		}
	}
}

// TestBrowserGPURunModels: three real ONNX models, planned by the page in
// f32-uniform mode, run clean on the GPU.
func TestBrowserGPURunModels(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	needAdapter(p)
	f32Uniform(p)
	showsF32(p, "transformer.json")
	for _, model := range []string{"ir/onnx/testdata/light_resnet50.static.onnx", "ir/onnx/testdata/bert_toy.static.onnx", "web/testdata/ppocrv4_rec.static.onnx"} {
		name := model[strings.LastIndex(model, "/")+1:]
		if strings.HasPrefix(model, "web/testdata/") {
			p.dropServed(name)
		} else {
			p.dropBytes(name, s.testdata(model))
		}
		showsF32(p, name)
		checkClean(p, name, runOnGPU(p, name))
	}
}

// gpuPage is a blank page of the test server with gpurun.js imported and
// a device, for records fed to the runner straight, Verify bypassed.
func gpuPage(t *testing.T) *session {
	s := open(t, "/gpu.html")
	needAdapter(s.page)
	var ok bool
	evalJSON(s.page, `(async () => { window.gpurun = await import("/gpurun.js");
		window.device = await (await navigator.gpu.requestAdapter()).requestDevice(); return "true"; })()`, &ok)
	return s
}

// runRecord runs a record in the page, with optional limits, and returns
// the result, or its error as Error.
func runRecord(p *page, rec any, limits map[string]int64) gpuResult {
	p.t.Helper()
	b, _ := json.Marshal(rec)
	l, _ := json.Marshal(limits)
	var r gpuResult
	evalJSON(p, fmt.Sprintf(`gpurun.runPlan(%s, device, {limits: %s}).then(r => JSON.stringify(r), e => JSON.stringify({error: e.name + ": " + e.message}))`, b, l), &r)
	return r
}

// record plans file with opts (f32-uniform, alignment 256) and returns
// the plan record as generic JSON, to be edited.
func record(t *testing.T, name string, data []byte, align int64) map[string]any {
	t.Helper()
	src, err := ir.Decode(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.F32Uniform, opts.Alignment = true, align
	plan, err := planner.PlanSource(context.Background(), src, opts, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plan)
	var rec map[string]any
	json.Unmarshal(b, &rec)
	return rec
}

func tensors(rec map[string]any) []map[string]any {
	var ts []map[string]any
	for _, t := range rec["tensors"].([]any) {
		ts = append(ts, t.(map[string]any))
	}
	return ts
}

func firstOwner(rec map[string]any) map[string]any {
	ts := tensors(rec)
	return ts[slices.IndexFunc(ts, func(t map[string]any) bool { return owns(t) && num(t, "size") >= 8 })]
}

func num(t map[string]any, k string) int64 { v, _ := t[k].(float64); return int64(v) }

func owns(t map[string]any) bool {
	return t["root"] == nil && t["skipped"] == nil && num(t, "offset") >= 0
}

// asTensorBinding rewrites an arena plan as the tensor binding model
// records it (docs/plan-format.md): the arena cut into buffers wherever
// no tensor straddles, each tensor's buffer and offset inside it.
func asTensorBinding(rec map[string]any) {
	ts := tensors(rec)
	var cuts []int64
	for _, c := range ts {
		if !owns(c) {
			continue
		}
		at, ok := num(c, "offset"), true
		for _, u := range ts {
			if owns(u) && num(u, "offset") < at && at < num(u, "offset")+num(u, "size") {
				ok = false
			}
		}
		if ok && at > 0 {
			cuts = append(cuts, at)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(append([]int64{0}, cuts...))
	var buffers []map[string]any
	for k, c := range cuts {
		end := num(rec, "arena_size")
		if k+1 < len(cuts) {
			end = cuts[k+1]
		}
		buffers = append(buffers, map[string]any{"offset": c, "size": end - c})
	}
	rec["binding"], rec["buffers"] = "tensor", buffers
	place := func(t map[string]any, off int64) {
		k, _ := slices.BinarySearch(cuts, off+1)
		t["buffer"], t["buffer_offset"] = k-1, off-cuts[k-1]
	}
	byName := map[string]map[string]any{}
	for _, t := range ts {
		byName[t["name"].(string)] = t
		if owns(t) {
			place(t, num(t, "offset"))
		}
	}
	for _, t := range ts {
		if r, ok := t["root"].(string); ok && owns(byName[r]) {
			t["buffer"], t["buffer_offset"] = byName[r]["buffer"], num(byName[r], "buffer_offset")+num(t, "view_offset")
		}
	}
}

// clobber moves tensor b onto the bytes of tensor a, which is live when b
// is born, as a planner bug would: b is smaller, so only a is hit. It
// returns the step where the run must find a changed: the first step
// from b's birth on that reads a or ends its life.
func clobber(t *testing.T, rec map[string]any) (a, b string, step int) {
	t.Helper()
	ts := tensors(rec)
	for _, u := range ts {
		for _, v := range ts {
			if u["name"] == v["name"] || !owns(u) || !owns(v) || num(v, "size") < 4 || num(v, "size") > num(u, "size") ||
				num(u, "birth") >= num(v, "birth") || num(v, "birth") > num(u, "death") {
				continue
			}
			for _, k := range []string{"offset", "buffer", "buffer_offset"} {
				if _, ok := u[k]; ok {
					v[k] = u[k]
				}
			}
			step = int(num(u, "death"))
			reads, _ := rec["reads"].([]any)
			idx := slices.IndexFunc(ts, func(x map[string]any) bool { return x["name"] == u["name"] })
			for s := int(num(v, "birth")); s < step && s < len(reads); s++ {
				if slices.ContainsFunc(reads[s].([]any), func(x any) bool { return int(x.(float64)) == idx }) {
					step = s
					break
				}
			}
			return u["name"].(string), v["name"].(string), step
		}
	}
	t.Fatal("no two tensors live together to overlap")
	return
}

// TestBrowserGPURunCatchesClobbers feeds records straight to gpurun.js,
// Verify bypassed: valid plans under both binding models, bound whole or
// in pieces, run clean; a plan with two live tensors made to overlap is
// caught by the GPU run itself, naming the tensor, the step, the first
// word and the tensor that wrote over it; records it cannot run are
// errors that say where.
func TestBrowserGPURunCatchesClobbers(t *testing.T) {
	s := gpuPage(t)
	p := s.page
	model := s.testdata("ir/onnx/testdata/bert_toy.static.onnx")
	bert := func() map[string]any { return record(t, "bert_toy.static.onnx", model, 256) }
	transformer := func() map[string]any {
		b, _ := examples.FS.ReadFile("transformer.json")
		return record(t, "transformer.json", b, 256)
	}
	tensorBound := func(rec map[string]any) map[string]any { asTensorBinding(rec); return rec }
	// A byte-aligned buffer list: offsets and sizes not whole words.
	csv := func() map[string]any {
		return record(t, "odd.csv", []byte("id,lower,upper,size\n0,0,2,6\n1,1,3,7\n2,2,4,5\n3,3,5,9\n4,0,5,3\n"), 1)
	}
	small := map[string]int64{"maxStorageBufferBindingSize": 4096}

	clean := []struct {
		name    string
		rec     map[string]any
		limits  map[string]int64
		binding string
	}{
		{"bert arena", bert(), nil, "arena"},
		{"bert arena in 4 KiB bindings", bert(), small, "arena"},
		{"transformer (views) tensor binding", tensorBound(transformer()), nil, "tensor"},
		{"transformer tensor binding in 4 KiB bindings", tensorBound(transformer()), small, "tensor"},
		{"bert tensor binding", tensorBound(bert()), nil, "tensor"},
		{"unaligned buffer list", csv(), nil, "arena"},
	}
	for _, c := range clean {
		r := runRecord(p, c.rec, c.limits)
		if !r.OK || r.Error != "" || r.Binding != c.binding || r.TensorsWritten == 0 || r.WordsChecked < r.WordsWritten {
			t.Errorf("%s: %+v, want a clean run under %s binding", c.name, r, c.binding)
		}
		if arena := num(c.rec, "arena_size"); c.limits != nil && r.Bindings < 2 && arena > 4096 {
			t.Errorf("%s: %d bindings of a %d-byte arena under a 4 KiB limit", c.name, r.Bindings, arena)
		}
		t.Logf("%s: %+v", c.name, r)
	}

	clobbered := []struct {
		name   string
		rec    map[string]any
		limits map[string]int64
	}{
		{"bert arena", bert(), nil},
		{"bert arena in 4 KiB bindings", bert(), small},
		{"transformer tensor binding", tensorBound(transformer()), nil},
		{"bert tensor binding in 4 KiB bindings", tensorBound(bert()), small},
	}
	for _, c := range clobbered {
		a, b, step := clobber(t, c.rec)
		r := runRecord(p, c.rec, c.limits)
		if r.OK || r.Clobbered == nil || r.Clobbered.Tensor != a || r.Clobbered.Step != step || r.Clobbered.Word != 0 || r.Clobbered.By != b {
			t.Errorf("%s with %s moved onto %s: %+v %+v, want %s clobbered at step %d, word 0, by %s", c.name, b, a, r, r.Clobbered, a, step, b)
		}
		t.Logf("%s: %s moved onto %s is caught at step %d", c.name, b, a, step)
	}

	bad := []struct {
		name, want string
		edit       func(map[string]any)
	}{
		{"offset outside the arena", `is outside the arena`, func(r map[string]any) { firstOwner(r)["offset"] = num(r, "arena_size") }},
		{"unknown binding", `binding: "both"`, func(r map[string]any) { r["binding"] = "both" }},
		{"tensor binding without buffers", `needs a buffers array`, func(r map[string]any) { r["binding"] = "tensor" }},
		{"unaligned tensor offset", `not a multiple of this device's minStorageBufferOffsetAlignment 256`, func(r map[string]any) {
			asTensorBinding(r)
			t := firstOwner(r)
			t["buffer_offset"], t["size"] = num(t, "buffer_offset")+4, num(t, "size")-4
		}},
		{"reads of another length", `reads: want an array of`, func(r map[string]any) { r["reads"] = []any{} }},
		{"a life past the last step", `not within 0 to 310`, func(r map[string]any) { firstOwner(r)["death"] = 311 }},
		{"arena over the device", `LimitError: the arena needs a GPU buffer of 1099511627776 bytes; this device allows at most maxBufferSize`, func(r map[string]any) { r["arena_size"] = int64(1) << 40 }},
	}
	for _, c := range bad {
		rec := bert()
		c.edit(rec)
		if r := runRecord(p, rec, nil); !strings.HasPrefix(r.Error, "PlanError: ") && !strings.HasPrefix(r.Error, "LimitError: ") || !strings.Contains(r.Error, c.want) {
			t.Errorf("%s: %+v, want an error saying %q", c.name, r, c.want)
		}
	}
}
