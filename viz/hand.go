package viz

import (
	"fmt"
	"slices"
	"strings"

	"memplan/ir"
	"memplan/planner"
)

// Placing by hand: a learner moves the planner's buffers up and down and
// the planner judges every placement. Hand keeps the offsets, the moves
// to undo and redo, and the verdict; the record it makes of the offsets
// (planner.Plan.WithOffsets) is what the canvas draws, and planner.Verify
// says whether it is a plan.

// Conflict is two tensors that share bytes while both are live: steps
// From to To, inclusive.
type Conflict struct {
	A    string `json:"a"`
	B    string `json:"b"`
	From int    `json:"from"`
	To   int    `json:"to"`
	ai   int
	bi   int
}

// Verdict is what the planner says of the placement on screen.
type Verdict struct {
	// Valid: planner.Verify accepts the record of these offsets.
	Valid bool `json:"valid"`
	// Conflicts are the pairs that overlap (at most MaxConflicts of them;
	// Overlaps counts them all).
	Conflicts []Conflict `json:"conflicts"`
	Overlaps  int        `json:"overlaps"`
	// Arena is the highest byte the buffers use; LowerBound the most
	// bytes live at one step, AlignedLowerBound that with the padding
	// alignment forces, and PlannerArena the arena the planner found
	// (PlannerStrategy's) for the same file.
	Arena             int64  `json:"arena"`
	LowerBound        int64  `json:"lower_bound"`
	AlignedLowerBound int64  `json:"aligned_lower_bound"`
	PlannerArena      int64  `json:"planner_arena"`
	PlannerStrategy   string `json:"planner_strategy"`
	// Optimal: valid, and at the aligned lower bound: nothing smaller
	// exists.
	Optimal bool `json:"optimal"`
	// Problem is Verify's word when the placement is not a plan.
	Problem string `json:"problem,omitempty"`
	// Text is the verdict in words, for the page to show as it is, and
	// Rows the numbers beside it, label and words.
	Text string      `json:"text"`
	Rows [][2]string `json:"rows"`
	// Moved is the tensor the last change moved ("" for a reset or a
	// start from empty), Undo and Redo how many changes each can take
	// back or make again.
	Moved string `json:"moved,omitempty"`
	Undo  int    `json:"undo"`
	Redo  int    `json:"redo"`
}

// MaxConflicts is the most conflicts a verdict lists.
const MaxConflicts = 50

// handChange is one tensor's move: from one offset to another.
type handChange struct {
	i        int
	from, to int64
}

// handEdit is what one undo takes back: a move, a drag, a reset.
type handEdit struct {
	changes []handChange
	drag    bool // a drag still going: its next move merges into it
}

// Hand is a placement by hand of a planner's plan.
type Hand struct {
	// Base is the planner's plan, whose tensors are placed.
	Base *planner.Plan
	// Plan is the record of the offsets now (WithOffsets).
	Plan *planner.Plan
	// Verdict is the planner's word on Plan.
	Verdict Verdict
	// Owners are the tensors that own bytes, in tensor order: what Tab
	// walks.
	Owners []int
	// Rev counts the verdicts given: a change to the placement bumps it.
	Rev int

	offsets    []int64
	undo, redo []handEdit
	top        float64 // the world's height while placing (View.SetHand)
}

// NewHand starts placing base by hand at the planner's own offsets.
func NewHand(base *planner.Plan) (*Hand, error) {
	h := &Hand{Base: base, offsets: make([]int64, len(base.Tensors))}
	for i := range base.Tensors {
		h.offsets[i] = base.Tensors[i].Offset
		if base.Tensors[i].Owns() {
			h.Owners = append(h.Owners, i)
		}
	}
	if err := h.judge(""); err != nil {
		return nil, err
	}
	return h, nil
}

// Offset is tensor i's offset now.
func (h *Hand) Offset(i int) int64 { return h.offsets[i] }

// Place moves tensor i to offset: one change to undo. An offset that
// cannot be i's (planner.Plan.CheckOffset) is an error, and changes
// nothing. With drag, the move continues the drag the last one began
// (one undo takes back the whole drag); EndDrag ends it.
func (h *Hand) Place(i int, offset int64, drag bool) error {
	if err := h.Base.CheckOffset(i, offset); err != nil {
		return err
	}
	if offset == h.offsets[i] {
		return nil
	}
	if n := len(h.undo); drag && n > 0 && h.undo[n-1].drag && h.undo[n-1].changes[0].i == i {
		h.undo[n-1].changes[0].to = offset
	} else {
		h.EndDrag()
		h.undo = append(h.undo, handEdit{changes: []handChange{{i, h.offsets[i], offset}}, drag: drag})
	}
	h.redo = h.redo[:0]
	h.offsets[i] = offset
	return h.judge(h.Base.Tensors[i].Name)
}

