//go:build js && wasm

// Command worker is memplan's planner for the browser, without the
// canvas: it runs in a Web Worker (web/worker.js), so a long plan never
// stalls the page's frames or input, and a newer request cancels an older
// one. It reads files through planner.Load and answers with verified plan
// records; the messages are protocol.PlanRequest and protocol.WorkerEvent.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"memplan/examples"
	"memplan/ir"
	_ "memplan/ir/onnx"
	"memplan/planner"
	"memplan/viz/svgplot"
	"memplan/wasm/protocol"
)

type worker struct {
	mu      sync.Mutex
	cancel  context.CancelFunc // the request in flight, if any
	id      int                // and its id
	running sync.Mutex         // one plan at a time: a cancelled one ends first
	// The last plan this worker made (or was handed to explain) and the
	// request id it answered: the viewer asks the worker whose plan it
	// shows why a tensor sits where it does.
	explainKey  int
	explainPlan *planner.Plan
	// The last shard of auto this worker planned: the viewer asks the
	// shard whose answer won to improve it (polish).
	shard *shardAnswer
	// A held shard's request (PlanRequest.Hold) and what releases it.
	heldID  int
	release chan struct{}
	// answers counts the "planned" events posted; tensorsJSON is the
	// buffer their "tensors" events are written in, kept for the next
	// plan (see send).
	answers     int
	tensorsJSON []byte
}

// shardAnswer is what polishing a shard's answer needs.
type shardAnswer struct {
	req              protocol.PlanRequest
	data             []byte // the file, to say which symbols drive a size
	prob             *planner.Problem
	place            planner.Placement
	format           string
	defaultAlignment int64
}

func main() {
	// The collector runs less often than Go's default, which a profile
	// showed costing a fifth of planning time in wasm; the memory limit
	// still holds the heap below what the page allows.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(planner.BrowserMemoryLimit + planner.BrowserMemoryLimit/2)
	w := &worker{}
	api := js.Global().Get("Object").New()
	api.Set("handle", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			w.handle(args[0])
		}
		return nil
	}))
	js.Global().Set("memplanWorker", api)
	post(protocol.WorkerEvent{Type: "ready", Version: protocol.Version})
	if ready := js.Global().Get("memplanWorkerReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // serve requests until the worker is terminated
}

