package planner

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Exact is a branch and bound for the smallest arena, in the spirit of
// MiniMalloc (Moffitt, ASPLOS 2023). The search itself is in
// place_exact_search.go:
//
//   - Canonical solutions only. Any placement can be pushed down until
//     each buffer rests on 0 or on a buffer live with it, without growing
//     the arena; only such placements are searched.
//   - Skyline. Time is cut into sections where the live set is constant,
//     each with a floor below which everything is decided. A node takes
//     the lowest floor and branches on which buffer covers it, or none.
//   - Section bounds. A section's unplaced bytes must fit between the
//     lowest offset any of its buffers can still take and the target.
//   - Independent groups, found up front and again as buffers are placed:
//     a group that fails fails its node whatever the others do.
//   - A table of failed states, and restarts over several candidate
//     orders (the cost of a bad order is heavy-tailed).
//
// It starts from auto's answer. Given a budget (PlaceOptions.Budget) it
// first asks for an arena within it: the question MiniMalloc answers,
// and the one a caller with a memory limit has. Then it asks, group by
// group, for an arena equal to the lower bound: a decision problem,
// where the bounds prune hardest. A group that does not pack there at
// once descends first (descend: short searches halfway down, in
// MiniMalloc's preorders), then goes back to the bound. With time left
// it asks for arenas halfway between the best found and what is known
// to be impossible.

// exactDefaultLimit bounds exact when neither PlaceOptions.TimeLimit nor
// NodeLimit is set. A variable so tests can lower it.
var exactDefaultLimit = 10 * time.Second

// exactDecisionNodes is, for a node limit, what the 8 s of the decision
// phase are for a time limit: roughly the nodes 8 s of search visit.
const exactDecisionNodes = 2_000_000

// exactGroupLimit is the largest group of buffers the search takes on.
// Setting one up costs time and memory quadratic in its size (30,000
// overlapping buffers took seconds and a gigabyte before a single node),
// and the branch and bound makes no headway on thousands of buffers
// anyway: MiniMalloc's hardest instances have about 400. Larger groups
// keep auto's answer. A variable so tests can lower it.
var exactGroupLimit = 5000

