//go:build !js

package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"memplan/examples"
	"memplan/ir"
	_ "memplan/ir/onnx" // the formats Go names in its errors are the wasm's
	"memplan/planner"
	"memplan/tools/site"
	"memplan/tools/site/browser"
	"memplan/wasm/protocol"
)

// overlappingPlan is the plan record of dropped with its largest tensor
// moved onto the bytes of one live at the same time.
func overlappingPlan(t *testing.T) string {
	t.Helper()
	src, err := ir.Decode("drop.json", []byte(dropped), ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.PlanSource(context.Background(), src, planner.Options{}, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Move one tensor onto the bytes of another that lives at the same
	// time, staying inside the arena so that the overlap is the only fault.
	for i := range plan.Tensors {
		u := &plan.Tensors[i]
		for j := range plan.Tensors {
			o := &plan.Tensors[j]
			if i == j || !u.Placed() || !o.Placed() || u.Size == 0 || o.Size == 0 || u.Offset == o.Offset ||
				o.Birth > u.Death || u.Birth > o.Death || o.Offset+u.Size+u.Guard > plan.ArenaSize {
				continue
			}
			u.Offset = o.Offset
			data, _ := json.Marshal(plan)
			return string(data)
		}
	}
	t.Fatal("no two tensors of the dropped graph live together")
	return ""
}

// dropped is the graph the test drops on the page: c takes a's bytes once
// a is dead, so selecting a must list c.
const dropped = `{"format": "memplan.graph/v1", "name": "dropped", "nodes": [
 {"name": "x", "op": "input", "shape": [256], "dtype": "f32"},
 {"name": "a", "op": "relu", "inputs": ["x"], "shape": [65536], "dtype": "f32"},
 {"name": "b", "op": "relu", "inputs": ["a"], "shape": [65536], "dtype": "f32"},
 {"name": "c", "op": "relu", "inputs": ["b"], "shape": [65536], "dtype": "f32"},
 {"name": "out", "op": "sum", "inputs": ["c"], "shape": [1], "dtype": "f32"}],
 "outputs": ["out"]}`

// broken has a syntax error on line 3.
const broken = "{\"format\": \"memplan.graph/v1\",\n \"nodes\": [\n  {\"name\": \"x\" \"op\": \"input\"}\n ]}\n"

// embedHost is a docs page taller than the window with the viewer embedded
// in it, as docs/embedding.md shows.
const embedHost = `<!doctype html><html><body style="margin:0">
<div style="height:200px">docs</div>
<iframe id="viewer" src="viewer.html" style="width:100%;height:480px;border:0"></iframe>
<div style="height:2000px">more docs</div></body></html>`

// page is the app in a headless browser, with helpers that read the viewer
// through window.memplan inside its iframe.
type page struct {
	t   testing.TB
	ctx context.Context
}

// run runs actions and fails the test (with a screenshot) on error.
func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.fail("%s: %v", what, err)
	}
}

func eval[T any](p *page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.fail("evaluating %s: %v", js, err)
	}
	return v
}

// wait polls a JS expression until it is truthy.
func (p *page) wait(what, js string) {
	p.t.Helper()
	// A limit for hangs, not for speed: a loaded machine may take a minute
	// to start the wasm. Poll has a limit of its own (30 s) unless told.
	const limit = 2 * time.Minute
	ctx, cancel := context.WithTimeout(p.ctx, limit)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(limit)))
		if err == nil {
			return
		}
		// A document that replaced itself while the poll began (a load
		// still settling) ends the poll's context, not the wait.
		if ctx.Err() == nil && contextGone(err) {
			continue
		}
		p.fail("waiting for %s (%s): %v", what, js, err)
	}
}

// contextGone is an error of a page's script context that went away
// with its document.
func contextGone(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context with specified id") || strings.Contains(s, "Execution context was destroyed")
}

// poll is wait that reports a condition that never came instead of
// failing the test.
func (p *page) poll(js string) bool {
	p.t.Helper()
	const limit = 2 * time.Minute
	ctx, cancel := context.WithTimeout(p.ctx, limit)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(limit)))
	return err == nil
}

// waitAcrossLoad is wait for a condition that holds only after the page
// navigates: a poll in the old document ends with it, so poll from here.
func (p *page) waitAcrossLoad(what, js string) {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+js+`); } catch (e) { return false; } })()`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.fail("waiting for %s (%s): %v", what, js, err)
		}
		time.Sleep(100 * time.Millisecond) // the polling interval
	}
}

// fail saves a screenshot to the artifacts directory and stops the test.
func (p *page) fail(format string, args ...any) {
	p.t.Helper()
	p.screenshot("failure-" + p.t.Name())
	p.t.Fatalf(format, args...)
}

func artifactsDir() string {
	if d := os.Getenv("MEMPLAN_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "memplan-artifacts")
}

func (p *page) screenshot(name string) string {
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	dir := artifactsDir()
	os.MkdirAll(dir, 0o755)
	f := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".png")
	if err := os.WriteFile(f, b, 0o644); err == nil {
		p.t.Logf("screenshot saved to %s", f)
	}
	return f
}

// frame is the viewer iframe's window, and viewerShows says a plan of the
// given file is drawn, and the app shows its summary and its table.
const frame = `document.getElementById("viewer").contentWindow`

func viewerShows(file string) string {
	return fmt.Sprintf(`(() => { const m = %s.memplan; if (!m) return false;
		const s = m.state(), app = window.memplanApp;
		return s.file === %q && !s.dirty && app.file === %q && app.tensorsOf === %q; })()`, frame, file, file, file)
}

