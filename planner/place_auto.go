package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Auto runs a fixed portfolio of the fast strategies and keeps the
// smallest arena; ties go to the earlier member, so the answer does not
// depend on which goroutine finishes first. No single order wins
// everywhere: best fit by size is best on the MiniMalloc instances,
// breadth on the idealloc ones, first use on short-lived chains.

// autoMember is one strategy of the portfolio. run gives up with errLost
// once its arena grows above *limit: another member has a smaller one.
type autoMember struct {
	name  string
	cheap bool // runs early: far faster than best fit
	run   func(ctx context.Context, pr *prepared, limit *atomic.Int64) (answer, error)
}

func bestFitMember(o fitOrder) autoMember {
	return autoMember{"best-fit " + o.String(), false, func(ctx context.Context, pr *prepared, limit *atomic.Int64) (answer, error) {
		return pr.bestFitUnder(ctx, pr.order(o), limit)
	}}
}

// The order is the tie-break, and the portfolio stops early once a member
// reaches the lower bound: breadth, which reaches it most often on real
// workloads, goes first. A function, not a variable, so programs that
// plan nothing (the page's viewer) do not link the members (see placers).
func autoMembers() []autoMember {
	return []autoMember{
		bestFitMember(orderBreadth),
		// Breadth with other orders within a section, which reach the bound
		// on traces where breadth alone does not (PanGu-α, ResNet-50).
		bestFitMember(orderBreadthNewest),
		bestFitMember(orderBreadthDying),
		// And in orders that keep buffers born, or dying, together side
		// by side, which reach or near the bound on IOPDDL's traces
		// (and MiniMalloc's D) where the others leave holes between
		// long-lived buffers.
		bestFitMember(orderBreadthOldest),
		bestFitMember(orderBreadthLasting),
		bestFitMember(orderSpatial),
		bestFitMember(orderTemporal),
		bestFitMember(orderArea),
		{"first-use", true, func(ctx context.Context, pr *prepared, limit *atomic.Int64) (answer, error) {
			return pr.firstUse(ctx, limit)
		}},
		// The seed planner's rule (lowest offset that fits, by size), in
		// O(n log n): auto is then never worse than reference.
		{"first-fit size", false, func(ctx context.Context, pr *prepared, limit *atomic.Int64) (answer, error) {
			a, _, err := pr.fitUnder(ctx, pr.order(orderSize), firstGap, limit)
			a.rule = RuleFirstFit
			return a, err
		}},
	}
}

// FirstMemberAlone reports whether a caller that splits auto's portfolio
// across processes (Shard, Shards) should run member 0 alone before
// starting the other shards: on problems this large it often reaches the
// lower bound, which ends the portfolio, and a second wasm planner beside
// it slowed it by up to 60 % on a two-core machine (they share the memory
// bus). Below the size the other shards start at once.
func FirstMemberAlone(p *Problem) bool { return len(p.Buffers) > autoLarge }

// autoLarge is the size above which auto leaves out best fit by area and
// first fit, which rarely win there, to stay under a second at 60,000
// buffers. It is also the most buffers reference accepts.
const autoLarge = referenceLimit

// autoHuge is the size above which auto runs four members: breadth with
// the oldest first, with the last to die first and with the first to die
// first, and first use, in that order. Each best fit of a million
// buffers takes seconds. On random lives of 260,000 to 1,000,000
// buffers (24 problems, seeds 1 to 6, no structure to exploit) oldest
// was best or tied for best on 13, lasting on 11 and dying on 5 (alone
// on 2); breadth and best fit by size, which these replace, were best
// on none of an earlier six and the slowest. The order is the
// tie-break, and the run order:
// the third, which runs while the first two's best is polished ahead
// (polishAhead), most often loses and then stops early. On generated
// training steps of that size every member reaches the bound.
const autoHuge = 250_000

// members returns the portfolio auto runs on this problem: improve and
// exact start from its answer too, and a shard's Member indexes it.
func (pr *prepared) members() []autoMember {
	members := autoMembers()
	switch n := len(pr.movable); {
	case n > autoHuge:
		var huge []autoMember
		for _, name := range []string{"best-fit breadth oldest", "best-fit breadth lasting", "best-fit breadth dying", "first-use"} {
			k := slices.IndexFunc(members, func(m autoMember) bool { return m.name == name })
			huge = append(huge, members[k])
		}
		return huge
	case n > autoLarge:
		return slices.DeleteFunc(members, func(m autoMember) bool { return m.name == "best-fit area" || m.name == "first-fit size" })
	}
	return members
}

