//go:build js && wasm

// Command wasm is memplan's viewer for the browser: the ebiten canvas and
// what it shows. The host page sends it files and options with
// postMessage (or window.memplan.send); it hands them to the planner
// worker (wasm/worker, through viewer.js's memplanPlanner), proves the
// plan record that comes back with Verify, draws it and posts back
// summaries, hovers, selections and errors. It links no decoder and no
// strategy, so the first screen downloads only the canvas; it opens on
// the embedded plan of the default example. The message API is
// documented in docs/embedding.md.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/link"
)

// wireOptions are the planning options a page sends.
type wireOptions = protocol.Options

// file is a file the page sent, kept to re-plan it with new options. Its
// bytes stay a JavaScript Uint8Array: the viewer only passes them on to
// the worker, so a large file never fills the viewer's own memory.
type file struct {
	name string
	data js.Value
	// Where it came from, for links: the address it was fetched from, or
	// the built-in example it is; neither, and a link carries the file
	// itself when it is small enough (packed, made on first need).
	url, example      string
	packed            []byte
	packErr           error
	packing, packDone bool
}

// app is the viewer's state. JavaScript callbacks only queue commands;
// Update applies them between frames, so the view is never touched
// mid-draw.
type app struct {
	mu       sync.Mutex
	commands []func()

	view *viz.View
	game *viz.Game

	warmed bool   // the warm-up has been asked for (warmUp)
	warm   string // and how it ended: "done" or "skipped" (state().warm)

	// Planning runs on its own goroutine; a newer request replaces one
	// still waiting, so typing in an options field plans once.
	planReq chan struct{}
	pending *planJob
	cur     *file // the file on screen
	// target is the file new options re-plan: the one the page sent last,
	// even while it plans or after it failed (options may supply the
	// symbols it lacked), until the page dismisses its error.
	target  *file
	opts    wireOptions
	seq     int                // bumps per request; stale results are dropped
	millis  map[string]float64 // where the last plan's time went
	updates int                // frames run, so tests can wait for a frame, not a time

	// The plan on screen as the worker sent it (planner's binary form)
	// or, for the built-in example's record, as JSON: exports hand it
	// back to a worker, which has the encoders the viewer does not link.
	planBytes js.Value
	planJSON  bool

	share linkState
	// planID is the request that made the plan on screen: the worker
	// that won it keeps the plan and explains it by this id. record is
	// the embedded plan's JSON, which no worker made, to hand one.
	planID  int
	record  js.Value
	explain int // bumps per explain request; stale answers are dropped

	// camSeen is the camera the host last heard of, or set itself: a
	// "camera" event goes out when the user moves it elsewhere.
	camSeen viz.Rect
}

// linkState is what the viewer last told the page about its state (the
// link), and what it is watching settle before it tells again.
type linkState struct {
	seenKey, postedKey   string // EncodeHash of the state without the carried file
	seenFile, postedFile *file
	postedOpts           string
	postedHash           string
	stable               int // frames the seen state has held
	// opening holds the page's state events back until its address has
	// been read (the "location" message) and the link in it opened: an
	// event before would overwrite the address not yet read.
	opening bool
}

type planJob struct {
	f    *file
	opts wireOptions
	seq  int
	keep bool // keep the camera (a re-plan of the same file)
	// restore is the link being opened: its camera, selection and
	// replay step apply once the plan is drawn.
	restore *link.State
}

func main() {
	// As in the worker: a large plan's decode and layout build their
	// heap in one go, and at Go's default the collector ran over it again
	// and again while it grew (one thread: the page waits for each).
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(planner.BrowserMemoryLimit)
	a := &app{planReq: make(chan struct{}, 1)}
	a.share.opening = true
	a.opts = wireOptions{Options: planner.DefaultOptions()}
	a.view = viz.NewView(800, 600)
	a.game = viz.NewGame(a.view)
	a.game.BeforeUpdate = func() { a.updates++; a.watchCamera(); a.drain(); a.watchState() }
	a.game.OnHover = a.hovered
	a.game.OnSelect = func(i int) { a.postSelect(i) }
	a.game.OnCursor = func(int) { a.postCursor() }

	a.installJS()
	go a.planner()

	// A host that brings its own file (embed.js) asks for a blank start,
	// so the built-in example never flashes before its plan.
	if !js.Global().Get("memplanBlank").Truthy() {
		a.openDefault()
	}

	ebiten.SetWindowTitle("memplan")
	ebiten.SetScreenClearedEveryFrame(false)
	// Inside an iframe the document often lacks focus; the viewer must
	// still draw and react to the pointer.
	ebiten.SetRunnableOnUnfocused(true)
	a.post(map[string]any{"type": "ready", "version": protocol.Version, "examples": exampleNames(), "strategies": planner.StrategyNames(),
		"kinds": viz.KindColors(), "keys": viz.KeyBindings,
		"defaults":   wireOptions{Options: planner.DefaultOptions(), Strategy: planner.DefaultStrategy},
		"alignments": alignmentDefaults(), "f32_uniform_budget": planner.WebGPUBindingLimit, "file_types": protocol.FileTypes,
		"profiles": planner.Profiles(), "bindings": []string{planner.BindArena, planner.BindTensor}})
	if err := ebiten.RunGame(a.game); err != nil {
		a.postError(err)
	}
}