// point is a page pixel inside tensor name's rectangle (a third of the
// way in from its lower-left corner, clear of labels), and its colour.
func (p *page) point(name string) (float64, float64, string) {
	p.t.Helper()
	type pt struct {
		X, Y  float64
		Color string
	}
	r := eval[*pt](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q); if (!r) return null;
		const f = document.getElementById("viewer").getBoundingClientRect();
		return {X: f.left + r.x + r.w / 3, Y: f.top + r.y + r.h * 2 / 3, Color: r.color}; })()`, frame, name))
	if r == nil {
		p.fail("%s is not drawn", name)
	}
	return r.X, r.Y, r.Color
}

// pixel reads a page pixel from a screenshot, as #rrggbb.
func (p *page) pixel(x, y float64) string {
	p.t.Helper()
	return hex(p.capture(), int(x), int(y))
}

// capture is a screenshot of the page, decoded.
func (p *page) capture() image.Image {
	p.t.Helper()
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		p.fail("decoding screenshot: %v", err)
	}
	return img
}

func hex(img image.Image, x, y int) string {
	r, g, b, _ := img.At(x, y).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// drop dispatches a real drop event holding a File on the page.
func (p *page) drop(name, content string) {
	p.t.Helper()
	p.dropJS(name, fmt.Sprintf("%q", content))
}

// dropBytes drops a binary file.
func (p *page) dropBytes(name string, data []byte) {
	p.t.Helper()
	p.dropJS(name, fmt.Sprintf("Uint8Array.from(atob(%q), c => c.charCodeAt(0))", base64.StdEncoding.EncodeToString(data)))
}

// dropJS drops a file whose contents are the JS expression content.
func (p *page) dropJS(name, content string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([%s], %q));
		const opts = {dataTransfer: dt, bubbles: true, cancelable: true};
		document.body.dispatchEvent(new DragEvent("dragenter", opts));
		document.body.dispatchEvent(new DragEvent("dragover", opts));
		document.body.dispatchEvent(new DragEvent("drop", opts));
		return true; })()`, content, name)
	eval[bool](p, js)
}

// The wasm is built once for all the browser tests; each test gets its
// own server (so it counts only its own downloads) and its own browser.
var build struct {
	once       sync.Once
	root, wasm string
	err        error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.wasm != "" {
		os.RemoveAll(filepath.Dir(build.wasm))
	}
	if cli.bin != "" {
		os.RemoveAll(filepath.Dir(cli.bin))
	}
	os.Exit(code)
}

// moduleRoot is the repository root; building the viewer wasm on first use.
func moduleRoot(t testing.TB) string {
	t.Helper()
	if !browser.Available() {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI must install chromium", browser.Path)
		}
		t.Skipf("skipping: %s is not installed (apt-get install -y chromium)", browser.Path)
	}
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
	build.once.Do(func() {
		wd, _ := os.Getwd()
		if build.root, build.err = site.ModuleRoot(wd); build.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "memplan-wasm")
		if build.err = err; err != nil {
			return
		}
		build.wasm = filepath.Join(dir, "memplan.wasm")
		build.err = site.BuildWasm(context.Background(), build.root, build.wasm)
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.root
}

// session is the app served to a fresh browser.
type session struct {
	*page
	url    string
	served *site.Counter
	root   string
	// close ends the browser before the test does (a benchmark's
	// iteration, whose browsers would otherwise run on beside the next).
	close func()
}

// open serves the app, starts a browser at 1280×800 and opens path. The
// session ends after three minutes: a limit for hangs.
func open(t testing.TB, path string) *session {
	return openFor(t, path, 3*time.Minute)
}

// openFor is open for a session that may take up to limit.
func openFor(t testing.TB, path string, limit time.Duration) *session {
	return openWith(t, path, limit, nil)
}

// openWith is openFor with more of the server: routes are served before
// the app's own files (a test's own lessons, say).
func openWith(t testing.TB, path string, limit time.Duration, routes map[string]http.Handler) *session {
	root := moduleRoot(t)
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.Handle(pattern, h)
	}
	served := &site.Counter{Next: site.Handler(filepath.Join(root, "web"), build.wasm)}
	mux.Handle("/", served)
	// The examples as files on the server, for links that fetch them
	// (index.html?url=models/mlp.json).
	mux.Handle("/models/", http.StripPrefix("/models/", http.FileServer(http.Dir(filepath.Join(root, "examples")))))
	// Files too large for the page: one that says so in its
	// Content-Length, one that streams zeros with none, both forever.
	// Each counts what it sent (huge.sent): the page must stop reading.
	mux.HandleFunc("/huge/", huge.serve)
	mux.HandleFunc("/host.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(embedHost))
	})
	mux.HandleFunc("/gpu.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>gpurun</title>`)) // a page to import gpurun.js into
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx, cancel := browser.New(context.Background(), t.TempDir())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, limit)
	t.Cleanup(cancelT)
	s := &session{page: &page{t: t, ctx: ctx}, url: srv.URL, served: served, root: root, close: func() { cancelT(); cancel() }}
	s.run("open "+path, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+path))
	return s
}

// testdata reads a file of the repository; a missing one fails the test.
func (s *session) testdata(rel string) []byte {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.root, rel))
	if err != nil {
		s.t.Fatalf("test input: %v", err)
	}
	return b
}

// frames waits until the viewer has run n more updates: long enough for
// input already sent to have had its effect, without guessing a time.
func (p *page) frames(n int) {
	p.t.Helper()
	u := eval[int](p, frame+`.memplan.state().updates`)
	p.wait(fmt.Sprintf("%d frames", n), fmt.Sprintf(`%s.memplan.state().updates >= %d`, frame, u+n))
}

// settle waits for the viewer to draw what it has (after a resize, say).
func (p *page) settle() {
	p.t.Helper()
	p.frames(2)
	p.wait("the viewer to draw", `!`+frame+`.memplan.state().dirty`)
}

