// Package memplan is the map of memplan's Go API; it holds no code.
// memplan plans the memory of an ML compute graph: every tensor gets an
// offset in one arena, tensors that are never alive at the same step
// share bytes, and every plan is proven valid before it is returned.
//
// Start from package planner. A program that plans a file needs four
// steps, each one call:
//
//  1. Decode: planner.Load reads a file in any format memplan knows by
//     its name and bytes: memplan's graph JSON (ir), a buffer list CSV,
//     a plan record, and ONNX once the program imports memplan/ir/onnx
//     for its decoder (import _ "memplan/ir/onnx"). Errors are *ir.Error
//     values that say where: file, line and column, JSON path, node.
//  2. Plan: planner.PlanSource lowers the decoded file with
//     planner.Options (alignment, f32-uniform WebGPU layout, symbol
//     values, a WebGPU device) and places it with a strategy ("auto", or
//     one of planner.StrategyNames). The *planner.Plan it returns is the
//     memplan.plan/v1 record `memplan plan --json` writes, proven by
//     planner.VerifyAgainst. Set PlaceOptions.NodeLimit for a plan that
//     does not depend on the machine's speed.
//  3. Verify: planner.Verify proves a record on its own (no overlaps,
//     sizes, alignment); protocol.VerifyRecord (memplan/wasm/protocol)
//     judges a record file against its source as `memplan verify` does.
//     planner.DecodePlan reads a record.
//  4. Draw: svgplot.Write (memplan/viz/svgplot) draws a plan as the SVG
//     picture the web widget shows.
//
// Beyond these: planner.Explain says why a tensor sits where it does,
// planner.DiffPlans compares two plans, planner.LargestFit finds the
// largest symbol value whose plan fits a WebGPU device. The examples of
// this package run each step on a small graph.
//
// The same planner runs in browsers and Node as an ES module: make npm
// writes the package (npm/README.md).
package memplan