// handle takes a request: {type: "plan", id, name, data, options},
// {type: "fit", id, name, data, options, symbol} (answered "fitted"),
// {type: "explain", id, key, name, tensor[, plan]}, {type: "diff", id, a,
// b} with each side {name, data, options} or {example, options}, or
// {type: "cancel", id} (no id: whatever is in flight).
func (w *worker) handle(m js.Value) {
	switch m.Get("type").String() {
	case "explain":
		id := m.Get("id").Int()
		e, err := w.explain(m)
		if err != nil {
			post(protocol.WorkerEvent{Type: "error", ID: id, Error: protocol.ErrorOf(err)})
			return
		}
		post(protocol.WorkerEvent{Type: "explained", ID: id, Explanation: e})
	case "cancel":
		w.mu.Lock()
		if id := m.Get("id"); w.cancel != nil && (id.Type() != js.TypeNumber || id.Int() == w.id) {
			w.cancel()
		}
		w.mu.Unlock()
	case "export":
		var req protocol.ExportRequest
		err := fieldsOf(m, &req)
		var data []byte
		if err == nil {
			data, err = bytesOf(m.Get("plan"))
		}
		if err != nil {
			post(protocol.WorkerEvent{Type: "error", ID: req.ID, Error: protocol.ErrorOf(err)})
			return
		}
		go func() {
			ev, out := export(req, data)
			ev.ID = req.ID
			postBytes(ev, "data", out)
		}()
	case "release":
		w.mu.Lock()
		if w.release != nil && m.Get("id").Int() == w.heldID {
			close(w.release)
			w.release = nil
		}
		w.mu.Unlock()
	case "warm":
		w.warm(m.Get("id").Int())
	case "polish":
		w.polish(m.Get("id").Int())
	case "plan", "fit":
		var req protocol.PlanRequest
		req.ID = m.Get("id").Int()
		req.Name = m.Get("name").String()
		if v := m.Get("shards"); v.Type() == js.TypeNumber {
			req.Shard, req.Shards = m.Get("shard").Int(), v.Int()
		}
		req.Hold = m.Get("hold").Truthy()
		data, err := bytesOf(m.Get("data"))
		if err == nil {
			err = optionsOf(m.Get("options"), &req.Options)
		}
		if err != nil {
			post(protocol.WorkerEvent{Type: "error", ID: req.ID, Error: protocol.ErrorOf(err)})
			return
		}
		ctx := w.supersede(req.ID)
		if m.Get("type").String() == "fit" {
			req.Symbol = m.Get("symbol").String()
			go func() {
				w.running.Lock()
				defer w.running.Unlock()
				ev := largest(ctx, req, data)
				ev.ID = req.ID
				post(ev)
			}()
			return
		}
		var hold chan struct{}
		if req.Hold {
			hold = make(chan struct{})
			w.mu.Lock()
			w.heldID, w.release = req.ID, hold
			w.mu.Unlock()
		}
		go w.run(ctx, req, data, hold)
	case "diff":
		id := m.Get("id").Int()
		var sides [2]diffSide
		for k, key := range []string{"a", "b"} {
			v := m.Get(key)
			sides[k].Name = v.Get("name").String()
			var data []byte
			var err error
			if ex := v.Get("example"); ex.Type() == js.TypeString {
				// A built-in example, as the viewer offers them.
				sides[k].Name = path.Base(ex.String())
				if data, err = examples.FS.ReadFile(sides[k].Name); err != nil {
					err = fmt.Errorf("no built-in example %s", ir.Quote(sides[k].Name))
				}
			} else {
				data, err = bytesOf(v.Get("data"))
			}
			if err == nil {
				err = optionsOf(v.Get("options"), &sides[k].Options)
			}
			if err != nil {
				post(protocol.WorkerEvent{Type: "error", ID: id, Error: protocol.ErrorOf(fmt.Errorf("side %s: %w", key, err))})
				return
			}
			sides[k].data = data
		}
		ctx := w.supersede(id)
		go func() {
			w.running.Lock()
			defer w.running.Unlock()
			ev := diff(ctx, sides)
			ev.ID = id
			post(ev)
		}()
	}
}

// supersede makes request id the one in flight, cancelling any other,
// and returns its context.
func (w *worker) supersede(id int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.cancel, w.id = cancel, id
	w.mu.Unlock()
	return ctx
}

// explain answers why a tensor of plan key (the id of the request this
// worker planned, or a plan in planner's binary form handed along: the
// viewer's embedded one) lives when and sits where it does. It plans
// nothing: the plan's placement order and rule say it.
func (w *worker) explain(m js.Value) (*planner.Explanation, error) {
	key, name := m.Get("key").Int(), m.Get("name").String()
	w.mu.Lock()
	p := w.explainPlan
	if key != w.explainKey {
		p = nil
	}
	w.mu.Unlock()
	if p == nil {
		if v := m.Get("plan"); v.IsUndefined() || v.IsNull() {
			return nil, fmt.Errorf("%s: the planner no longer holds this plan; plan it again to explain it", name)
		}
		data, err := bytesOf(m.Get("plan"))
		if err == nil {
			p, err = planner.DecodeBinary(data)
		}
		if err == nil {
			err = planner.Verify(p)
		}
		if err != nil {
			return nil, err
		}
		w.keep(key, p)
	}
	return planner.Explain(p, m.Get("tensor").String())
}

// keep holds plan p, made for request id, for explain.
func (w *worker) keep(id int, p *planner.Plan) {
	w.mu.Lock()
	w.explainKey, w.explainPlan = id, p
	w.mu.Unlock()
}

type diffSide struct {
	protocol.DiffSide
	data []byte
}

