// Package examples holds memplan's example graphs, embedded so that the
// viewer can offer them without fetching anything, and the plan of the
// one it opens on, so its first picture needs no planner.
package examples

import "embed"

//go:generate go run genplan.go

// Default is the example the viewer opens on.
const Default = "transformer.json"

// FS holds every example graph, by file name.
//
//go:embed *.json
var FS embed.FS

// DefaultPlan is the plan of Default with default options in planner's
// binary form, which the viewer decodes without linking the plan
// record's reader or its proof: TestDefaultPlanIsCurrent proves it, and
// checks it is what the planner makes today (plans/transformer.json is
// the same plan as a record, for the docs).
//
//go:embed plans/transformer.bin
var DefaultPlan []byte
