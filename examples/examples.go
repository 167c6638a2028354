// Package examples holds memplan's example graphs, embedded so that the
// viewer can offer them without fetching anything.
package examples

import "embed"

// FS holds every example graph, by file name.
//
//go:embed *.json
var FS embed.FS