// click presses and releases the left button at (x, y), holding it over
// a frame: ebiten reads buttons once a frame, and a press and release in
// the same frame is no click to it.
func (p *page) click(x, y float64) {
	p.t.Helper()
	p.run("press", chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.frames(2)
	p.run("release", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// visibleSteps is how many schedule steps the viewer shows across.
func (p *page) visibleSteps() float64 {
	p.t.Helper()
	return eval[float64](p, `(() => { const v = `+frame+`.memplan.state().visible; return v.x1 - v.x0; })()`)
}

// stillWorks checks that the viewer answers after an error: clicking
// tensor name selects it and lists it, the wheel zooms, F fits again.
func (p *page) stillWorks(name string) {
	p.t.Helper()
	p.settle()
	x, y, _ := p.point(name)
	p.click(x, y)
	p.wait("the selection of "+name, fmt.Sprintf(`%s.memplan.state().selected === %q &&
		(document.querySelector("#details-list dd") || {}).textContent === %q`, frame, name, name))
	before := p.visibleSteps()
	p.run("wheel", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(e *input.DispatchMouseEventParams) { e.DeltaX, e.DeltaY = 0.001, -360 }))
	p.wait("the zoom", fmt.Sprintf(`(() => { const v = %s.memplan.state().visible; return v.x1 - v.x0 < %v * 0.9; })()`, frame, before))
	p.key("f")
	p.wait("the fit", fmt.Sprintf(`(() => { const v = %s.memplan.state().visible; return v.x1 - v.x0 >= %v; })()`, frame, before))
	p.key("Escape")
	p.wait("no selection", frame+`.memplan.state().selected === null`)
	p.settle()
}

// key presses a key on the app page (not in a field), which forwards it.
func (p *page) key(k string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(document.activeElement && document.activeElement.blur(),
		window.dispatchEvent(new KeyboardEvent("keydown", {key: %q, bubbles: true})), true)`, k))
}

// shows checks that tensor name of the plan on screen is drawn in its colour.
func (p *page) shows(file, name string) {
	p.t.Helper()
	if f := eval[*string](p, frame+`.memplan.state().file`); f == nil || *f != file {
		p.fail("the viewer shows %v, want %s", f, file)
	}
	// A banner that just appeared can resize the canvas: sample the
	// pixel once the viewer has drawn what it holds.
	p.settle()
	x, y, want := p.point(name)
	if got := p.pixel(x, y); got != want {
		p.fail("pixel (%.0f, %.0f) inside %s of %s is %s, want %s", x, y, name, file, got, want)
	}
}

// text is an element's textContent.
func (p *page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel))
}

// setField sets an options field as typing would, and lets it re-plan.
func (p *page) setField(name, value string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(() => { const f = document.querySelector("#options [name=%s]");
		f.value = %q; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, name, value))
}

// goError is the message Go gives for a file planned with default
// options under the browser's memory limit.
func goError(t *testing.T, name string, data []byte) string {
	t.Helper()
	in, err := planner.Load(name, data, ir.DecodeOptions{MaxMemory: planner.BrowserMemoryLimit})
	if err == nil && in.Source != nil {
		_, err = planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{})
	}
	if err == nil {
		t.Fatalf("%s plans without error", name)
	}
	return err.Error()
}

func TestBrowserApp(t *testing.T) {
	s := open(t, "/index.html")
	p, root := s.page, s.root

	// The default example is planned and drawn: a buffer's pixels have its
	// colour. Take the largest buffer that no view outlines.
	p.wait("the default example", viewerShows("transformer.json"))
	// What the page downloaded to get here, gzipped as served, less the
	// planner worker, which starts only once this picture is up.
	sent, total := s.served.Sent()
	for _, path := range site.AfterFirstScreen {
		total -= sent[path]
	}
	if total > site.PageBudget {
		p.fail("the first screen downloaded %d bytes, over the budget of %d: %v", total, site.PageBudget, sent)
	}
	t.Logf("the first screen downloaded %d bytes (budget %d): %v", total, site.PageBudget, sent)
	// The file picker offers what the worker's decoders read, as Go says.
	if got, want := eval[string](p, `document.getElementById("file").accept`), strings.Join(protocol.FileTypes, ","); got != want {
		p.fail("the file picker accepts %q, want %q", got, want)
	}
	// Everything, once the worker has loaded and planned a file.
	defer func() {
		sent, total := s.served.Sent()
		if sent["/"+site.WorkerFile] == 0 {
			p.fail("the planner worker was never loaded: %v", sent)
		}
		if total > site.AppBudget {
			p.fail("the app downloaded %d bytes in all, over the budget of %d: %v", total, site.AppBudget, sent)
		}
		t.Logf("the app downloaded %d bytes in all (budget %d): %v", total, site.AppBudget, sent)
	}()
	// The key help lists the viewer's bindings as Go sent them in ready.
	if got := eval[string](p, `document.getElementById("viewer-keys").textContent`); !strings.Contains(got, "W / +zoom in") || !strings.Contains(got, "Escclear the selection") {
		p.fail("the key help does not list the viewer's keys from ready: %q", got)
	}
	big := p.largest()
	x, y, want := p.point(big)
	if got := p.pixel(x, y); got != want {
		p.fail("default example: pixel (%.0f, %.0f) inside %s is %s, want %s", x, y, big, got, want)
	}
	if s := p.text("#summary"); !strings.Contains(s, "arena") {
		p.fail("summary does not show the arena: %q", s)
	}
	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.screenshot("app-1280x800")
	}

	// A dropped file re-plans and redraws.
	p.drop("drop.json", dropped)
	p.wait("the dropped file", viewerShows("drop.json"))
	x, y, want = p.point("a")
	if got := p.pixel(x, y); got != want {
		p.fail("dropped file: pixel inside a is %s, want %s", got, want)
	}

	// Hovering a buffer shows its name in the tooltip.
	p.run("hover a", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	p.wait("the tooltip", `(() => { const t = document.getElementById("tooltip");
		return !t.hidden && t.querySelector(".name").textContent === "a"; })()`)

	// A click selects it and lists the tensor that reused its bytes.
	p.click(x, y)
	p.wait("the selection", `document.getElementById("details-list").textContent.includes("a") &&
		Array.from(document.querySelectorAll("#partners li")).some(li => li.dataset.name === "c")`)
	if n := eval[int](p, `document.querySelectorAll("#partners li").length`); n != 1 {
		p.fail("a shared its bytes with %d tensors, want 1 (c)", n)
	}
	if sel := eval[string](p, `document.querySelector("#table tbody tr.selected").dataset.name`); sel != "a" {
		p.fail("table row selected is %q, want a", sel)
	}

	// Search: Enter selects the next match and zooms to it.
	eval[bool](p, `(() => { const s = document.getElementById("search"); s.value = "c";
		s.dispatchEvent(new Event("input"));
		s.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter"})); return true; })()`)
	p.wait("the search match", frame+`.memplan.state().selected === "c"`)

	// Options re-plan live: without reuse the arena is the unshared total.
	unshared := eval[float64](p, `window.memplanApp.summary.total_unshared`)
	eval[bool](p, `(() => { const c = document.querySelector("input[name=no_reuse]"); c.click(); return c.checked; })()`)
	p.wait("the no-reuse plan", fmt.Sprintf(`window.memplanApp.summary.arena_size === %v`, unshared))
	eval[bool](p, `(() => { const c = document.querySelector("input[name=no_reuse]"); c.click(); return !c.checked; })()`)
	p.wait("the plan with reuse again", fmt.Sprintf(`window.memplanApp.summary.arena_size < %v`, unshared))

	// The table sorts by a clicked column.
	eval[bool](p, `(document.querySelector("#table th[data-key=size]").click(), true)`)
	if first := eval[string](p, `document.querySelector("#table tbody tr").dataset.name`); first != "out" {
		p.fail("smallest tensor first after sorting by size: %q, want out", first)
	}

	// The wheel zooms in at the pointer: the visible steps shrink.
	before := p.visibleSteps()
	// CDP refuses a wheel event without deltaX, and a zero one is omitted.
	p.run("wheel", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(e *input.DispatchMouseEventParams) { e.DeltaX, e.DeltaY = 0.001, -360 }))
	p.wait("the zoom", fmt.Sprintf(`(() => { const v = %s.memplan.state().visible; return v.x1 - v.x0 < %v * 0.9; })()`, frame, before))

	// A broken file shows its error with the location and keeps the plan.
	p.key("f")
	p.drop("bad.json", broken)
	p.wait("the error", `!document.getElementById("error").hidden`)
	msg := p.text("#error")
	if !strings.Contains(msg, "bad.json") || !strings.Contains(msg, "3:") {
		p.fail("error %q lacks the file and line", msg)
	}
	p.settle() // the banner took room from the viewer
	x, y, want = p.point("a")
	if got := p.pixel(x, y); got != want && !strings.EqualFold(got, "#ffffff") {
		p.fail("after the broken file: pixel inside a is %s, want %s", got, want)
	}
	if f := eval[string](p, frame+`.memplan.state().file`); f != "drop.json" {
		p.fail("after the broken file the viewer shows %q, want drop.json", f)
	}

	// A plan record that overlaps two tensors is refused with the reason,
	// and the plan on screen stays.
	p.drop("bad-plan.json", overlappingPlan(t))
	p.wait("the plan record's error", `document.getElementById("error").textContent.includes("bad-plan.json")`)
	if msg := p.text("#error"); !strings.Contains(msg, "overlap") {
		p.fail("the error for an overlapping plan record does not say so: %q", msg)
	}
	if f := eval[string](p, frame+`.memplan.state().file`); f != "drop.json" {
		p.fail("after the bad plan record the viewer shows %q, want drop.json", f)
	}

	// An ONNX model planned in the browser (the decoder is in the wasm).
	model, err := os.ReadFile(filepath.Join(root, "ir", "onnx", "testdata", "mnist.onnx"))
	if err != nil {
		t.Fatalf("test input: %v", err)
	}
	p.drop("bad.json", broken) // the error banner goes once a plan lands
	p.dropBytes("mnist.onnx", model)
	p.wait("the ONNX model", viewerShows("mnist.onnx"))
	if n := eval[int](p, `window.memplanApp.tensors.length`); n < 5 {
		p.fail("mnist.onnx planned to %d tensors", n)
	}
	if !eval[bool](p, `document.getElementById("error").hidden`) {
		p.fail("the error banner stayed after a good plan")
	}

	// An example with phases: the summary lists each with its peak, and
	// the tooltip names the phase of the tensor under the pointer.
	eval[bool](p, `(() => { const s = document.getElementById("examples"); s.value = "streaming.json";
		s.dispatchEvent(new Event("change")); return true; })()`)
	p.wait("the streaming example", viewerShows("streaming.json"))
	if s := p.text("#summary-list"); !strings.Contains(s, "phase prefillsteps 0 – 12, peak 27.13 MiB") ||
		!strings.Contains(s, "phase decodesteps 13 – 48, peak 22.67 MiB") {
		p.fail("summary lacks the phases: %q", s)
	}
	x, y, _ = p.point("pre.up")
	p.run("hover pre.up", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	p.wait("the phase in the tooltip", `(() => { const t = document.getElementById("tooltip");
		return !t.hidden && t.querySelector(".name").textContent === "pre.up" &&
			t.querySelector("dl").textContent.includes("phaseprefill"); })()`)
	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.screenshot("app-phases-1280x800")
	}

	// The replay of the placement order: one buffer placed shows only the
	// first, and the last placed is gone from the canvas until the end.
	order := eval[[]string](p, `window.memplanApp.summary.placement_order`)
	if len(order) < 10 || eval[bool](p, `document.getElementById("replay").hidden`) {
		p.fail("no placement order to replay (%d names) or its panel is hidden", len(order))
	}
	// The first and the last placed of those big enough to check by pixel.
	checkable := func(from, step int) (int, string) {
		for k := from; k >= 0 && k < len(order); k += step {
			if eval[bool](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q); return !!r && r.w >= 4 && r.h >= 4; })()`, frame, order[k])) {
				return k, order[k]
			}
		}
		p.fail("no buffer of the plan is 4 pixels square")
		return 0, ""
	}
	firstAt, firstName := checkable(0, 1)
	_, lastName := checkable(len(order)-1, -1)
	lx, ly, lc := p.point(lastName)
	if got := p.pixel(lx, ly); got != lc {
		p.fail("before the replay, %s is %s at (%.0f, %.0f), want %s", lastName, got, lx, ly, lc)
	}
	setReplay := func(k int) {
		eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("replay-step"); s.value = "%d";
			s.dispatchEvent(new Event("input")); return true; })()`, k))
	}
	setReplay(firstAt + 1)
	p.wait("the first buffers placed", fmt.Sprintf(`(() => { const s = %s.memplan.state(); return s.reveal === %d && !s.dirty; })()`, frame, firstAt+1))
	if got := p.pixel(lx, ly); got == lc {
		p.fail("with %d buffers placed, %s (placed last) is still drawn at (%.0f, %.0f)", firstAt+1, lastName, lx, ly)
	}
	fx, fy, fc := p.point(firstName)
	if got := p.pixel(fx, fy); got != fc {
		p.fail("with %d buffers placed, %s (placed then) is %s at (%.0f, %.0f), want %s", firstAt+1, firstName, got, fx, fy, fc)
	}
	if note := p.text("#replay-note"); !strings.HasPrefix(note, fmt.Sprintf("%d of %d: %s", firstAt+1, len(order), firstName)) {
		p.fail("replay note %q", note)
	}
	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.screenshot("app-replay-1280x800")
	}
	// Play runs the replay on; Pause stops it: its timer is gone, so no
	// step can follow, and the viewer shows the step the slider holds.
	eval[bool](p, `(document.getElementById("replay-play").click(), true)`)
	p.wait("the replay to play", frame+`.memplan.state().reveal > 3`)
	eval[bool](p, `(document.getElementById("replay-play").click(), true)`)
	if !eval[bool](p, `window.memplanApp.replay.timer === 0 && document.getElementById("replay-play").textContent === "Play"`) {
		p.fail("the replay still runs after Pause")
	}
	p.wait("the viewer at the paused step", `(() => { const s = `+frame+`.memplan.state();
		return s.reveal === Number(document.getElementById("replay-step").value) && !s.dirty; })()`)
	setReplay(len(order))
	p.wait("the whole plan again", `(() => { const s = `+frame+`.memplan.state(); return s.reveal === -1 && !s.dirty; })()`)
	if got := p.pixel(lx, ly); got != lc {
		p.fail("after the replay, %s is %s, want %s", lastName, got, lc)
	}

	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.screenshot("app-onnx-1280x800")
		p.run("resize", chromedp.EmulateViewport(800, 600))
		p.run("load example", chromedp.Evaluate[chromedp.Void](`document.getElementById("error-close").click()`))
		p.settle()
		p.screenshot("app-800x600")
		p.run("open the viewer alone", chromedp.Navigate(s.url+"/viewer.html"))
		p.wait("the viewer", `window.memplan && window.memplan.state().file === "transformer.json" && !window.memplan.state().dirty`)
		p.screenshot("viewer-800x600")
	}
}

