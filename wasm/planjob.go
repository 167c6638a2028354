//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"time"

	"memplan/examples"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/jsconv"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
	"memplan/wasm/protocol/link"
)

// request asks the planner goroutine to plan f with opts, and then to
// restore a link's view when restore is not nil.
func (a *app) request(f *file, opts protocol.Options, keep bool, restore *link.State) {
	a.mu.Lock()
	a.seq++
	a.pending = &planJob{f, opts, a.seq, keep, restore}
	a.target, a.targetOpts = f, opts
	a.mu.Unlock()
	if restore == nil {
		a.share.opening = false // the user moved on from a link still opening
	}
	// The job in flight, if any, is stale now: the worker drops it at
	// once and the planner goroutine moves on to this one.
	planners().Call("cancel")
	select {
	case a.planReq <- struct{}{}:
	default: // a wake-up is already queued; it will take the newest job
	}
	a.post(events.Busy{File: f.name})
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
		if res.err == nil && res.answer > 0 {
			// The plan's tensors follow its proof; a newer request makes
			// the runtime give up waiting for them (null).
			if t := await(planners().Call("tensors", res.from, res.answer)); t.Type() == js.TypeObject {
				a.queue(func() { a.postTable(job, t.Get("data")) })
			}
		}
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
	// (protocol.WorkerEvent.Answer), to ask for its proof and tensors.
	from, answer int
	// Made by prepare before the plan reaches Update: the verdict and the
	// layout.
	verdict *planner.Fit
	layout  *viz.Layout
}

// prepare lays out a plan the worker answered with, and waits for its
// proof, which the worker makes meanwhile (protocol.WorkerEvent), in the
// planner goroutine: the work is done before the plan's Update, so the
// frame that shows the plan has only to post it. A plan whose proof
// fails, or never comes, is an error.
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
		proof := await(planners().Call("proof", res.from, res.answer))
		res.millis["proof"] = float64(time.Since(start).Microseconds()) / 1000
		if proof.Type() != js.TypeObject {
			res.err = &workerError{protocol.Error{Message: job.f.name + ": the planner stopped before it proved the plan", Kind: "stopped"}}
		} else if e := proof.Get("error"); e.Type() == js.TypeObject {
			var we planAnswer
			_ = jsconv.Decode(proof, &we)
			msg := protocol.Error{Message: job.f.name + ": the plan failed its proof", Kind: "bug"}
			if we.Error != nil && we.Error.Message != "" {
				msg = *we.Error
			}
			res.err = &workerError{msg}
		}
	}
}

// postTable sends the host the tensors of the plan on screen, for its
// table, unless a newer plan has come. The worker writes them once it has
// proven the plan, so the picture and the summary do not wait for them;
// a plan no worker made (the built-in example's) has them written here.
func (a *app) postTable(job *planJob, data js.Value) {
	if job.seq == a.seq && job.seq == a.planID && data.Truthy() {
		a.postWithTensors(events.Tensors{File: job.f.name}, data)
	}
}

// verdictOf is the plan's fit verdict: the worker's (planner.Judge's,
// with the symbols behind it), or for a plan no worker judged (the
// built-in example's) Judge's here.
func verdictOf(job *planJob, res *planResult) *planner.Fit {
	if res.fit != nil {
		return res.fit
	}
	return planner.Judge(res.plan, job.opts.Budget)
}

// planFile hands a file to the planner workers and waits for their
// answer, which prepare holds until the worker has proven it.
func (a *app) planFile(job *planJob) planResult {
	progress := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			a.post(events.Progress{File: job.f.name, Message: args[0].String()})
		}
		return nil
	})
	defer progress.Release()
	req := jsconv.Encode(protocol.PlanRequest{ID: job.seq, Name: job.f.name, Options: job.opts})
	return resultOf(job.f.name, await(planners().Call("plan", req, job.f.data, progress)))
}

// planners is the page's planner runtime (web/runtime.js), which
// viewer.js makes: its pool of workers, whose first worker decides which
// runs what (protocol.Portfolio).
func planners() js.Value { return js.Global().Get("memplanRuntime") }

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
func resultOf(name string, v js.Value) planResult {
	var ev planAnswer
	if err := jsconv.Decode(v, &ev); err != nil {
		return planResult{err: &workerError{protocol.Error{Message: fmt.Sprintf("%s: the planner's answer is unreadable (please report it): %v", name, err), File: name, Kind: "bug"}}}
	}
	if ev.Type != "planned" {
		e := protocol.Error{Message: name + ": the planner gave no answer", Kind: "stopped"}
		if ev.Error != nil && ev.Error.Message != "" {
			e = *ev.Error
		}
		return planResult{err: &workerError{e}}
	}
	start := time.Now()
	u := v.Get("plan")
	b := make([]byte, u.Get("byteLength").Int())
	js.CopyBytesToGo(b, u)
	p, err := planner.DecodeBinary(b)
	millis := map[string]float64{"decode": float64(time.Since(start).Microseconds()) / 1000}
	for _, k := range []string{"load", "plan", "encode"} {
		if t, ok := ev.Millis[k]; ok {
			millis[k] = t
		}
	}
	if err != nil {
		return planResult{err: &workerError{protocol.Error{Message: fmt.Sprintf("%s: the planner's answer is unreadable (please report it): %v", name, err), File: name, Kind: "bug"}}}
	}
	from := -1
	if f := v.Get("from"); f.Type() == js.TypeNumber {
		from = f.Int()
	}
	return planResult{plan: p, bytes: u, defaultAlignment: ev.DefaultAlignment, millis: millis, fit: ev.Fit, from: from, answer: ev.Answer}
}

