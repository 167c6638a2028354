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
	byY := sortedByY0(items)
	// Count, then fill one shared array: appending column by column grew
	// thousands of slices, which the browser's wasm pays for dearly.
	counts := make([]int, ncol)
	for _, i := range byY {
		a, b := h.colRange(items[i].Rect, h.colW, ncol)
		for c := a; c <= b; c++ {
			counts[c]++
		}
	}
	entries := 0
	for _, n := range counts {
		entries += n
	}
	all := make([]int32, entries)
	at := 0
	for c, n := range counts {
		h.cols[c] = all[at : at : at+n]
		at += n
	}
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

// sortedByY0 is the items' indices in (Y0, index) order, by a stable
// radix sort on Y0's bits: a comparison sort through the items took most
// of a 62,000-tensor layout's time.
func sortedByY0(items []Item) []int32 {
	n := len(items)
	keys, idx := make([]uint64, n), make([]int32, n)
	for i := range items {
		keys[i], idx[i] = orderedBits(items[i].Y0), int32(i)
	}
	if n == 0 {
		return idx
	}
	keys2, idx2 := make([]uint64, n), make([]int32, n)
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == n {
			continue // every key has this byte: the pass would move nothing
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for j, k := range keys {
			d := byte(k >> shift)
			keys2[count[d]], idx2[count[d]] = k, idx[j]
			count[d]++
		}
		keys, keys2, idx, idx2 = keys2, keys, idx2, idx
	}
	return idx
}

// orderedBits maps a float64 to a uint64 in the same order (-0 before +0;
// NaN, which layouts never hold, after +Inf).
func orderedBits(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
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
