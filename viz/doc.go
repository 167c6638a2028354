// Package viz turns a planner.Plan into a picture: x is the schedule step,
// y the arena offset. Layout, camera, hit testing, colours and axis ticks
// are plain Go and tested on the host; only draw.go and game.go import
// ebiten. viz reads plans and never plans.
package viz
