package viz

import (
	"math"
	"slices"
)

// Keyboard and pointer actions on a View, shared by the game's own input
// and the commands a host page sends (which has the keyboard focus more
// often than the canvas does).

// zoomStep is the zoom factor of one key press.
const zoomStep = 1.25

// panStep is the fraction of the plot one key press pans.
const panStep = 0.1

// KeyBinding is one action of the keyboard: the DOM key names that do
// it, how the help writes them, and what it does.
type KeyBinding struct {
	Keys   []string `json:"keys"`
	Label  string   `json:"label"`
	Action string   `json:"action"`
	Help   string   `json:"help"`
	// Mode is "place" for keys that act so only while placing by hand
	// (View.Hand); "" for keys of every mode.
	Mode string `json:"mode,omitempty"`
}

// KeyBindings are the viewer's keys. The page reads them from the
// viewer's ready event, to forward exactly these and to list them in its
// help, so the keys are stated once, here.
var KeyBindings = []KeyBinding{
	{[]string{"w", "W", "+", "="}, "W / +", "zoom-in", "zoom in (Shift: time only)", ""},
	{[]string{"s", "S", "-", "_"}, "S / −", "zoom-out", "zoom out (Shift: time only)", ""},
	{[]string{"a", "A", "ArrowLeft"}, "A / ←", "pan-left", "pan left", ""},
	{[]string{"d", "D", "ArrowRight"}, "D / →", "pan-right", "pan right", ""},
	{[]string{"ArrowUp"}, "↑", "pan-up", "pan up", ""},
	{[]string{"ArrowDown"}, "↓", "pan-down", "pan down", ""},
	{[]string{"f", "F", "0"}, "F / 0", "fit", "fit the whole plan", ""},
	{[]string{"Escape"}, "Esc", "clear", "clear the selection", ""},
	{[]string{",", "<"}, ", / <", "cursor-back", "time cursor a step back (Shift: 10)", ""},
	{[]string{".", ">"}, ". / >", "cursor-forward", "time cursor a step on (Shift: 10)", ""},
	{[]string{"p", "P"}, "P", "peak", "time cursor to the peak: the step that sets the lower bound", ""},
	{[]string{"h", "H"}, "H", "cursor-hide", "hide the time cursor", ""},
	{[]string{"ArrowUp"}, "↑", "place-up", "placing: move the selected buffer up one alignment (Shift: to the next edge)", "place"},
	{[]string{"ArrowDown"}, "↓", "place-down", "placing: move the selected buffer down one alignment (Shift: to the next edge)", "place"},
	{[]string{"Tab"}, "Tab", "place-next", "placing: select the next buffer (Shift: the one before)", "place"},
	{[]string{"z", "Z"}, "Z", "place-undo", "placing: undo the last move", "place"},
	{[]string{"y", "Y"}, "Y", "place-redo", "placing: redo the move undone", "place"},
}

// actionOf is the action bound to a DOM key name in mode ("" or
// "place"), or "": a mode's own binding comes before the one of every
// mode.
func actionOf(key, mode string) string {
	for _, m := range []string{mode, ""} {
		for _, b := range KeyBindings {
			if b.Mode == m && slices.Contains(b.Keys, key) {
				return b.Action
			}
		}
		if m == "" {
			break
		}
	}
	return ""
}

// Key applies a key by its DOM name ("w", "ArrowLeft", "Escape", …) and
// reports whether it meant anything. With shift, zoom keys zoom x only.
func (v *View) Key(key string, shift bool) bool {
	if v.Layout == nil {
		return false
	}
	p := v.PlotRect()
	cx, cy := (p.X0+p.X1)/2, (p.Y0+p.Y1)/2
	// Whole pixels, so panning can move what is drawn instead of
	// building it again (View.Quads).
	w, h := math.Round((p.X1-p.X0)*panStep), math.Round((p.Y1-p.Y0)*panStep)
	zoom := func(f float64) {
		if shift {
			v.Cam.ZoomAt(cx, cy, f, 1)
		} else {
			v.Cam.ZoomAt(cx, cy, f, f)
		}
	}
	mode := ""
	if v.Hand != nil {
		mode = "place"
	}
	action := actionOf(key, mode)
	switch action {
	case "zoom-in":
		zoom(zoomStep)
	case "zoom-out":
		zoom(1 / zoomStep)
	case "pan-left":
		v.Cam.Pan(w, 0)
	case "pan-right":
		v.Cam.Pan(-w, 0)
	case "pan-up":
		v.Cam.Pan(0, h)
	case "pan-down":
		v.Cam.Pan(0, -h)
	case "fit":
		v.Cam.Fit()
	case "clear":
		v.Select(-1)
	case "cursor-back", "cursor-forward":
		d := 1
		if shift {
			d = 10
		}
		if action == "cursor-back" {
			d = -d
		}
		v.MoveCursor(d)
	case "peak":
		v.SetCursor(v.Layout.PeakStep())
	case "cursor-hide":
		v.SetCursor(-1)
	case "place-up", "place-down":
		if v.Selected < 0 || !v.Hand.owns(v.Selected) { // nothing to move: the arrows pan
			v.Cam.Pan(0, map[bool]float64{true: h, false: -h}[action == "place-up"])
			break
		}
		return v.handKey(action, shift)
	case "place-next", "place-undo", "place-redo":
		return v.handKey(action, shift)
	default:
		return false
	}
	v.Dirty = true
	return true
}

// Wheel zooms at a point in CSS pixels by a wheel delta (positive zooms
// in). xOnly and yOnly restrict the zoom to one axis.
func (v *View) Wheel(sx, sy, delta float64, xOnly, yOnly bool) {
	if v.Layout == nil || delta == 0 {
		return
	}
	sx, sy = sx*v.Scale, sy*v.Scale
	// Browsers report 100 or 120 per notch, trackpads a few per event.
	f := 1.0
	switch {
	case delta > 0:
		f = 1 + min(delta, 240)/240
	case delta < 0:
		f = 1 / (1 + min(-delta, 240)/240)
	}
	fx, fy := f, f
	if xOnly {
		fy = 1
	}
	if yOnly {
		fx = 1
	}
	v.Cam.ZoomAt(sx, sy, fx, fy)
	v.Dirty = true
}

// Drag pans by a pointer movement in CSS pixels.
func (v *View) Drag(dx, dy float64) {
	if v.Layout == nil || (dx == 0 && dy == 0) {
		return
	}
	// Whole device pixels, so panning can move what is drawn (View.Quads).
	v.Cam.Pan(math.Round(dx*v.Scale), math.Round(dy*v.Scale))
	v.Dirty = true
}
