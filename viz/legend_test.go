package viz

import (
	"slices"
	"testing"

	"memplan/viz/internal/sample"
)

func TestLegendEntries(t *testing.T) {
	over := NewLayout(sample.Plan(), 4096)
	noLower := sample.Plan()
	noLower.LowerBound = noLower.ArenaSize
	for _, c := range []struct {
		name string
		th   *Theme
		l    *Layout
		want []string // label:mark
	}{
		{"everything", Dark, nil, []string{"input:fill", "param:fill", "constant:fill", "activation:fill", "output:fill",
			"view:outline", "guard:hatch", "arena:line", "lower bound:dashed", "budget:line"}},
		{"sample", Dark, NewLayout(sample.Plan(), 0), []string{"input:fill", "param:fill", "activation:fill", "output:fill",
			"view:outline", "guard:hatch", "arena:line", "lower bound:dashed"}},
		{"no lower bound line", Light, NewLayout(noLower, 0), []string{"input:fill", "param:fill", "activation:fill", "output:fill",
			"view:outline", "guard:hatch", "arena:line"}},
		{"over budget", Light, over, []string{"input:fill", "param:fill", "activation:fill", "output:fill",
			"view:outline", "guard:hatch", "arena:line", "lower bound:dashed", "budget:line"}},
	} {
		es := Legend(c.th, c.l)
		var got []string
		for _, e := range es {
			got = append(got, e.Label+":"+e.Mark)
			if e.Color != e.c.Hex() {
				t.Errorf("%s: %s's hex %s is not its colour %s", c.name, e.Label, e.Color, e.c.Hex())
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: legend %v, want %v", c.name, got, c.want)
		}
	}
	// Colours are the theme's, the budget's red when it is crossed.
	byLabel := map[string]string{}
	for _, e := range Legend(Light, over) {
		byLabel[e.Label] = e.Color
	}
	for label, want := range map[string]RGB{"input": Light.Kinds["input"], "view": Light.View, "guard": Light.Guard,
		"arena": Light.Arena, "lower bound": Light.Lower, "budget": Light.BudgetOver} {
		if byLabel[label] != want.Hex() {
			t.Errorf("light %s is %s, want %s", label, byLabel[label], want.Hex())
		}
	}
}

// The legend wraps into right-aligned rows that stay inside their span
// and never overlap.
func TestLegendLayout(t *testing.T) {
	es := Legend(Dark, nil)
	for _, c := range []struct {
		x0, x1 float64
		gs     int
		rows   int
	}{
		{0, 2000, 1, 1},
		{100, 790, 1, 1},
		{100, 500, 1, 2},
		{100, 300, 1, 4},
		{200, 1580, 2, 1},
		{200, 1000, 2, 2},
	} {
		items, rows := layoutLegend(es, c.x0, c.x1, 4, c.gs)
		if rows != c.rows || len(items) != len(es) {
			t.Errorf("span [%v, %v] at %dx: %d rows of %d items, want %d rows", c.x0, c.x1, c.gs, rows, len(items), c.rows)
		}
		var boxes []Rect
		for _, it := range items {
			b := it.label.box(c.gs, 0)
			b.X0 = it.swatch.X0
			if b.X0 < c.x0 || b.X1 > c.x1+0.001 {
				t.Errorf("span [%v, %v]: %s at [%v, %v] sticks out", c.x0, c.x1, it.Label, b.X0, b.X1)
			}
			for _, o := range boxes {
				if b.Overlaps(o) {
					t.Errorf("span [%v, %v]: %s overlaps another entry", c.x0, c.x1, it.Label)
				}
			}
			boxes = append(boxes, b)
		}
	}
}
