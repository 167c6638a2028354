package viz

import "math"

// The canvas's side of placing by hand: the layout of the placement, the
// keys that move buffers, and the conflicts drawn.

// SetHand shows h's placement, its conflicts and the planner's arena; nil
// stops showing one (the caller then lays out the planner's plan again).
// The world keeps its height while the arena moves within it, so the
// camera holds still under a moving buffer.
func (v *View) SetHand(h *Hand) {
	v.Hand = h
	if h == nil {
		return
	}
	budget := int64(0)
	if v.Layout != nil {
		budget = v.Layout.Budget
	}
	l := NewLayout(h.Plan, budget)
	l.Lines = append(l.Lines, Line{float64(h.Base.ArenaSize), LinePlanner, h.Base.Strategy + " arena " + FormatBytes(h.Base.ArenaSize)})
	need := float64(max(h.Plan.ArenaSize, h.Base.ArenaSize)) * worldHeadroom
	if need > h.top || need*1.6 < h.top && !h.Dragging() {
		// Room above for moving up, a quarter more than needed; it grows
		// when a buffer goes higher and shrinks when the placement has
		// come well down (not mid-drag: the camera holds still under
		// the pointer).
		h.top = need * 1.25
	}
	l.Bounds.Y1 = max(l.Bounds.Y1, h.top)
	v.SetLayout(l, true)
}

// owns reports whether tensor i moves under the keys: it owns bytes, or
// is a view of one that does (which moves with it).
func (h *Hand) owns(i int) bool { return h.mover(i) >= 0 }

// mover is the tensor that moves when tensor i is moved: i when it owns
// bytes, its root when it is a view, else -1.
func (h *Hand) mover(i int) int {
	if i < 0 || i >= len(h.Base.Tensors) {
		return -1
	}
	t := &h.Base.Tensors[i]
	if t.IsView() && !t.Skipped {
		i = h.Base.IndexOf(t.Root)
		if i < 0 {
			return -1
		}
		t = &h.Base.Tensors[i]
	}
	if !t.Owns() {
		return -1
	}
	return i
}

// handKey applies a placing key; it reports whether it did anything.
func (v *View) handKey(action string, shift bool) bool {
	h := v.Hand
	switch action {
	case "place-up", "place-down":
		i := h.mover(v.Selected)
		if err := h.Place(i, h.Step(i, action == "place-up", shift), false); err != nil {
			return false
		}
	case "place-next":
		from := v.Selected
		if from >= 0 {
			from = h.mover(from)
		}
		n := h.Next(from, shift)
		if n < 0 {
			return false // past the last: the focus moves on
		}
		v.Select(n)
		v.KeepInView(n)
		return true
	case "place-undo", "place-redo":
		var ok bool
		var err error
		if action == "place-undo" {
			ok, err = h.Undo()
		} else {
			ok, err = h.Redo()
		}
		if !ok || err != nil {
			return false
		}
	}
	v.SetHand(h)
	return true
}

// TabWalks says whether Tab (back: Shift+Tab) would select another
// buffer now, rather than move the focus on.
func (v *View) TabWalks(back bool) bool {
	if v.Hand == nil {
		return false
	}
	from := v.Selected
	if from >= 0 {
		from = v.Hand.mover(from)
	}
	return v.Hand.Next(from, back) >= 0
}

// DragTo moves tensor i (or the root of view i) so that its offset is
// start plus the bytes the pointer moved, from world height y0 to y1,
// snapped to its alignment: one drag, undone whole. It reports whether
// the placement changed.
func (v *View) DragTo(i int, start int64, y0, y1 float64) bool {
	h := v.Hand
	if h == nil || h.mover(i) < 0 {
		return false
	}
	i = h.mover(i)
	a := float64(h.Base.AlignOf(&h.Base.Tensors[i]))
	off := int64(math.Round((float64(start)+y1-y0)/a) * a)
	off = max(off, 0)
	if off == h.Offset(i) || h.Place(i, off, true) != nil {
		return false
	}
	v.SetHand(h)
	return true
}

