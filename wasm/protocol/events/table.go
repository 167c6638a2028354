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
	held int       // Hold's last token; it only grows, so no old timer's comes due
}

// KeyTableWait is how long, in milliseconds, the table waits after a
// key's move (Hold) for another: longer than a held key's auto-repeat
// (about 30 ms), short enough that one press's row follows at once to
// the eye.
const KeyTableWait = 150

// Planned says a new plan is on screen: its first table, the
// planner's, goes out with it (Rev 0); a key's timer still running is
// of the plan before.
func (s *TableSync) Planned() { *s = TableSync{held: s.held + 1} }

// Hold says a key changed the placement: its table waits until the keys
// have been still for KeyTableWait. A held arrow repeats thirty times a
// second and a large plan's table costs a fifth of a second to write and
// read, so a table per press would leave the page behind the keys; the
// verdict still goes out at each. The host's timer comes back with the
// token Hold returns, and each Hold makes the tokens before it stale.
func (s *TableSync) Hold() (token int) {
	s.held++
	return s.held
}

// Due reports whether the timer of token is the last key's: then the
// keys have settled and Next says whether the table is still to send.
func (s *TableSync) Due(token int) bool { return token == s.held }

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