// Embedded in a page that scrolls, the wheel over the viewer scrolls the
// page until the viewer is clicked; then it zooms.
func TestBrowserEmbedWheel(t *testing.T) {
	s := open(t, "/host.html")
	p := s.page
	p.wait("the embedded viewer", `(() => { const m = `+frame+`.memplan; return m && m.state().file === "transformer.json" && !m.state().dirty; })()`)
	w0 := p.visibleSteps()
	p.run("wheel over the viewer", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, 640, 400,
		func(e *input.DispatchMouseEventParams) { e.DeltaX, e.DeltaY = 0.001, 120 }))
	p.wait("the page to scroll", `window.scrollY > 0`)
	p.frames(3) // a zoom would have shown by now: ebiten reads the wheel every frame
	if w := p.visibleSteps(); w != w0 {
		p.fail("the wheel zoomed the unclicked embedded viewer (visible steps %v, were %v)", w, w0)
	}
	sy := eval[float64](p, `window.scrollY`)
	// The iframe's top is at 200 - scrollY; click inside it.
	cy := 200 - sy + 240
	p.run("click the viewer",
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, 640, cy, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, 640, cy, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.run("wheel over the clicked viewer", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, 640, cy,
		func(e *input.DispatchMouseEventParams) { e.DeltaX, e.DeltaY = 0.001, -360 }))
	p.wait("the zoom", fmt.Sprintf(`(() => { const v = %s.memplan.state().visible; return v.x1 - v.x0 < %v * 0.9; })()`, frame, w0))
	if y2 := eval[float64](p, `window.scrollY`); y2 != sy {
		p.fail("the wheel over the clicked viewer scrolled the page from %v to %v", sy, y2)
	}
}

