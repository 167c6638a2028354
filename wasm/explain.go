//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"memplan/ir"
	"memplan/planner"
	"memplan/wasm/jsconv"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
)

// requestExplain asks the planner worker why tensor name lives when and
// sits where it does in the plan on screen; the answer is posted as an
// explain event and drawn (its conflicts outlined, its gaps shaded).
func (a *app) requestExplain(name string) {
	l := a.view.Layout
	if l == nil {
		return
	}
	if l.Index(name) < 0 {
		a.post(events.Explained{Tensor: name, Error: fmt.Sprintf("no tensor %s in the plan on screen", ir.Quote(name))})
		return
	}
	if a.hand != nil {
		// The worker explains the plans it made: a placement by hand has
		// no rule to tell, and its verdict is the placed event's.
		a.post(events.Explained{Tensor: name, Error: "placed by hand: the planner explains only its own placements (stop placing to ask it)"})
		return
	}
	a.explain++
	seq, plan := a.explain, l.Plan
	var then js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		then.Release() // allowed while it runs; it is called once
		var ev explainAnswer
		err := jsconv.Decode(args[0], &ev)
		a.queue(func() { a.explained(seq, plan, name, ev, err) })
		return nil
	})
	req := map[string]any{"type": "explain", "key": a.planID, "name": plan.Name, "tensor": name}
	if a.record.Truthy() {
		req["plan"] = a.record
	}
	planners().Call("ask", a.planFrom, req).Call("then", then)
}

// explained takes the worker's answer to requestExplain.
func (a *app) explained(seq int, plan *planner.Plan, name string, ev explainAnswer, err error) {
	if seq != a.explain || a.view.Layout == nil || a.view.Layout.Plan != plan {
		return // a newer request, or another plan, is on screen
	}
	if err != nil || ev.Explanation == nil {
		msg := "the planner gave no explanation"
		if ev.Error != nil {
			msg = ev.Error.Message
		}
		a.post(events.Explained{Tensor: name, Error: msg})
		return
	}
	e := ev.Explanation
	a.view.SetExplained(a.view.Layout.ExplainedFrom(e.Placement))
	out := events.Explained{Tensor: name, Text: e.Text, Producer: e.Producer, LastReader: e.LastReader,
		DeathReason: e.DeathReason, KeptBy: e.KeptBy, Conflicts: []string{}, Record: e}
	if e.Placement != nil {
		for _, c := range e.Placement.Conflicts {
			out.Conflicts = append(out.Conflicts, c.Name)
		}
		out.Rule = e.Placement.Rule
	}
	a.post(out)
}

// explainAnswer is what the viewer reads of a worker's "explained" event.
type explainAnswer struct {
	Explanation *planner.Explanation `json:"explanation"`
	Error       *protocol.Error      `json:"error"`
}