// alignmentDefaults is the alignment each input format gets when the page
// sends none: the planner's choice, for the page to show.
func alignmentDefaults() []map[string]any {
	return []map[string]any{
		{"format": "graph-json", "name": "graphs", "alignment": planner.DefaultAlignment("graph-json")},
		{"format": "buffer-csv", "name": "CSV", "alignment": planner.DefaultAlignment("buffer-csv")},
	}
}

func exampleNames() []string {
	ents, _ := examples.FS.ReadDir(".")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// queue runs f in the next Update.
func (a *app) queue(f func()) {
	a.mu.Lock()
	a.commands = append(a.commands, f)
	a.mu.Unlock()
}

func (a *app) drain() {
	a.mu.Lock()
	cmds := a.commands
	a.commands = nil
	a.mu.Unlock()
	for _, f := range cmds {
		f()
	}
}

// request asks the planner goroutine to plan f with opts, and then to
// restore a link's view when restore is not nil.
func (a *app) request(f *file, opts wireOptions, keep bool, restore *link.State) {
	a.mu.Lock()
	a.seq++
	a.pending = &planJob{f, opts, a.seq, keep, restore}
	a.target = f
	a.mu.Unlock()
	if restore == nil {
		a.share.opening = false // the user moved on from a link still opening
	}
	// The job in flight, if any, is stale now: the worker drops it at
	// once and the planner goroutine moves on to this one.
	js.Global().Get("memplanPlanner").Call("cancel")
	select {
	case a.planReq <- struct{}{}:
	default: // a wake-up is already queued; it will take the newest job
	}
	a.post(map[string]any{"type": "busy", "file": f.name})
}

func (a *app) planner() {
	for range a.planReq {
		a.mu.Lock()
		job := a.pending
		a.pending = nil
		a.mu.Unlock()
		if job == nil {
			continue
		}
		res := a.planFile(job)
		a.prepare(job, &res)
		a.queue(func() { a.planned(job, res) })
	}
}

// planResult is a plan, or why there is none, and the alignment the
// file's format gets when the page chooses none (0 for plan records).
type planResult struct {
	plan             *planner.Plan
	bytes            js.Value // the plan as the worker sent it
	err              error
	defaultAlignment int64
	millis           map[string]float64 // where the time went, for state()
	fit              *planner.Fit       // the worker's WebGPU fit report, if any
	record           js.Value           // the embedded record's bytes (see app.record)
	// The worker that made the plan, and its number for the answer
	// (protocol.WorkerEvent.Answer), to ask for the tensors' JSON.
	from, answer int
	// Made by prepare before the plan reaches Update: the verdict, the
	// layout, and the tensors' JSON (a Uint8Array), as the worker wrote it
	// with the plan's proof or, for a plan from elsewhere, written here.
	verdict *planner.Fit
	layout  *viz.Layout
	tensors js.Value
}

// prepare lays out a plan the worker answered with, and waits for its
// proof and the tensors' JSON, which the worker makes meanwhile
// (protocol.WorkerEvent), in the planner goroutine: the work is done
// before the plan's Update, so the frame that shows the plan has only to
// post it. A plan whose proof fails, or never comes, is an error.
func (a *app) prepare(job *planJob, res *planResult) {
	if res.err != nil || res.plan == nil {
		return
	}
	res.verdict = verdictOf(job, res)
	var budget int64
	if res.verdict != nil {
		budget = res.verdict.Budget
	}
	if res.millis == nil {
		res.millis = map[string]float64{}
	}
	start := time.Now()
	res.layout = viz.NewLayout(res.plan, budget)
	res.millis["layout"] = float64(time.Since(start).Microseconds()) / 1000
	if res.answer > 0 {
		start = time.Now()
		proof := await(js.Global().Get("memplanPlanner").Call("tensors", res.from, res.answer))
		res.millis["tensors"] = float64(time.Since(start).Microseconds()) / 1000
		if proof.Type() != js.TypeObject {
			res.err = &workerError{protocol.Error{Message: job.f.name + ": the planner stopped before it proved the plan", Kind: "stopped"}}
		} else if e := proof.Get("error"); e.Type() == js.TypeObject {
			res.err = &workerError{errorOf(job.f.name, e)}
		} else {
			res.tensors = proof.Get("data")
		}
	} else {
		res.tensors = uint8Array(planner.AppendTensorsJSON(nil, res.plan.Tensors))
	}
}

// verdictOf is the plan's fit verdict: the planner's, where no budget
// sent (0) is FitOf's "none given", which holds f32-uniform plans to
// WebGPU's limit.
func verdictOf(job *planJob, res *planResult) *planner.Fit {
	if job.opts.Budget > 0 {
		return res.plan.FitOf(job.opts.Budget)
	}
	if res.fit != nil { // the same verdict, with the symbols behind it
		return res.fit
	}
	return res.plan.FitOf(-1)
}

// planFile hands a file to the planner worker and waits for its answer,
// which prepare holds until the worker has proven it.
func (a *app) planFile(job *planJob) planResult {
	progress := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			a.post(map[string]any{"type": "progress", "file": job.f.name, "message": args[0].String()})
		}
		return nil
	})
	defer progress.Release()
	opts, _ := json.Marshal(job.opts)
	return resultOf(job.f.name, await(js.Global().Get("memplanPlanner").Call("plan", job.seq, job.f.name, job.f.data, string(opts), progress)))
}