// A file that does not plan shows Go's whole message, wrapped, and the
// last good plan stays on screen and keeps answering.
func TestBrowserErrorBanner(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.drop("drop.json", dropped)
	p.wait("the dropped file", viewerShows("drop.json"))

	// More buffers than the browser's memory limit allows planning.
	var big strings.Builder
	big.WriteString("id,lower,upper,size\n")
	for i := range 600_000 {
		fmt.Fprintf(&big, "%d,0,1,1\n", i)
	}
	long := `{"format": "memplan.graph/v1", "nodes": [{"name": "` + strings.Repeat("very_long_tensor_name_", 3) +
		`", "op": "input", "shape": [4], "dtype": "f32"}], "outputs": ["nobody_` + strings.Repeat("x", 300) + `"]}`
	for _, c := range []struct {
		name, file, data string
		want             []string // also in the message, beside Go's whole text
	}{
		{"bad dtype", "bad-dtype.json", `{"format": "memplan.graph/v1", "nodes": [
 {"name": "x", "op": "input", "shape": [4], "dtype": "f33"}], "outputs": ["x"]}`, []string{"bad-dtype.json:2:", `nodes[0].dtype`, `"f33"`, "f32 f16"}},
		{"unknown format", "notes.txt", "just some notes\n", []string{"notes.txt", "unknown file format", "graph-json"}},
		{"bad csv", "bad.csv", "id,lower,upper,size\n0,0,3,10\n1,5,3,7\n", []string{"bad.csv:3:", `"upper"`, "3 is not greater than lower 5"}},
		{"long message", "long.json", long, []string{"long.json", "nobody_xxxx"}},
		{"over the memory limit", "big.csv", big.String(), []string{"big.csv", "600000 buffers", "memory limit of 1 GiB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			want := goError(t, c.file, []byte(c.data))
			// Rows from JS: a file of megabytes is slow to send as one string.
			if rows := strings.Count(c.data, "\n"); rows > 10_000 {
				p.dropJS(c.file, fmt.Sprintf(`"id,lower,upper,size\n" + Array.from({length: %d}, (_, i) => i + ",0,1,1\n").join("")`, rows-1))
			} else {
				p.drop(c.file, c.data)
			}
			p.wait("the error", fmt.Sprintf(`!document.getElementById("error").hidden &&
				document.getElementById("error-msg").textContent.includes(%q)`, c.file))
			if got := p.text("#error-msg"); got != want {
				p.fail("the banner shows %q, want Go's message %q", got, want)
			}
			for _, w := range c.want {
				if !strings.Contains(want, w) {
					p.fail("Go's message %q lacks %q", want, w)
				}
			}
			if title := p.text("#error-title"); title != "Could not plan "+c.file {
				p.fail("the banner's title is %q", title)
			}
			if note := p.text("#error-note"); !strings.Contains(note, "drop.json stays on screen") {
				p.fail("the banner does not say the plan on screen stays: %q", note)
			}
			// Long messages wrap inside the banner, which stays within the page.
			if !eval[bool](p, `(() => { const m = document.getElementById("error-msg"), e = document.getElementById("error");
				return m.scrollWidth <= m.clientWidth + 1 && e.getBoundingClientRect().right <= window.innerWidth &&
					m.getBoundingClientRect().height < 200; })()`) {
				p.fail("the error message does not wrap inside the banner")
			}
			if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
				p.screenshot("error-" + c.name)
			}
			p.settle()
			p.shows("drop.json", "a")
			p.stillWorks("a")
		})
	}
}

// withParam has a param, which lives the whole schedule: no tensor ever
// shares its bytes.
const withParam = `{"format": "memplan.graph/v1", "name": "alone", "nodes": [
 {"name": "x", "op": "input", "shape": [64], "dtype": "f32"},
 {"name": "w", "op": "param", "shape": [64, 1024], "dtype": "f32"},
 {"name": "h", "op": "matmul", "inputs": ["x", "w"], "shape": [1024], "dtype": "f32"},
 {"name": "out", "op": "sum", "inputs": ["h"], "shape": [1], "dtype": "f32"}],
 "outputs": ["out"]}`

