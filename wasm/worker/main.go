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
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"memplan/ir"
	_ "memplan/ir/onnx"
	"memplan/planner"
	"memplan/viz/svgplot"
	"memplan/wasm/heap"
	"memplan/wasm/jsconv"
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
	// The request this worker, the pool's first, coordinates.
	portfolio   *protocol.Portfolio
	portfolioID int
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
	// A large file's plan grows the heap to 100-200 MB: grown at once,
	// before any request, it costs less (wasm/heap).
	heap.Reserve(128 << 20)
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

// handle takes a message (protocol.WorkerRequest). One that does not
// read is an error event naming its field, and changes nothing.
func (w *worker) handle(m js.Value) {
	t, err := jsconv.Tree(m)
	var r protocol.WorkerRequest
	if err == nil {
		r, err = protocol.DecodeWorkerRequest(t)
	}
	if err != nil {
		post(protocol.WorkerEvent{Type: "error", ID: r.ID, Error: &protocol.Error{Message: err.Error(), Kind: "message"}})
		return
	}
	fail := func(err error) { post(protocol.WorkerEvent{Type: "error", ID: r.ID, Error: protocol.ErrorOf(err)}) }
	switch r.Type {
	case "explain":
		e, err := w.explain(r)
		if err != nil {
			fail(err)
			return
		}
		post(protocol.WorkerEvent{Type: "explained", ID: r.ID, Explanation: e})
	case "cancel":
		w.mu.Lock()
		if w.cancel != nil && (!r.HasID || r.ID == w.id) {
			w.cancel()
		}
		w.mu.Unlock()
	case "export":
		data, err := jsconv.Copy(r.Plan)
		if err != nil {
			fail(err)
			return
		}
		go func() {
			ev, out := export(protocol.ExportRequest{ID: r.ID, What: r.What, Name: r.Name, Theme: r.Theme, Budget: r.Budget, Width: r.Width, Height: r.Height}, data)
			ev.ID = r.ID
			postBytes(ev, "data", out)
		}()
	case "verify":
		source, err := jsconv.Copy(r.Data)
		var record []byte
		if err == nil {
			record, err = jsconv.Copy(r.Plan)
		}
		if err == nil {
			err = withForward(&r.Options, r.ForwardName, r.Forward)
		}
		if err != nil {
			fail(err)
			return
		}
		go func() {
			ev := verify(r, source, record)
			ev.ID = r.ID
			post(ev)
		}()
	case "release":
		w.mu.Lock()
		if w.release != nil && r.ID == w.heldID {
			close(w.release)
			w.release = nil
		}
		w.mu.Unlock()
	case "check":
		// Before a byte of the file is read (the element's fetch asks;
		// the package's, with its options: their memory limit).
		limit := r.Options.MemoryLimit()
		err := planner.CheckInput(r.Name, r.Size, limit)
		if r.Over {
			err = planner.StreamTooLarge(r.Name, limit)
		}
		ev := protocol.WorkerEvent{Type: "checked", ID: r.ID, Limit: planner.MaxInputBytes(limit)}
		if err != nil {
			ev.Error = protocol.ErrorOf(err)
		}
		post(ev)
	case "warm":
		w.warm(r.ID)
	case "polish":
		w.polish(r.ID)
	case "heard":
		w.heard(r)
	case "plan", "fit":
		req := r.PlanRequest
		if r.Attributes != nil {
			// An element's attributes, read here: the page parses none.
			req.Options, err = protocol.OptionsFromAttributes(r.Attributes)
		}
		if err == nil {
			// A fit search's symbol needs no value: each trial gives it one.
			err = resolve(&req.Options, map[bool]string{true: req.Symbol}[r.Type == "fit"])
		}
		if err == nil {
			err = withForward(&req.Options, r.ForwardName, r.Forward)
		}
		if err != nil {
			if req.Pool > 0 { // the pool waits for the request's outcome
				post(protocol.WorkerEvent{Type: "outcome", ID: req.ID, Outcome: &protocol.Outcome{Error: protocol.ErrorOf(err)}})
				return
			}
			fail(err)
			return
		}
		if r.Type == "plan" && req.Pool > 0 {
			w.coordinate(req)
			return
		}
		data, err := jsconv.Copy(r.Data)
		if err != nil {
			fail(err)
			return
		}
		ctx := w.supersede(req.ID)
		if r.Type == "fit" {
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
		var sides [2]diffSide
		for k, d := range []*protocol.DiffRequest{r.A, r.B} {
			key := string(rune('a' + k))
			if d == nil {
				fail(fmt.Errorf("side %s is missing", key))
				return
			}
			var data []byte
			var err error
			sides[k].Name = d.Name
			data, err = jsconv.Copy(d.Data)
			if err == nil {
				sides[k].Options = d.Options
				err = resolve(&sides[k].Options, "")
			}
			if err == nil {
				err = withForward(&sides[k].Options, d.ForwardName, d.Forward)
			}
			if err != nil {
				fail(fmt.Errorf("side %s: %w", key, err))
				return
			}
			sides[k].data = data
		}
		ctx := w.supersede(r.ID)
		go func() {
			w.running.Lock()
			defer w.running.Unlock()
			ev := diff(ctx, sides)
			ev.ID = r.ID
			post(ev)
		}()
	default:
		fail(fmt.Errorf("unknown message type %q", r.Type))
	}
}

// coordinate starts a request the pool sent this worker, its first, to
// split over the pool (protocol.Portfolio): it posts the routes, and the
// pool carries each to its worker, this one included. Only the newest
// request is coordinated.
func (w *worker) coordinate(req protocol.PlanRequest) {
	p, routes := protocol.StartPortfolio(req, req.Pool)
	w.mu.Lock()
	w.portfolio, w.portfolioID = p, req.ID
	w.mu.Unlock()
	w.follow(req.ID, routes, nil)
}

// coordinates reports whether this worker runs request id's Portfolio.
func (w *worker) coordinates(id int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.portfolio != nil && w.portfolioID == id
}

// heard takes a worker's answer for the request this worker coordinates.
func (w *worker) heard(r protocol.WorkerRequest) {
	w.mu.Lock()
	p := w.portfolio
	if r.ID != w.portfolioID {
		p = nil
	}
	w.mu.Unlock()
	if p == nil || r.Event == nil {
		return
	}
	routes, out := p.Heard(r.From, *r.Event)
	w.follow(r.ID, routes, out)
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
func (w *worker) explain(r protocol.WorkerRequest) (*planner.Explanation, error) {
	w.mu.Lock()
	p := w.explainPlan
	if r.Key != w.explainKey {
		p = nil
	}
	w.mu.Unlock()
	if p == nil {
		if r.Plan == nil {
			return nil, fmt.Errorf("%s: the planner no longer holds this plan; plan it again to explain it", r.Name)
		}
		data, err := jsconv.Copy(r.Plan)
		if err == nil {
			p, err = planner.DecodeBinary(data)
		}
		if err == nil {
			err = planner.Verify(p)
		}
		if err != nil {
			return nil, err
		}
		w.keep(r.Key, p)
	}
	return planner.Explain(p, r.Tensor)
}

// keep holds plan p, made for request id, for explain.
func (w *worker) keep(id int, p *planner.Plan) {
	w.mu.Lock()
	w.explainKey, w.explainPlan = id, p
	w.mu.Unlock()
}

type diffSide struct {
	Name    string
	Options protocol.Options
	data    []byte
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
		popts := o.PlaceOptions(planner.PlaceOptions{Yield: yielder()})
		// The forward graph first, as the command line's diff plans it.
		err := protocol.PlanForward(ctx, &o, popts)
		var in *planner.Input
		if err == nil {
			in, err = planner.Load(s.Name, s.data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: o.MemoryLimit(), IfBranch: o.IfBranch})
		}
		if ctx.Err() != nil {
			return cancelled()
		}
		if err != nil {
			return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
		}
		p := in.Plan
		if p == nil {
			prob, err := planner.Lower(in.Source, o.Options)
			if err == nil {
				p, _, err = planner.PlanProblem(ctx, prob, o.Strategy, popts)
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
		b, err := ir.EncodeJSON(p, "")
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
	// Shard 0 lets the held shards place by telling the Portfolio, which
	// runs here, on the pool's first worker.
	release := func() { w.tell(req.ID, protocol.Heard{Type: "release"}) }
	ev, bin, p, shard, prove := plan(ctx, req, data, hold, release)
	ev.ID = req.ID
	w.mu.Lock()
	w.shard = shard
	w.mu.Unlock()
	w.send(ev, bin, p, prove, true)
}

// tell hands the Portfolio of request id, which this worker coordinates,
// its own answer, at once: through the pool it would wait behind the
// proof this worker makes next.
func (w *worker) tell(id int, h protocol.Heard) {
	w.mu.Lock()
	p := w.portfolio
	if id != w.portfolioID {
		p = nil
	}
	w.mu.Unlock()
	if p != nil {
		routes, out := p.Heard(0, h)
		w.follow(id, routes, out)
	}
}

// follow posts what a Portfolio's step calls for.
func (w *worker) follow(id int, routes []protocol.Route, out *protocol.Outcome) {
	for _, rt := range routes {
		post(protocol.WorkerEvent{Type: "route", ID: id, Route: &rt})
	}
	if out != nil {
		post(protocol.WorkerEvent{Type: "outcome", ID: id, Outcome: out})
	}
}

// send posts a plan request's answer: the event with the plan beside it
// in binary form and, when there is a plan p, a "proof" event after it:
// prove (nil for a record Load proved) runs after the plan is posted,
// while the viewer decodes and lays it out, and the event carries its
// error. The viewer shows no plan before it. A proven plan's tensors
// follow in JSON, for the host's table, in a "tensors" event. keep holds
// p for explain once proven. The caller holds w.running.
func (w *worker) send(ev protocol.WorkerEvent, bin []byte, p *planner.Plan, prove func() error, keep bool) {
	// A coordinated request's answer (keep: a shard or the polish) goes to
	// its Portfolio: straight from here on the pool's first worker, which
	// runs it, else through the pool, which forwards Heard. Not before
	// the answer itself is posted: the outcome names it.
	coordinated := keep
	self := w.coordinates(ev.ID)
	if coordinated && !self {
		h := protocol.HeardOf(ev)
		ev.Heard = &h
	}
	if p != nil {
		w.answers++
		ev.Answer = w.answers
	}
	postBytes(ev, "plan", bin)
	if coordinated && self {
		w.tell(ev.ID, protocol.HeardOf(ev))
	}
	if p == nil {
		return
	}
	// The proof first, on its own: the viewer shows the plan once it has
	// it, and the tensors' JSON (for the host's table) follows.
	proof := protocol.WorkerEvent{Type: "proof", ID: ev.ID, Answer: ev.Answer}
	if prove != nil {
		if err := prove(); err != nil {
			proof.Error = protocol.ErrorOf(err)
			post(proof)
			return
		}
	}
	post(proof)
	if keep {
		w.keep(ev.ID, p)
	}
	// The buffer is kept: ten megabytes for 62,000 tensors, and memory
	// the page has written before costs far less than fresh memory.
	w.tensorsJSON = planner.AppendTableJSON(w.tensorsJSON[:0], p.Tensors)
	postBytes(protocol.WorkerEvent{Type: "tensors", ID: ev.ID, Answer: ev.Answer}, "data", w.tensorsJSON)
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
// it loads and lowers its file meanwhile. release, if not nil, is how
// shard 0 of a split portfolio lets the held shards place.
func plan(ctx context.Context, req protocol.PlanRequest, data []byte, hold <-chan struct{}, release func()) (ev protocol.WorkerEvent, bin []byte, kept *planner.Plan, shard *shardAnswer, prove func() error) {
	defer func() {
		if r := recover(); r != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while planning (please report it): %v", req.Name, r), File: req.Name, Kind: "bug"}
			ev, bin, kept, shard, prove = protocol.WorkerEvent{Type: "error", Error: e}, nil, nil, nil, nil
		}
	}()
	if ctx.Err() != nil {
		return cancelled(), nil, nil, nil, nil
	}
	millis, lap := stopwatch()
	progress := func(msg string) { post(protocol.WorkerEvent{Type: "progress", ID: req.ID, Message: msg}) }
	popts := req.Options.PlaceOptions(planner.PlaceOptions{Yield: yielder(), Progress: progress, Shard: req.Shard, Shards: req.Shards, Budget: req.Options.Budget})
	// The forward graph of a training pair first, as the command line's
	// --forward: its weight slots are part of the options the file
	// lowers with (and relower's, which the fit report uses).
	if err := protocol.PlanForward(ctx, &req.Options, popts); err != nil {
		if ctx.Err() != nil {
			return cancelled(), nil, nil, nil, nil
		}
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, nil, nil, nil
	}
	o := req.Options
	in, err := planner.Load(req.Name, data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: o.MemoryLimit(), IfBranch: o.IfBranch})
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, nil, nil, nil
	}
	lap("load")
	p, member := in.Plan, -1
	var prob *planner.Problem
	if p == nil {
		prob, err = planner.Lower(in.Source, o.Options)
		if err == nil && req.Shard == 0 {
			// Said once a request, by its first shard: what is being placed
			// (the package's callers hear it as their first progress).
			progress(fmt.Sprintf("placing %d buffers (%s)", len(prob.Buffers), o.Strategy))
		}
		if err == nil && req.Shards > 1 && req.Shard == 0 && release != nil {
			// The viewer holds the other shards until this one releases
			// them (web/viewer.js): at once, or on a large problem once
			// auto's first member has missed the bound.
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
	ev.Format, ev.DefaultAlignment = in.Format, in.DefaultAlignment()
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
		_ = planner.ExplainFit(fit, prob.Symbols, req.Options.SymbolDefs(), relower(req, data)) // best effort: the verdict stands without
		e := protocol.ErrorOf(err)
		e.Message = strings.Join(append([]string{fit.Text}, fit.Lines...), "\n")
		return protocol.WorkerEvent{Type: "error", Error: e, Fit: fit}, nil, err
	}
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, err
	}
	// The one verdict (planner.Judge): the viewer shows it as it is.
	if fit = planner.Judge(p, req.Options.Budget); fit != nil && !fit.Fits && prob != nil {
		_ = planner.ExplainFit(fit, prob.Symbols, req.Options.SymbolDefs(), relower(req, data)) // best effort, as above
	}
	lap("plan")
	bin, err := p.AppendBinary(nil)
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}, nil, err
	}
	lap("encode")
	return protocol.WorkerEvent{Type: "planned", Millis: millis, Arena: p.ArenaSize, Optimal: p.Optimal || p.OptimalBySearch, Member: member, Fit: fit,
		Summary: protocol.FactsOf(req.Name, p, fit)}, bin, nil
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
			// Its Portfolio hears it: the answer as it was stands.
			w.send(protocol.WorkerEvent{Type: "error", ID: id, Error: &protocol.Error{Message: "this worker no longer holds that answer", Kind: "cancelled"}}, nil, nil, nil, true)
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
	// Improving can take many times what the shards took: the planner
	// says why, as auto's own run does (plan).
	progress := func(msg string) { post(protocol.WorkerEvent{Type: "progress", ID: s.req.ID, Message: msg}) }
	popts := s.req.Options.PlaceOptions(planner.PlaceOptions{Yield: yielder(), Progress: progress, From: &s.place})
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
	s := protocol.FitSearchWith(o, req.Symbol, relowerWith(req, data))
	s.Place.Yield = yielder()
	r, err := planner.LargestFit(ctx, s)
	if err == nil {
		err = r.Explain(s)
	}
	if err != nil {
		return fail(err)
	}
	r.Describe(o.GPU)
	// When even 1 does not fit: whether the weights alone are over, and
	// what skipping params, tensor binding or a larger profile gives.
	if err := r.WhatIf(ctx, s); err != nil {
		return fail(err)
	}
	return protocol.WorkerEvent{Type: "fitted", Largest: r}
}