// await blocks until a JavaScript promise settles and returns its value.
// Call it from a goroutine of its own: a JavaScript callback that waited
// would hold up the event loop the promise needs.
func await(promise js.Value) js.Value {
	done := make(chan js.Value, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- args[0]
		return nil
	})
	defer then.Release()
	promise.Call("then", then)
	return <-done
}

// resultOf reads the worker's answer, a protocol.WorkerEvent with the
// plan beside it in planner's binary form. The worker proves the plan
// after posting it (Verify; Load proved a record it read), and prepare
// waits for that proof: the viewer shows exactly those bytes.
func resultOf(name string, ev js.Value) planResult {
	if ev.Get("type").String() != "planned" {
		return planResult{err: &workerError{errorOf(name, ev.Get("error"))}}
	}
	start := time.Now()
	u := ev.Get("plan")
	b := make([]byte, u.Get("byteLength").Int())
	js.CopyBytesToGo(b, u)
	p, err := planner.DecodeBinary(b)
	millis := map[string]float64{"decode": float64(time.Since(start).Microseconds()) / 1000}
	if m := ev.Get("millis"); m.Type() == js.TypeObject {
		for _, k := range []string{"load", "plan", "encode"} {
			if v := m.Get(k); v.Type() == js.TypeNumber {
				millis[k] = v.Float()
			}
		}
	}
	if err != nil {
		return planResult{err: &workerError{protocol.Error{Message: fmt.Sprintf("%s: the planner's answer is unreadable (please report it): %v", name, err), File: name, Kind: "bug"}}}
	}
	var align int64
	if a := ev.Get("default_alignment"); a.Type() == js.TypeNumber {
		align = int64(a.Int())
	}
	from, answer := -1, 0
	if f, n := ev.Get("from"), ev.Get("answer"); f.Type() == js.TypeNumber && n.Type() == js.TypeNumber {
		from, answer = f.Int(), n.Int()
	}
	var fit *planner.Fit
	if f := ev.Get("fit"); f.Type() == js.TypeObject {
		fit = &planner.Fit{}
		if json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", f).String()), fit) != nil {
			fit = nil // the viewer judges the plan itself below
		}
	}
	return planResult{plan: p, bytes: u, defaultAlignment: align, millis: millis, fit: fit, from: from, answer: answer}
}

// errorOf reads a worker's protocol.Error.
func errorOf(name string, v js.Value) protocol.Error {
	var e protocol.Error
	if err := json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", v).String()), &e); err != nil || e.Message == "" {
		e = protocol.Error{Message: name + ": the planner gave no answer", Kind: "stopped"}
	}
	return e
}

// workerError is an error the worker reported, already described.
type workerError struct{ e protocol.Error }

func (w *workerError) Error() string { return w.e.Message }

// openDefault shows the default example from its embedded plan record,
// so the first picture needs neither the worker nor a plan; new options
// re-plan the example's graph in the worker.
func (a *app) openDefault() {
	graph, err := examples.FS.ReadFile(examples.Default)
	if err == nil {
		var rec []byte
		if rec, err = examples.Plans.ReadFile("plans/" + examples.Default); err == nil {
			var p *planner.Plan
			if p, err = planner.DecodePlan(examples.Default, rec); err == nil {
				if err = planner.Verify(p); err == nil {
					a.mu.Lock()
					a.seq++
					job := &planJob{f: &file{name: examples.Default, data: uint8Array(graph), example: examples.Default}, opts: a.opts, seq: a.seq}
					a.planBytes, a.planJSON = uint8Array(rec), true
					a.target = job.f
					a.mu.Unlock()
					a.queue(func() {
						a.planned(job, planResult{plan: p, defaultAlignment: planner.DefaultAlignment("graph-json"), record: uint8Array(rec)})
					})
					return
				}
			}
		}
	}
	a.postError(fmt.Errorf("the built-in example cannot be shown: %v", err))
}

