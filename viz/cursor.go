package viz

import (
	"cmp"
	"slices"

	"memplan/planner"
)

// The time cursor: a step of the schedule picked by dragging in the live
// strip (or the cursor's line), by keys or by the host. The tensors live
// then are drawn as they are, the rest dimmed, and the host hears what
// the step holds (CursorAt).

// CursorTensor is a tensor live at the cursor's step.
type CursorTensor struct {
	Name   string       `json:"name"`
	Offset int64        `json:"offset"`
	Size   int64        `json:"size"`
	Kind   planner.Kind `json:"kind"`
	// OffsetText and SizeText are the numbers as the page shows them.
	OffsetText string `json:"offset_text"`
	SizeText   string `json:"size_text"`
}

// CursorInfo is what a step holds: the event the host gets when the
// cursor moves (protocol's cursor event).
type CursorInfo struct {
	Step       int    `json:"step"` // -1: the cursor is hidden
	LiveBytes  int64  `json:"live_bytes"`
	LowerBound int64  `json:"lower_bound"`
	Arena      int64  `json:"arena"`
	Op         string `json:"op"` // the op that runs at the step; "" past the last
	// Reads and Writes name what the op reads (views as themselves) and
	// the tensors it writes (born at the step).
	Reads  []string `json:"reads"`
	Writes []string `json:"writes"`
	// Live are the tensors with arena bytes live at the step, by offset.
	Live []CursorTensor `json:"live"`
	// Peak is the step that sets the lower bound.
	Peak int `json:"peak"`
}

// PeakStep is the first step whose live bytes set the lower bound (the
// live profile's maximum); -1 for an empty plan.
func (l *Layout) PeakStep() int {
	for _, p := range l.Live {
		if p.Bytes == l.MaxLive {
			return int(p.X)
		}
	}
	return -1
}

// LastStep is the last step the cursor can take: one past the last op,
// where outputs still live.
func (l *Layout) LastStep() int { return max(l.Plan.Steps, 0) }

// CursorAt is what step holds.
func (l *Layout) CursorAt(step int) CursorInfo {
	p := l.Plan
	c := CursorInfo{Step: step, LowerBound: p.LowerBound, Arena: p.ArenaSize, Reads: []string{}, Writes: []string{}, Live: []CursorTensor{}, Peak: l.PeakStep()}
	if step < 0 {
		c.Step = -1
		return c
	}
	c.LiveBytes = l.LiveAt(step)
	if step < len(p.Schedule) {
		c.Op = p.Schedule[step]
	}
	if step < len(p.Reads) {
		for _, t := range p.Reads[step] {
			if t >= 0 && t < len(p.Tensors) {
				c.Reads = append(c.Reads, p.Tensors[t].Name)
			}
		}
	}
	var live []int
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if t.Birth == step && c.Op != "" && !loadedKind(t.Kind) {
			c.Writes = append(c.Writes, t.Name)
		}
		if t.Offset >= 0 && t.Birth <= step && step <= t.Death {
			live = append(live, i)
		}
	}
	slices.SortFunc(live, func(a, b int) int { // by offset, larger first, then schedule order
		ta, tb := &p.Tensors[a], &p.Tensors[b]
		if c := cmp.Compare(ta.Offset, tb.Offset); c != 0 {
			return c
		}
		if c := cmp.Compare(tb.Size, ta.Size); c != 0 {
			return c
		}
		return a - b
	})
	for _, i := range live {
		t := &p.Tensors[i]
		c.Live = append(c.Live, CursorTensor{t.Name, t.Offset, t.Size, t.Kind, planner.GroupDigits(t.Offset), planner.FormatBytes(t.Size)})
	}
	return c
}

func loadedKind(k planner.Kind) bool {
	return k == planner.KindInput || k == planner.KindParam || k == planner.KindConstant
}

// SetCursor puts the time cursor at step, clamped to the schedule; a
// negative step hides it. It reports whether the cursor moved.
func (v *View) SetCursor(step int) bool {
	if v.Layout == nil || step < 0 {
		step = -1
	} else {
		step = min(step, v.Layout.LastStep())
	}
	if step == v.Cursor {
		return false
	}
	v.Cursor = step
	v.Dirty = true
	return true
}

// MoveCursor steps the cursor by d, showing it at the first (d > 0) or
// last step when it is hidden.
func (v *View) MoveCursor(d int) bool {
	if v.Layout == nil {
		return false
	}
	if v.Cursor < 0 {
		if d > 0 {
			return v.SetCursor(0)
		}
		return v.SetCursor(v.Layout.LastStep())
	}
	return v.SetCursor(max(v.Cursor+d, 0))
}

// live reports whether the item is live at the cursor's step.
func (v *View) liveAtCursor(it *Item) bool {
	x := float64(v.Cursor) + 0.5
	return it.X0 <= x && x < it.X1
}