func placeAuto(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	pr := prepare(p, opts)
	members := pr.members()
	f := opts.From
	if f == nil {
		return pr.portfolioPolished(ctx, members, opts, nil)
	}
	if len(f.Offsets) != len(p.Buffers) || f.Member < 0 || f.Member >= len(members) {
		return Placement{}, fmt.Errorf("the answer to improve is not one of auto's members' for this problem (member %d, %d offsets for %d buffers)", f.Member, len(f.Offsets), len(p.Buffers))
	}
	a := answer{offsets: slices.Clone(f.Offsets), order: slices.Clone(f.Order), rule: f.Rule}
	opts.Shard, opts.Shards = 0, 1 // the whole portfolio's answer now
	pl, err := pr.polish(ctx, a, "won by "+members[f.Member].name, opts, false)
	pl.Member = f.Member
	return pl, err
}

// portfolioPolished runs the portfolio and polishes its answer, ahead
// where it can (polishAhead). ahead, if not nil, hears of the member
// whose polish began ahead, once it has begun.
func (pr *prepared) portfolioPolished(ctx context.Context, members []autoMember, opts PlaceOptions, ahead func(member int)) (Placement, error) {
	var early *polishAhead
	var spare func(member int, a answer)
	if pr.canPolishAhead(opts) {
		spare = func(member int, a answer) {
			early = pr.startPolish(ctx, member, a, "won by "+members[member].name, opts)
			if ahead != nil {
				ahead(member)
			}
		}
	}
	a, best, err := pr.portfolio(ctx, members, opts.Shard, opts.Shards, opts.MemberDone, spare)
	if early != nil {
		if err == nil && early.member == best {
			<-early.done
			early.cancel()
			early.pl.Member = best
			return early.pl, early.err
		}
		early.stop() // another member won: its work is dropped
	}
	if err != nil {
		return Placement{}, err
	}
	pl, err := pr.polish(ctx, a, "won by "+members[best].name, opts, false)
	pl.Member = best
	return pl, err
}

// polishAhead is the polish of a portfolio answer begun on a thread the
// portfolio no longer needs, while its last members still run: the best
// answer so far is most often the winner, and its polish then ends up to
// a member's time sooner. Polish is a function of its answer alone (a
// node budget, no clock), so the plan is the same as if it had waited.
type polishAhead struct {
	member int
	cancel context.CancelFunc
	done   chan struct{} // closed once pl and err are set
	pl     Placement
	err    error
}

// canPolishAhead reports whether polish may begin before the portfolio
// ends: there is a spare thread, and the polish is one slice bounded by
// nodes alone, with no second seed or far run that would want threads
// of its own. So it is above autoHuge buffers, where a member takes
// seconds (or with a node limit no larger than the slice's).
func (pr *prepared) canPolishAhead(opts PlaceOptions) bool {
	nodes, limit, far := sliceBudget(len(pr.movable), opts, false)
	return runtime.GOMAXPROCS(0) > 1 && opts.Shards <= 1 && nodes >= 0 && limit == 0 && far == 0
}

// startPolish polishes a copy of member's answer a on a goroutine.
func (pr *prepared) startPolish(ctx context.Context, member int, a answer, detail string, opts PlaceOptions) *polishAhead {
	ctx, cancel := context.WithCancel(ctx)
	ahead := &polishAhead{member: member, cancel: cancel, done: make(chan struct{})}
	a.offsets = slices.Clone(a.offsets)
	go func() {
		defer close(ahead.done)
		ahead.pl, ahead.err = pr.polish(ctx, a, detail, opts, false)
	}()
	return ahead
}

// stop cancels the polish and waits for it to end.
func (ahead *polishAhead) stop() {
	ahead.cancel()
	<-ahead.done
}