// uint8Array copies bytes into a new JavaScript Uint8Array.
func uint8Array(b []byte) js.Value {
	u := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// planned shows a finished plan, or reports its error and keeps the last
// good plan on screen.
func (a *app) planned(job *planJob, res planResult) {
	if job.seq != a.seq {
		return // a newer request is on its way
	}
	if res.err != nil {
		a.postError(res.err)
		if job.restore != nil {
			a.share.opening = false // the link failed; the view on screen is the state
		}
		return
	}
	a.cur = job.f
	if res.bytes.Truthy() {
		a.planBytes, a.planJSON = res.bytes, false
	}
	a.mu.Lock()
	a.opts, a.target = job.opts, a.cur
	a.mu.Unlock()
	if res.layout == nil { // a plan not from the worker: prepare waits for nothing
		a.prepare(job, &res)
	}
	fit, l := res.verdict, res.layout
	a.view.SetLayout(l, job.keep)
	a.camSeen = a.view.Cam.Visible() // a new plan's own fit is no one's move
	a.planID, a.record = job.seq, res.record
	a.millis = res.millis
	a.hovered(viz.None, -1, -1) // what was under the pointer is gone
	start := time.Now()
	s := summary(l)
	// The alignment the page asked for (0: none) and the one it would get
	// by asking none, so it can say which applied.
	s["alignment_chosen"], s["default_alignment"] = job.opts.Alignment, res.defaultAlignment
	s["fit"] = fit
	// The snippet that embeds this file as planned here; embed.js lies
	// beside the viewer.
	script := js.Global().Get("URL").New("embed.js", js.Global().Get("location").Get("href")).Get("href").String()
	s["embed"] = protocol.EmbedSnippet(script, job.f.name, job.opts)
	a.postWithTensors(map[string]any{"type": "summary", "file": job.f.name, "summary": s}, res.tensors)
	a.millis["summary"] = float64(time.Since(start).Microseconds()) / 1000
	a.postSelect(a.view.Selected)
	if job.restore != nil {
		a.restoreView(job.restore)
	}
	if a.view.Cursor >= 0 {
		a.postCursor() // the same step of the new plan
	}
	if !a.warmed {
		a.warmed = true
		go a.warmUp()
	}
}

// warmUp has the first worker plan a generated file once the first picture
// is up, and decodes, lays out and summarizes the plan here, unseen: the
// browser optimizes wasm code only after it has run a while, so the first
// large file would otherwise plan and draw at the baseline compiler's
// speed (wasm/worker/warm.go has the numbers). Any request cancels it.
func (a *app) warmUp() {
	res := resultOf("warm-up.csv", await(js.Global().Get("memplanPlanner").Call("warm")))
	if res.err != nil {
		a.queue(func() { a.warm = "skipped" }) // cancelled by a request, or the worker was in use
		return
	}
	// One step a frame: together they hold the page's thread for a
	// quarter of a second, a hitch a person sees in a panning plot, or in
	// the frames of a plan that was dropped meanwhile.
	var spent time.Duration
	step := func(f func()) func() {
		return func() {
			start := time.Now()
			f()
			spent += time.Since(start)
		}
	}
	var l *viz.Layout
	a.queue(step(func() {
		l = viz.NewLayout(res.plan, 0)
		a.queue(step(func() {
			_, _ = json.Marshal(summary(l))
			a.queue(func() {
				a.warm = fmt.Sprintf("done: worker %.0f ms, viewer %.0f ms", res.millis["load"]+res.millis["plan"]+res.millis["encode"],
					res.millis["decode"]+float64(spent.Milliseconds()))
				// The warm-up's plan is garbage now: collect it while the
				// heap holds little else (a few milliseconds), so the first
				// file's plan reuses that memory instead of growing into
				// fresh memory, which costs far more.
				runtime.GC()
			})
		}))
	}))
}

// postCursor tells the host what the time cursor's step holds.
func (a *app) postCursor() {
	l := a.view.Layout
	if l == nil {
		return
	}
	b, err := json.Marshal(l.CursorAt(a.view.Cursor))
	ev := map[string]any{}
	if err == nil {
		err = json.Unmarshal(b, &ev)
	}
	if err != nil {
		a.postError(err)
		return
	}
	ev["type"] = "cursor"
	a.post(ev)
}

// requestExplain asks the planner worker why tensor name lives when and
// sits where it does in the plan on screen; the answer is posted as an
// explain event and drawn (its conflicts outlined, its gaps shaded).
func (a *app) requestExplain(name string) {
	l := a.view.Layout
	if l == nil {
		return
	}
	if l.Index(name) < 0 {
		a.post(map[string]any{"type": "explain", "tensor": name, "error": fmt.Sprintf("no tensor %s in the plan on screen", ir.Quote(name))})
		return
	}
	a.explain++
	seq, plan := a.explain, l.Plan
	var then js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		then.Release() // allowed while it runs; it is called once
		text := js.Global().Get("JSON").Call("stringify", args[0]).String()
		a.queue(func() { a.explained(seq, plan, name, text) })
		return nil
	})
	js.Global().Get("memplanPlanner").Call("explain", a.planID, plan.Name, a.record, name).Call("then", then)
}

