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
// the first to die first, with the oldest first and with the last to die
// first, and first use. Each best fit of a million buffers takes
// seconds. On random lives of 300,000 to 1,000,000 buffers (six problems,
// no structure to exploit) oldest was the best member on three and tied
// on a fourth, lasting on a fifth, and dying second best on the sixth
// and the fastest; breadth and best fit by size, which these replace,
// were best on none (breadth tied once), and the slowest. The
// portfolio's answer is as good or better on all six (at a million,
// 1.0333 of the bound to 1.0000). On generated training steps of that
// size every member reaches the bound.
const autoHuge = 250_000

// members returns the portfolio auto runs on this problem: improve and
// exact start from its answer too, and a shard's Member indexes it.
func (pr *prepared) members() []autoMember {
	members := autoMembers()
	var keep func(m autoMember) bool
	switch n := len(pr.movable); {
	case n > autoHuge:
		keep = func(m autoMember) bool {
			return m.name == "best-fit breadth dying" || m.name == "best-fit breadth oldest" || m.name == "best-fit breadth lasting" || m.name == "first-use"
		}
	case n > autoLarge:
		keep = func(m autoMember) bool { return m.name != "best-fit area" && m.name != "first-fit size" }
	default:
		return members
	}
	return slices.DeleteFunc(members, func(m autoMember) bool { return !keep(m) })
}

func placeAuto(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	pr := prepare(p, opts)
	members := pr.members()
	var a answer
	var best int
	if f := opts.From; f != nil {
		if len(f.Offsets) != len(p.Buffers) || f.Member < 0 || f.Member >= len(members) {
			return Placement{}, fmt.Errorf("the answer to improve is not one of auto's members' for this problem (member %d, %d offsets for %d buffers)", f.Member, len(f.Offsets), len(p.Buffers))
		}
		a, best = answer{offsets: slices.Clone(f.Offsets), order: slices.Clone(f.Order), rule: f.Rule}, f.Member
		opts.Shard, opts.Shards = 0, 1 // the whole portfolio's answer now
	} else {
		var err error
		if a, best, err = pr.portfolio(ctx, members, opts.Shard, opts.Shards, opts.MemberDone); err != nil {
			return Placement{}, err
		}
	}
	pl, err := pr.polish(ctx, a, "won by "+members[best].name, opts, false)
	pl.Member = best
	return pl, err
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
func (pr *prepared) portfolio(ctx context.Context, members []autoMember, shard, shards int, done func(member int, atBound bool)) (answer, int, error) {
	type result struct {
		answer
		err       error
		ran, lost bool
	}
	lb := pr.lowerBound()
	results := make([]result, len(members))
	cancels := make([]context.CancelFunc, len(members))
	var mu sync.Mutex
	optimalAt := len(members) // first member known to reach the bound
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
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(members)) {
		wg.Go(func() {
			for i := range next {
				mctx, cancel := context.WithCancel(ctx)
				mu.Lock()
				skip := i > optimalAt
				cancels[i] = cancel
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
				results[i] = result{a, err, true, lost}
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
		})
	}
	wg.Wait()
	best, bestArena := -1, int64(0)
	for i, r := range results {
		if i > optimalAt || !r.ran || r.lost {
			continue
		}
		if r.err != nil {
			return answer{}, 0, fmt.Errorf("%s: %w", members[i].name, r.err)
		}
		if a := ArenaOf(pr.p, r.offsets); best < 0 || a < bestArena {
			best, bestArena = i, a
		}
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
