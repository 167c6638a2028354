package viz

import (
	"fmt"

	"memplan/planner"
)

// RGB is an opaque colour, 0–255 a channel.
type RGB struct{ R, G, B uint8 }

// Hex is the colour as #rrggbb, as CSS and tests spell it.
func (c RGB) Hex() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// scale multiplies every channel by f.
func (c RGB) scale(f float64) RGB {
	m := func(v uint8) uint8 { return uint8(min(255, float64(v)*f+0.5)) }
	return RGB{m(c.R), m(c.G), m(c.B)}
}

// mix blends c toward o by t in [0, 1].
func (c RGB) mix(o RGB, t float64) RGB {
	m := func(a, b uint8) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t + 0.5) }
	return RGB{m(c.R, o.R), m(c.G, o.G), m(c.B, o.B)}
}

// The palette is Okabe and Ito's, which stays distinguishable under the
// common colour-vision deficiencies, set on a dark background.
var (
	Background = RGB{24, 26, 32}
	AxisColor  = RGB{150, 154, 166}
	GridColor  = RGB{44, 47, 56}
	GuardColor = RGB{170, 170, 170}
	ViewColor  = RGB{204, 121, 167} // reddish purple
	ArenaColor = RGB{235, 235, 235}
	LowerColor = RGB{86, 180, 233}
	BudgetOK   = RGB{240, 228, 66} // yellow: a limit not crossed
	BudgetOver = RGB{255, 64, 64}  // red: the arena does not fit
	LiveColor  = RGB{120, 126, 140}
	PhaseColor = RGB{0, 114, 178} // blue: phase boundaries and peaks
	SelectRing = RGB{255, 255, 255}
	kindColors = map[planner.Kind]RGB{
		planner.KindInput:      {86, 180, 233}, // sky blue
		planner.KindParam:      {230, 159, 0},  // orange
		planner.KindConstant:   {240, 228, 66}, // yellow
		planner.KindActivation: {0, 158, 115},  // bluish green
		planner.KindOutput:     {213, 94, 0},   // vermillion
		planner.KindView:       ViewColor,
	}
	// shades alternate the lightness of consecutive tensors of one kind,
	// so neighbours that touch stay apart.
	shades = [...]float64{1, 0.78, 0.9}
)

// KindColor is the base colour of a kind.
func KindColor(k planner.Kind) RGB {
	if c, ok := kindColors[k]; ok {
		return c
	}
	return RGB{160, 160, 160}
}

// TensorColor is the fill of tensor i of the plan; dimmed when another
// selection is active and i is not part of it.
func TensorColor(p *planner.Plan, i int, dimmed bool) RGB {
	c := KindColor(p.Tensors[i].Kind).scale(shades[i%len(shades)])
	if dimmed {
		c = c.mix(Background, 0.75)
	}
	return c
}