// cursorX is the screen x of the cursor's line: the middle of its step.
func (v *View) cursorX() float64 {
	sx, _ := v.Cam.ToScreen(float64(v.Cursor)+0.5, 0)
	return sx
}

// StepAt is the step under screen x in CSS pixels, clamped to the
// schedule.
func (v *View) StepAt(sx float64) int {
	x, _ := v.Cam.ToWorld(sx*v.Scale, 0)
	if v.Layout == nil {
		return -1
	}
	return min(max(int(x), 0), v.Layout.LastStep())
}

// OnCursorLine reports whether (sx, sy) in CSS pixels is where a drag
// moves the cursor: the live strip, or within a few pixels of the
// cursor's line in the plot.
func (v *View) OnCursorLine(sx, sy float64) bool {
	if v.Layout == nil {
		return false
	}
	dx, dy := sx*v.Scale, sy*v.Scale
	if v.StripRect().Contains(dx, dy) {
		return true
	}
	d := dx - v.cursorX()
	return v.Cursor >= 0 && v.PlotRect().Contains(dx, dy) && d*d <= 25*v.m.u*v.m.u
}

// Explained is what the canvas shows of a why-here explanation: the
// buffers the selected one had to avoid, outlined, and the gaps they
// left over its lifetime, shaded.
type Explained struct {
	Conflicts []int  // tensor indexes
	Gaps      []Rect // in world units
}

// SetExplained shows an explanation's buffers and gaps (nil: none).
func (v *View) SetExplained(e *Explained) {
	v.Explained = e
	v.Dirty = true
}

// ExplainedFrom turns an explanation's placement into what the canvas
// shows; nil when it has none.
func (l *Layout) ExplainedFrom(r *planner.PlaceReason) *Explained {
	if r == nil {
		return nil
	}
	e := &Explained{}
	for _, c := range r.Conflicts {
		if i := l.Index(c.Name); i >= 0 {
			e.Conflicts = append(e.Conflicts, i)
		}
	}
	x0, x1 := float64(r.Birth), float64(r.Death+1)
	for _, g := range r.Gaps {
		hi := float64(g.Hi)
		if g.Hi < 0 { // the open top: as far as the buffer reaches, or the arena
			hi = float64(max(g.Lo+r.Span, l.Plan.ArenaSize, g.Top))
		}
		if hi > float64(g.Lo) {
			e.Gaps = append(e.Gaps, Rect{x0, float64(g.Lo), x1, hi})
		}
	}
	return e
}

// appendGaps shades the explained gaps, under the buffers.
func (v *View) appendGaps(dst []Quad) []Quad {
	if v.Explained == nil {
		return dst
	}
	plot, th := v.PlotRect(), v.Theme
	// Hatched in the bound's colour: free bytes, not a tensor (solid) nor
	// a guard (grey hatching).
	c := th.Lower.Mix(th.Background, 0.55)
	for _, g := range v.Explained.Gaps {
		x0, y1 := v.Cam.ToScreen(g.X0, g.Y0)
		x1, y0 := v.Cam.ToScreen(g.X1, g.Y1)
		x0, y0, x1, y1 = max(x0, plot.X0), max(y0, plot.Y0), min(x1, plot.X1), min(y1, plot.Y1)
		if x1 > x0 && y1 > y0 {
			dst = append(dst, Quad{float32(x0), float32(y0), float32(x1), float32(y1), c, true})
		}
	}
	return dst
}

// appendConflicts outlines the explained conflicts, and draws the cursor's
// line down the plot and the strip.
func (v *View) appendCursorAndConflicts(dst []Quad) []Quad {
	l, th, u := v.Layout, v.Theme, v.m.u
	plot := v.PlotRect()
	dst = v.appendHandConflicts(dst)
	if v.Explained != nil {
		for _, t := range v.Explained.Conflicts {
			if t < 0 || t >= len(l.ItemOf) || l.ItemOf[t] < 0 {
				continue
			}
			it := &l.Items[l.ItemOf[t]]
			x0, y1 := v.Cam.ToScreen(it.X0, it.Y0)
			x1, y0 := v.Cam.ToScreen(it.X1, it.Y1)
			dst = v.appendOutline(dst, plot, x0, y0, x1, y1, th.Lower)
			dst = v.appendOutline(dst, plot, x0+u, y0+u, x1-u, y1-u, th.Lower)
		}
	}
	if v.Cursor >= 0 {
		x := float32(v.cursorX())
		s := v.StripRect()
		if float64(x) >= plot.X0 && float64(x) < plot.X1 {
			w := float32(u)
			dst = append(dst,
				Quad{x - w, float32(plot.Y0), x + w, float32(plot.Y1), th.Select, false},
				Quad{x - w, float32(s.Y0), x + w, float32(s.Y1), th.Select, false})
		}
	}
	return dst
}
