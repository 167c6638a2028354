// Package viz turns a planner.Plan into a picture: x is the schedule step,
// y the arena offset. Layout, camera, hit testing, colours, label
// placement, axis ticks and the painting of each frame's pixels are plain
// Go and tested on the host; only draw.go and game.go import ebiten, to
// upload a frame's changed rows and show it. viz reads plans and never
// plans.
//
// A host drives a View: View.SetTheme("dark" or "light") picks the
// colours, Legend lists what they mean (for a legend in HTML), LiveAt
// and Game.OnLiveHover report the live-bytes strip under the pointer.
// The game draws at the device pixel ratio; every position exchanged
// with the host (HitAt, LiveAt, Wheel, Drag, ScreenRect, the hover
// callbacks) is in CSS pixels.
package viz