// Selecting a tensor that shared its bytes with nothing says so, and the
// page goes on answering.
func TestBrowserSelectAlone(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.drop("alone.json", withParam)
	p.wait("the dropped file", viewerShows("alone.json"))
	eval[bool](p, `(document.querySelector("#table tbody tr[data-name=w]").click(), true)`)
	p.wait("the selection of w", `(document.querySelector("#details-list dd") || {}).textContent === "w"`)
	p.wait("the empty partner list", `document.getElementById("partners-title").textContent === "Nothing else used these bytes" &&
		document.querySelectorAll("#partners li").length === 0`)
	if sel := eval[*string](p, `(() => { const r = document.querySelector("#table tbody tr.selected"); return r && r.dataset.name; })()`); sel == nil || *sel != "w" {
		p.fail("table row selected is %v, want w", sel)
	}
	// Selecting another tensor afterwards works.
	eval[bool](p, `(document.querySelector("#table tbody tr[data-name=h]").click(), true)`)
	p.wait("the selection of h", frame+`.memplan.state().selected === "h" && (document.querySelector("#details-list dd") || {}).textContent === "h"`)
}

// The fit verdict is Go's: shown only when Go planned against a budget.
func TestBrowserFitLine(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	if label := p.text("label:has(input[name=f32_uniform])"); !strings.Contains(label, planner.FormatBytes(planner.WebGPUBindingLimit)) {
		p.fail("the f32-uniform label does not name Go's budget: %q", label)
	}
	// Go's verdict on the example in f32-uniform mode.
	data, err := examples.FS.ReadFile("transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load("transformer.json", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := planner.DefaultOptions()
	o.F32Uniform = true
	plan, err := planner.PlanSource(context.Background(), in.Source, o, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	verdict := plan.FitOf(-1).Text
	for _, c := range []struct {
		name     string
		f32      bool
		wantText string // "" for no verdict
	}{
		{"no budget", false, ""},
		{"f32-uniform budget", true, verdict},
		{"no budget again", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			eval[bool](p, fmt.Sprintf(`(() => { const c = document.querySelector("input[name=f32_uniform]");
				if (c.checked !== %v) c.click(); return true; })()`, c.f32))
			p.wait("the plan", fmt.Sprintf(`window.memplanApp.summary.options.f32_uniform === %v`, c.f32))
			fit := p.text("#fit")
			hidden := eval[bool](p, `document.getElementById("fit").hidden`)
			if c.wantText == "" {
				if fit != "" || !hidden {
					p.fail("without a budget the summary says %q (hidden %v)", fit, hidden)
				}
				return
			}
			if hidden || fit != c.wantText {
				p.fail("the fit line is %q (hidden %v), want Go's %q", fit, hidden, c.wantText)
			}
		})
	}
}

// The page sends no alignment unless one is typed, so each format gets
// Go's default, as on the command line; the summary says which applied.
func TestBrowserAlignment(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	const csv = "id,lower,upper,size\n0,0,3,10\n1,1,4,7\n2,3,6,13\n"
	arena := func(name, data string, align int64) int64 {
		src, err := ir.Decode(name, []byte(data), ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := planner.DefaultOptions()
		o.Alignment = align
		plan, err := planner.PlanSource(context.Background(), src, o, "", planner.PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return plan.ArenaSize
	}
	for _, c := range []struct {
		name, file, data, typed string
		wantRow, placeholder    string
		align                   int64 // what Go plans with
	}{
		{"csv default", "buffers.csv", csv, "", "1 B (default)", "default: 1", 0},
		{"graph default", "drop.json", dropped, "", "64 B (default)", "default: 64", 0},
		{"csv typed", "buffers.csv", csv, "8", "8 B", "default: 1", 8},
		{"csv default again", "buffers.csv", csv, "", "1 B (default)", "default: 1", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			eval[bool](p, fmt.Sprintf(`(document.querySelector("#options [name=alignment]").value = %q, true)`, c.typed))
			eval[bool](p, `(window.lastSummary = window.memplanApp.summary, true)`)
			p.drop(c.file, c.data)
			p.wait("the plan", fmt.Sprintf(`window.memplanApp.summary !== window.lastSummary && window.memplanApp.file === %q`, c.file))
			want := arena(c.file, c.data, c.align)
			if got := eval[int64](p, `window.memplanApp.summary.arena_size`); got != want {
				p.fail("the page planned an arena of %d bytes, Go's default gives %d", got, want)
			}
			if row := eval[string](p, `(() => { const dts = Array.from(document.querySelectorAll("#summary-list dt"));
				const dt = dts.find(d => d.textContent === "alignment"); return dt ? dt.nextElementSibling.textContent : ""; })()`); row != c.wantRow {
				p.fail("the summary's alignment is %q, want %q", row, c.wantRow)
			}
			if ph := eval[string](p, `document.querySelector("#options [name=alignment]").placeholder`); ph != c.placeholder {
				p.fail("the alignment field's placeholder is %q, want %q", ph, c.placeholder)
			}
		})
	}
}

// A model with unbound symbols fails; typing the symbols re-plans that
// model, not the one still on screen.
func TestBrowserSymbolsReplanFailedFile(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	model := s.testdata("ir/onnx/testdata/attention_mask1d_fp16.onnx")
	p.wait("the default example", viewerShows("transformer.json"))
	p.drop("drop.json", dropped)
	p.wait("the dropped file", viewerShows("drop.json"))

	const name = "attention_mask1d_fp16.onnx"
	p.dropBytes(name, model)
	p.wait("the unbound symbols", `document.getElementById("error-msg").textContent.includes("unbound symbols batch, sequence")`)
	// What to do comes first, naming the symbols, and the focus is where
	// they are typed.
	msg, hint := p.text("#error-msg"), p.text("#error-hint")
	if strings.Contains(msg+hint, "--set") || hint != "Give batch and sequence values under Symbols (name=value, e.g. batch=1)." {
		p.fail("the error tells a browser user to use the command line, or not what to do first: hint %q, message %q", hint, msg)
	}
	if !eval[bool](p, `(() => { const h = document.getElementById("error-hint"), m = document.getElementById("error-msg");
		return !h.hidden && (h.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 &&
			document.activeElement === document.querySelector("#options [name=symbols]"); })()`) {
		p.fail("the hint is not shown before the message, or the Symbols field lacks the focus")
	}
	if !eval[bool](p, `(() => { const m = document.getElementById("error-msg");
		return m.scrollWidth <= m.clientWidth + 1 && m.getBoundingClientRect().height < 200; })()`) {
		p.fail("the long error does not wrap inside the banner")
	}
	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.settle()
		p.screenshot("app-unbound-1280x800")
	}
	// Go reads the field: a pair it cannot read is Go's error, in place,
	// naming the field.
	p.setField("symbols", "batch")
	p.wait("the symbols error", `document.getElementById("error-msg").textContent.includes('Symbols field: column 1: "batch" is not name=value')`)
	// One of two: still unbound, still the same model.
	p.setField("symbols", "batch=2")
	p.wait("the next error", `document.getElementById("error-msg").textContent.includes("unbound symbol sequence has no value") &&
		document.getElementById("error-hint").textContent === "Give sequence a value under Symbols (name=value, e.g. sequence=1)."`)
	p.shows("drop.json", "a")
	p.setField("symbols", "batch=2, sequence=16")
	p.wait("the model with its symbols", viewerShows(name))
	if syms := p.text("#summary-list"); !strings.Contains(syms, "batch=2") || !strings.Contains(syms, "sequence=16") {
		p.fail("the summary does not show the symbols: %q", syms)
	}
	if !eval[bool](p, `document.getElementById("error").hidden`) {
		p.fail("the error stayed after the model planned")
	}

	// Dismissing an error gives the options back to the plan on screen.
	p.setField("symbols", "")
	p.drop("drop.json", dropped)
	p.wait("the dropped file", viewerShows("drop.json"))
	p.dropBytes(name, model)
	p.wait("the unbound symbols", `!document.getElementById("error").hidden`)
	eval[bool](p, `(document.getElementById("error-close").click(), true)`)
	unshared := eval[float64](p, `window.memplanApp.summary.total_unshared`)
	eval[bool](p, `(document.querySelector("input[name=no_reuse]").click(), true)`)
	p.wait("drop.json without reuse", fmt.Sprintf(`window.memplanApp.file === "drop.json" && window.memplanApp.summary.arena_size === %v`, unshared))
	if !eval[bool](p, `document.getElementById("error").hidden`) {
		p.fail("the dismissed model was planned again: %q", p.text("#error-msg"))
	}
}

// TestBrowserShowsOnlyProvenPlans: the worker posts a plan before it
// proves it, and proves it while the viewer decodes and lays it out
// (protocol.WorkerEvent's "tensors"). The viewer draws no plan before
// its proof, and a failed proof is a "bug" error with the last plan left
// on screen. The test holds the real worker's proofs back, lets one
// through, and replaces the next with a failure.
func TestBrowserShowsOnlyProvenPlans(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	eval[bool](p, `(() => { const pl = `+frame+`.memplanRuntime, proof = pl.proof.bind(pl);
		window.__proofs = [];
		pl.proof = (from, answer) => new Promise((resolve) => window.__proofs.push({ real: proof(from, answer), resolve }));
		return true; })()`)
	const csv = "id,lower,upper,size\n0,0,2,64\n1,1,3,32\n2,2,4,64\n"
	p.drop("held.csv", csv)
	p.wait("the plan, waiting for its proof", `window.__proofs.length === 1`)
	// Updates run the viewer's queued work: a plan ready to show would be
	// on screen by the next one.
	from := eval[float64](p, frame+`.memplan.state().updates`)
	p.wait("ten more updates", fmt.Sprintf(`%s.memplan.state().updates >= %v`, frame, from+10))
	if f := eval[string](p, frame+`.memplan.state().file`); f != "transformer.json" {
		p.fail("before its proof the viewer shows %q, want transformer.json still", f)
	}
	eval[bool](p, `(window.__proofs[0].real.then(window.__proofs[0].resolve), true)`)
	p.wait("the proven plan", viewerShows("held.csv"))

	p.drop("unproven.csv", csv)
	p.wait("the next plan, waiting for its proof", `window.__proofs.length === 2`)
	eval[bool](p, `(window.__proofs[1].resolve({ type: "proof", error: { message: "unproven.csv: memplan bug: the proof failed", kind: "bug" } }), true)`)
	p.wait("the failed proof's error", `!document.getElementById("error").hidden &&
		document.getElementById("error").textContent.includes("the proof failed")`)
	if f := eval[string](p, frame+`.memplan.state().file`); f != "held.csv" {
		p.fail("after a failed proof the viewer shows %q, want held.csv still", f)
	}
}

// When the viewer's Go program dies, the page says so and offers a reload
// instead of waiting forever.
func TestBrowserPlannerStops(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	// Every event goes through JSON.parse in the viewer: make it throw,
	// and the next event panics in Go, which ends the program.
	eval[bool](p, frame+`.JSON.parse = () => { throw new Error("boom"); }; true`)
	eval[bool](p, `(document.querySelector("#table tbody tr").click(), true)`)
	p.wait("the stop", `!document.getElementById("error").hidden &&
		document.getElementById("error-title").textContent === "The planner stopped"`)
	if msg := p.text("#error-msg"); !strings.Contains(msg, "boom") {
		p.fail("the banner does not say why the planner stopped: %q", msg)
	}
	if eval[bool](p, `document.getElementById("error-reload").hidden`) {
		p.fail("no reload button")
	}
	if f := p.text("#filename"); strings.Contains(f, "planning") {
		p.fail("the page still says %q", f)
	}
	if os.Getenv("MEMPLAN_SCREENSHOTS") != "" {
		p.screenshot("app-stopped-1280x800")
	}
	// The button reloads the page: a fresh document, with a fresh viewer.
	eval[bool](p, `(window.beforeReload = true, setTimeout(() => document.getElementById("error-reload").click()), true)`)
	p.waitAcrossLoad("the page again", `!window.beforeReload && `+viewerShows("transformer.json")+
		` && document.getElementById("error").hidden`)
}

// A newcomer's corners: the key list opens with "?" while the canvas has
// the focus; a replay brings the buffer it places into view, however far
// the camera was, and "Why it is here" follows it; the largest-fit
// controls are hidden for a plan without symbols.
func TestBrowserNewcomerCorners(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	if eval[bool](p, `document.getElementById("largest-controls").hidden`) {
		p.fail("the largest-fit controls are hidden for a plan with symbols")
	}

	// "?" with the canvas focused: the app's key list.
	eval[bool](p, frame+`.document.querySelector("canvas").focus() || true`)
	p.wait("the canvas focused", frame+`.document.activeElement === `+frame+`.document.querySelector("canvas")`)
	p.run("press ?", chromedp.KeyEvent("?"))
	p.wait("the key list", `!document.getElementById("keys").hidden`)
	p.run("press Escape", chromedp.KeyEvent("\u001b"))
	p.wait("the key list closed", `document.getElementById("keys").hidden`)

	// The replay: zoom in on the plan's bottom-left corner, then step to
	// a buffer placed far from it.
	order := eval[[]string](p, `window.memplanApp.summary.placement_order`)
	eval[bool](p, `(`+frame+`.memplan.send({type: "camera", x0: 0, y0: 0, x1: 2, y1: 1024}), true)`)
	p.frames(2)
	far := -1
	for k, name := range order {
		if eval[bool](p, fmt.Sprintf(`(() => { const t = window.memplanApp.tensors.find((t) => t.name === %q);
			return t.offset > 1e6 && t.birth > 10; })()`, name)) {
			far = k
			break
		}
	}
	if far < 0 {
		p.fail("no buffer of the example lies far from the corner")
	}
	eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("replay-step"); s.value = "%d";
		s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, far+1))
	p.wait("the placed buffer in view", fmt.Sprintf(`(() => { const t = window.memplanApp.tensors.find((t) => t.name === %q);
		const v = %s.memplan.state().visible; return v.x0 <= t.birth && t.death + 1 <= v.x1 && v.y0 <= t.offset && t.offset + t.size <= v.y1; })()`, order[far], frame))
	p.wait("why it is here", fmt.Sprintf(`document.getElementById("why").textContent.includes(%q)`, order[far]))

	// A plan without symbols: no select and button to find a largest value.
	p.drop("drop.json", dropped)
	p.wait("the dropped file", viewerShows("drop.json"))
	p.wait("the largest-fit controls hidden", `document.getElementById("largest-controls").hidden &&
		document.getElementById("largest-note").textContent !== ""`)
}

