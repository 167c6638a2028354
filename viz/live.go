package viz

import "sort"

// LiveHit is a step of the live strip and the bytes live at it (sizes
// plus guards of the buffers live then).
type LiveHit struct {
	Step  int    `json:"step"` // -1: none
	Bytes int64  `json:"bytes"`
	Phase string `json:"phase,omitempty"` // the step's phase, if the plan has phases
}

var noLive = LiveHit{Step: -1}

// LiveAt is the bytes live at a step: 0 outside the schedule.
func (l *Layout) LiveAt(step int) int64 {
	x := float64(step)
	// The last point at or before x holds from there to the next.
	k := sort.Search(len(l.Live), func(i int) bool { return l.Live[i].X > x }) - 1
	if k < 0 {
		return 0
	}
	return l.Live[k].Bytes
}

// LiveAt is the step of the live strip under the point (sx, sy) in CSS
// pixels, and what is live there; Step is -1 off the strip.
func (v *View) LiveAt(sx, sy float64) LiveHit {
	sx, sy = sx*v.Scale, sy*v.Scale
	if v.Layout == nil || !v.StripRect().Contains(sx, sy) {
		return noLive
	}
	x, _ := v.Cam.ToWorld(sx, 0)
	step := int(x)
	if x < 0 || x >= v.Layout.Bounds.X1 {
		return noLive
	}
	h := LiveHit{Step: step, Bytes: v.Layout.LiveAt(step)}
	for _, b := range v.Layout.Phases {
		if b.X0 <= float64(step) && float64(step) < b.X1 {
			h.Phase = b.Name
		}
	}
	return h
}
