package planner

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// A race improves several answers at once and stops them all once one
// has settled: its best arena within 1 % of the bound (not farAbove) and
// no lower for the race's settle nodes, or at the bound. Every
// raceCheckEvery(settle) nodes each run reaches a checkpoint, and the
// race decides each checkpoint, go on or stop, once every run has reached
// it or ended, from the states they had there. A run's path depends only
// on its own start, seed and budget, so where the race stops, and its
// answer, do not depend on the threads or on which ran first. A run may
// pass up to raceAhead checkpoints the race has not decided yet, keeping
// its plan at each, and goes back to the one where the race stops: so a
// thread seldom waits for a slower run.
//
// Why: where auto's answer stays far above the bound, where the improver
// ends depends on its seed more than on its start or budget, and a run
// that comes within 1 % mostly does so early and then gains little. On
// the 14 far-phase traces of 700 IOPDDL-derived siblings, 15 restarts
// came within 1 %, after 108,000 to 1,384,000 of their 1,640,000 nodes,
// and the rest of their nodes lowered their best by 0.44 % at most (by
// less than 0.1 % in 12 of them).
type race struct {
	bound, settle int64
	mu            sync.Mutex
	moved         *sync.Cond
	settled       [][]bool // per run, at each checkpoint it has reached
	ended         []bool
	endedSettled  []bool // at the bound when it ended
	decided       int    // the checkpoints before this one go on
	stopAt        int    // the checkpoint where all stop; -1 while none
}

// raceAhead is how many undecided checkpoints a run may pass.
const raceAhead = 4

// racer is one run of a race: its answer, improved in place, its seed
// and node budget, and what it spent.
type racer struct {
	offsets []int64
	seed    uint64
	nodes   int64
	ran
	checks  int  // the checkpoints it reached
	stopped bool // by the race, at its last checkpoint
}

// kept is a run's plan at a checkpoint the race had not decided yet.
type kept struct {
	at    int
	nodes int64
	plan  []int64
}

// raceSettleNodes(n) is how long a run of a race within 1 % of the bound
// must go without lowering its best before the race stops: 5 nodes a
// buffer (142,630 on the IOPDDL traces' 28,526). On those 14 traces, 10
// a buffer changed 4 answers by 0.06 % at most, all still within 1 %, for
// a fifth more nodes.
func raceSettleNodes(n int) int64 { return max(5*int64(n), 1) }

// raceCheckEvery is the nodes between a race's checkpoints: an eighth of
// settle, so that it stops at most that late.
func raceCheckEvery(settle int64) int64 { return max(settle/8, 1) }

// race runs runs to their budgets or until one settles (never, where
// settle is 0), each on its own goroutine, and returns the index of the
// smallest answer, ties to the earlier, with the runs' errors.
func (pr *prepared) race(ctx context.Context, runs []racer, bound, settle int64) (int, error) {
	r := &race{bound: bound, settle: settle, settled: make([][]bool, len(runs)),
		ended: make([]bool, len(runs)), endedSettled: make([]bool, len(runs)), stopAt: -1}
	r.moved = sync.NewCond(&r.mu)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr.raceRun(ctx, r, i, &runs[i])
		}()
	}
	wg.Wait()
	won, errs := 0, []error{}
	for i := range runs {
		errs = append(errs, runs[i].err)
		if ArenaOf(pr.p, runs[i].offsets) < ArenaOf(pr.p, runs[won].offsets) {
			won = i
		}
	}
	return won, errors.Join(errs...)
}

// raceRun is run i of race r.
func (pr *prepared) raceRun(ctx context.Context, r *race, i int, run *racer) {
	o := improveOptions{seed: run.seed, nodes: run.nodes}
	var plans []kept // at undecided checkpoints, oldest first
	if r.settle > 0 {
		o.checkEvery = raceCheckEvery(r.settle)
		o.checkpoint = func(best, stalled, nodes int64, plan []int64) bool {
			k := run.checks
			run.checks++
			stopAt, decided := r.reached(i, best <= r.bound || !farAbove(best, r.bound) && stalled >= r.settle)
			if stopAt >= 0 {
				return true // here, or back at a plan kept
			}
			for len(plans) > 0 && plans[0].at < decided {
				plans = plans[1:]
			}
			if k >= decided {
				plans = append(plans, kept{k, nodes, slices.Clone(plan)})
			}
			return false
		}
	}
	run.spent, run.err = pr.improve(ctx, run.offsets, r.bound, o)
	// Stopped at a checkpoint it passed, or ended after one where the
	// race stops, the run goes back to its plan there.
	if stopAt := r.end(i, ArenaOf(pr.p, run.offsets) <= r.bound); stopAt >= 0 && stopAt < run.checks {
		run.stopped = true
		for _, kp := range plans {
			if kp.at == stopAt {
				copy(run.offsets, kp.plan)
				run.spent, run.checks = kp.nodes, stopAt+1
			}
		}
	}
}

// reached records run i's state at its next checkpoint and returns the
// checkpoint where the race stops (-1: none yet) and the first one it
// has not decided, after waiting while i is raceAhead past that.
func (r *race) reached(i int, settled bool) (stopAt, decided int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := len(r.settled[i])
	r.settled[i] = append(r.settled[i], settled)
	r.decide()
	for r.stopAt < 0 && k-r.decided >= raceAhead {
		r.moved.Wait()
	}
	return r.stopAt, r.decided
}

// end records that run i has ended, at the bound or not, waits until
// the race has decided every checkpoint i reached, and returns the one
// where it stops, or -1.
func (r *race) end(i int, atBound bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended[i], r.endedSettled[i] = true, atBound
	r.decide()
	for r.stopAt < 0 && r.decided < len(r.settled[i]) {
		r.moved.Wait()
	}
	return r.stopAt
}

// decide decides the checkpoints every run has reached or ended before,
// in order, up to the first where the race stops, and wakes the runs
// waiting. A run that ended counts as settled after its last checkpoint
// only if it ended at the bound. Only checkpoints some run reached are
// decided.
func (r *race) decide() {
	defer r.moved.Broadcast()
	for r.stopAt < 0 {
		k := r.decided
		stop, all, reached := false, true, false
		for j := range r.settled {
			switch {
			case len(r.settled[j]) > k:
				stop, reached = stop || r.settled[j][k], true
			case r.ended[j]:
				stop = stop || r.endedSettled[j]
			default:
				all = false
			}
		}
		if !all || !reached {
			return
		}
		if stop {
			r.stopAt = k
		} else {
			r.decided++
		}
	}
}
