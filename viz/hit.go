package viz

import (
	"math"
	"slices"
)

// hitIndex finds the items under a point without scanning them all. The x
// range is cut into columns; each column lists the items overlapping it,
// sorted by Y0, with the running maximum of Y1. Buffers and guards live at
// the same step never overlap, so in a narrow column a query walks back
// from y over a handful of entries before the running maximum drops below
// y and the walk stops.
type hitIndex struct {
	x0, colW float64
	cols     [][]int32   // item indices by column, sorted by Y0
	reach    [][]float64 // reach[c][k] = max Y1 of cols[c][:k+1]
}

// maxEntriesPerItem caps how many columns, on average, an item may be
// listed in, so long-lived buffers cannot blow the index up.
const maxEntriesPerItem = 8

func newHitIndex(items []Item) *hitIndex {
	h := &hitIndex{}
	if len(items) == 0 {
		return h
	}
	x0, x1 := math.Inf(1), math.Inf(-1)
	for i := range items {
		x0 = min(x0, items[i].X0)
		x1 = max(x1, items[i].X1)
	}
	h.x0 = x0
	span := max(x1-x0, 1)
	// One column per step at most; fewer when long items would be listed
	// too often.
	ncol := int(min(span, 4096))
	for ; ncol > 1; ncol /= 2 {
		w := span / float64(ncol)
		entries := 0
		for i := range items {
			a, b := h.colRange(items[i].Rect, w, ncol)
			entries += b - a + 1
		}
		if entries <= maxEntriesPerItem*len(items)+4096 {
			break
		}
	}
	ncol = max(ncol, 1)
	h.colW = span / float64(ncol)
	h.cols = make([][]int32, ncol)
	// Filling the columns in (Y0, index) order leaves each one sorted: one
	// sort of the items instead of one per column, whose entries count
	// long items many times over.
	byY := make([]int32, len(items))
	for i := range byY {
		byY[i] = int32(i)
	}
	slices.SortFunc(byY, func(a, b int32) int {
		switch ya, yb := items[a].Y0, items[b].Y0; {
		case ya < yb:
			return -1
		case ya > yb:
			return 1
		}
		return int(a - b)
	})
	for _, i := range byY {
		a, b := h.colRange(items[i].Rect, h.colW, ncol)
		for c := a; c <= b; c++ {
			h.cols[c] = append(h.cols[c], i)
		}
	}
	h.reach = make([][]float64, ncol)
	for c, col := range h.cols {
		r := make([]float64, len(col))
		m := math.Inf(-1)
		for k, i := range col {
			m = max(m, items[i].Y1)
			r[k] = m
		}
		h.reach[c] = r
	}
	return h
}

// colRange is the first and last column a rectangle overlaps.
func (h *hitIndex) colRange(r Rect, w float64, ncol int) (int, int) {
	a := int((r.X0 - h.x0) / w)
	b := int(math.Ceil((r.X1-h.x0)/w)) - 1
	return min(max(a, 0), ncol-1), min(max(b, a, 0), ncol-1)
}

// visit calls f for every item containing (x, y).
func (h *hitIndex) visit(items []Item, x, y float64, f func(int32)) {
	if len(h.cols) == 0 || math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	c := int((x - h.x0) / h.colW)
	if x < h.x0 || c >= len(h.cols) {
		return
	}
	col, reach := h.cols[c], h.reach[c]
	// First entry with Y0 > y; every candidate is before it.
	k, _ := slices.BinarySearchFunc(col, y, func(i int32, y float64) int {
		if items[i].Y0 <= y {
			return -1
		}
		return 1
	})
	for k--; k >= 0 && reach[k] > y; k-- {
		if items[col[k]].Contains(x, y) {
			f(col[k])
		}
	}
}
