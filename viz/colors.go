package viz

import (
	"memplan/planner"
	"memplan/viz/palette"
)

// The colours live in viz/palette, which has no ebiten, so the SVG export
// and the command line paint with the same ones; these names keep viz's
// own code and its callers short.
type (
	RGB   = palette.RGB
	Theme = palette.Theme
)

// The two themes.
var (
	Dark  = palette.Dark
	Light = palette.Light
)

// ThemeNamed returns the theme called name ("dark" or "light"), or nil.
func ThemeNamed(name string) *Theme { return palette.Named(name) }

// Contrast is the WCAG 2 contrast ratio of two colours, 1 to 21.
func Contrast(a, b RGB) float64 { return palette.Contrast(a, b) }

// KindColor is a kind's base colour in the dark theme.
func KindColor(k planner.Kind) RGB { return palette.KindColor(k) }

// TensorColor is tensor i's fill in the dark theme; View.TensorColor
// follows the view's theme.
func TensorColor(p *planner.Plan, i int, dimmed bool) RGB { return palette.TensorColor(p, i, dimmed) }

// KindColors is each kind's colour in every theme, as #rrggbb, for the
// page's swatches.
func KindColors() map[string]map[string]string { return palette.KindColors() }