// EndDrag ends a drag: the next move is a change of its own.
func (h *Hand) EndDrag() {
	if n := len(h.undo); n > 0 {
		h.undo[n-1].drag = false
	}
}

// Reset puts every tensor back at the planner's offset; Empty stacks
// them all, none sharing a byte. Each is one change to undo.
func (h *Hand) Reset() error {
	to := make([]int64, len(h.offsets))
	for i := range h.Base.Tensors {
		to[i] = h.Base.Tensors[i].Offset
	}
	return h.setAll(to)
}

func (h *Hand) Empty() error {
	to, err := h.Base.StackedOffsets()
	if err != nil {
		return err
	}
	return h.setAll(to)
}

func (h *Hand) setAll(to []int64) error {
	var e handEdit
	for _, i := range h.Owners {
		if to[i] != h.offsets[i] {
			e.changes = append(e.changes, handChange{i, h.offsets[i], to[i]})
			h.offsets[i] = to[i]
		}
	}
	if len(e.changes) == 0 {
		return nil
	}
	h.EndDrag()
	h.undo, h.redo = append(h.undo, e), h.redo[:0]
	return h.judge("")
}

// Undo takes back the last change, Redo makes the last one taken back
// again; each reports whether there was one.
func (h *Hand) Undo() (bool, error) {
	n := len(h.undo)
	if n == 0 {
		return false, nil
	}
	e := h.undo[n-1]
	e.drag = false
	h.undo, h.redo = h.undo[:n-1], append(h.redo, e)
	for _, c := range e.changes {
		h.offsets[c.i] = c.from
	}
	return true, h.judge(h.movedBy(e))
}

func (h *Hand) Redo() (bool, error) {
	n := len(h.redo)
	if n == 0 {
		return false, nil
	}
	e := h.redo[n-1]
	h.redo, h.undo = h.redo[:n-1], append(h.undo, e)
	for _, c := range e.changes {
		h.offsets[c.i] = c.to
	}
	return true, h.judge(h.movedBy(e))
}

// Moves are the tensors not at the planner's offsets, and where they are:
// what a link keeps of a placement.
func (h *Hand) Moves() []HandMove {
	var out []HandMove
	for _, i := range h.Owners {
		if h.offsets[i] != h.Base.Tensors[i].Offset {
			out = append(out, HandMove{Name: h.Base.Tensors[i].Name, Offset: h.offsets[i]})
		}
	}
	return out
}

// HandMove is one tensor at an offset of the learner's.
type HandMove struct {
	Name   string
	Offset int64
}

// Apply places each move's tensor at its offset, as one change: a link's
// placement reopened. An unknown name or an offset that cannot be its
// tensor's is an error naming it, and changes nothing.
func (h *Hand) Apply(moves []HandMove) error {
	to := slices.Clone(h.offsets)
	for _, m := range moves {
		i := h.Base.IndexOf(m.Name)
		if i < 0 {
			return fmt.Errorf("no tensor %s in the plan", ir.Quote(m.Name))
		}
		if err := h.Base.CheckOffset(i, m.Offset); err != nil {
			return err
		}
		to[i] = m.Offset
	}
	return h.setAll(to)
}

func (h *Hand) movedBy(e handEdit) string {
	if len(e.changes) == 1 {
		return h.Base.Tensors[e.changes[0].i].Name
	}
	return ""
}

// judge makes the record of the offsets and has the planner judge it.
func (h *Hand) judge(moved string) error {
	rec, err := h.Base.WithOffsets(h.offsets, planner.StrategyHand)
	if err != nil {
		return err
	}
	h.Plan = rec
	v := Verdict{Arena: rec.ArenaSize, LowerBound: rec.LowerBound, AlignedLowerBound: rec.AlignedLowerBound,
		PlannerArena: h.Base.ArenaSize, PlannerStrategy: h.Base.Strategy, Moved: moved, Undo: len(h.undo), Redo: len(h.redo),
		Conflicts: []Conflict{}}
	if err := planner.Verify(rec); err != nil {
		v.Problem = err.Error()
		v.Conflicts, v.Overlaps = conflicts(rec, h.Owners)
	} else {
		v.Valid, v.Optimal = true, rec.Optimal
	}
	v.Text = verdictText(&v)
	v.Rows = VerdictRows(&v)
	h.Verdict = v
	h.Rev++
	return nil
}