func placeExact(ctx context.Context, p *Problem, opts PlaceOptions) (Placement, error) {
	// With only a node limit, no clock stops the search: the plan must
	// not depend on the machine.
	limit := opts.TimeLimit
	if limit <= 0 && opts.NodeLimit <= 0 {
		limit = exactDefaultLimit
	}
	start := time.Now()
	parent := ctx
	if err := parent.Err(); err != nil {
		return Placement{}, err
	}
	var cancel context.CancelFunc
	if limit > 0 {
		ctx, cancel = context.WithTimeout(ctx, limit)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	pr := prepare(p, opts)
	members := pr.members()
	auto, member, err := pr.portfolio(ctx, members, 0, 1, nil, nil)
	if err != nil {
		return Placement{}, err
	}
	polished, err := pr.polish(ctx, auto, "auto's answer ("+members[member].name+")", opts, true)
	if err != nil && (parent.Err() != nil || ctx.Err() == nil) {
		return Placement{}, err // cancelled, or failed: not merely out of time
	}
	offsets := polished.Offsets
	lb := pr.lowerBound()
	best := ArenaOf(p, offsets)
	pl := Placement{Offsets: offsets, Arena: best, Optimal: best == lb, Detail: polished.Detail, Order: polished.Order, Rule: polished.Rule}
	if opts.Improved != nil {
		opts.Improved(best, 0)
	}
	if pl.Optimal {
		return pl, nil
	}
	ex := &exact{ctx: ctx, opts: opts, start: start, lb: lb, best: best, nodeLimit: max(opts.NodeLimit, 0)}
	// third is where a run given a third of what is left must stop: a
	// time and a node count, each zero for no limit.
	third := func() (time.Time, int64) {
		var at time.Time
		var nodes int64
		if limit > 0 {
			at = time.Now().Add(time.Until(start.Add(limit)) / 3)
		}
		if ex.nodeLimit > 0 {
			nodes = ex.nodes + max(ex.nodeLimit-ex.nodes, 0)/3
		}
		return at, nodes
	}
	groups := pr.groups()
	// Phase 1: the decision problem at the lower bound, group by group.
	// Most instances that pack into the bound do so within seconds; past
	// that, time is better spent lowering the best arena.
	var decisionEnd time.Time
	var decisionNodes int64
	if limit > 0 {
		decisionEnd = start.Add(min(limit*4/5, max(8*time.Second, limit/3)))
	}
	if n := ex.nodeLimit; n > 0 {
		decisionNodes = min(n/5*4, max(exactDecisionNodes, n/3))
	}
	proved := true
	floors := make([]int64, len(groups)) // per group: below this, known impossible
	bySize := make([]int, len(groups))
	for k := range groups {
		floors[k], bySize[k] = lb, k
	}
	// Small groups first: they are quick, and a big one would take the
	// whole share before their turn.
	slices.SortStableFunc(bySize, func(a, b int) int { return len(groups[a]) - len(groups[b]) })
	// Phase 0: a budget the caller must fit in comes before the smallest
	// arena, with the whole of the decision's share if it needs it.
	if budget := opts.Budget; budget >= lb && budget < best {
		for _, k := range bySize {
			g := groups[k]
			if groupArena(p, g, offsets) <= budget || len(g) > exactGroupLimit {
				continue
			}
			s := newSearch(pr, g, ex)
			found, complete := s.run(budget, decisionEnd, decisionNodes)
			if found {
				s.apply(offsets)
				ex.improved(ArenaOf(p, offsets))
				pl.Order = nil
				continue
			}
			if complete {
				floors[k] = budget + 1 // the budget is out of reach
				continue
			}
			break // out of the share: the rest goes on as without a budget
		}
	}
	tooBig := 0 // the largest group left to auto
	for _, k := range bySize {
		g := groups[k]
		if groupArena(p, g, offsets) <= lb {
			continue
		}
		if floors[k] > lb {
			proved = false
			continue // the budget was out of reach, so is the bound
		}
		if len(g) > exactGroupLimit {
			proved, tooBig = false, max(tooBig, len(g))
			continue
		}
		s := newSearch(pr, g, ex)
		// A short try at the bound first, which is where most groups
		// that pack into it do; then the descent; then the rest of the
		// decision's share.
		quick := ex.nodes + exactQuickNodes
		if decisionNodes > 0 {
			quick = min(quick, decisionNodes)
		}
		found, complete := s.run(lb, decisionEnd, quick)
		if !found && !complete && !ex.out() {
			nodes, began := ex.nodes, time.Now()
			floor, improved := ex.descend(s, p, g, offsets, decisionEnd, decisionNodes)
			if improved || floor > lb {
				pl.Order = nil
				if floor > lb {
					floors[k], proved = floor, false
					continue // the bound is out of reach
				}
			}
			// The descent does not eat the decision's share: a group
			// that packs into the bound, which the descent cannot tell,
			// still gets all of it, within four fifths of the budget.
			if limit > 0 {
				if decisionEnd = decisionEnd.Add(time.Since(began)); decisionEnd.After(start.Add(limit * 4 / 5)) {
					decisionEnd = start.Add(limit * 4 / 5)
				}
			}
			if n := ex.nodeLimit; n > 0 {
				decisionNodes = min(decisionNodes+ex.nodes-nodes, n/5*4)
			}
			found, complete = s.run(lb, decisionEnd, decisionNodes)
		}
		switch {
		case found:
			s.apply(offsets)
			ex.improved(ArenaOf(p, offsets))
			pl.Order = nil // the search's answer was not built one at a time
		case complete:
			floors[k] = lb + 1
			proved = false
		default:
			proved = false
		}
	}
	pl.Offsets, pl.Arena = offsets, ArenaOf(p, offsets)
	ex.best = pl.Arena
	if proved {
		pl.Optimal = true
		pl.Detail = fmt.Sprintf("optimal: arena = lower bound after %d nodes", ex.nodes)
		return pl, nil
	}
	// Phase 2: decision searches below the best arena, on the group that
	// sets it: halfway down to what is still possible, stepping back up
	// when one runs out of its share of the time or nodes. A search that
	// finishes without a solution raises what is possible.
	complete := false
	for !ex.out() {
		worst, worstArena := -1, int64(-1)
		for k, g := range groups {
			if a := groupArena(p, g, offsets); a > worstArena {
				worst, worstArena = k, a
			}
		}
		floor := floors[worst]
		if floor >= worstArena {
			complete = true // the group that sets the arena is optimal
			break
		}
		if len(groups[worst]) > exactGroupLimit {
			tooBig = max(tooBig, len(groups[worst]))
			break // auto's answer for it stands
		}
		s := newSearch(pr, groups[worst], ex)
		step := (worstArena - floor + 1) / 2
		for step > 0 && !ex.out() {
			target := worstArena - step
			at, nodes := third()
			found, done := s.run(target, at, nodes)
			switch {
			case found:
				s.apply(offsets)
				pl.Order = nil
				worstArena = groupArena(p, groups[worst], offsets)
				ex.improved(ArenaOf(p, offsets))
				step = min(step, (worstArena-floor+1)/2)
			case done:
				floor = target + 1
				step = (worstArena - floor + 1) / 2
			default:
				step /= 2
			}
		}
		floors[worst] = floor
		if floor < worstArena {
			break // out of time or nodes for this group: the arena stays
		}
	}
	if err := parent.Err(); err != nil {
		return Placement{}, err // cancelled, not merely out of time
	}
	pl.Offsets, pl.Arena = offsets, ArenaOf(p, offsets)
	pl.Optimal = complete || pl.Arena == lb
	// What stopped the search: the whole budget, or else the share of
	// it that stopped the last run cut short.
	state := ex.cut
	switch {
	case ctx.Err() != nil:
		state = "time limit reached"
	case ex.out():
		state = "node limit reached"
	case state == "":
		state = "time limit reached"
	}
	switch {
	case pl.Optimal:
		state = "optimal: search complete"
	case tooBig > 0:
		state = fmt.Sprintf("auto's answer kept for a group of %d buffers (the search takes up to %d)", tooBig, exactGroupLimit)
	}
	pl.Detail = fmt.Sprintf("%s, %.1f%% above the lower bound, %d nodes", state, 100*float64(pl.Arena-lb)/float64(max(lb, 1)), ex.nodes)
	return pl, nil
}

// exactDescentNodes is the node budget of descend's first search at a
// target, and exactQuickNodes that of the first try at the bound before
// the descent.
const (
	exactDescentNodes = 20_000
	exactQuickNodes   = 50_000
)

// descend lowers group g's arena, before the decision at the bound, by
// short decision searches: each asks for half the way from the arena down
// to what is still possible. One that runs out of nodes is tried again
// with twice and then four times the nodes, the second time in exact's
// own orders rather than MiniMalloc's preorders (which of them finds a
// packing first varies by instance and by how far down it is, and the
// cost of a search is heavy-tailed), then the target goes halfway back
// up; after two targets given up in a row the descent ends. An instance
// whose bound is out of reach so gets a good arena long before the
// decision at the bound gives up: MiniMalloc's D reaches 2^20 after
// 100,000 nodes and J after 330,000, where the decision at the bound
// alone spends its 2,000,000 first, and where searches of 20,000 nodes
// never got J there. It returns the lowest arena still possible, as far as
// it learned, and whether it improved the group.
func (ex *exact) descend(s *search, p *Problem, g []int, offsets []int64, stopAt time.Time, stopNodes int64) (int64, bool) {
	floor, arena := ex.lb, groupArena(p, g, offsets)
	improved := false
	defer func() { s.descent = false }()
	target := arena - (arena-floor+1)/2
	budget, lost := int64(exactDescentNodes), 0
	for try := 0; try < 24 && lost < 2 && floor < target && target < arena && !ex.out(); try++ {
		nodes := ex.nodes + budget
		if stopNodes > 0 {
			nodes = min(nodes, stopNodes)
		}
		s.descent = budget != 2*exactDescentNodes
		found, complete := s.run(target, stopAt, nodes)
		switch {
		case found:
			s.apply(offsets)
			improved, arena = true, groupArena(p, g, offsets)
			ex.improved(ArenaOf(p, offsets))
			target = arena - (arena-floor+1)/2
			budget, lost = exactDescentNodes, 0
		case complete:
			floor = target + 1
			target = arena - (arena-floor+1)/2
			budget, lost = exactDescentNodes, 0
		case budget < 4*exactDescentNodes:
			budget *= 2
		default:
			target += (arena - target) / 2
			budget = exactDescentNodes
			lost++
		}
	}
	return floor, improved
}

// exact is the state shared by the searches of one call.
type exact struct {
	ctx        context.Context
	opts       PlaceOptions
	start      time.Time
	lastReport time.Time
	lb, best   int64
	target     int64
	nodes      int64
	nodeLimit  int64  // PlaceOptions.NodeLimit, 0 for none
	cut        string // what stopped the last run cut short
}

// out reports whether the whole search must stop: cancelled, out of time
// or out of nodes.
func (ex *exact) out() bool {
	return ex.ctx.Err() != nil || ex.nodeLimit > 0 && ex.nodes >= ex.nodeLimit
}

func (ex *exact) report() {
	if ex.opts.Progress == nil || time.Since(ex.lastReport) < time.Second {
		return
	}
	ex.lastReport = time.Now()
	ex.opts.Progress(fmt.Sprintf("exact: %.1fs, best arena %d, target %d, lower bound %d, %d nodes",
		time.Since(ex.start).Seconds(), ex.best, ex.target, ex.lb, ex.nodes))
}

// improved records a smaller arena found for the whole problem and
// reports it at once, whenever in the second it comes: the descent and
// the decision at the bound find arenas long before phase 2 would say so.
func (ex *exact) improved(arena int64) {
	if arena >= ex.best {
		return
	}
	ex.best = arena
	if ex.opts.Improved != nil {
		ex.opts.Improved(arena, ex.nodes)
	}
	ex.lastReport = time.Time{}
	ex.report()
}

// groups splits the buffers to place, fixed ones included, into groups
// that share no live step with one another, each sorted by birth.
func (pr *prepared) groups() [][]int {
	bs := pr.p.Buffers
	ord := append(slices.Clone(pr.movable), pr.fixed...)
	slices.SortStableFunc(ord, func(a, b int) int { return bs[a].Birth - bs[b].Birth })
	var out [][]int
	end := -1
	for k, i := range ord {
		if k == 0 || bs[i].Birth > end {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
		end = max(end, bs[i].Death)
	}
	return out
}

func groupArena(p *Problem, g []int, offsets []int64) int64 {
	var a int64
	for _, i := range g {
		a = max(a, p.Buffers[i].End(offsets[i]))
	}
	return a
}