// appendHandConflicts outlines both tensors of each conflict and hatches
// the bytes and steps they share.
func (v *View) appendHandConflicts(dst []Quad) []Quad {
	if v.Hand == nil || v.Layout == nil {
		return dst
	}
	l, th, plot, u := v.Layout, v.Theme, v.PlotRect(), v.m.u
	c := th.BudgetOver
	for _, k := range v.Hand.Verdict.Conflicts {
		a, b := &l.Plan.Tensors[k.ai], &l.Plan.Tensors[k.bi]
		lo, hi := max(a.Offset, b.Offset), min(a.Offset+a.Size+a.Guard, b.Offset+b.Size+b.Guard)
		x0, y1 := v.Cam.ToScreen(float64(k.From), float64(lo))
		x1, y0 := v.Cam.ToScreen(float64(k.To+1), float64(hi))
		dst = v.appendRect(dst, plot, x0, y0, x1, y1, c, true)
		for _, t := range []int{k.ai, k.bi} {
			if l.ItemOf[t] < 0 {
				continue
			}
			it := &l.Items[l.ItemOf[t]]
			x0, y1 := v.Cam.ToScreen(it.X0, it.Y0)
			x1, y0 := v.Cam.ToScreen(it.X1, it.Y1)
			dst = v.appendOutline(dst, plot, x0, y0, x1, y1, c)
			dst = v.appendOutline(dst, plot, x0+u, y0+u, x1-u, y1-u, c)
		}
	}
	return dst
}

// handLabels names each conflict's two tensors over the bytes they
// share, when the font has their letters (the page says every conflict
// in words: the placed event's text).
func (v *View) handLabels(dst []Label, bands []Rect) []Label {
	if v.Hand == nil || v.Layout == nil {
		return dst
	}
	th, gs, u, ch := v.Theme, v.m.gs, v.m.u, v.m.ch
	plot := v.PlotRect()
	var cands [][]Label
	for _, k := range v.Hand.Verdict.Conflicts {
		text := k.A + " + " + k.B
		if !fontHas(text) {
			continue
		}
		a, b := &v.Layout.Plan.Tensors[k.ai], &v.Layout.Plan.Tensors[k.bi]
		lo, hi := max(a.Offset, b.Offset), min(a.Offset+a.Size+a.Guard, b.Offset+b.Size+b.Guard)
		x0, y1 := v.Cam.ToScreen(float64(k.From), float64(lo))
		x1, y0 := v.Cam.ToScreen(float64(k.To+1), float64(hi))
		cx, cy := (x0+x1)/2-textWidth(text, gs)/2, (y0+y1)/2-ch/2
		var cs []Label
		for _, dy := range []float64{0, -ch - 2*u, ch + 2*u} {
			cs = append(cs, Label{X: cx, Y: cy + dy, Text: text, C: th.Text, bg: boxFramed})
		}
		cands = append(cands, cs)
	}
	return placeLabels(dst, cands, bands, plot, gs, u)
}

// fontHas reports whether the canvas's font draws every letter of s.
func fontHas(s string) bool {
	for _, r := range s {
		if _, ok := glyphs[r]; !ok {
			return false
		}
	}
	return true
}

// selectedUnder reports whether the selected tensor's rectangle holds
// the device pixel (x, y), whatever is drawn over it.
func (v *View) selectedUnder(x, y float64) bool {
	l := v.Layout
	if l == nil || v.Selected < 0 || v.Selected >= len(l.ItemOf) || l.ItemOf[v.Selected] < 0 || !v.PlotRect().Contains(x, y) {
		return false
	}
	wx, wy := v.Cam.ToWorld(x, y)
	return l.Items[l.ItemOf[v.Selected]].Contains(wx, wy)
}

// Dragging reports whether a drag is going on: its moves merge into one
// change, and EndDrag ends it.
func (h *Hand) Dragging() bool { n := len(h.undo); return n > 0 && h.undo[n-1].drag }