// conflicts lists the pairs of owners that are live at a common step and
// share bytes, the first MaxConflicts of them, and counts them all. It
// runs only when Verify found a placement wanting, and sweeps the steps
// in birth order over the owners live then.
func conflicts(p *planner.Plan, owners []int) ([]Conflict, int) {
	order := slices.Clone(owners)
	slices.SortStableFunc(order, func(a, b int) int { return p.Tensors[a].Birth - p.Tensors[b].Birth })
	out := []Conflict{}
	count := 0
	var live []int
	for _, i := range order {
		t := &p.Tensors[i]
		live = slices.DeleteFunc(live, func(j int) bool { return p.Tensors[j].Death < t.Birth })
		for _, j := range live {
			u := &p.Tensors[j]
			if t.Offset < u.Offset+u.Size+u.Guard && u.Offset < t.Offset+t.Size+t.Guard {
				count++
				if len(out) < MaxConflicts {
					a, b := min(i, j), max(i, j)
					out = append(out, Conflict{A: p.Tensors[a].Name, B: p.Tensors[b].Name,
						From: max(t.Birth, u.Birth), To: min(t.Death, u.Death), ai: a, bi: b})
				}
			}
		}
		live = append(live, i)
	}
	return out, count
}

// VerdictRows are a verdict's numbers as the pages list them.
func VerdictRows(v *Verdict) [][2]string {
	return [][2]string{{"arena", planner.ExactBytes(v.Arena)}, {"lower bound", planner.ExactBytes(v.LowerBound)},
		{v.PlannerStrategy + "'s arena", planner.ExactBytes(v.PlannerArena)}}
}

// verdictText says the verdict in words.
func verdictText(v *Verdict) string {
	arena := planner.ExactBytes(v.Arena)
	switch {
	case !v.Valid && len(v.Conflicts) > 0:
		var parts []string
		for k, c := range v.Conflicts {
			if k == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", v.Overlaps-3))
				break
			}
			steps := fmt.Sprintf("step %d", c.From)
			if c.To > c.From {
				steps = fmt.Sprintf("steps %d–%d", c.From, c.To)
			}
			parts = append(parts, fmt.Sprintf("%s and %s share bytes at %s", c.A, c.B, steps))
		}
		return "Not a plan: " + strings.Join(parts, "; ") + "."
	case !v.Valid:
		return "Not a plan: " + v.Problem
	case v.Optimal:
		return fmt.Sprintf("A plan, and the smallest: its arena, %s, is the lower bound.", arena)
	case v.Arena < v.PlannerArena:
		return fmt.Sprintf("A plan of %s: smaller than %s's %s.", arena, v.PlannerStrategy, planner.ExactBytes(v.PlannerArena))
	case v.Arena == v.PlannerArena:
		return fmt.Sprintf("A plan of %s: as small as %s's.", arena, v.PlannerStrategy)
	}
	return fmt.Sprintf("A plan of %s: %s above %s's %s.", arena, planner.ExactBytes(v.Arena-v.PlannerArena), v.PlannerStrategy, planner.ExactBytes(v.PlannerArena))
}

// Next is the owner after tensor i in Tab's order (back: before it), -1
// past either end; i < 0 starts at the first (back: the last).
func (h *Hand) Next(i int, back bool) int {
	k := slices.Index(h.Owners, i)
	switch {
	case k < 0 && back:
		k = len(h.Owners) - 1
	case k < 0:
		k = 0
	case back:
		k--
	default:
		k++
	}
	if k < 0 || k >= len(h.Owners) {
		return -1
	}
	return h.Owners[k]
}

// Step is the offset an arrow key moves tensor i to: up or down one
// alignment, or with big to the next edge that way, where its bottom or
// its top meets the edge of a tensor live beside it, or the arena's
// bottom.
func (h *Hand) Step(i int, up, big bool) int64 {
	t := &h.Base.Tensors[i]
	a, off, span := h.Base.AlignOf(t), h.offsets[i], t.Size+t.Guard
	if !big {
		if up {
			return off + a
		}
		return max(off-a, 0)
	}
	// Edges: each neighbour's top (our bottom there) and bottom (our
	// top there), aligned toward the way we move.
	best := int64(-1)
	if !up {
		best = 0
	}
	consider := func(e int64) {
		if e < 0 {
			return
		}
		if up {
			e = (e + a - 1) / a * a
			if e > off && (best < 0 || e < best) {
				best = e
			}
		} else {
			e = e / a * a
			if e < off && e > best {
				best = e
			}
		}
	}
	for _, j := range h.Owners {
		u := &h.Base.Tensors[j]
		if j == i || u.Death < t.Birth || t.Death < u.Birth {
			continue
		}
		end := h.offsets[j] + u.Size + u.Guard
		consider(end)
		consider(h.offsets[j] - span)
	}
	if best < 0 { // nothing above: one height up
		best = off + (span+a-1)/a*a
	}
	return best
}
