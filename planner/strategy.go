package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"memplan/ir"
)

// Placement is a strategy's answer: one offset per buffer of the Problem.
type Placement struct {
	Offsets []int64
	// Arena is max(offset + size + guard) over all buffers.
	Arena int64
	// Optimal is set when the strategy proved no smaller arena exists
	// (the arena equals the lower bound, or an exact search completed).
	Optimal bool
	// Detail is a short human note, such as which portfolio member won.
	Detail string
	// Order lists the buffers (of span > 0) in the order the strategy
	// placed them, fixed ones first: replaying it shows how the plan was
	// built. Nil when the answer did not come one buffer at a time (an
	// exact search or the improver that improved on its start).
	Order []int
	// Strategy is the name of the strategy that ran.
	Strategy string
	// Member is the index of auto's portfolio member that won, -1 for
	// other strategies.
	Member int
	// Rule is how each buffer of Order took its offset (a Rule* name),
	// so a plan can be explained without running the strategy again;
	// RuleSearch when there is no Order.
	Rule string
}

// The placement rules: how a strategy that places one buffer at a time
// chose each offset among the buffers placed before it.
const (
	// RuleBestFit: the smallest gap among the buffers already placed
	// that live at a common step, lowest on ties; else on top of them.
	RuleBestFit = "best-fit"
	// RuleFirstFit: the lowest gap that holds it; else on top.
	RuleFirstFit = "first-fit"
	// RuleFirstUse: at its birth, the smallest block of a free list that
	// holds it; else the top of everything placed so far (growing a free
	// block that reaches it).
	RuleFirstUse = "first-use"
	// RuleStack: right after every buffer placed before it (no reuse).
	RuleStack = "stack"
	// RuleSearch: an exact search chose all offsets together.
	RuleSearch = "search"
)

// PlaceOptions tune strategies that search.
type PlaceOptions struct {
	// TimeLimit bounds searching strategies; zero means their default
	// (for exact, 10 s unless NodeLimit is set).
	TimeLimit time.Duration
	// NodeLimit bounds the exact search by the search nodes it visits,
	// and improve and auto's slice by theirs (buffers re-placed and
	// search nodes); zero or less means none. The same problem with the same NodeLimit
	// gives the same plan on any machine, whatever its speed, load or
	// GOMAXPROCS. Set alone, it replaces the default time limit, so that
	// nothing but the node count (or the context) stops the search. Set
	// with TimeLimit, whichever is reached first stops it, and the plan
	// is reproducible only when the node limit is.
	NodeLimit int64
	// Budget, if positive, is an arena the caller must fit in (memplan
	// plan --budget): exact first asks for an arena of at most Budget,
	// the decision problem MiniMalloc solves, before it looks for the
	// smallest. Other strategies ignore it.
	Budget int64
	// AutoSlice, if positive, caps the time auto spends improving the
	// portfolio's answer; zero means no clock, negative no slice. The
	// slice's work is a node budget that depends on the buffers alone,
	// so with no clock (or a machine that finishes within it) the plan
	// is the same on any machine; NodeLimit, if set, caps that budget
	// and replaces the clock.
	AutoSlice time.Duration
	// Progress, if non-nil, receives one-line reports while searching.
	Progress func(msg string)
	// Improved, if non-nil, hears from exact of each arena it holds as
	// its best, when it has it: auto's answer first, then each smaller
	// one, with the search nodes visited so far.
	Improved func(arena, nodes int64)
	// Shard and Shards split auto's portfolio across processes that
	// cannot share threads, such as a browser's Web Workers: with Shards
	// > 1, auto runs only the members whose index is Shard modulo Shards,
	// and Placement.Member names the winner, so the caller can keep the
	// answer with the smallest arena, ties to the lower member, which is
	// what one process running every member returns.
	Shard, Shards int
	// MemberDone, if non-nil, hears from auto's portfolio as each member
	// it runs finishes without error, on that member's goroutine (so
	// perhaps on two at once): the member's index and whether it
	// reached the lower bound (then no later member can win). A caller
	// that split the portfolio may hold the other shards until member 0
	// has missed the bound (wasm/worker does).
	MemberDone func(member int, atBound bool)
	// From, for auto, is the winning answer of a portfolio split into
	// shards (the Placement that shard's auto returned): auto then runs no
	// member, and gives that answer the improvement slice one process
	// running every member gives its best. A shard's own answer gets no
	// slice, so without this step the split portfolio could end above
	// the command line's plan.
	From *Placement
	// Yield, if non-nil, lets the caller's other work run: in the browser
	// Go's wasm has no preemption, so the page freezes while planning
	// unless the planner pauses now and then. Place calls it before and
	// after the strategy; a strategy that runs longer than a few
	// milliseconds should call opts.yield() from its outer loops (per
	// buffer placed, per search node), which is cheap: the hook itself
	// decides how often to really pause.
	Yield func()
}

// yield calls the Yield hook if there is one.
func (o *PlaceOptions) yield() {
	if o.Yield != nil {
		o.Yield()
	}
}

// Strategy names and describes one placement algorithm. It is plain data:
// a program that only lists strategies, such as the viewer, then links
// none of them.
type Strategy struct {
	Name string
	Doc  string
}

// placeFunc is a strategy's algorithm. It must return offsets that respect
// every buffer's alignment, keep live buffers (size + guard) disjoint and
// honour Fixed buffers' offsets; Place checks and Verify proves that.
type placeFunc func(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error)