// planAnswer is what the viewer reads of a worker's "planned" or
// "proof" event (protocol.WorkerEvent): only these fields, so that the
// viewer does not link the worker's other answers.
type planAnswer struct {
	Type             string             `json:"type"`
	Error            *protocol.Error    `json:"error"`
	DefaultAlignment int64              `json:"default_alignment"`
	Fit              *planner.Fit       `json:"fit"`
	Answer           int                `json:"answer"`
	Millis           map[string]float64 `json:"millis"`
}

// workerError is an error the worker reported, already described.
type workerError struct{ e protocol.Error }

func (w *workerError) Error() string { return w.e.Message }

// openDefault shows the default example from its embedded plan, so the
// first picture needs neither the worker nor a plan; new options re-plan
// the example's graph in the worker. The plan is in planner's binary form
// and proven when it was made (examples.DefaultPlan): the viewer links
// neither the plan record's reader nor the proof.
func (a *app) openDefault() {
	graph, err := examples.FS.ReadFile(examples.Default)
	var p *planner.Plan
	if err == nil {
		p, err = planner.DecodeBinary(examples.DefaultPlan)
	}
	if err != nil {
		a.postError(fmt.Errorf("the built-in example cannot be shown: %v", err))
		return
	}
	a.mu.Lock()
	a.seq++
	job := &planJob{f: &file{name: examples.Default, data: uint8Array(graph), example: examples.Default}, opts: a.opts, seq: a.seq}
	bin := uint8Array(examples.DefaultPlan)
	a.planBytes = bin
	a.target, a.targetOpts = job.f, job.opts
	a.mu.Unlock()
	a.queue(func() {
		a.planned(job, planResult{plan: p, defaultAlignment: planner.DefaultGraphAlignment, record: bin})
	})
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
		a.postErrorOf(res.err, job.f.name)
		if job.restore != nil {
			a.share.opening = false // the link failed; the view on screen is the state
		}
		return
	}
	a.cur = job.f
	if res.bytes.Truthy() {
		a.planBytes = res.bytes
	}
	a.mu.Lock()
	a.opts, a.target, a.targetOpts = job.opts, a.cur, job.opts
	a.mu.Unlock()
	if res.layout == nil { // a plan not from the worker: prepare waits for nothing
		a.prepare(job, &res)
	}
	fit, l := res.verdict, res.layout
	a.view.SetLayout(l, job.keep)
	a.table.Planned()                // this plan's own table follows its summary
	a.dropHand()                     // the placement was of the plan this one replaces
	a.camSeen = a.view.Cam.Visible() // a new plan's own fit is no one's move
	a.planID, a.planFrom, a.record = job.seq, max(res.from, 0), res.record
	a.millis = res.millis
	a.hovered(viz.None, -1, -1) // what was under the pointer is gone
	start := time.Now()
	s := summary(l)
	// The alignment the page asked for (0: none) and the one it would get
	// by asking none, so it can say which applied.
	s.AlignmentChosen, s.DefaultAlignment = job.opts.Alignment, res.defaultAlignment
	s.Fit = fit
	// The snippet that embeds this file as planned here; embed.js lies
	// beside the viewer.
	script := js.Global().Get("URL").New("embed.js", js.Global().Get("location").Get("href")).Get("href").String()
	params := false
	for i := range l.Plan.Tensors {
		params = params || l.Plan.Tensors[i].Kind == planner.KindParam
	}
	s.Embed = protocol.EmbedSnippet(script, job.f.name, job.opts, params)
	s.Rows = summaryRows(&s)
	s.FitChoices = protocol.PlanFitChoices(job.f.name, l.Plan.Symbols, job.opts)
	a.post(events.Summary{File: job.f.name, Summary: s})
	a.millis["summary"] = float64(time.Since(start).Microseconds()) / 1000
	if res.answer <= 0 { // a worker's plan's tensors come from the worker (planner)
		a.postTable(job, uint8Array(planner.AppendTableJSON(nil, l.Plan.Tensors)))
	}
	a.postSelect(a.view.Selected)
	if job.restore != nil {
		a.restoreView(job.restore)
	}
	if a.view.Cursor >= 0 {
		a.postCursor() // the same step of the new plan
	}
	if !a.viewerWarmed && job.f.example == examples.Default {
		// The first picture is up: the viewer warms up from the next frame.
		a.viewerWarmed = true
		a.warmViewer(warmRounds)
	}
}
