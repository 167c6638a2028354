// Package examples holds memplan's example graphs, embedded so that the
// viewer can offer them without fetching anything, and the plan record of
// the one it opens on, so its first picture needs no planner.
package examples

import "embed"

//go:generate go run ../tools/memplan plan --json -o plans/transformer.json transformer.json

// Default is the example the viewer opens on.
const Default = "transformer.json"

// FS holds every example graph, by file name.
//
//go:embed *.json
var FS embed.FS

// Plans holds the plan record of Default with default options, as
// plans/<name>. A test checks it is what the planner makes today.
//
//go:embed plans/*.json
var Plans embed.FS
