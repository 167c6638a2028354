package planner

import (
	"context"
	"errors"
	"sync"
)

// A race improves several answers at once, in step, and stops them all
// once one has settled: its best arena within 1 % of the bound (not
// farAbove) and no lower for the race's settle nodes, or at the bound.
// Every raceCheckEvery(settle) nodes each run waits at a checkpoint until
// every other run has reached the same one or ended, and all decide from
// the same states. A run's path depends only on its own start, seed and
// budget, so where the race stops, and its answer, do not depend on the
// threads or on which ran first.
//
// Why: where auto's answer stays far above the bound, where the improver
// ends depends on its seed more than on its start or budget, and a run
// that comes within 1 % mostly does so early and then gains little. On
// the 14 far-phase traces of 700 IOPDDL-derived siblings, the restarts'
// runs that came within 1 % did so after 120,000 to 1,400,000 nodes; the
// rest of their 1,640,000 lowered their best by 0.4 % at most.
type race struct {
	bound, settle int64
	mu            sync.Mutex
	moved         *sync.Cond
	settled       [][]bool // per run, at each checkpoint it has reached
	ended         []bool
	endedSettled  []bool // at the bound when it ended
}

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
// settle is 0), each on its own goroutine (one thread takes them in turn
// at the checkpoints), and returns the index of the smallest answer, ties
// to the earlier, with the runs' errors.
func (pr *prepared) race(ctx context.Context, runs []racer, bound, settle int64) (int, error) {
	r := &race{bound: bound, settle: settle, settled: make([][]bool, len(runs)),
		ended: make([]bool, len(runs)), endedSettled: make([]bool, len(runs))}
	r.moved = sync.NewCond(&r.mu)
	check := raceCheckEvery(settle)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := &runs[i]
			o := improveOptions{seed: run.seed, nodes: run.nodes}
			if settle > 0 {
				o.checkEvery, o.checkpoint = check, func(best, stalled int64) bool {
					run.checks++
					run.stopped = r.reached(i, best, stalled)
					return run.stopped
				}
			}
			run.spent, run.err = pr.improve(ctx, run.offsets, bound, o)
			r.end(i, ArenaOf(pr.p, run.offsets) <= bound)
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

// reached records run i's state at its next checkpoint, waits for the
// others' at the same one, and reports whether the race stops there.
func (r *race) reached(i int, best, stalled int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := len(r.settled[i])
	r.settled[i] = append(r.settled[i], best <= r.bound || !farAbove(best, r.bound) && stalled >= r.settle)
	r.moved.Broadcast()
	for {
		stop, all := false, true
		for j := range r.settled {
			switch {
			case len(r.settled[j]) > k:
				stop = stop || r.settled[j][k]
			case r.ended[j]:
				stop = stop || r.endedSettled[j]
			default:
				all = false
			}
		}
		if all {
			return stop
		}
		r.moved.Wait()
	}
}

// end records that run i has ended, at the bound or not.
func (r *race) end(i int, atBound bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended[i], r.endedSettled[i] = true, atBound
	r.moved.Broadcast()
}
