package protocol

import "memplan/planner"

// A plan request goes to a pool of planner workers, each a wasm program
// with one thread. The command line runs auto's portfolio on every core;
// here the portfolio is split into shards, one a worker. Which worker
// runs what, which answer wins, when the others stop and who improves
// the winner is Portfolio's to say: the page's worker pool (web/
// runtime.js) only carries its routes and delivers its outcome, and the
// pool's first worker runs it.

// Route is a message for worker To of the pool.
type Route struct {
	To      int           `json:"to"`
	Message WorkerMessage `json:"message"`
}

// WorkerMessage is a message to a planner worker that a Portfolio sends:
// "plan" (a shard to plan; the file travels beside it, added by the pool),
// "release" (a held shard may place), "cancel" or "polish" (improve the
// answer that won, as auto improves its portfolio's best).
type WorkerMessage struct {
	Type string `json:"type"`
	PlanRequest
}

// Outcome is how a request ended: worker From's last "planned" answer is
// the plan (Millis, when set, is where the time went over all shards and
// the polish), or Error says why there is none.
type Outcome struct {
	From   int                `json:"from"`
	Millis map[string]float64 `json:"millis,omitempty"`
	Error  *Error             `json:"error,omitempty"`
}

// Heard is a worker's answer as its Portfolio hears it: "planned" (with
// the arena, the member that won its shard and whether it is optimal),
// "error", or "release" (shard 0's first member missed the bound). A
// worker's answer to a coordinated request carries it (WorkerEvent.Heard)
// for the pool to forward to the first worker, which hears its own.
type Heard struct {
	Type    string             `json:"type"`
	Arena   int64              `json:"arena,omitempty"`
	Member  int                `json:"member"`
	Optimal bool               `json:"optimal,omitempty"`
	Millis  map[string]float64 `json:"millis,omitempty"`
	Error   *Error             `json:"error,omitempty"`
}

// HeardOf is what a Portfolio hears of a worker's answer ev.
func HeardOf(ev WorkerEvent) Heard {
	return Heard{Type: ev.Type, Arena: ev.Arena, Member: ev.Member, Optimal: ev.Optimal, Millis: ev.Millis, Error: ev.Error}
}

// Portfolio coordinates one plan request over a pool of workers.
type Portfolio struct {
	req       PlanRequest
	shards    int
	left      int   // shards yet to answer
	held      []int // workers holding their shard until a release
	best      *Heard
	bestFrom  int
	polishing bool
	done      bool
	millis    map[string]float64
}

// StartPortfolio splits request req over a pool of workers: auto's
// portfolio into one shard a worker, any other strategy on the first
// worker alone. It returns the routes that start it.
func StartPortfolio(req PlanRequest, pool int) (*Portfolio, []Route) {
	p := &Portfolio{req: req, shards: 1}
	if s := req.Options.Strategy; (s == "" || s == planner.DefaultStrategy) && pool > 1 {
		p.shards = pool
	}
	p.left = p.shards
	var routes []Route
	for k := range p.shards {
		m := WorkerMessage{Type: "plan", PlanRequest: req}
		m.Pool, m.Symbol = 0, ""
		if p.shards > 1 {
			// The other shards load the file, then wait for shard 0's
			// release: at once, or on a large problem once auto's first
			// member has missed the bound (planner.FirstMemberAlone).
			m.Shard, m.Shards, m.Hold = k, p.shards, k > 0
			if k > 0 {
				p.held = append(p.held, k)
			}
		}
		routes = append(routes, Route{To: k, Message: m})
	}
	return p, routes
}

// Done reports whether the request has its outcome.
func (p *Portfolio) Done() bool { return p.done }

// Heard takes worker from's event for the request ("planned", "error" or
// "release") and returns the routes it calls for and, once the request
// is over, its outcome.
func (p *Portfolio) Heard(from int, ev Heard) ([]Route, *Outcome) {
	if p.done {
		return nil, nil
	}
	id := p.req.ID
	switch {
	case ev.Type == "release":
		return p.release(), nil
	case p.polishing:
		// The winner's answer, improved; on an error, as it was.
		if from != p.bestFrom {
			return nil, nil
		}
		p.done = true
		out := &Outcome{From: from, Millis: p.millis}
		if ev.Type == "planned" {
			out.Millis = addMillis(p.millis, ev.Millis)
		}
		return nil, out
	case ev.Type == "error":
		// Every shard reads the same file: the first error is the answer.
		p.done = true
		return p.cancelOthers(from), &Outcome{From: from, Error: ev.Error}
	case ev.Type != "planned":
		return nil, nil
	}
	// The smallest arena wins, ties to the lower member: the order the
	// command line's portfolio breaks them in.
	if p.best == nil || ev.Arena < p.best.Arena || ev.Arena == p.best.Arena && ev.Member < p.best.Member {
		e := ev
		p.best, p.bestFrom = &e, from
	}
	p.millis = maxMillis(p.millis, ev.Millis)
	p.left--
	atBound := p.best.Optimal && p.best.Member == 0
	var routes []Route
	if !atBound {
		routes = p.release() // held shards, if any, must run now
	}
	if p.left > 0 && !atBound {
		return routes, nil
	}
	// Member 0 at the bound wins whatever the other shards find: stop
	// them, or they keep a core busy while the page shows the plan.
	if p.left > 0 {
		routes = append(routes, p.cancelOthers(p.bestFrom)...)
	}
	// A shard's answer gets no improvement slice; the whole portfolio's
	// best does. The winner gives its answer that slice, so the page
	// makes the command line's plan.
	if p.shards > 1 && !p.best.Optimal {
		p.polishing = true
		return append(routes, Route{To: p.bestFrom, Message: WorkerMessage{Type: "polish", PlanRequest: PlanRequest{ID: id}}}), nil
	}
	p.done = true
	return routes, &Outcome{From: p.bestFrom, Millis: p.millis}
}

// release lets the held shards place.
func (p *Portfolio) release() []Route {
	var routes []Route
	for _, k := range p.held {
		routes = append(routes, Route{To: k, Message: WorkerMessage{Type: "release", PlanRequest: PlanRequest{ID: p.req.ID}}})
	}
	p.held = nil
	return routes
}

// cancelOthers stops every shard but keep's.
func (p *Portfolio) cancelOthers(keep int) []Route {
	var routes []Route
	for k := range p.shards {
		if k != keep {
			routes = append(routes, Route{To: k, Message: WorkerMessage{Type: "cancel", PlanRequest: PlanRequest{ID: p.req.ID}}})
		}
	}
	p.held = nil
	return routes
}

// maxMillis is where the shards' time went: they run side by side, so
// each phase took as long as its slowest shard.
func maxMillis(a, b map[string]float64) map[string]float64 {
	if a == nil {
		a = map[string]float64{}
	}
	for k, v := range b {
		a[k] = max(a[k], v)
	}
	return a
}

// addMillis adds the polish's time to the shards'.
func addMillis(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}