// explained takes the worker's answer to requestExplain.
func (a *app) explained(seq int, plan *planner.Plan, name, answer string) {
	if seq != a.explain || a.view.Layout == nil || a.view.Layout.Plan != plan {
		return // a newer request, or another plan, is on screen
	}
	var ev struct {
		Type        string               `json:"type"`
		Explanation *planner.Explanation `json:"explanation"`
		Error       *protocol.Error      `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &ev); err != nil || ev.Explanation == nil {
		msg := "the planner gave no explanation"
		if ev.Error != nil {
			msg = ev.Error.Message
		}
		a.post(map[string]any{"type": "explain", "tensor": name, "error": msg})
		return
	}
	e := ev.Explanation
	a.view.SetExplained(a.view.Layout.ExplainedFrom(e.Placement))
	out := map[string]any{"type": "explain", "tensor": name, "text": e.Text, "producer": e.Producer,
		"last_reader": e.LastReader, "death_reason": e.DeathReason, "kept_by": e.KeptBy, "conflicts": []string{}, "record": e}
	if e.Placement != nil {
		var names []string
		for _, c := range e.Placement.Conflicts {
			names = append(names, c.Name)
		}
		if names != nil {
			out["conflicts"] = names
		}
		out["rule"] = e.Placement.Rule
	}
	a.post(out)
}

func summary(l *viz.Layout) map[string]any {
	p := l.Plan
	s := map[string]any{
		"name": p.Name, "strategy": p.Strategy, "optimal": p.Optimal,
		"arena_size": p.ArenaSize, "lower_bound": p.LowerBound, "total_unshared": p.TotalUnshared,
		"saved": p.Saved, "fragmentation": p.Fragmentation, "steps": p.Steps, "tensors": len(p.Tensors),
		"alignment": p.Alignment, "options": p.Options, "notes": p.Notes, "symbols": p.Symbols,
		"budget": l.Budget, "over_budget": l.OverBudget,
	}
	var phases []map[string]any // the layout's bands: PhaseRuns, already computed
	for _, b := range l.Phases {
		phases = append(phases, map[string]any{"phase": b.Name, "first": int(b.X0), "last": int(b.X1) - 1, "peak": b.Peak})
	}
	s["phases"] = phases
	// Every buffer's name: written as encoding/json would, without it.
	s["placement_order"] = json.RawMessage(planner.AppendStringsJSON(nil, p.PlacementOrder))
	// The WebGPU device planned for, and under tensor binding the GPU
	// buffers the arena is cut into (each tensor names its own).
	s["binding"], s["limits"], s["buffers"] = p.Binding, p.Limits, p.Buffers
	return s
}

func (a *app) hovered(h viz.Hit, sx, sy float64) {
	ev := map[string]any{"type": "hover", "x": sx, "y": sy, "tensor": nil}
	if h.Tensor >= 0 {
		ev["tensor"] = a.tensorInfo(int(h.Tensor))
		ev["part"] = h.Kind.String()
	}
	a.post(ev)
}

func (a *app) postSelect(i int) {
	ev := map[string]any{"type": "select", "tensor": nil, "partners": []any{}}
	if l := a.view.Layout; l != nil && i >= 0 {
		ev["tensor"] = a.tensorInfo(i)
		ps := []any{} // [] rather than null when nothing shared its bytes
		for _, j := range a.view.Partners {
			ps = append(ps, a.tensorInfo(j))
		}
		ev["partners"] = ps
	}
	a.post(ev)
}

// tensorInfo is a tensor as events carry it, with its index and its
// screen rectangle in the viewer.
func (a *app) tensorInfo(i int) map[string]any {
	t := &a.view.Layout.Plan.Tensors[i]
	// color: its fill in the current theme, for a host's swatch.
	info := map[string]any{"index": i, "tensor": t, "color": a.view.TensorColor(i).Hex()}
	if r, ok := a.view.ScreenRect(i); ok {
		info["rect"] = map[string]float64{"x": r.X0, "y": r.Y0, "w": r.X1 - r.X0, "h": r.Y1 - r.Y0}
	}
	return info
}

// postError reports err with where it happened and which file stays on
// screen (null: none yet).
func (a *app) postError(err error) {
	var e *protocol.Error
	var we *workerError
	if errors.As(err, &we) {
		e = &we.e
	} else {
		e = protocol.ErrorOf(err)
	}
	if e.Kind == "cancelled" {
		return // superseded by a newer request, which answers instead
	}
	ev := map[string]any{"type": "error", "message": e.Message, "kind": e.Kind, "showing": nil,
		"file": e.File, "line": e.Line, "column": e.Column, "path": e.Path, "node": e.Node, "need": e.Need, "param": e.Param}
	if a.cur != nil {
		ev["showing"] = a.cur.name
	}
	a.post(ev)
}

// post sends an event to the parent page and to listeners in this page.
// Events go through JSON so Go values become plain JS objects in one
// JSON.parse instead of thousands of syscall/js calls.
func (a *app) post(ev map[string]any) {
	a.postWithTensors(ev, js.Undefined())
}

// postWithTensors posts ev with tensors, when a Uint8Array of the plan's
// tensors as UTF-8 JSON text (prepare), under "tensors_json", which the
// receiver decodes and parses. Bytes transferred to the host (viewer.js)
// cost a fraction of one string decoded here and cloned into the host,
// let alone of objects.
func (a *app) postWithTensors(ev map[string]any, tensors js.Value) {
	ev["source"] = "memplan"
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"source": "memplan", "type": "error", "message": err.Error()})
		tensors = js.Undefined()
	}
	w := js.Global()
	obj := w.Get("JSON").Call("parse", string(b))
	if tensors.InstanceOf(w.Get("Uint8Array")) {
		obj.Set("tensors_json", tensors)
	}
	// viewer.js posts to the host, to its origin once known
	// (docs/embedding.md).
	if toHost := w.Get("memplanToHost"); toHost.Type() == js.TypeFunction {
		toHost.Invoke(obj)
	}
	ce := w.Get("CustomEvent").New("memplan", map[string]any{"detail": obj})
	w.Call("dispatchEvent", ce)
}

// installJS registers window.memplan and the message listener.
func (a *app) installJS() {
	w := js.Global()
	api := js.Global().Get("Object").New()
	api.Set("send", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			a.handle(args[0])
		}
		return nil
	}))
	// rectOf(name) is where a tensor is drawn now, in CSS pixels of this
	// page, with its fill colour; null when it is not drawn.
	api.Set("rectOf", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || a.view.Layout == nil {
			return nil
		}
		i := a.view.Layout.Index(args[0].String())
		r, ok := a.view.ScreenRect(i)
		if !ok {
			return nil
		}
		return map[string]any{"x": r.X0, "y": r.Y0, "w": r.X1 - r.X0, "h": r.Y1 - r.Y0,
			"color": a.view.TensorColor(i).Hex()}
	}))
	// state() reports what the viewer shows, for tests and hosts.
	api.Set("state", js.FuncOf(func(js.Value, []js.Value) any {
		s := map[string]any{"file": nil, "selected": nil, "hover": nil, "dirty": a.view.Dirty, "draws": a.game.Draws, "updates": a.updates,
			"quads": a.game.R.LastQuads, "build_ms": a.game.R.LastBuild.Seconds() * 1000, "uploaded": a.game.R.Stats.Uploaded,
			"millis": map[string]any{}, "warm": a.warm}
		if a.cur != nil {
			s["file"] = a.cur.name
		}
		for k, v := range a.millis { // js.ValueOf takes map[string]any only
			s["millis"].(map[string]any)[k] = v
		}
		if l := a.view.Layout; l != nil {
			s["arena_size"] = float64(l.Plan.ArenaSize)
			s["tensors"] = len(l.Plan.Tensors)
			if a.view.Selected >= 0 {
				s["selected"] = l.Plan.Tensors[a.view.Selected].Name
			}
			if a.view.Hover.Tensor >= 0 {
				s["hover"] = l.Plan.Tensors[a.view.Hover.Tensor].Name
			}
			s["reveal"] = a.view.Reveal
			s["cursor"] = a.view.Cursor
			s["lower_color"] = a.view.Theme.Lower.Hex() // the explained conflicts' outline
			// The live strip, where a drag moves the cursor, in CSS pixels.
			r, k := a.view.StripRect(), a.view.Scale
			s["strip"] = map[string]any{"x0": r.X0 / k, "y0": r.Y0 / k, "x1": r.X1 / k, "y1": r.Y1 / k}
			v := a.view.Cam.Visible()
			s["visible"] = map[string]any{"x0": v.X0, "y0": v.Y0, "x1": v.X1, "y1": v.Y1}
		}
		return js.ValueOf(s)
	}))
	w.Set("memplan", api)
	w.Call("addEventListener", "message", js.FuncOf(func(_ js.Value, args []js.Value) any {
		e := args[0]
		// Only the host page (or this page) may drive the viewer.
		if src := e.Get("source"); !src.Equal(w.Get("parent")) && !src.Equal(w) {
			return nil
		}
		a.handle(e.Get("data"))
		return nil
	}))
}

// handle reads one command message. It runs inside a JS callback, so it
// only copies what it needs and queues the work.
func (a *app) handle(m js.Value) {
	if m.Type() != js.TypeObject {
		return
	}
	typ := m.Get("type")
	if typ.Type() != js.TypeString {
		return
	}
	str := func(k string) string {
		if v := m.Get(k); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	switch typ.String() {
	case "ping":
		// A host checking that the viewer listens (it may send before
		// ready); viewer.js has learnt its origin from this message.
		a.post(map[string]any{"type": "pong", "version": protocol.Version})
	case "load", "example":
		name := path.Base(str("name"))
		var data js.Value
		var err error
		if typ.String() == "load" {
			if data, err = bytesOf(m.Get("data")); err != nil {
				err = &ir.Error{File: name, Msg: err.Error()}
			}
		} else if b, rerr := examples.FS.ReadFile(name); rerr != nil {
			err = fmt.Errorf("no built-in example %s", ir.Quote(name))
		} else {
			data = uint8Array(b)
		}
		f := &file{name: name, data: data}
		if typ.String() == "example" {
			f.example = name
		}
		if err != nil {
			a.postError(err)
			return
		}
		opts, err := a.messageOptions(m)
		if err != nil {
			a.postError(err)
			return
		}
		a.request(f, opts, false, nil)
	case "options":
		opts, err := a.messageOptions(m)
		if err != nil {
			a.postError(err)
			return
		}
		a.queue(func() {
			a.mu.Lock()
			f := a.target
			a.mu.Unlock()
			if f != nil {
				a.request(f, opts, f == a.cur, nil)
			}
		})
	case "dismiss":
		// The page closed the error: options go back to the file on screen.
		a.queue(func() {
			a.mu.Lock()
			a.target = a.cur
			a.mu.Unlock()
		})
	case "select", "focus":
		name, focus := str("name"), typ.String() == "focus"
		a.queue(func() {
			l := a.view.Layout
			if l == nil {
				return
			}
			i := l.Index(name)
			a.view.Select(i)
			if focus {
				a.view.FocusTensor(i)
			}
			a.postSelect(a.view.Selected)
		})
	case "reveal":
		// Replay the placement up to the count-th buffer; no count (or
		// a negative one) shows the whole plan.
		n := -1
		if c := m.Get("count"); c.Type() == js.TypeNumber {
			n = c.Int()
		}
		a.queue(func() { a.view.SetReveal(n) })
	case "theme":
		// "dark" or "light"; SetTheme redraws when the theme changes and
		// ignores names it does not know.
		name := str("name")
		a.queue(func() { a.view.SetTheme(name) })
	case "record":
		// The plan record on screen, whole, for a host that runs or keeps
		// it (memplan's app runs it on the GPU: web/gpurun.js).
		a.queue(func() {
			ev := map[string]any{"type": "record", "file": nil, "record": nil}
			if l := a.view.Layout; l != nil && a.cur != nil {
				ev["file"], ev["record"] = a.cur.name, l.Plan
			}
			a.post(ev)
		})
	case "fit":
		a.queue(func() { a.view.Cam.Fit(); a.view.Dirty = true })
	case "largest":
		// The largest value of a symbol for which the plan on screen (its
		// file, its options) fits their WebGPU device: the planner worker
		// searches, and viewer.js hands its answer to the host as a
		// "largest" event.
		sym := str("symbol")
		a.queue(func() {
			if a.cur == nil {
				a.postError(errors.New("the largest size that fits needs a plan on screen"))
				return
			}
			opts, _ := json.Marshal(a.opts)
			js.Global().Get("memplanPlanner").Call("largest", a.cur.name, a.cur.data, string(opts), sym)
		})
	case "profile":
		// The WebGPU profile a device's limits (a GPUSupportedLimits, or
		// any object with its three fields) provide: the largest named one
		// (planner.ProfileOf), "" when it falls short of every profile.
		lim := m.Get("limits")
		num := func(k string) int64 {
			if lim.Type() == js.TypeObject {
				if v := lim.Get(k); v.Type() == js.TypeNumber {
					return int64(v.Float())
				}
			}
			return 0
		}
		l := planner.Limits{MaxStorageBufferBindingSize: num("maxStorageBufferBindingSize"), MaxBufferSize: num("maxBufferSize"),
			MinStorageBufferOffsetAlignment: num("minStorageBufferOffsetAlignment")}
		ev := map[string]any{"type": "profile", "profile": "", "doc": ""}
		if p, ok := planner.ProfileOf(l); ok {
			ev["profile"], ev["doc"] = p.Profile, p.Doc
		}
		a.post(ev)
	case "world":
		// A host showing two plans at one scale sends each viewer the
		// larger steps and bytes of the two.
		steps, bytes := m.Get("steps"), m.Get("bytes")
		if steps.Type() == js.TypeNumber && bytes.Type() == js.TypeNumber {
			x, y := steps.Float(), bytes.Float()
			a.queue(func() { a.view.ShareWorld(x, y); a.camSeen = a.view.Cam.Visible() })
		}
	case "camera":
		// A host showing the camera of another viewer (compare.html's
		// two plans move as one). Not echoed as a camera event, so two
		// viewers forwarding to each other do not loop.
		r, ok := rectOf(m)
		a.queue(func() {
			if !ok || a.view.Layout == nil {
				return
			}
			a.view.Cam.Show(r)
			a.view.Dirty = true
			a.camSeen = a.view.Cam.Visible()
		})
	case "key":
		key, shift := str("key"), m.Get("shift").Truthy()
		a.queue(func() {
			before, cursor := a.view.Selected, a.view.Cursor
			a.view.Key(key, shift)
			if a.view.Selected != before {
				a.postSelect(a.view.Selected)
			}
			if a.view.Cursor != cursor {
				a.postCursor()
			}
		})
	case "cursor", "peak":
		// The time cursor: a step (-1 hides it), a move by some steps
		// (shown at an end if hidden), or the lower bound's step.
		peak, step, by := typ.String() == "peak", -1, 0
		if v := m.Get("step"); v.Type() == js.TypeNumber {
			step = v.Int()
		}
		if v := m.Get("by"); v.Type() == js.TypeNumber {
			by = v.Int()
		}
		a.queue(func() {
			switch {
			case a.view.Layout == nil:
				return
			case peak:
				a.view.SetCursor(a.view.Layout.PeakStep())
			case by != 0:
				a.view.MoveCursor(by)
			default:
				a.view.SetCursor(step)
			}
			a.postCursor()
		})
	case "explain":
		name := str("tensor")
		a.queue(func() { a.requestExplain(name) })
	case "leave":
		// The pointer left the viewer: nothing is hovered any more.
		a.queue(a.game.PointerLeft)
	case "location":
		// The page's address, on load and on back/forward: the link's
		// state, for Go to read.
		search, hash := str("search"), str("hash")
		a.queue(func() { a.openLocation(search, hash) })
	case "export":
		what := str("what")
		a.queue(func() { a.export(what) })
	case "wheel":
		// A host forwarding wheel events it caught over the viewer.
		x, y, d := m.Get("x").Float(), m.Get("y").Float(), m.Get("delta").Float()
		a.queue(func() { a.view.Wheel(x, y, d, false, false) })
	}
}

// rectOf reads a camera message's world rectangle (steps and bytes):
// four finite numbers, x1 > x0 and y1 > y0; ok is false otherwise.
func rectOf(m js.Value) (viz.Rect, bool) {
	var v [4]float64
	for i, k := range []string{"x0", "y0", "x1", "y1"} {
		f := m.Get(k)
		if f.Type() != js.TypeNumber || math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0) {
			return viz.Rect{}, false
		}
		v[i] = f.Float()
	}
	r := viz.Rect{X0: v[0], Y0: v[1], X1: v[2], Y1: v[3]}
	return r, r.X1 > r.X0 && r.Y1 > r.Y0
}

// watchCamera runs every frame: when the camera shows another world
// rectangle than the host last heard of (the user dragged, zoomed or
// pressed a key), it posts a "camera" event with it.
func (a *app) watchCamera() {
	if a.view.Layout == nil {
		return
	}
	v := a.view.Cam.Visible()
	if v == a.camSeen {
		return
	}
	a.camSeen = v
	a.post(map[string]any{"type": "camera", "x0": v.X0, "y0": v.Y0, "x1": v.X1, "y1": v.Y1})
}

// messageOptions reads a message's options: "attributes", a
// <memplan-plan> element's attributes as written (web/embed.js), which
// protocol.OptionsFromAttributes reads; else "options".
func (a *app) messageOptions(m js.Value) (wireOptions, error) {
	attrs := m.Get("attributes")
	if attrs.Type() != js.TypeObject {
		return a.optionsOf(m.Get("options"))
	}
	var kv map[string]string
	s := js.Global().Get("JSON").Call("stringify", attrs).String()
	if err := json.Unmarshal([]byte(s), &kv); err != nil {
		return wireOptions{}, fmt.Errorf("attributes: %v", err)
	}
	return protocol.OptionsFromAttributes(kv)
}

// optionsOf reads options sent by the page over the current ones; a
// missing object keeps them.
func (a *app) optionsOf(v js.Value) (wireOptions, error) {
	a.mu.Lock()
	o := a.opts
	a.mu.Unlock()
	if v.Type() != js.TypeObject {
		return o, nil
	}
	s := js.Global().Get("JSON").Call("stringify", v).String()
	// Fields the page leaves out keep their defaults, not the last
	// request's: the form sends everything it shows.
	o = wireOptions{Options: planner.DefaultOptions()}
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return o, fmt.Errorf("options: %v", err)
	}
	return o, nil
}

// bytesOf takes file contents from a string, ArrayBuffer or typed array
// as a Uint8Array, without copying them into Go.
func bytesOf(v js.Value) (js.Value, error) {
	switch {
	case v.Type() == js.TypeString:
		return js.Global().Get("TextEncoder").New().Call("encode", v), nil
	case v.InstanceOf(js.Global().Get("ArrayBuffer")):
		return js.Global().Get("Uint8Array").New(v), nil
	case v.InstanceOf(js.Global().Get("Uint8Array")):
		return v, nil
	case v.Type() == js.TypeObject && v.Get("buffer").Truthy():
		return js.Global().Get("Uint8Array").New(v.Get("buffer"), v.Get("byteOffset"), v.Get("byteLength")), nil
	}
	return js.Undefined(), errors.New("data must be a string, an ArrayBuffer or a typed array")
}
