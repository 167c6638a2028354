package viz

import (
	"math"
	"slices"
	"testing"
)

func TestSortedByY0(t *testing.T) {
	for _, tc := range []struct {
		name string
		ys   []float64
		want []int32
	}{
		{"empty", nil, []int32{}},
		{"one", []float64{3}, []int32{0}},
		{"sorted", []float64{0, 1, 2}, []int32{0, 1, 2}},
		{"reversed", []float64{2, 1, 0}, []int32{2, 1, 0}},
		{"ties keep index order", []float64{5, 1, 5, 1}, []int32{1, 3, 0, 2}},
		{"negatives and zeros", []float64{0, -1.5, math.Copysign(0, -1), -1e300, 2e300}, []int32{3, 1, 2, 0, 4}},
		{"bytes beyond the first differ", []float64{1 << 40, 1<<40 + 1, 1 << 8, 1<<8 + 1}, []int32{2, 3, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]Item, len(tc.ys))
			for i, y := range tc.ys {
				items[i].Y0 = y
			}
			if got := sortedByY0(items); !slices.Equal(got, tc.want) {
				t.Errorf("sortedByY0(%v) = %v, want %v", tc.ys, got, tc.want)
			}
		})
	}
}
