// Package planner assigns arena offsets to the tensors of a compute graph.
//
// Analyze lowers an ir.Graph to a Problem: buffers with a size, a tail
// guard and an inclusive live range [Birth, Death] of schedule steps, plus
// the views that alias them. FromTable does the same for a buffer list.
// Place runs a named strategy over a Problem; every strategy takes the same
// Problem and returns the same Placement. NewPlan turns the result into the
// Plan record (memplan.plan/v1), and Verify proves a Plan valid
// independently of the code that made it.
package planner