// diff plans both sides of a comparison (or takes their plan records as
// they are) and compares them. Each side plans in this one worker, with
// the whole portfolio: comparisons are of files small enough to read.
func diff(ctx context.Context, sides [2]diffSide) (ev protocol.WorkerEvent) {
	defer func() {
		if r := recover(); r != nil {
			ev = protocol.WorkerEvent{Type: "error", Error: &protocol.Error{Message: fmt.Sprintf("internal error while comparing (please report it): %v", r), Kind: "bug"}}
		}
	}()
	var plans [2]*planner.Plan
	var labels [2]string
	for k, s := range sides {
		o := s.Options
		in, err := planner.Load(s.Name, s.data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit, IfBranch: o.IfBranch})
		if err != nil {
			return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
		}
		p := in.Plan
		if p == nil {
			prob, err := planner.Lower(in.Source, o.Options)
			if err == nil {
				p, _, err = planner.PlanProblem(ctx, prob, o.Strategy, planner.PlaceOptions{Yield: yielder()})
			}
			if ctx.Err() != nil {
				return cancelled()
			}
			if err != nil {
				return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
			}
		}
		plans[k], labels[k] = p, planner.DiffLabel(s.Name, p, in.Plan != nil)
	}
	// The page shows the record; the text table (tabwriter, 9 kB of
	// wasm) is the command line's.
	ev = protocol.WorkerEvent{Type: "diffed", Diff: planner.DiffPlans(plans[0], plans[1], labels[0], labels[1])}
	for _, p := range plans {
		b, err := json.Marshal(p)
		if err != nil {
			return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
		}
		ev.Plans = append(ev.Plans, string(b))
	}
	return ev
}

func (w *worker) run(ctx context.Context, req protocol.PlanRequest, data []byte, hold <-chan struct{}) {
	w.running.Lock()
	defer w.running.Unlock()
	ev, bin, p, shard, prove := plan(ctx, req, data, hold)
	ev.ID = req.ID
	w.mu.Lock()
	w.shard = shard
	w.mu.Unlock()
	w.send(ev, bin, p, prove, true)
}

// send posts a plan request's answer: the event with the plan beside it
// in binary form and, when there is a plan p, a "tensors" event after it.
// That event is the plan's proof: prove (nil for a record Load proved)
// runs after the plan is posted, while the viewer decodes and lays it
// out, and the event carries its error, or else p's tensors in JSON for
// the summary. The viewer shows no plan before it. keep holds p for
// explain once proven. The caller holds w.running.
func (w *worker) send(ev protocol.WorkerEvent, bin []byte, p *planner.Plan, prove func() error, keep bool) {
	if p == nil {
		postBytes(ev, "plan", bin)
		return
	}
	w.answers++
	ev.Answer = w.answers
	postBytes(ev, "plan", bin)
	proof := protocol.WorkerEvent{Type: "tensors", ID: ev.ID, Answer: ev.Answer}
	if prove != nil {
		if err := prove(); err != nil {
			proof.Error = protocol.ErrorOf(err)
			post(proof)
			return
		}
	}
	if keep {
		w.keep(ev.ID, p)
	}
	// The buffer is kept: ten megabytes for 62,000 tensors, and memory
	// the page has written before costs far less than fresh memory.
	w.tensorsJSON = planner.AppendTensorsJSON(w.tensorsJSON[:0], p.Tensors)
	postBytes(proof, "data", w.tensorsJSON)
	// Collect now, while the worker waits for its next request: the
	// garbage of this plan is the room the next one plans in. A heap
	// that grew into fresh memory instead cost Y_1's second and third
	// drops 0.4 s each here (as many drops as it took to stop growing);
	// the plan itself no longer grows it once it is the size of one plan.
	runtime.GC()
}