// strategies lists every strategy, and placers gives its algorithm by name.
// Adding a strategy means one new file and a line in each; a test checks
// that the two agree.
var strategies = []Strategy{
	{Name: "reference", Doc: "the seed planner's size-descending, lowest-offset first fit; O(n^3), for comparison"},
	{Name: "no-reuse", Doc: "every buffer after the previous one: the baseline savings are measured against"},
	{Name: "auto", Doc: "the default: a portfolio of best fit in eight orders, first use and the seed's first fit, keeping the smallest arena, then a short slice of improve's work"},
	{Name: "exact", Doc: "branch and bound for the smallest arena (MiniMalloc-style), from auto's answer, within the time limit (default 10 s) or node limit"},
	{Name: "improve", Doc: "auto, then ruin and recreate within the time limit (default 10 s) or node limit: windows around the buffers that set the arena (best fit in shuffled orders, exact search of small rectangles) and the whole plan placed again with a band of bytes or the buffers live at a top step first"},
	{Name: "best-fit", Doc: "XLA-style global best fit: largest first, each in the smallest gap among buffers live at the same time"},
	{Name: "best-fit-temporal", Doc: "best fit, longest-lived buffers first"},
	{Name: "first-use", Doc: "walks the schedule with a splitting, merging free list: best-fitting free block at each birth"},
	{Name: "breadth", Doc: "TFLite greedy by breadth: busiest steps first, largest buffers first, into the best gap"},
}

// placers is a function rather than a map variable: a package-level map
// of functions keeps every strategy linked into any program that imports
// the package, and the page's viewer, which plans nothing, paid for them.
func placers() map[string]placeFunc {
	return map[string]placeFunc{
		"reference":         placeReference,
		"no-reuse":          placeNoReuse,
		"auto":              placeAuto,
		"exact":             placeExact,
		"improve":           placeImprove,
		"best-fit":          placeBestFit,
		"best-fit-temporal": placeBestFitOrder(orderTemporal),
		"first-use":         placeFirstUse,
		"breadth":           placeBreadth,
	}
}

// DefaultStrategy is used when none is named.
var DefaultStrategy = "auto"

// NoReuseStrategy is the strategy that shares no bytes: the baseline what
// reuse saves is measured against (and what Options.NoReuse runs).
const NoReuseStrategy = "no-reuse"

// Strategies lists the strategies in table order.
func Strategies() []Strategy { return append([]Strategy(nil), strategies...) }

// StrategyNames lists the strategy names, sorted.
func StrategyNames() []string {
	names := make([]string, len(strategies))
	for i, s := range strategies {
		names[i] = s.Name
	}
	sort.Strings(names)
	return names
}

// Place runs the named strategy ("" for the default) and checks that the
// answer covers every buffer and honours fixed offsets.
func Place(ctx context.Context, p *Problem, strategy string, opts PlaceOptions) (Placement, error) {
	if strategy == "" {
		strategy = DefaultStrategy
	}
	if p.Options.NoReuse {
		strategy = NoReuseStrategy
	}
	place, ok := placers()[strategy]
	if !ok {
		return Placement{}, fmt.Errorf("unknown strategy %s (known: %s)", ir.Quote(strategy), strings.Join(StrategyNames(), ", "))
	}
	if err := p.Check(); err != nil {
		return Placement{}, err
	}
	opts.yield()
	pl, err := place(ctx, p, opts)
	opts.yield()
	if err != nil {
		return Placement{}, fmt.Errorf("strategy %s: %w", strategy, err)
	}
	if len(pl.Offsets) != len(p.Buffers) {
		return Placement{}, fmt.Errorf("strategy %s returned %d offsets for %d buffers", strategy, len(pl.Offsets), len(p.Buffers))
	}
	if pl.Order == nil {
		pl.Rule = RuleSearch
	}
	if pl.Order != nil {
		if err := checkOrder(p, pl.Order); err != nil {
			return Placement{}, fmt.Errorf("strategy %s: %w", strategy, err)
		}
	}
	for i, off := range pl.Offsets {
		// The proof comes later (Verify); this keeps ArenaOf's sums from
		// wrapping if a strategy went wrong.
		if _, err := ir.AddSize(off, p.Buffers[i].Span()); err != nil {
			return Placement{}, fmt.Errorf("strategy %s placed buffer %s at offset %d: %v", strategy, ir.Quote(p.Buffers[i].Name), off, err)
		}
	}
	pl.Arena = ArenaOf(p, pl.Offsets)
	pl.Strategy = strategy
	if strategy != "auto" {
		pl.Member = -1
	}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Fixed && pl.Offsets[i] != b.Offset {
			return Placement{}, fmt.Errorf("strategy %s moved fixed buffer %s", strategy, ir.Quote(b.Name))
		}
	}
	if !pl.Optimal && pl.Arena == AlignedLowerBound(p) {
		pl.Optimal = true
	}
	return pl, nil
}

// checkOrder reports whether order lists each buffer of span > 0 once.
func checkOrder(p *Problem, order []int) error {
	seen := make([]bool, len(p.Buffers))
	for _, i := range order {
		if i < 0 || i >= len(p.Buffers) || seen[i] || p.Buffers[i].Span() == 0 {
			return fmt.Errorf("placement order names buffer %d twice, or one it does not place", i)
		}
		seen[i] = true
	}
	for i := range p.Buffers {
		if !seen[i] && p.Buffers[i].Span() > 0 {
			return fmt.Errorf("placement order leaves out buffer %s", ir.Quote(p.Buffers[i].Name))
		}
	}
	return nil
}

// ArenaOf is max(offset + size + guard) over the buffers.
func ArenaOf(p *Problem, offsets []int64) int64 {
	var arena int64
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Span() > 0 {
			arena = max(arena, b.End(offsets[i]))
		}
	}
	return arena
}
