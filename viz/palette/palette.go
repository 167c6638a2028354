// Package palette is every colour memplan's pictures use, in a dark and a
// light theme: the canvas (viz), the SVG export (viz/svgplot) and the
// page's swatches read them from here, so there is one source. It has no
// drawing code and no ebiten, so the planner worker and the command line
// can use it.
package palette

import (
	"fmt"
	"math"

	"memplan/planner"
)

// RGB is an opaque colour, 0–255 a channel.
type RGB struct{ R, G, B uint8 }

// Hex is the colour as #rrggbb, as CSS and tests spell it.
func (c RGB) Hex() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// Scale multiplies every channel by f.
func (c RGB) Scale(f float64) RGB {
	m := func(v uint8) uint8 { return uint8(min(255, float64(v)*f+0.5)) }
	return RGB{m(c.R), m(c.G), m(c.B)}
}

// Mix blends c toward o by t in [0, 1].
func (c RGB) Mix(o RGB, t float64) RGB {
	m := func(a, b uint8) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t + 0.5) }
	return RGB{m(c.R, o.R), m(c.G, o.G), m(c.B, o.B)}
}

// Luminance is the colour's relative luminance as WCAG 2 defines it.
func (c RGB) Luminance() float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// Contrast is the WCAG 2 contrast ratio of two colours, 1 to 21.
func Contrast(a, b RGB) float64 {
	la, lb := a.Luminance(), b.Luminance()
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// Theme is every colour the canvas paints. Text colours keep a contrast
// of at least 4.5:1 against Background and line and fill colours 3:1
// (theme_test.go checks), Grid excepted: it is meant to recede.
type Theme struct {
	Name       string
	Background RGB
	Text       RGB // tick labels, titles, the legend
	Axis       RGB
	Grid       RGB
	Guard      RGB // the stripes of a guard band
	View       RGB // a view's outline
	Arena      RGB
	Lower      RGB // the lower bound, dashed
	BudgetOK   RGB // a budget not crossed
	BudgetOver RGB // a budget the arena crosses
	Cut        RGB // a cut between GPU buffers (tensor binding)
	Live       RGB // the live-bytes strip
	Phase      RGB // phase edges and peaks
	Select     RGB // the ring round the hovered and selected tensor
	Kinds      map[planner.Kind]RGB
	// Shades alternate the lightness of consecutive tensors of one kind,
	// so neighbours that touch stay apart.
	Shades [3]float64
}

// The dark palette is Okabe and Ito's, which stays distinguishable under
// the common colour-vision deficiencies. The light one keeps their hues,
// darkened where needed to stand out on white.
var (
	Dark = &Theme{
		Name:       "dark",
		Background: RGB{24, 26, 32},
		Text:       RGB{200, 204, 214},
		Axis:       RGB{150, 154, 166},
		Grid:       RGB{44, 47, 56},
		Guard:      RGB{170, 170, 170},
		View:       RGB{204, 121, 167}, // reddish purple
		Arena:      RGB{235, 235, 235},
		Lower:      RGB{86, 180, 233},
		BudgetOK:   RGB{240, 228, 66}, // yellow
		BudgetOver: RGB{255, 64, 64},  // red: the arena does not fit
		Cut:        RGB{230, 159, 0},  // orange
		Live:       RGB{120, 126, 140},
		Phase:      RGB{0, 114, 178}, // blue
		Select:     RGB{255, 255, 255},
		Kinds: map[planner.Kind]RGB{
			planner.KindInput:      {86, 180, 233}, // sky blue
			planner.KindParam:      {230, 159, 0},  // orange
			planner.KindConstant:   {240, 228, 66}, // yellow
			planner.KindActivation: {0, 158, 115},  // bluish green
			planner.KindOutput:     {213, 94, 0},   // vermillion
			planner.KindView:       {204, 121, 167},
		},
		Shades: [3]float64{1, 0.86, 0.93},
	}
	Light = &Theme{
		Name:       "light",
		Background: RGB{252, 252, 250},
		Text:       RGB{36, 38, 46},
		Axis:       RGB{96, 100, 112},
		Grid:       RGB{226, 228, 233},
		Guard:      RGB{100, 100, 100},
		View:       RGB{168, 60, 128},
		Arena:      RGB{30, 32, 40},
		Lower:      RGB{0, 110, 172},
		BudgetOK:   RGB{135, 105, 0},
		BudgetOver: RGB{200, 0, 0},
		Cut:        RGB{176, 88, 0},
		Live:       RGB{128, 134, 148},
		Phase:      RGB{0, 114, 178},
		Select:     RGB{0, 0, 0},
		Kinds: map[planner.Kind]RGB{
			planner.KindInput:      {0, 114, 178},
			planner.KindParam:      {196, 122, 0},
			planner.KindConstant:   {150, 132, 0},
			planner.KindActivation: {0, 150, 108},
			planner.KindOutput:     {213, 94, 0},
			planner.KindView:       {168, 60, 128},
		},
		Shades: [3]float64{1, 0.84, 0.92},
	}
)

// Named returns the theme called name ("dark" or "light"), or nil.
func Named(name string) *Theme {
	switch name {
	case "dark":
		return Dark
	case "light":
		return Light
	}
	return nil
}

// KindColor is the base colour of a kind.
func (th *Theme) KindColor(k planner.Kind) RGB {
	if c, ok := th.Kinds[k]; ok {
		return c
	}
	return th.Axis
}

// TensorColor is the fill of tensor i of the plan; dimmed when another
// selection is active and i is not part of it.
func (th *Theme) TensorColor(p *planner.Plan, i int, dimmed bool) RGB {
	c := th.KindColor(p.Tensors[i].Kind).Scale(th.Shades[i%len(th.Shades)])
	if dimmed {
		c = th.Dim(c)
	}
	return c
}

// Dim fades c most of the way into the background.
func (th *Theme) Dim(c RGB) RGB { return c.Mix(th.Background, 0.75) }

// KindColor is a kind's base colour in the dark theme.
func KindColor(k planner.Kind) RGB { return Dark.KindColor(k) }

// TensorColor is tensor i's fill in the dark theme; View.TensorColor
// follows the view's theme.
func TensorColor(p *planner.Plan, i int, dimmed bool) RGB { return Dark.TensorColor(p, i, dimmed) }

// KindColors is each kind's colour in every theme, as #rrggbb: the page
// reads it from the viewer's ready event to draw a kind's swatch in the
// colour the canvas uses.
func KindColors() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, th := range []*Theme{Dark, Light} {
		m := map[string]string{}
		for k, c := range th.Kinds {
			m[string(k)] = c.Hex()
		}
		out[th.Name] = m
	}
	return out
}