// plan loads and plans one file, and returns the plan too, which the
// worker keeps to explain. A panic is reported as a bug in memplan
// with the file's name: the worker survives to plan the next file.
// A plan comes back in planner's binary form, with prove, which runs
// planner.VerifyAgainst on a plan made here (send runs it once the plan
// is on its way); a record Load read is proven already (prove nil).
//
// hold, if not nil, closes when a held shard (PlanRequest.Hold) may place:
// it loads and lowers its file meanwhile.
func plan(ctx context.Context, req protocol.PlanRequest, data []byte, hold <-chan struct{}) (ev protocol.WorkerEvent, bin []byte, kept *planner.Plan, shard *shardAnswer, prove func() error) {
	defer func() {
		if r := recover(); r != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while planning (please report it): %v", req.Name, r), File: req.Name, Kind: "bug"}
			ev, bin, kept, shard, prove = protocol.WorkerEvent{Type: "error", Error: e}, nil, nil, nil, nil
		}
	}()
	if ctx.Err() != nil {
		return cancelled(), nil, nil, nil, nil
	}
	o := req.Options
	millis, lap := stopwatch()
	in, err := planner.Load(req.Name, data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit, IfBranch: o.IfBranch})
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, nil, nil, nil
	}
	lap("load")
	p, member := in.Plan, -1
	var prob *planner.Problem
	if p == nil {
		progress := func(msg string) { post(protocol.WorkerEvent{Type: "progress", ID: req.ID, Message: msg}) }
		popts := planner.PlaceOptions{Yield: yielder(), Progress: progress, Shard: req.Shard, Shards: req.Shards, NodeLimit: o.NodeLimit, Budget: o.Budget}
		prob, err = planner.Lower(in.Source, o.Options)
		if err == nil && req.Shards > 1 && req.Shard == 0 {
			// The viewer holds the other shards until this one releases
			// them (web/viewer.js): at once, or on a large problem once
			// auto's first member has missed the bound.
			release := func() { post(protocol.WorkerEvent{Type: "release", ID: req.ID}) }
			if !planner.FirstMemberAlone(prob) {
				release()
			} else {
				popts.MemberDone = func(member int, atBound bool) {
					if member == 0 && !atBound {
						release()
					}
				}
			}
		}
		if err == nil && hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return cancelled(), nil, nil, nil, nil
			}
		}
		var pl planner.Placement
		if err == nil {
			p, pl, prove, err = placeAndRecord(ctx, prob, o.Strategy, popts, req.Name)
			member = pl.Member
		}
		if ctx.Err() != nil {
			return cancelled(), nil, nil, nil, nil
		}
		if err == nil && req.Shards > 1 && pl.Strategy == "auto" {
			shard = &shardAnswer{req: req, data: data, prob: prob, place: pl}
		}
	}
	ev, bin, err = answer(req, data, prob, p, err, member, millis, lap)
	if err != nil {
		return ev, nil, nil, nil, nil
	}
	ev.Format = in.Format
	if in.Source != nil {
		ev.DefaultAlignment = planner.DefaultAlignment(in.Format)
	}
	if shard != nil {
		shard.format, shard.defaultAlignment = ev.Format, ev.DefaultAlignment
	}
	return ev, bin, p, shard, prove
}

// placeAndRecord is planner.PlanProblemUnproven, whose proof send runs
// once the plan is on its way to the viewer: Verify is a tenth of a
// large plan's time, and the viewer decodes the plan meanwhile. A panic
// in the proof fails it, as a bug, with the file's name.
func placeAndRecord(ctx context.Context, prob *planner.Problem, strategy string, popts planner.PlaceOptions, name string) (*planner.Plan, planner.Placement, func() error, error) {
	p, pl, prove, err := planner.PlanProblemUnproven(ctx, prob, strategy, popts)
	if err != nil {
		return nil, pl, nil, err
	}
	guarded := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = &planner.UnverifiedPlanError{Strategy: pl.Strategy, Err: fmt.Errorf("%s: internal error while verifying: %v", name, r)}
			}
		}()
		return prove()
	}
	return p, pl, guarded, nil
}

// stopwatch returns where a request's time went, in milliseconds by
// phase, and the function that ends the current phase under a name.
func stopwatch() (map[string]float64, func(string)) {
	start := time.Now()
	millis := map[string]float64{}
	return millis, func(what string) {
		millis[what] = float64(time.Since(start).Microseconds()) / 1000
		start = time.Now()
	}
}

// answer makes the worker's answer to a plan request: plan p of problem
// prob (nil for a plan record read as it is), or the error err that
// planning it met, judged against the request's WebGPU device. The
// error it returns says only that the event is an error event.
func answer(req protocol.PlanRequest, data []byte, prob *planner.Problem, p *planner.Plan, err error, member int, millis map[string]float64, lap func(string)) (protocol.WorkerEvent, []byte, error) {
	var fit *planner.Fit
	var tooLarge *planner.LimitError
	if errors.As(err, &tooLarge) {
		// No plan binds these tensors: the error is the fit report.
		fit = planner.FitOfLimits(tooLarge)
		_ = planner.ExplainFit(fit, prob.Symbols, relower(req, data)) // best effort: the verdict stands without
		e := protocol.ErrorOf(err)
		e.Message = strings.Join(append([]string{fit.Text}, fit.Lines...), "\n")
		return protocol.WorkerEvent{Type: "error", Error: e, Fit: fit}, nil, err
	}
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, err
	}
	if prob != nil {
		if fit = p.FitGPU(); fit != nil && !fit.Fits {
			_ = planner.ExplainFit(fit, prob.Symbols, relower(req, data)) // best effort, as above
		}
	}
	lap("plan")
	bin, err := p.AppendBinary(nil)
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, err
	}
	lap("encode")
	return protocol.WorkerEvent{Type: "planned", Millis: millis, Arena: p.ArenaSize, Optimal: p.Optimal || p.OptimalBySearch, Member: member, Fit: fit}, bin, nil
}

