package viz

import "memplan/planner"

// LegendEntry is one item of the legend: what a colour or line style on
// the canvas means. Hosts can render the same legend in HTML from these.
type LegendEntry struct {
	Label string `json:"label"`
	Color string `json:"color"` // #rrggbb
	// Mark is how the swatch looks: "fill" (a solid block), "outline" (a
	// hollow box), "hatch" (diagonal stripes), "line" or "dashed" (a
	// horizontal line across the plot).
	Mark string `json:"mark"`
	c    RGB
}

// legendKinds is the order kinds appear in the legend: the data flow.
var legendKinds = []planner.Kind{planner.KindInput, planner.KindParam, planner.KindConstant, planner.KindActivation, planner.KindOutput}

// Legend lists what the canvas shows of layout l in theme th: the kinds,
// views and guards present and the lines drawn. A nil layout gives every
// entry there can be.
func Legend(th *Theme, l *Layout) []LegendEntry {
	kinds := map[planner.Kind]bool{}
	views, guards := l == nil, l == nil
	lines := map[LineRole]bool{LineArena: true, LineLowerBound: l == nil, LineBudget: l == nil}
	over := false
	if l != nil {
		for i := range l.Plan.Tensors {
			t := &l.Plan.Tensors[i]
			if t.Offset < 0 {
				continue
			}
			kinds[t.Kind] = true
			views = views || t.IsView()
			guards = guards || t.Guard > 0
		}
		for _, ln := range l.Lines {
			lines[ln.Role] = true
		}
		over = l.OverBudget
	}
	var out []LegendEntry
	add := func(label, mark string, c RGB) {
		out = append(out, LegendEntry{label, c.Hex(), mark, c})
	}
	for _, k := range legendKinds {
		if l == nil || kinds[k] {
			add(string(k), "fill", th.KindColor(k))
		}
	}
	if views {
		add("view", "outline", th.View)
	}
	if guards {
		add("guard", "hatch", th.Guard)
	}
	add("arena", "line", th.Arena)
	if lines[LineLowerBound] {
		add("lower bound", "dashed", th.Lower)
	}
	if lines[LineBudget] {
		c := th.BudgetOK
		if over {
			c = th.BudgetOver
		}
		add("budget", "line", c)
	}
	if lines[LineCut] {
		add("gpu buffer cut", "line", th.Cut)
	}
	return out
}

// legendItem is a legend entry placed on screen: its swatch and its label.
type legendItem struct {
	LegendEntry
	swatch Rect
	label  Label
}

// layoutLegend flows the entries right-aligned into rows between x0 and
// x1, the first row's top at y; it returns the items and the row count.
func layoutLegend(es []LegendEntry, x0, x1, y float64, gs int) ([]legendItem, int) {
	u := float64(gs)
	sw, gap, sep := 14*u, 4*u, 12*u
	width := func(e LegendEntry) float64 { return sw + gap + textWidth(e.Label, gs) }
	// Rows are filled left to right, then each is moved to end at x1.
	var rows [][]LegendEntry
	var cur []LegendEntry
	used := 0.0
	for _, e := range es {
		w := width(e)
		if len(cur) > 0 && used+sep+w > x1-x0 {
			rows, cur, used = append(rows, cur), nil, 0
		}
		if len(cur) > 0 {
			used += sep
		}
		cur, used = append(cur, e), used+w
	}
	if len(cur) > 0 {
		rows = append(rows, cur)
	}
	var out []legendItem
	h := float64(CharH * gs)
	for r, row := range rows {
		total := 0.0
		for i, e := range row {
			if i > 0 {
				total += sep
			}
			total += width(e)
		}
		x, ry := x1-total, y+float64(r)*h
		for _, e := range row {
			// The swatch covers the glyphs' height, not the cell's.
			s := Rect{x, ry + fontTop*u, x + sw, ry + h - fontTop*u}
			out = append(out, legendItem{e, s, Label{X: x + sw + gap, Y: ry, Text: e.Label}})
			x += width(e) + sep
		}
	}
	return out, len(rows)
}