// huge serves endless files, and counts the bytes it got out.
var huge hugeFiles

type hugeFiles struct {
	mu   sync.Mutex
	sent map[string]int64
}

func (h *hugeFiles) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if strings.HasSuffix(r.URL.Path, "/declared.csv") {
		w.Header().Set("Content-Length", "1288490189") // 1.2 GiB
	}
	chunk := make([]byte, 64<<10)
	copy(chunk, "id,lower,upper,size\n")
	for {
		n, err := w.Write(chunk)
		h.mu.Lock()
		if h.sent == nil {
			h.sent = map[string]int64{}
		}
		h.sent[r.URL.Path] += int64(n)
		over := h.sent[r.URL.Path] > 2<<30
		h.mu.Unlock()
		if err != nil || over {
			return // the client stopped reading, or read on past reason
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		chunk = chunk[:len(chunk)] // zeros after the first
		clear(chunk)
	}
}

func (h *hugeFiles) sentTo(path string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent[path]
}

// A file over the page's limit is refused before it is read, with a
// message naming the file, its size and the limit, and the plan on
// screen stays: dropped (by its size), linked with a Content-Length (by
// it), linked without (by counting as it streams).
func TestBrowserRefusesLargeFiles(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	limit := planner.MaxInputBytes(planner.BrowserMemoryLimit)
	refused := func(what, name, size string) {
		p.t.Helper()
		p.wait(what+" refused", fmt.Sprintf(`!document.getElementById("error").hidden &&
			document.getElementById("error-msg").textContent.includes(%q)`, name))
		msg := p.text("#error-msg")
		if !strings.Contains(msg, size) || !strings.Contains(msg, planner.FormatBytes(planner.BrowserMemoryLimit)) {
			p.fail("%s: the message %q does not name the size %s and the limit", what, msg, size)
		}
		if f := eval[string](p, frame+`.memplan.state().file`); f != "transformer.json" {
			p.fail("%s: the viewer shows %s, want the plan that was on screen", what, f)
		}
	}
	// Dropped: one byte over the limit, never read by the page.
	p.dropJS("big.csv", fmt.Sprintf(`new Uint8Array(%d)`, limit+1))
	refused("the dropped file", "big.csv", planner.FormatBytes(limit+1))
	eval[bool](p, `(document.getElementById("error-close").click(), true)`)

	// Linked, 1.2 GiB by its Content-Length: refused unread.
	p.run("open the declared link", chromedp.Navigate(s.url+"/index.html?url=huge/declared.csv"))
	refused("the declared link", "declared.csv", planner.FormatBytes(1288490189))
	if n := huge.sentTo("/huge/declared.csv"); n > 64<<20 {
		p.fail("the server sent %d bytes of the declared file before the page stopped", n)
	}
	// Linked, no length: read until it passed the limit, then dropped.
	p.run("open the endless link", chromedp.Navigate(s.url+"/index.html?url=huge/endless.csv"))
	refused("the endless link", "endless.csv", "more than "+planner.FormatBytes(limit))
	if n := huge.sentTo("/huge/endless.csv"); n > 2*limit {
		p.fail("the server sent %d bytes of the endless file: the page read on past the limit", n)
	}
}