// polish answers a "polish" request: the viewer split auto's portfolio
// over its workers, and this worker's shard won request id; it gives its
// answer the improvement slice the whole portfolio gives its best
// (planner.PlaceOptions.From), so the page makes the command line's plan.
// Its answer is "planned", for id, like the shard's own.
func (w *worker) polish(id int) {
	ctx := w.supersede(id)
	w.mu.Lock()
	shard := w.shard
	w.mu.Unlock()
	go func() {
		w.running.Lock()
		defer w.running.Unlock()
		if shard == nil || shard.req.ID != id {
			post(protocol.WorkerEvent{Type: "error", ID: id, Error: &protocol.Error{Message: "this worker no longer holds that answer", Kind: "cancelled"}})
			return
		}
		ev, bin, p, prove := polished(ctx, shard)
		ev.ID = id
		w.send(ev, bin, p, prove, true)
	}()
}

func polished(ctx context.Context, s *shardAnswer) (ev protocol.WorkerEvent, bin []byte, kept *planner.Plan, prove func() error) {
	defer func() {
		if r := recover(); r != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while improving a plan (please report it): %v", s.req.Name, r), File: s.req.Name, Kind: "bug"}
			ev, bin, kept, prove = protocol.WorkerEvent{Type: "error", Error: e}, nil, nil, nil
		}
	}()
	millis, lap := stopwatch()
	popts := planner.PlaceOptions{Yield: yielder(), From: &s.place, NodeLimit: s.req.Options.NodeLimit}
	p, pl, prove, err := placeAndRecord(ctx, s.prob, "auto", popts, s.req.Name)
	if ctx.Err() != nil {
		return cancelled(), nil, nil, nil
	}
	ev, bin, err = answer(s.req, s.data, s.prob, p, err, pl.Member, millis, lap)
	if err != nil {
		return ev, nil, nil, nil
	}
	ev.Format, ev.DefaultAlignment = s.format, s.defaultAlignment
	return ev, bin, p, prove
}

// largest finds the largest value of req.Symbol for which the file's
// plan fits the options' WebGPU device (protocol.FitSearch), and says why
// the next value does not.
func largest(ctx context.Context, req protocol.PlanRequest, data []byte) (ev protocol.WorkerEvent) {
	defer func() {
		if r := recover(); r != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while fitting (please report it): %v", req.Name, r), File: req.Name, Kind: "bug"}
			ev = protocol.WorkerEvent{Type: "error", Error: e}
		}
	}()
	fail := func(err error) protocol.WorkerEvent {
		if ctx.Err() != nil {
			return cancelled()
		}
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
	}
	o := req.Options
	if o.GPU == nil {
		return fail(errors.New("the largest size that fits needs a WebGPU device: choose one under Options"))
	}
	if req.Symbol == "" {
		return fail(errors.New("the largest size that fits needs a symbol"))
	}
	s := protocol.FitSearch(o, req.Symbol, relower(req, data))
	s.Place.Yield = yielder()
	r, err := planner.LargestFit(ctx, s)
	if err == nil {
		err = r.Explain(s)
	}
	if err != nil {
		return fail(err)
	}
	r.Describe(o.GPU)
	return protocol.WorkerEvent{Type: "fitted", Largest: r}
}

// relower reads the request's file again with other symbol values, for
// the fit report's question of which symbols drive a size.
func relower(req protocol.PlanRequest, data []byte) func(map[string]int64) (*planner.Problem, error) {
	return func(syms map[string]int64) (*planner.Problem, error) {
		in, err := planner.Load(req.Name, data, ir.DecodeOptions{Symbols: syms, MaxMemory: planner.BrowserMemoryLimit, IfBranch: req.Options.IfBranch})
		if err != nil {
			return nil, err // the decoder's error says where (the fit search reads ir.Error)
		}
		if in.Source == nil {
			return nil, fmt.Errorf("%s: a plan record has no symbols to change", req.Name)
		}
		o := req.Options.Options
		o.Symbols = syms
		return planner.Lower(in.Source, o)
	}
}

