package viz

// Label placement: every label the canvas writes goes through placeLabels,
// which keeps labels off each other and off the horizontal lines.

// box is the screen rectangle label l covers at glyph scale gs: its text's
// character cells, widened by pad on every side.
func (l Label) box(gs int, pad float64) Rect {
	return Rect{l.X - pad, l.Y - pad, l.X + textWidth(l.Text, gs) + pad, l.Y + float64(CharH*gs) + pad}
}

// placeLabels appends, for each list of candidates in turn, the first
// candidate whose box lies inside bounds and meets neither an obstacle nor
// a label placed before it. A label none of whose candidates fits is left
// out: a missing tick label reads better than two run together. Candidates
// may differ in text, so a label can fall back to a shorter wording.
func placeLabels(dst []Label, cands [][]Label, obstacles []Rect, bounds Rect, gs int, pad float64) []Label {
	start := len(dst)
	for _, cs := range cands {
	next:
		for _, c := range cs {
			b := c.box(gs, pad)
			if b.X0 < bounds.X0-pad || b.Y0 < bounds.Y0-pad || b.X1 > bounds.X1+pad || b.Y1 > bounds.Y1+pad {
				continue
			}
			for _, o := range obstacles {
				if b.Overlaps(o) {
					continue next
				}
			}
			for _, p := range dst[start:] {
				if b.Overlaps(p.box(gs, pad)) {
					continue next
				}
			}
			dst = append(dst, c)
			break
		}
	}
	return dst
}

// lineLabelCandidates are the places a horizontal line's label may go, best
// first: right-aligned just above its line, just below it, then further
// left, then stacked further away, so that labels of lines a pixel apart
// sit on either side of the pair instead of over each other.
func lineLabelCandidates(text string, c RGB, lineY, right float64, gs int, widest float64) []Label {
	u := float64(gs)
	h := float64(CharH * gs)
	w := textWidth(text, gs)
	var out []Label
	for k := range 4 {
		above := lineY - 2*u - h - float64(k)*h
		below := lineY + 2*u + float64(k)*h
		for j := range 3 {
			x := right - 4*u - w - float64(j)*(widest+12*u)
			out = append(out,
				Label{X: x, Y: above, Text: text, C: c, bg: boxBackdrop},
				Label{X: x, Y: below, Text: text, C: c, bg: boxBackdrop})
		}
	}
	return out
}
