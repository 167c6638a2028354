package viz

import "memplan/viz/axis"

// The axes' ticks are chosen in viz/axis, shared with the SVG export.
type Tick = axis.Tick

// FormatBytes writes a byte count in the largest binary unit that keeps
// it at least 1: 1.5 MiB, 64 B.
func FormatBytes(n int64) string { return axis.FormatBytes(n) }

// StepTicks chooses integer step ticks over [lo, hi) about minPx pixels
// apart at k pixels per step.
func StepTicks(lo, hi, k, minPx float64) []Tick { return axis.StepTicks(lo, hi, k, minPx) }

// ByteTicks chooses byte ticks over [lo, hi] about minPx pixels apart at k
// pixels per byte, and the unit their labels are in.
func ByteTicks(lo, hi, k, minPx float64) ([]Tick, string) { return axis.ByteTicks(lo, hi, k, minPx) }
