//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
	"memplan/wasm/protocol/link"
)

// Placing by hand (docs/embedding.md, place and placing): a.hand is the
// placement on screen, nil when the planner's plan is. Every change is
// answered with a placed event, the planner's verdict on it.

// startHand places the plan on screen by hand, from the planner's
// offsets; it is an error for a plan that cannot be (tensor binding).
func (a *app) startHand() error {
	if a.hand != nil {
		return nil
	}
	l := a.view.Layout
	if l == nil {
		return errors.New("placing: no plan is shown yet")
	}
	h, err := viz.NewHand(l.Plan)
	if err != nil {
		return err
	}
	a.hand = h
	a.view.SetHand(h)
	return nil
}

// stopHand shows the planner's plan again.
func (a *app) stopHand() {
	h := a.hand
	if h == nil {
		return
	}
	a.hand = nil
	a.view.SetHand(nil)
	a.view.SetLayout(viz.NewLayout(h.Base, a.view.Layout.Budget), true)
}

// dropHand forgets the placement when another plan comes on screen.
func (a *app) dropHand() {
	if a.hand != nil {
		a.hand = nil
		a.view.SetHand(nil)
		a.postPlaced()
	}
}

// place applies a place command.
func (a *app) place(c *protocol.Place) {
	started := a.hand == nil
	if err := a.startHand(); err != nil {
		a.postError(err)
		return
	}
	if err := events.HandPlace(a.hand, c); err != nil {
		if started {
			a.stopHand()
		}
		a.postError(&messageError{err})
		return
	}
	a.view.Select(a.view.Layout.Index(c.Name))
	a.view.SetHand(a.hand)
	a.postSelect(a.view.Selected)
	a.postPlaced()
}

// placing applies a placing command.
func (a *app) placing(action string) {
	switch action {
	case "start":
		if err := a.startHand(); err != nil {
			a.postError(err)
			return
		}
	case "stop":
		a.stopHand()
	case "verdict":
	default:
		if err := a.startHand(); err != nil {
			a.postError(err)
			return
		}
		if err := events.HandAct(a.hand, action); err != nil {
			a.postError(err)
			return
		}
		a.view.SetHand(a.hand)
	}
	a.postPlaced()
}

// postPlaced tells the host the verdict on the placement on screen (or,
// when none is, that none is), and sends the table that shows it.
func (a *app) postPlaced() {
	a.postVerdict()
	a.syncTable()
}

// postKeyPlaced is postPlaced for a key's change: the verdict at once,
// the table once the keys settle (events.TableSync.Hold). A timer that
// the next key's move pushes back, rather than a table once the command
// queue is empty: a held key's repeats arrive frames apart, so the
// queue empties between them and would still send a table per press.
func (a *app) postKeyPlaced() {
	a.postVerdict()
	if a.tableTimer.IsUndefined() {
		// One function for every timer: its token says which move it
		// waits after, and it runs queued, like any command, between
		// frames.
		a.tableTimer = js.FuncOf(func(_ js.Value, args []js.Value) any {
			token := args[0].Int()
			a.queue(func() {
				if a.table.Due(token) {
					a.syncTable()
				}
			})
			return nil
		})
	}
	js.Global().Call("setTimeout", a.tableTimer, events.KeyTableWait, a.table.Hold())
}

// postVerdict posts the placed event of postPlaced.
func (a *app) postVerdict() {
	ev := events.Placed{}
	if a.cur != nil {
		ev.File = a.cur.name
	}
	v := a.view
	if h := a.hand; h != nil {
		ev.Placing, ev.Verdict = true, h.Verdict
		ev.TabForward, ev.TabBack = v.TabWalks(false), v.TabWalks(true)
	} else if l := v.Layout; l != nil {
		p := l.Plan
		ev.Verdict = viz.Verdict{Valid: true, Conflicts: []viz.Conflict{}, Arena: p.ArenaSize, LowerBound: p.LowerBound,
			AlignedLowerBound: p.AlignedLowerBound, PlannerArena: p.ArenaSize, PlannerStrategy: p.Strategy, Optimal: p.Optimal}
		ev.Verdict.Rows = viz.VerdictRows(&ev.Verdict)
	}
	if v.Layout != nil && v.Selected >= 0 {
		t := &v.Layout.Plan.Tensors[v.Selected]
		ev.Selected, ev.Offset = t.Name, t.Offset
	}
	if ev.Verdict.Conflicts == nil {
		ev.Verdict.Conflicts = []viz.Conflict{}
	}
	a.post(ev)
}

// syncTable sends the host the table of the plan on screen when the one
// it shows is another's: the placement's after each change, the
// planner's again once placing stops. Not in the middle of a drag: every
// pointer move is a change, and a large plan's table takes a tenth of a
// second to write and another to read, so the drag's end
// (viz.Game.OnPlace with done, after Hand.EndDrag) sends it once; nor
// after each key's move (postKeyPlaced).
func (a *app) syncTable() {
	if a.cur == nil || a.hand != nil && a.hand.Dragging() {
		return
	}
	if ev, table, ok := a.table.Next(a.cur.name, a.hand); ok {
		a.postWithTensors(ev, uint8Array(table))
	}
}

// handMoves are the placement's moves as a link keeps them.
func (a *app) handMoves() []link.Move {
	var out []link.Move
	for _, m := range a.hand.Moves() {
		out = append(out, link.Move{Name: m.Name, Offset: m.Offset})
	}
	return out
}

// restoreHand opens a link's placement by hand on the plan on screen. A
// move the plan cannot take is an error naming the link's parameter, and
// the planner's plan stays.
func (a *app) restoreHand(st *link.State) {
	if !st.Placing {
		a.dropHand()
		return
	}
	if err := a.startHand(); err != nil {
		a.postError(&link.Error{Param: "place", Msg: err.Error()})
		return
	}
	moves := make([]viz.HandMove, len(st.Moves))
	for k, m := range st.Moves {
		moves[k] = viz.HandMove{Name: m.Name, Offset: m.Offset}
	}
	if err := a.hand.Apply(moves); err != nil {
		a.stopHand()
		a.postError(&link.Error{Param: "place", Msg: err.Error()})
		return
	}
	a.view.SetHand(a.hand)
	a.postPlaced()
}
