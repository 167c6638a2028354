package events

import (
	"memplan/planner"
	"memplan/viz"
)

// TableSync follows which table the host shows of the plan on screen:
// the planner's, which comes with the plan, or a placement by hand's at
// one of its revisions (viz.Hand.Rev). The viewer asks it after every
// change and posts only when the host's table no longer shows what the
// canvas does: a table of 62,000 tensors is a tenth of a second to write
// and another to read, too much to send when nothing changed.
type TableSync struct {
	rev  int       // Rev of the last table sent of this plan (0: the planner's, first)
	hand *viz.Hand // the placement that table showed; nil: the planner's plan
	at   int       // hand.Rev when it was sent
}

// Planned says a new plan is on screen: its first table, the
// planner's, goes out with it (Rev 0).
func (s *TableSync) Planned() { *s = TableSync{} }

// Next is the Tensors event, and the table that goes with it
// (planner.AppendTableJSON, offsets and sizes in Go's words), for file's
// plan as h places it (nil: as the planner placed it), when the host's
// table shows otherwise; ok is false when it shows that already.
func (s *TableSync) Next(file string, h *viz.Hand) (ev Tensors, table []byte, ok bool) {
	var plan *planner.Plan
	switch {
	case h != nil && (h != s.hand || h.Rev != s.at):
		plan = h.Plan
	case h == nil && s.hand != nil:
		plan = s.hand.Base
	default:
		return Tensors{}, nil, false
	}
	s.rev++
	s.hand = h
	if h != nil {
		s.at = h.Rev
	}
	return Tensors{File: file, Rev: s.rev, Placing: h != nil}, planner.AppendTableJSON(nil, plan.Tensors), true
}
