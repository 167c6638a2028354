//go:build js && wasm

package main

import (
	"fmt"
	"runtime"
	"time"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/heap"
)

// warmUp has a worker plan a generated file as soon as it is up, beside
// the viewer's first picture, and decodes, lays out and summarizes the
// plan here, unseen: the browser optimizes wasm code only after it has
// run a while, so the first large file would otherwise plan and draw at
// the baseline compiler's speed (wasm/worker/warm.go has the numbers).
// Any request cancels it.
func (a *app) warmUp() {
	// On the pool's last worker: the first coordinates every request, and
	// a file dropped meanwhile should not wait for it to notice the
	// warm-up is cancelled. The workers share the compiled planner, and
	// with it the optimized code the warm-up makes.
	last := planners().Get("size").Int() - 1
	res := resultOf("warm-up.csv", await(planners().Call("ask", last, map[string]any{"type": "warm"})))
	if res.err != nil {
		a.queue(func() { a.warm = "skipped" }) // cancelled by a request, or the worker was in use
		return
	}
	// One step a frame: together they hold the page's thread for a
	// quarter of a second, a hitch a person sees in a panning plot, or in
	// the frames of a plan that was dropped meanwhile.
	var spent time.Duration
	step := func(f func()) func() {
		return func() {
			start := time.Now()
			f()
			spent += time.Since(start)
		}
	}
	var l *viz.Layout
	a.queue(step(func() {
		l = viz.NewLayout(res.plan, 0)
		a.queue(step(func() {
			_, _ = ir.EncodeJSON(summary(l), "")
			a.queue(func() {
				a.warm = fmt.Sprintf("done: worker %.0f ms, viewer %.0f ms (%.0f ms example)", res.millis["load"]+res.millis["plan"]+res.millis["encode"],
					res.millis["decode"]+float64(spent.Milliseconds()), a.warmViewerMs)
				// The warm-up's plan is garbage now: collect it while the
				// heap holds little else (a few milliseconds), so the first
				// file's plan reuses that memory instead of growing into
				// fresh memory, which costs far more.
				runtime.GC()
			})
		}))
	}))
}

// warmViewer decodes and lays out the built-in example's plan again and
// again, a round a frame once the first picture is drawn, so that the
// browser has optimized the viewer's decoding and layout before the first
// large plan comes, even one dropped before the worker's warm-up plan has
// reached the viewer: that drop's decoding of Y_1 had taken 230 ms
// instead of 50, and its layout 80–110 ms instead of 60.
func (a *app) warmViewer(rounds int) {
	a.queue(func() {
		start := time.Now()
		if rounds == warmRounds {
			// And room for a large plan's decoding and layout, made at
			// once while the page is idle (wasm/heap).
			heap.Reserve(96 << 20)
		}
		for range warmPerRound {
			if p, err := planner.DecodeBinary(examples.DefaultPlan); err == nil {
				viz.NewLayout(p, 0)
			}
		}
		a.warmViewerMs += float64(time.Since(start).Microseconds()) / 1000
		if rounds > 1 {
			a.warmViewer(rounds - 1)
		}
	})
}

// Ten rounds of ten, 4–5 ms a frame: 40–50 ms of the page's thread in all.
const warmRounds, warmPerRound = 10, 10
