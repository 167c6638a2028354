package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
)

// goFit is Go's WebGPU fit report for the transformer example at the
// given options: the text the page must show, line by line.
func goFit(t *testing.T, symbols map[string]int64, profile, binding string) []string {
	t.Helper()
	return goFitLimits(t, symbols, profile, "", binding)
}

// goFitLimits is goFit with custom limits over the profile's.
func goFitLimits(t *testing.T, symbols map[string]int64, profile, limits, binding string) []string {
	t.Helper()
	data, err := examples.FS.ReadFile("transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	lower := func(syms map[string]int64) (*planner.Problem, error) {
		in, err := planner.Load("transformer.json", data, ir.DecodeOptions{})
		if err != nil {
			return nil, err
		}
		o := planner.DefaultOptions()
		o.F32Uniform, o.Symbols = true, syms
		if o.GPU, err = planner.ResolveGPU(profile, limits, binding); err != nil {
			return nil, err
		}
		return planner.Lower(in.Source, o)
	}
	p, err := lower(symbols)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := planner.PlanProblem(context.Background(), p, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fit := plan.FitGPU()
	if err := planner.ExplainFit(fit, plan.Symbols, nil, lower); err != nil {
		t.Fatal(err)
	}
	return append([]string{fit.Text}, fit.Lines...)
}

// TestBrowserWebGPU picks a WebGPU profile and binding in the options:
// the summary shows Go's fit report, word for word, and under tensor
// binding the canvas draws the cut between GPU buffers in its colour.
func TestBrowserWebGPU(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	profiles := eval[[]string](p, `Array.from(document.querySelectorAll("#options [name=webgpu] option")).map((o) => o.value)`)
	if want := append([]string{""}, planner.ProfileNames()...); strings.Join(profiles, ",") != strings.Join(want, ",") {
		p.fail("the profile choice is %q, want Go's %q", profiles, want)
	}
	eval[bool](p, `(() => { document.querySelector("input[name=f32_uniform]").click(); return true; })()`)
	p.setField("symbols", "seq=4096")
	for _, c := range []struct {
		binding string
		fits    bool
	}{{"arena", false}, {"tensor", true}} {
		t.Run(c.binding, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			want := goFit(t, map[string]int64{"seq": 4096}, "default", c.binding)
			p.setField("binding", c.binding)
			p.setField("webgpu", "default")
			p.wait("Go's report", fmt.Sprintf(`document.getElementById("fit").textContent === %q`, want[0]))
			lines := eval[[]string](p, `Array.from(document.querySelectorAll("#fit-lines li")).map((li) => li.textContent)`)
			if strings.Join(lines, "\n") != strings.Join(want[1:], "\n") {
				p.fail("the report's lines are\n%s\nwant Go's\n%s", strings.Join(lines, "\n"), strings.Join(want[1:], "\n"))
			}
			if cls := eval[string](p, `document.getElementById("fit").className`); (cls == "ok") != c.fits {
				p.fail("the verdict is styled %q, want fits=%v", cls, c.fits)
			}
			p.wait("the plan drawn", viewerShows("transformer.json"))
			// The cut is where GPU buffer 2 starts, so where the tensor
			// placed at that offset has its lower edge.
			type cutAt struct {
				N      int
				Tensor string
			}
			cut := eval[cutAt](p, `(() => { const s = window.memplanApp.summary, ts = window.memplanApp.tensors || [];
				const t = ts.find((t) => t.buffer === 1 && t.buffer_offset === 0 && !t.root);
				return {N: (s.buffers || []).length, Tensor: t ? t.name : ""}; })()`)
			if c.binding == "arena" {
				if cut.N != 0 || cut.Tensor != "" {
					p.fail("arena binding has GPU buffers: %+v", cut)
				}
				return
			}
			if cut.N != 2 || cut.Tensor == "" {
				p.fail("the summary lists %d GPU buffers and tensor %q at the start of the second; want 2 and one", cut.N, cut.Tensor)
			}
			type rect struct{ X, Y, W, H float64 }
			r := eval[*rect](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q);
				const f = document.getElementById("viewer").getBoundingClientRect();
				return r && {X: f.left + r.x, Y: f.top + r.y + r.h, W: r.w, H: r.h}; })()`, frame, cut.Tensor))
			if r == nil {
				p.fail("%s is not drawn", cut.Tensor)
			}
			img := p.capture()
			colours := map[string]bool{viz.Dark.Cut.Hex(): true, viz.Light.Cut.Hex(): true}
			hits := 0
			for k := 1; k < 10; k++ {
				x := int(r.X + r.W*float64(k)/10)
				if colours[hex(img, x, int(r.Y)-1)] || colours[hex(img, x, int(r.Y))] {
					hits++
				}
			}
			if hits < 7 { // a label may sit on the line here and there
				p.fail("the cut under %s at y=%.0f shows the cut colour at %d of 9 points", cut.Tensor, r.Y, hits)
			}
			p.screenshot("webgpu-tensor-binding")
		})
	}
}

// goLargest is Go's answer to the page's "largest that fits" for the
// transformer example in f32-uniform mode on a device of profile: the
// search the worker runs (protocol.FitSearch), in its words.
func goLargest(t *testing.T, symbol, profile string) *planner.SymbolFit {
	t.Helper()
	data, err := examples.FS.ReadFile("transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	o := protocol.Options{Options: planner.DefaultOptions(), Strategy: planner.DefaultStrategy}
	o.F32Uniform = true
	if o.GPU, err = planner.ResolveGPU(profile, "", ""); err != nil {
		t.Fatal(err)
	}
	lower := func(syms map[string]int64) (*planner.Problem, error) {
		in, err := planner.Load("transformer.json", data, ir.DecodeOptions{Symbols: syms, MaxMemory: planner.BrowserMemoryLimit})
		if err != nil {
			return nil, err
		}
		po := o.Options
		po.Symbols = syms
		return planner.Lower(in.Source, po)
	}
	s := protocol.FitSearch(o, symbol, lower)
	r, err := planner.LargestFit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Explain(s); err != nil {
		t.Fatal(err)
	}
	r.Describe(o.GPU)
	return r
}

// TestBrowserLargestFit asks the page, from the keyboard, for the largest
// seq whose plan fits WebGPU profile default: its answer is Go's
// (planner.LargestFit with the worker's search), naming N and N+1. Then
// custom limits typed beside the profile change the fit report as Go's
// --limits would, and a bad one is an error naming the field.
func TestBrowserLargestFit(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.wait("the control, disabled without a device", `document.getElementById("largest-run").disabled &&
		document.getElementById("largest-note").textContent.includes("WebGPU")`)
	eval[bool](p, `(() => { document.querySelector("input[name=f32_uniform]").click(); return true; })()`)
	p.setField("webgpu", "default")
	want := goFit(t, nil, "default", "arena")
	p.wait("the default profile's report", fmt.Sprintf(`document.getElementById("fit").textContent === %q`, want[0]))
	p.wait("the control, enabled", `!document.getElementById("largest-run").disabled &&
		Array.from(document.getElementById("largest-symbol").options).some((o) => o.value === "seq")`)

	r := goLargest(t, "seq", "default")
	if r.At == nil || r.Next == nil {
		t.Fatalf("Go's search has no boundary to compare: %+v", r)
	}
	// Pick seq and press the button from the keyboard.
	eval[bool](p, `(() => { const s = document.getElementById("largest-symbol"); s.focus(); return true; })()`)
	for eval[string](p, `document.getElementById("largest-symbol").value`) != "seq" {
		p.run("ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
		if eval[bool](p, `(() => { const s = document.getElementById("largest-symbol"); return s.selectedIndex === s.options.length - 1 && s.value !== "seq"; })()`) {
			p.fail("the symbol choice never reached seq")
		}
	}
	p.run("Tab to the button", chromedp.KeyEvent(kb.Tab))
	if id := eval[string](p, `document.activeElement.id`); id != "largest-run" {
		p.fail("Tab from the symbol went to %q, want the button", id)
	}
	p.run("Enter on the button", chromedp.KeyEvent(kb.Enter))
	p.wait("the answer", `!document.getElementById("largest-text").hidden`)
	got := p.text("#largest-text")
	if got != r.Text {
		p.fail("the page says %q, want Go's %q", got, r.Text)
	}
	for _, n := range []int64{r.Value, r.Next.Value} {
		if !strings.Contains(got, fmt.Sprintf("seq=%d", n)) {
			p.fail("the answer %q does not name seq=%d", got, n)
		}
	}
	lines := eval[[]string](p, `Array.from(document.querySelectorAll("#largest-lines li")).map((li) => li.textContent)`)
	if strings.Join(lines, "\n") != strings.Join(r.Lines, "\n") {
		p.fail("the answer's lines are\n%s\nwant Go's\n%s", strings.Join(lines, "\n"), strings.Join(r.Lines, "\n"))
	}
	for _, size := range [][2]int64{{1280, 800}, {800, 600}, {390, 844}} {
		p.resize(size[0], size[1])
		eval[bool](p, `(document.getElementById("largest-text").scrollIntoView({block: "center"}), true)`)
		p.screenshot(fmt.Sprintf("largest-fit-%d", size[0]))
	}
	p.resize(1280, 800)

	// Custom limits: the report is Go's for them.
	custom := goFitLimits(t, nil, "default", "binding=1GiB,buffer=1GiB", "arena")
	if custom[0] == want[0] {
		t.Fatalf("custom limits do not change Go's report %q", custom[0])
	}
	p.setField("limits", "binding=1GiB,buffer=1GiB")
	p.wait("the custom limits' report", fmt.Sprintf(`document.getElementById("fit").textContent === %q`, custom[0]))
	p.setField("limits", "binding=lots")
	p.wait("the error naming the field", `!document.getElementById("error").hidden &&
		document.getElementById("error-msg").textContent.includes("WebGPU limits field")`)
}

// decoderJSON is a decoder's attention step whose three symbols are the
// ONNX decoders': past, seq and their sum total, a symbol of its own.
const decoderJSON = `{"format": "memplan.graph/v1", "name": "decoder",
 "symbols": {"past": 1, "seq": 1, "total": 2},
 "nodes": [
  {"name": "x", "op": "input", "shape": ["seq", 1024], "dtype": "f32"},
  {"name": "past_k", "op": "input", "shape": ["past", 1024], "dtype": "f32"},
  {"name": "k", "op": "concat", "inputs": ["past_k", "x"], "shape": ["total", 1024], "dtype": "f32"},
  {"name": "s", "op": "matmul", "inputs": ["x", "k"], "shape": ["seq", "total"], "dtype": "f32"}
 ],
 "outputs": ["s"]}`

// goLargestOf is Go's answer to the page's "largest that fits" for file
// planned with the symbols text and WebGPU choices given: the planner
// worker's search (protocol.FitSearchWith), in its words.
func goLargestOf(t *testing.T, name string, data []byte, symbols, symbol, profile, limits string) *planner.SymbolFit {
	t.Helper()
	o := protocol.DefaultOptions()
	o.SymbolsText, o.WebGPU, o.Limits = symbols, profile, limits
	if err := protocol.ResolveGPU(&o); err != nil {
		t.Fatal(err)
	}
	if err := o.ResolveFor(symbol); err != nil {
		t.Fatal(err)
	}
	lower := func(syms map[string]int64, change func(*planner.Options)) (*planner.Problem, error) {
		in, err := planner.Load(name, data, ir.DecodeOptions{Symbols: syms, MaxMemory: planner.BrowserMemoryLimit})
		if err != nil {
			return nil, err
		}
		po := o.Options
		po.Symbols = syms
		if change != nil {
			change(&po)
		}
		return planner.Lower(in.Source, po)
	}
	s := protocol.FitSearchWith(o, symbol, lower)
	r, err := planner.LargestFit(context.Background(), s)
	if err == nil {
		err = r.Explain(s)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Describe(o.GPU)
	if err := r.WhatIf(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBrowserSymbolExpressionsFit: the Symbols field takes symbols bound
// to expressions of others, which Go resolves (the summary shows the
// values, an error names the field); "largest that fits" searches one
// while the symbols bound to it follow, and lists Go's choices, relabelled
// when only the values change; a symbol with no value, of an expression
// or of a model, is searched without one, where planning asks for it.
// Each answer is Go's, word for word.
func TestBrowserSymbolExpressionsFit(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.setField("limits", "binding=8MiB,buffer=8MiB")
	p.setField("webgpu", "default")
	p.wait("the default example on the device", `window.memplanApp.summary.limits && window.memplanApp.summary.limits.profile === "custom"`)
	menu := func() string {
		return eval[string](p, `Array.from(document.getElementById("largest-symbol").options).map((o) => o.value + ": " + o.textContent).join(" | ")`)
	}
	if got := menu(); got != "batch: batch (now 4) | seq: seq (now 256)" {
		p.fail("the transformer's menu is %q", got)
	}
	run := func(symbol string, want *planner.SymbolFit) {
		p.t.Helper()
		p.wait("the menu offers "+symbol, fmt.Sprintf(`Array.from(document.getElementById("largest-symbol").options).some((o) => o.value === %q) &&
			!document.getElementById("largest-run").disabled`, symbol))
		eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("largest-symbol"); s.value = %q;
			document.getElementById("largest-run").click(); return true; })()`, symbol))
		p.wait("the answer for "+symbol, fmt.Sprintf(`!document.getElementById("largest-text").hidden &&
			document.getElementById("largest-text").textContent.startsWith(%q)`, symbol+"="))
		if got := p.text("#largest-text"); got != want.Text {
			p.fail("searching %s the page says %q, want Go's %q", symbol, got, want.Text)
		}
		lines := eval[[]string](p, `Array.from(document.querySelectorAll("#largest-lines li")).map((li) => li.textContent)`)
		if strings.Join(lines, "\n") != strings.Join(want.Lines, "\n") {
			p.fail("searching %s the lines are\n%s\nwant Go's\n%s", symbol, strings.Join(lines, "\n"), strings.Join(want.Lines, "\n"))
		}
	}

	// Expressions resolve in Go; the menu leaves out total, which follows.
	const text = "total = past + seq, past=4095, seq=1"
	p.setField("symbols", text)
	p.drop("decoder.json", decoderJSON)
	p.wait("the decoder", viewerShows("decoder.json"))
	if got := p.text("#summary-list"); !strings.Contains(got, "past=4095, seq=1, total=4096") {
		p.fail("the summary does not show the resolved values: %q", got)
	}
	p.wait("the decoder's menu", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.textContent).join(" | ") ===
		"past (now 4095; total follows) | seq (now 1; total follows)"`)
	// Same names, other values: the labels follow.
	p.setField("symbols", "total=past+seq, past=2047, seq=1")
	p.wait("the relabelled menu", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.textContent).join(" | ") ===
		"past (now 2047; total follows) | seq (now 1; total follows)"`)
	data := []byte(decoderJSON)
	followed := goLargestOf(t, "decoder.json", data, "total=past+seq, past=2047, seq=1", "past", "default", "binding=8MiB,buffer=8MiB")
	if followed.Value < 2 || !strings.Contains(strings.Join(followed.Lines, "\n"), "with total=past+seq following it") {
		t.Fatalf("Go's search does not follow total: %+v", followed)
	}
	run("past", followed)

	// A definition that does not read: Go's error, naming the field.
	p.setField("symbols", "total=past+")
	p.wait("the syntax error", `!document.getElementById("error").hidden &&
		document.getElementById("error-msg").textContent.includes("Symbols field: column 12: want a number, a symbol or (, got the end")`)
	// A name with no value: planning asks for it, and the search takes it
	// without one, with total following.
	p.setField("symbols", "total=past+seq, seq=1")
	p.wait("the missing value", `!document.getElementById("error").hidden &&
		document.getElementById("error-msg").textContent.includes("Symbols field: total=past+seq uses past, which has no value") &&
		document.getElementById("error-hint").textContent === "Give past a value under Symbols (name=value, e.g. past=1)."`)
	p.wait("the menu of what it lacks", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.value + ": " + o.textContent).join(" | ") ===
		"past: past (no value yet)"`)
	run("past", goLargestOf(t, "decoder.json", data, "total=past+seq, seq=1", "past", "default", "binding=8MiB,buffer=8MiB"))

	// A model whose own symbol has no value: the same, for its symbol.
	const name = "attention_mask1d_fp16.onnx"
	model := s.testdata("ir/onnx/testdata/" + name)
	p.setField("symbols", "batch=1")
	p.setField("limits", "")
	p.dropBytes(name, model)
	p.wait("the unbound symbol", `document.getElementById("error-hint").textContent === "Give sequence a value under Symbols (name=value, e.g. sequence=1)."`)
	p.wait("the model's menu", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.value + ": " + o.textContent).join(" | ") ===
		"sequence: sequence (no value yet)"`)
	run("sequence", goLargestOf(t, name, model, "batch=1", "sequence", "default", ""))

	// Closing the error gives the search back to the plan on screen.
	eval[bool](p, `(document.getElementById("error-close").click(), true)`)
	p.wait("the decoder's menu again", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.value).join(" ") === "past seq" &&
		document.getElementById("largest-text").hidden`)
	p.screenshot("symbols-expressions-fit")
}

// TestBrowserDecoderLongestContext: a quantized decoder in ONNX Runtime
// GenAI's layout, dropped on the page as a user would, answers "the longest
// context this decoder can take on the default WebGPU device" as Go's
// search does, with total_sequence_length following the past; and with a
// cache as long as the sequence (onnxruntime's shared buffer), the table
// shows each present as a view of its past.
func TestBrowserDecoderLongestContext(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	const name = "genai_decoder_f32_symbolic.onnx"
	model := s.testdata("ir/onnx/testdata/ortoracle/" + name)

	const shared = "batch_size=1, sequence_length=1, past_sequence_length=64, total_sequence_length=past_sequence_length"
	p.setField("symbols", shared)
	p.dropBytes(name, model)
	p.wait("the decoder", viewerShows(name)+` && window.memplanApp.tensorsOf === `+fmt.Sprintf("%q", name))
	views := eval[string](p, `window.memplanApp.tensors.filter((t) => t.name.startsWith("present.")).map((t) => t.name + ">" + (t.root || "")).join(" ")`)
	const want = "present.0.key>past_key_values.0.key present.0.value>past_key_values.0.value present.1.key>past_key_values.1.key present.1.value>past_key_values.1.value"
	if views != want {
		p.fail("the shared cache's presents are %q, want views of their pasts: %q", views, want)
	}
	p.wait("the table says so", `Array.from(document.querySelectorAll("tr[data-name='present.0.key'] td")).some((td) => td.textContent === "view of past_key_values.0.key")`)

	const growing = "batch_size=1, sequence_length=1, total_sequence_length=past_sequence_length+sequence_length"
	p.setField("symbols", growing)
	p.setField("webgpu", "default")
	// The past has no value now: planning asks for it, and the search
	// takes it without one, with the total following.
	p.wait("the missing past", `document.getElementById("error-hint").textContent.startsWith("Give past_sequence_length a value")`)
	p.wait("the menu of what it lacks", `Array.from(document.getElementById("largest-symbol").options).map((o) => o.value + ": " + o.textContent).join(" | ") ===
		"past_sequence_length: past_sequence_length (no value yet)" && !document.getElementById("largest-run").disabled`)
	eval[bool](p, `(() => { const s = document.getElementById("largest-symbol"); s.value = "past_sequence_length";
		document.getElementById("largest-run").click(); return true; })()`)
	p.wait("the answer", `!document.getElementById("largest-text").hidden &&
		document.getElementById("largest-text").textContent.startsWith("past_sequence_length=")`)
	want2 := goLargestOf(t, name, model, growing, "past_sequence_length", "default", "")
	if got := p.text("#largest-text"); got != want2.Text {
		p.fail("the page says %q, Go %q", got, want2.Text)
	}
	if want2.Value < 100_000 {
		t.Errorf("the decoder's longest context is %d: its 2 layers' f32 cache should allow over 100,000 tokens in 128 MiB", want2.Value)
	}
	p.screenshot("decoder-longest-context")
}