// export writes the plan as the file the request names. The plan is
// proven again first: only a verified plan leaves as a file.
func export(req protocol.ExportRequest, data []byte) (protocol.WorkerEvent, []byte) {
	fail := func(err error) (protocol.WorkerEvent, []byte) {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil
	}
	p, err := planner.DecodeBinary(data)
	if err == nil {
		err = planner.Verify(p)
	}
	if err != nil {
		return fail(err)
	}
	ev := protocol.WorkerEvent{Type: "exported"}
	var out []byte
	switch req.What {
	case "svg":
		var b bytes.Buffer
		err = svgplot.Write(&b, p, svgplot.Options{Theme: req.Theme, Budget: req.Budget})
		out, ev.Name, ev.Mime = b.Bytes(), req.Name+".svg", "image/svg+xml"
	case "plan":
		out, err = json.MarshalIndent(p, "", "  ")
		out = append(out, '\n')
		ev.Name, ev.Mime = req.Name+".plan.json", "application/json"
	case "csv":
		out, err = p.AppendBufferCSV(nil)
		ev.Name, ev.Mime = req.Name+".csv", "text/csv"
	default:
		err = fmt.Errorf("export: unknown kind %q (want svg, plan or csv)", req.What)
	}
	if err != nil {
		return fail(err)
	}
	return ev, out
}

// fieldsOf reads a request's fields (all but its bytes) through JSON.
func fieldsOf(m js.Value, v any) error {
	text := js.Global().Get("JSON").Call("stringify", m, js.Global().Get("Array").New("id", "what", "name", "theme", "budget")).String()
	return json.Unmarshal([]byte(text), v)
}

func cancelled() protocol.WorkerEvent {
	return protocol.WorkerEvent{Type: "error", Error: &protocol.Error{Message: "superseded by a newer request", Kind: "cancelled"}}
}

// yielder lets the worker's event loop take a message (a newer request
// that cancels this one) now and then. Go's wasm has no preemption: only
// a goroutine that blocks, here on a timer, hands JavaScript a turn. No
// frames are drawn here, so a turn every 100 ms costs a few percent.
func yielder() func() {
	const slice = 100 * time.Millisecond
	last := time.Now()
	return func() {
		if time.Since(last) < slice {
			return
		}
		time.Sleep(time.Millisecond)
		last = time.Now()
	}
}

// post sends an event to the worker's owner. Events go through JSON so
// a Go value becomes a JS object in one JSON.parse.
func post(ev protocol.WorkerEvent) {
	js.Global().Call("postMessage", encode(ev))
}

// postBytes sends an event with b beside it under key as a Uint8Array,
// its buffer transferred rather than copied; with b nil, the event alone.
func postBytes(ev protocol.WorkerEvent, key string, b []byte) {
	if b == nil {
		post(ev)
		return
	}
	u := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u, b)
	obj := encode(ev)
	obj.Set(key, u)
	js.Global().Call("postMessage", obj, []any{u.Get("buffer")})
}

func encode(ev protocol.WorkerEvent) js.Value {
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(protocol.WorkerEvent{Type: "error", ID: ev.ID, Error: protocol.ErrorOf(err)})
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

func bytesOf(v js.Value) ([]byte, error) {
	switch {
	case v.InstanceOf(js.Global().Get("ArrayBuffer")):
		v = js.Global().Get("Uint8Array").New(v)
	case v.InstanceOf(js.Global().Get("Uint8Array")):
	default:
		return nil, errors.New("the file's data is not an ArrayBuffer or Uint8Array")
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b, nil
}

func optionsOf(v js.Value, o *protocol.Options) error {
	o.Options = planner.DefaultOptions()
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	text := js.Global().Get("JSON").Call("stringify", v).String()
	if err := json.Unmarshal([]byte(text), o); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if err := protocol.ResolveGPU(o); err != nil {
		return err
	}
	return o.Resolve()
}
