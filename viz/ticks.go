package viz

import (
	"memplan/ir"
	"memplan/viz/axis"
)

// The axes' ticks are chosen in viz/axis, shared with the SVG export.
type Tick = axis.Tick

// FormatBytes is memplan's one way to write a size (ir.FormatBytes), for
// the canvas's labels. The axes' tick labels are numbers in the unit
// their title names (ByteTicks), not sizes.
func FormatBytes(n int64) string { return ir.FormatBytes(n) }

// StepTicks chooses integer step ticks over [lo, hi) about minPx pixels
// apart at k pixels per step.
func StepTicks(lo, hi, k, minPx float64) []Tick { return axis.StepTicks(lo, hi, k, minPx) }

// ByteTicks chooses byte ticks over [lo, hi] about minPx pixels apart at k
// pixels per byte, and the unit their labels are in.
func ByteTicks(lo, hi, k, minPx float64) ([]Tick, string) { return axis.ByteTicks(lo, hi, k, minPx) }