// relower reads the request's file again with other symbol values, for
// the fit report's question of which symbols drive a size.
func relower(req protocol.PlanRequest, data []byte) func(map[string]int64) (*planner.Problem, error) {
	with := relowerWith(req, data)
	return func(syms map[string]int64) (*planner.Problem, error) { return with(syms, nil) }
}

// relowerWith is relower with a change to the options besides
// (SymbolFit.WhatIf's: params skipped, another binding or profile).
func relowerWith(req protocol.PlanRequest, data []byte) func(map[string]int64, func(*planner.Options)) (*planner.Problem, error) {
	return func(syms map[string]int64, change func(*planner.Options)) (*planner.Problem, error) {
		in, err := planner.Load(req.Name, data, ir.DecodeOptions{Symbols: syms, MaxMemory: req.Options.MemoryLimit(), IfBranch: req.Options.IfBranch})
		if err != nil {
			return nil, err // the decoder's error says where (the fit search reads ir.Error)
		}
		if in.Source == nil {
			return nil, fmt.Errorf("%s: a plan record has no symbols to change", req.Name)
		}
		o := req.Options
		o.Symbols = syms
		if change != nil {
			change(&o.Options)
		}
		// The forward graph again at these values, as the command line's
		// fit plans it at each.
		o.SharedWeights = nil
		popts := o.PlaceOptions(planner.PlaceOptions{Yield: yielder()})
		if err := protocol.PlanForward(context.Background(), &o, popts); err != nil {
			return nil, err
		}
		return planner.Lower(in.Source, o.Options)
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
		err = svgplot.Write(&b, p, svgplot.Options{Theme: req.Theme, Budget: req.Budget, Width: req.Width, Height: req.Height})
		out, ev.Name, ev.Mime = b.Bytes(), req.Name+".svg", "image/svg+xml"
	case "plan":
		out, err = ir.EncodeJSON(p, "  ")
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

// verify judges a plan record against its source (protocol.VerifyRecord)
// within the worker's memory limit: "verified", with the reasons the
// record is invalid, or an error when the source does not read.
func verify(r protocol.WorkerRequest, source, record []byte) (ev protocol.WorkerEvent) {
	defer func() {
		if p := recover(); p != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while verifying (please report it): %v", r.Record, p), File: r.Record, Kind: "bug"}
			ev = protocol.WorkerEvent{Type: "error", Error: e}
		}
	}()
	_, invalid, err := protocol.VerifyRecord(context.Background(), r.Name, source, r.Record, record, r.Options, r.Options.MemoryLimit())
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
	}
	ev = protocol.WorkerEvent{Type: "verified", Errors: []*protocol.Error{}}
	for _, e := range invalid {
		pe := protocol.ErrorOf(e)
		if pe.File == "" {
			pe.File = r.Record // every reason is the record's
		}
		ev.Errors = append(ev.Errors, pe)
	}
	return ev
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

func encode(ev protocol.WorkerEvent) js.Value { return jsconv.Encode(ev) }

// resolve reads the options' symbols text, for a plan or for a fit
// search of symbol (which needs no value), and WebGPU choices.
func resolve(o *protocol.Options, symbol string) error {
	if err := protocol.ResolveGPU(o); err != nil {
		return err
	}
	return o.ResolveFor(symbol)
}

// withForward sets a request's forward graph (the package's forward
// option), when it has one, as the options' Forward.
func withForward(o *protocol.Options, name string, b protocol.Blob) error {
	if b == nil {
		return nil
	}
	data, err := jsconv.Copy(b)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	o.Forward = &protocol.Forward{Name: name, Data: data}
	return nil
}
