// Package sample holds a small hand-made plan for viz tests: few enough
// tensors to reason about every rectangle, with a guard, a view and reuse.
package sample

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"memplan/planner"
)

// Plan is six tensors over five steps:
//
//	x    input       steps 0–1  bytes [0, 1024)     guard to 1152
//	w    param       steps 0–4  bytes [1152, 3200)  guard to 3328
//	h    activation  steps 1–2  bytes [3328, 7424)
//	hv   view of h   step  2    bytes [4352, 5376)
//	y    activation  steps 3–4  bytes [3328, 7424)  reuses h
//	out  output      steps 2–5  bytes [0, 1024)     reuses x
func Plan() *planner.Plan {
	return &planner.Plan{
		Format: planner.PlanFormat, Name: "sample",
		ArenaSize: 7424, LowerBound: 7000, TotalUnshared: 13696, Saved: 6272,
		Alignment: 64, Strategy: "reference", Steps: 5,
		Options: planner.DefaultOptions(),
		Tensors: []planner.PlanTensor{
			{Name: "x", Op: "input", Kind: planner.KindInput, Shape: []int64{256}, DType: "f32", Size: 1024, Offset: 0, Guard: 128, Birth: 0, Death: 1},
			{Name: "w", Op: "param", Kind: planner.KindParam, Shape: []int64{512}, DType: "f32", Size: 2048, Offset: 1152, Guard: 128, Birth: 0, Death: 4},
			{Name: "h", Op: "matmul", Kind: planner.KindActivation, Shape: []int64{4, 256}, DType: "f32", Size: 4096, Offset: 3328, Birth: 1, Death: 2},
			{Name: "hv", Op: "narrow", Kind: planner.KindView, Shape: []int64{1, 256}, DType: "f32", Size: 1024, Offset: 4352, Birth: 2, Death: 2, Root: "h", ViewOffset: 1024},
			{Name: "y", Op: "relu", Kind: planner.KindActivation, Shape: []int64{4, 256}, DType: "f32", Size: 4096, Offset: 3328, Birth: 3, Death: 4, Reuses: "h"},
			{Name: "out", Op: "add", Kind: planner.KindOutput, Shape: []int64{256}, DType: "f32", Size: 1024, Offset: 0, Birth: 2, Death: 5, Reuses: "x"},
		},
	}
}

// Many is a synthetic plan of n buffers for scale tests and benchmarks:
// chains of activations that each live a few steps, stacked in lanes.
func Many(n int) *planner.Plan {
	const lanes = 64
	p := &planner.Plan{Format: planner.PlanFormat, Name: "many", Alignment: 64, Strategy: "synthetic",
		Options: planner.DefaultOptions()}
	steps := 0
	for i := 0; i < n; i++ {
		lane := i % lanes
		birth := (i / lanes) * 2
		size := int64(1024 * (1 + (i*7919)%16))
		t := planner.PlanTensor{
			Name: "t" + strconv.Itoa(i), Op: "op", Kind: planner.KindActivation, DType: "f32", Shape: []int64{size / 4},
			Size: size, Offset: int64(lane) * 16 * 1024, Birth: birth, Death: birth + 1,
		}
		p.Tensors = append(p.Tensors, t)
		steps = max(steps, birth+2)
	}
	p.Steps = steps
	p.ArenaSize = lanes * 16 * 1024
	p.LowerBound = p.ArenaSize
	return p
}

// Synthetic is a plan of n buffers of mixed sizes (256 B to 128 KiB) and
// lifetimes (one to eight steps, a few a quarter of the schedule), the
// kind of plan tools/framebench times, the same for the same n. It places
// them here, first fit in the order they are born, rather than with a
// planner strategy, so that what a test counts on it does not move when
// the planner's strategies change.
func Synthetic(n int) *planner.Plan {
	rng := rand.New(rand.NewPCG(1, 2))
	steps := max(n/4, 1)
	ts := make([]planner.PlanTensor, n)
	for i := range ts {
		birth := rng.IntN(steps)
		life := 1 + rng.IntN(8)
		if rng.IntN(50) == 0 {
			life = 1 + rng.IntN(max(steps/4, 1)) // a few long-lived buffers
		}
		size := int64(256) << rng.IntN(10)
		ts[i] = planner.PlanTensor{Name: "b" + strconv.Itoa(i), Op: "op", Kind: planner.KindActivation, DType: "f32",
			Shape: []int64{size / 4}, Size: size, Birth: birth, Death: birth + life - 1}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ts[a].Birth - ts[b].Birth })
	// live holds the placed buffers still alive, by offset.
	var live []int
	var arena, bytes, bound int64
	lastStep := 0
	for _, i := range order {
		t := &ts[i]
		live = slices.DeleteFunc(live, func(j int) bool {
			if ts[j].Death < t.Birth {
				bytes -= ts[j].Size
				return true
			}
			return false
		})
		at, k := int64(0), 0
		for ; k < len(live) && ts[live[k]].Offset < at+t.Size; k++ {
			at = max(at, ts[live[k]].Offset+ts[live[k]].Size)
		}
		t.Offset = at
		live = slices.Insert(live, k, i)
		bytes += t.Size
		arena, bound = max(arena, at+t.Size), max(bound, bytes)
		lastStep = max(lastStep, t.Death+1)
	}
	return &planner.Plan{Format: planner.PlanFormat, Name: "synthetic-" + strconv.Itoa(n), Alignment: 64, Strategy: "first-fit",
		Options: planner.DefaultOptions(), Tensors: ts, Steps: lastStep, ArenaSize: arena, LowerBound: bound}
}
