package viz

import (
	"testing"

	"memplan/planner"
	"memplan/viz/internal/sample"
)

// Every colour that carries meaning must stand out from the background:
// WCAG's 4.5:1 for text, 3:1 for lines and the edges of fills.
func TestThemeContrast(t *testing.T) {
	for _, th := range []*Theme{Dark, Light} {
		type want struct {
			name  string
			c     RGB
			ratio float64
		}
		cases := []want{
			{"text", th.Text, 4.5},
			// Line labels are written in their line's colour.
			{"arena", th.Arena, 4.5},
			{"lower bound", th.Lower, 4.5},
			{"budget", th.BudgetOK, 4.5},
			{"budget over", th.BudgetOver, 4.5},
			{"GPU buffer cut", th.Cut, 4.5},
			{"axis", th.Axis, 3},
			{"guard stripe", th.Guard, 3},
			{"view outline", th.View, 3},
			{"live", th.Live, 3},
			{"phase", th.Phase, 3},
			{"selection ring", th.Select, 3},
		}
		p := sample.Plan()
		for _, k := range legendKinds {
			for s := range th.Shades {
				p.Tensors[s].Kind = k
				cases = append(cases, want{string(k) + " shade " + string(rune('0'+s)), th.TensorColor(p, s, false), 3})
			}
		}
		cases = append(cases, want{"view kind", th.KindColor(planner.KindView), 3})
		for _, c := range cases {
			if r := Contrast(c.c, th.Background); r < c.ratio {
				t.Errorf("%s theme: %s %s on %s has contrast %.2f, want >= %.1f", th.Name, c.name, c.c.Hex(), th.Background.Hex(), r, c.ratio)
			}
		}
		// The readout's and the legend's text sit on a backdrop of the
		// background colour; the strip's readout column is text-coloured
		// on the strip's grid colour.
		if r := Contrast(th.Text, th.Grid); r < 3 {
			t.Errorf("%s theme: the hovered live column has contrast %.2f on the strip", th.Name, r)
		}
		// Hatch stripes against their own gaps.
		gap := th.Guard.Mix(th.Background, HatchGap)
		if r := Contrast(th.Guard, gap); r < 1.8 {
			t.Errorf("%s theme: guard stripes %.2f against their gaps", th.Name, r)
		}
	}
}

func TestThemeNamed(t *testing.T) {
	if ThemeNamed("light") != Light || ThemeNamed("dark") != Dark || ThemeNamed("sepia") != nil {
		t.Error("ThemeNamed")
	}
	v := NewView(640, 400)
	v.SetLayout(NewLayout(sample.Plan(), 0), false)
	if v.SetTheme("sepia") || v.Theme != Dark {
		t.Error("an unknown theme was taken")
	}
	v.Dirty = false
	if !v.SetTheme("light") || v.Theme != Light || !v.Dirty {
		t.Error("light theme not set")
	}
	// Fills follow the theme.
	x := v.Layout.Index("x")
	if got := v.TensorColor(x); got != Light.KindColor(planner.KindInput) {
		t.Errorf("x in the light theme is %s", got.Hex())
	}
	found := false
	for _, q := range v.Quads(nil) {
		found = found || q.C == Light.KindColor(planner.KindInput) && v.PlotRect().Contains(float64(q.X0), float64(q.Y0))
	}
	if !found {
		t.Error("no light-theme input fill in the plot")
	}
}
