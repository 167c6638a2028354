//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"memplan/wasm/protocol"
)

// warm answers a "warm" request: it plans a generated buffer CSV through
// the same path as a dropped file, and posts the plan back as "planned"
// (which the viewer decodes and lays out the same way, unseen).
//
// Why: the browser first runs wasm through its baseline compiler and
// optimizes a function only after it has run a while, and a function
// already running (best fit's loop over 60,000 buffers) keeps its
// baseline code to the end. Measured on idealloc's Y_1, the first two
// drops on a fresh page took 4.4 s and later ones 1.9 s. This plan, made
// as the page starts, gives every hot loop the run it needs first. A
// request that comes meanwhile cancels it, and a worker that has been
// asked anything else does not warm.
func (w *worker) warm(id int) {
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	if w.cancel != nil || w.id != 0 {
		w.mu.Unlock()
		cancel()
		post(protocol.WorkerEvent{Type: "error", ID: id, Error: &protocol.Error{Message: "the planner is already in use", Kind: "cancelled"}})
		return
	}
	w.cancel, w.id = cancel, id
	w.mu.Unlock()
	go func() {
		w.running.Lock()
		defer w.running.Unlock()
		// Half the portfolio (both halves share their code) and so no
		// improvement slice: the point is the code, not the plan.
		req := protocol.PlanRequest{ID: id, Name: "warm-up.csv", Shard: 0, Shards: 2}
		req.Options.Strategy = "auto"
		ev, bin, p, _, prove := plan(ctx, req, warmCSV(warmBuffers), nil, nil) // no shard waits for its release
		ev.ID = id
		w.send(ev, bin, p, prove, false) // the proof and the tensors' JSON too: they are on every plan's path
	}()
}

// warmBuffers is enough buffers for the hot functions of the pipeline to
// be optimized, and few enough that the warm-up is over by the time the
// first picture is up (a third of a second of a worker on a 2-core
// machine). With Y_1 dropped the moment that picture showed, the median
// time to its summary was 1.44 s after a warm-up of 2,000 buffers, 1.37 s
// after 4,000 and 1.60 s after 8,000, which was still running.
const warmBuffers = 4000

// warmCSV is a buffer CSV of n buffers shaped like the large traces:
// mostly short lifetimes, some long ones, sizes over several orders of
// magnitude. The same bytes every time.
func warmCSV(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := []byte("id,lower,upper,size\n")
	steps := n * 3 / 2
	for i := range n {
		lo := rng.IntN(steps)
		life := 1 + rng.IntN(8)
		if rng.IntN(16) == 0 {
			life += rng.IntN(steps / 4)
		}
		size := int64(1) << rng.IntN(24)
		size += rng.Int64N(size)
		b = fmt.Appendf(b, "%d,%d,%d,%d\n", i, lo, lo+life, size)
	}
	return b
}
