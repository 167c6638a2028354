// Package sample holds a small hand-made plan for viz tests: few enough
// tensors to reason about every rectangle, with a guard, a view and reuse.
package sample

import (
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
