package planner

import (
	"fmt"

	"memplan/ir"
)

// StrategyHand is the strategy a record placed by hand names: no rule of
// memplan chose its offsets, a person did (viz.Hand).
const StrategyHand = "by-hand"

// Owns reports whether tensor t owns bytes of the arena: the tensors a
// placement gives offsets to (views follow their roots).
func (t *PlanTensor) Owns() bool { return t.Placed() && t.Size+t.Guard > 0 }

// AlignOf is the alignment tensor t's offset must be a multiple of: its
// own when it has one, else the plan's.
func (p *Plan) AlignOf(t *PlanTensor) int64 { return p.alignOf(t) }

// CheckOffset says whether offset can be tensor i's in a placement of p:
// i owns bytes, and the offset is in range and aligned. The error names
// what is wrong, for a page to show against its field.
func (p *Plan) CheckOffset(i int, offset int64) error {
	if i < 0 || i >= len(p.Tensors) {
		return fmt.Errorf("no tensor %d", i)
	}
	t := &p.Tensors[i]
	switch {
	case t.Skipped:
		return fmt.Errorf("tensor %s is skipped: it has no bytes to place", ir.Quote(t.Name))
	case t.IsView():
		return fmt.Errorf("tensor %s is a view of %s: it moves with its root", ir.Quote(t.Name), ir.Quote(t.Root))
	case !t.Owns():
		return fmt.Errorf("tensor %s has no bytes to place", ir.Quote(t.Name))
	case offset < 0:
		return fmt.Errorf("offset %d is negative", offset)
	}
	if _, err := ir.AddSize(offset, t.Size+t.Guard); err != nil {
		return fmt.Errorf("offset %d: %v", offset, err)
	}
	if a := p.alignOf(t); offset%a != 0 {
		return fmt.Errorf("offset %d is not a multiple of %s's alignment %d", offset, ir.Quote(t.Name), a)
	}
	return nil
}

// StackedOffsets are offsets for p's tensors with no byte shared: every
// owner above the last, each at its alignment, in tensor order (the
// bytes total_unshared counts). Tensors that own no bytes get -1.
func (p *Plan) StackedOffsets() ([]int64, error) {
	out := make([]int64, len(p.Tensors))
	var end int64
	for i := range p.Tensors {
		out[i] = -1
		t := &p.Tensors[i]
		if !t.Owns() {
			continue
		}
		var err error
		if end, err = ir.AlignUp(end, p.alignOf(t)); err == nil {
			out[i] = end
			end, err = ir.AddSize(end, t.Size+t.Guard)
		}
		if err != nil {
			return nil, fmt.Errorf("stacking %s: %v", ir.Quote(t.Name), err)
		}
	}
	return out, nil
}

// WithOffsets is the record of p's tensors at other offsets: offsets[i]
// for each tensor i that owns bytes (the others' entries are not read),
// each view at its root's offset plus its own, and every field that
// follows from the placement derived again (the arena, optimal, saved,
// fragmentation, reuses), naming strategy. The record claims nothing it
// cannot show: no placement order or rule, and no search's word. Each
// offset must pass CheckOffset; whether the tensors overlap is Verify's
// to say of the result. A plan under tensor binding is refused: its GPU
// buffers are cut where its planner chose, which a record does not keep.
func (p *Plan) WithOffsets(offsets []int64, strategy string) (*Plan, error) {
	if len(offsets) != len(p.Tensors) {
		return nil, fmt.Errorf("%d offsets for %d tensors", len(offsets), len(p.Tensors))
	}
	if p.Binding == BindTensor {
		return nil, fmt.Errorf("a plan under tensor binding is cut into GPU buffers where its planner chose: it cannot be placed by hand")
	}
	q := *p
	q.Tensors = make([]PlanTensor, len(p.Tensors))
	copy(q.Tensors, p.Tensors)
	byName := make(map[string]int, len(q.Tensors))
	var arena int64
	for i := range q.Tensors {
		t := &q.Tensors[i]
		byName[t.Name] = i
		if !t.Owns() {
			continue
		}
		if err := p.CheckOffset(i, offsets[i]); err != nil {
			return nil, err
		}
		t.Offset = offsets[i]
		arena = max(arena, t.Offset+t.Size+t.Guard)
	}
	for i := range q.Tensors {
		t := &q.Tensors[i]
		if t.IsView() && !t.Skipped {
			r, ok := byName[t.Root]
			if !ok {
				return nil, fmt.Errorf("view %s: root %s is not a tensor of the plan", ir.Quote(t.Name), ir.Quote(t.Root))
			}
			if root := &q.Tensors[r]; root.Offset >= 0 {
				t.Offset = root.Offset + t.ViewOffset
			}
		}
	}
	q.ArenaSize = arena
	q.Strategy = strategy
	q.Optimal = arena == q.AlignedLowerBound
	q.OptimalBySearch = false
	q.Saved = q.TotalUnshared - arena
	q.Fragmentation = fragmentation(arena, q.LowerBound)
	q.PlacementOrder, q.PlacementRule = nil, ""
	// No rule of no_reuse placed these offsets: the record does not
	// claim it (Verify holds such a record to strategy no-reuse).
	q.Options.NoReuse = false
	for i, name := range q.reusedFrom() {
		q.Tensors[i].Reuses = name
	}
	q.Fingerprint = q.ComputeFingerprint()
	return &q, nil
}

// IndexOf is the index of the tensor named name, -1 for none.
func (p *Plan) IndexOf(name string) int {
	for i := range p.Tensors {
		if p.Tensors[i].Name == name {
			return i
		}
	}
	return -1
}