// portfolio runs the members on up to GOMAXPROCS goroutines and returns
// the answer with the smallest arena and the index of the member that
// found it. Member 0 and the cheap ones start first; once one reaches
// the lower bound no later member can win (ties go to the earlier), so
// later ones are skipped or cancelled, and a member whose arena grows
// above one already found, or to it if found by a member before it in
// the table, stops (errLost): it cannot win either. The
// answer is the same on one thread (wasm) or many, whichever finishes
// first. With shards > 1 only members i with i%shards == shard run.
// done, if non-nil, hears of each member that finishes (MemberDone).
// spare, if non-nil, is called once, from a goroutine that has no member
// left to start while others still run, with the best answer so far and
// its member (ties to the lower), if there is one; it must not block.
func (pr *prepared) portfolio(ctx context.Context, members []autoMember, shard, shards int, done func(member int, atBound bool), spare func(member int, a answer)) (answer, int, error) {
	type result struct {
		answer
		arena     int64
		err       error
		ran, lost bool
	}
	lb := pr.lowerBound()
	results := make([]result, len(members))
	cancels := make([]context.CancelFunc, len(members))
	var mu sync.Mutex
	optimalAt := len(members) // first member known to reach the bound
	// Members queued and not ended, counted from the queue rather than as
	// each begins: a thread that has taken a member but not yet counted it
	// would leave another, out of members, thinking none still ran.
	unended := 0
	spared := false // spare was offered the best answer
	// winner is the member whose answer the portfolio returns, of those
	// ended so far, or -1 (under mu, or once all have ended).
	winner := func() (int, error) {
		best := -1
		for i, r := range results {
			if i > optimalAt || !r.ran || r.lost {
				continue
			}
			if r.err != nil {
				return -1, fmt.Errorf("%s: %w", members[i].name, r.err)
			}
			if best < 0 || r.arena < results[best].arena {
				best = i
			}
		}
		return best, nil
	}
	// Per member, the largest arena with which it could still win: one
	// below the smallest found by a member before it in the table, and
	// the smallest found by one after it (ties go to the earlier).
	limits := make([]atomic.Int64, len(members))
	for i := range limits {
		limits[i].Store(math.MaxInt64)
	}
	next := make(chan int, len(members))
	for _, i := range runOrder(members, len(pr.movable) > autoHuge) {
		if shards <= 1 || i%shards == shard {
			next <- i
		}
	}
	unended = len(next)
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(members)) {
		wg.Go(func() {
			for i := range next {
				mctx, cancel := context.WithCancel(ctx)
				mu.Lock()
				skip := i > optimalAt
				cancels[i] = cancel
				if skip {
					unended--
				}
				mu.Unlock()
				if skip {
					cancel()
					continue
				}
				a, err := members[i].run(mctx, pr, &limits[i])
				cancel()
				lost := errors.Is(err, errLost)
				if lost {
					err = nil
				}
				arena := int64(math.MaxInt64)
				if err == nil && !lost {
					arena = ArenaOf(pr.p, a.offsets)
					for j := range limits {
						l := arena
						if j > i {
							l--
						}
						for {
							if old := limits[j].Load(); l >= old || limits[j].CompareAndSwap(old, l) {
								break
							}
						}
					}
				}
				atBound := arena == lb
				if err == nil && done != nil {
					done(i, atBound)
				}
				mu.Lock()
				results[i] = result{a, arena, err, true, lost}
				unended--
				if atBound && i < optimalAt {
					optimalAt = i
					for j := i + 1; j < len(members); j++ {
						if cancels[j] != nil {
							cancels[j]() // running later members cannot win
						}
					}
				}
				mu.Unlock()
			}
			if spare == nil {
				return
			}
			mu.Lock()
			offer := !spared && unended > 0
			spared = spared || offer
			best, err := winner()
			mu.Unlock()
			if offer && best >= 0 && err == nil {
				spare(best, results[best].answer)
			}
		})
	}
	wg.Wait()
	best, err := winner()
	if err != nil {
		return answer{}, 0, err
	}
	if best < 0 {
		return answer{}, 0, fmt.Errorf("shard %d of %d holds none of the %d portfolio members", shard, shards, len(members))
	}
	return results[best].answer, best, nil
}

// runOrder is the order the portfolio starts its members in: member 0,
// which reaches the bound most often and then ends the portfolio, and
// the cheap ones first, whose arenas then stop the members that cannot
// beat them early; then the rest in table order. On huge problems the
// cheap ones go last: there the members are breadth orders, whose arenas
// first use's never stops (on random lives it ends 10-13 % above theirs),
// and it would delay the start of one that may reach the bound by its
// own time (0.7 s at a million buffers).
func runOrder(members []autoMember, huge bool) []int {
	order := make([]int, 0, len(members))
	for pass := range 3 {
		for i, m := range members {
			at := 1 // 0: early, 1: in table order, 2: last
			switch {
			case i == 0:
				at = 0
			case m.cheap && huge:
				at = 2
			case m.cheap:
				at = 0
			}
			if at == pass {
				order = append(order, i)
			}
		}
	}
	return order
}
