// Package axis chooses the ticks and labels of memplan's two axes, steps
// and bytes, for the canvas (viz) and the SVG export (viz/svgplot) alike.
package axis

import (
	"math"
	"strconv"
)

// Tick is one labelled position on an axis.
type Tick struct {
	V     float64
	Label string
}

// StepTicks chooses integer step ticks over [lo, hi) about minPx pixels
// apart at k pixels per step: 1, 2, 5, 10, 20, 50 …
func StepTicks(lo, hi, k, minPx float64) []Tick {
	step := niceStep(minPx/k, 10)
	step = max(step, 1)
	var out []Tick
	for v := math.Ceil(lo/step) * step; v <= hi && len(out) < 1000; v += step {
		out = append(out, Tick{v, strconv.FormatInt(int64(v), 10)})
	}
	return out
}

// ByteTicks chooses byte ticks over [lo, hi] about minPx pixels apart at k
// pixels per byte, at powers of two times 1, 2 or 4 (…, 256 KiB, 512 KiB,
// 1 MiB, 2 MiB, …). Every label is a number in the returned unit, so the
// axis title can name the unit once: the largest binary unit the step is
// at least an eighth of, so labels need three decimals at most (0.125).
func ByteTicks(lo, hi, k, minPx float64) ([]Tick, string) {
	want := max(minPx/k, 1)
	step := math.Exp2(math.Ceil(math.Log2(want)))
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	u, size := 0, 1.0
	for u+1 < len(units) && step >= size*1024/8 {
		u, size = u+1, size*1024
	}
	var out []Tick
	for v := math.Ceil(max(lo, 0)/step) * step; v <= hi && len(out) < 1000; v += step {
		out = append(out, Tick{v, strconv.FormatFloat(v/size, 'f', -1, 64)})
	}
	return out, units[u]
}

// niceStep is the smallest of 1, 2, 5 times a power of base not below
// want.
func niceStep(want, base float64) float64 {
	if want <= 0 || math.IsInf(want, 0) || math.IsNaN(want) {
		return 1
	}
	p := math.Pow(base, math.Floor(math.Log10(want)/math.Log10(base)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= want {
			return m * p
		}
	}
	return 10 * p
}