// While auto goes on improving a plan far above the lower bound, the
// status line and the plot's own line say why, in the planner's words: the
// lines the command line's planner gives for the same file, in order.
func TestBrowserSaysWhyAutoGoesOn(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	const name = "A.1048576.csv"
	csv := s.testdata("planner/testdata/" + name)
	table, err := ir.DecodeBufferCSV(name, csv)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := planner.FromTable(table, 1)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	if _, err := planner.Place(context.Background(), prob, "auto", planner.PlaceOptions{Progress: func(m string) { said = append(said, m) }}); err != nil {
		t.Fatal(err)
	}
	if len(said) == 0 {
		t.Fatalf("auto says nothing on %s: the input no longer tests progress", name)
	}
	p.wait("the default example", viewerShows("transformer.json"))
	// Every text each line shows, kept as it changes.
	keep := func(doc, id string) string {
		return fmt.Sprintf(`(() => { const el = %s.getElementById(%q), seen = [];
			new MutationObserver(() => seen.push(el.textContent)).observe(el, {childList: true, characterData: true, subtree: true});
			window.__seen = window.__seen || {}; window.__seen[%q] = seen; return true; })()`, doc, id, id)
	}
	eval[bool](p, keep("document", "filename"))
	eval[bool](p, keep(frame+".document", "status"))
	p.drop(name, string(csv))
	p.wait("its plan", viewerShows(name))
	for _, line := range []struct{ id, before string }{
		{"filename", "planning " + name + ": "},
		{"status", "planning " + name + "…\n"},
	} {
		shown := eval[[]string](p, fmt.Sprintf(`window.__seen[%q]`, line.id))
		k := 0
		for _, st := range shown {
			if k < len(said) && st == line.before+said[k] {
				k++
			}
		}
		if k < len(said) {
			p.fail("#%s showed %q; want, in order, %q after %q", line.id, shown, said, line.before)
		}
	}
}
