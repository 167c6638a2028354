package viz

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"memplan/planner"
)

// Quad is one opaque screen-space rectangle to draw, in pixels. Hatched
// quads take a diagonal stripe pattern (guard bands); the others are solid.
// Everything is opaque, so a frame is painted by writing pixels, never
// blending them (raster.go).
type Quad struct {
	X0, Y0, X1, Y1 float32
	C              RGB
	Hatch          bool
}

// Label is a line of text at a pixel position (its top-left corner).
type Label struct {
	X, Y float64
	Text string
	C    RGB
	bg   uint8 // what is drawn behind the text
}

const (
	boxNone     = iota
	boxBackdrop // the background colour, so data under the text cannot hide it
	boxFramed   // a backdrop with a border: a readout over the data
)

// metrics are the view's sizes in device pixels, all multiples of the
// glyph scale so the picture looks the same at any device pixel ratio.
type metrics struct {
	gs                       int     // glyph scale: 1, 2 at a device pixel ratio of 2
	u                        float64 // one CSS-ish pixel: float64(gs)
	ch                       float64 // a text row
	left, right, top, bottom float64 // margins around the plot
	strip                    float64 // the live strip's height
	phaseRow                 float64 // room for phase names, 0 without phases
	legend                   []legendItem
	// head is the rows above the legend: the title (ShowTitle) and the
	// names of lines beyond the plan's reach (a far budget), clear of
	// the buffers.
	head  []Label
	axisY float64 // the row of the y axis's title and the legend
}

// View is the interactive state of the picture: the layout, the camera,
// what is hovered and selected. It is plain Go; game.go feeds it input
// and draws what Quads and Labels return.
//
// Two kinds of pixel meet here. W, H, PlotRect, StripRect, the camera,
// Quads and Labels are in device pixels, the image drawn into. Positions
// exchanged with the host page (HitAt, LiveAt, Wheel, Drag, ScreenRect)
// are in CSS pixels: device pixels divided by Scale.
type View struct {
	Layout *Layout
	Cam    Camera
	W, H   int // image size in device pixels

	// Scale is device pixels per CSS pixel (window.devicePixelRatio).
	// Text and line widths grow by its rounded value, so they keep their
	// size on screen and stay sharp. Set it with SetScale.
	Scale float64
	// Theme gives every colour; set it with SetTheme.
	Theme *Theme

	Hover    Hit
	Selected int // tensor index, -1 for none
	// LiveHover is the step under the pointer in the live strip; its
	// Step is -1 when the pointer is elsewhere.
	LiveHover LiveHit
	// Reveal, when >= 0, replays the placement: only the first Reveal
	// buffers of Layout's placement order (and their views) are drawn,
	// the last of them ringed and those it shared no step with dimmed,
	// so what it had to avoid stands out. -1 draws everything.
	Reveal int
	// Cursor is the time cursor's step (SetCursor), -1 when hidden: the
	// tensors live then are drawn as they are, the rest dimmed.
	Cursor int
	// Explained, when set, outlines the buffers the selection had to
	// avoid and shades the gaps they left (SetExplained).
	Explained *Explained
	// Hand, when set, is a placement by hand that the picture shows
	// (SetHand): its conflicts drawn, and the planner's arena beside.
	Hand     *Hand
	related  map[int32]bool // selected, its partners and its views
	Partners []int

	// Dirty is set by every change that alters the picture; the game
	// draws only when it is set.
	Dirty bool

	m        metrics
	noLegend bool
	titled   bool

	// Rectangles thinner than a pixel are painted into grid, one colour
	// id a screen pixel, and drawn as runs of equal pixels along each row:
	// a plan of 100k buffers then costs a few thousand quads, not 100k.
	grid      []uint8 // all 0 between builds
	gridR     [4]int  // grid's screen region at build time: x0, y0, w, h
	gridUsed  [4]int  // the part of it painted: x0, y0, x1, y1 in grid pixels
	gridOpen  bool    // buildItems is painting it; else thin rectangles are quads
	gridColor []RGB   // by id; 0 is empty
	labels    []Label

	// Buffers, guards and views are built once for a zoom and selection
	// (walking every item costs milliseconds) and only moved while the
	// camera pans; when panning, over a plot's size more on every side.
	items      []Quad
	built      builtKey
	builtB     [2]float64 // the camera's screen offset they were built at
	builtWorld Rect       // the world on screen then
	builtReach Rect       // the screen region they cover then
	walked     int        // items walked building them, ever: work to count
}

// builtKey is what the built items depend on besides the pan.
type builtKey struct {
	l      *Layout
	th     *Theme
	sel    int
	reveal int
	cursor int
	kx, ky float64
	w, h   int
}

// NewView is an empty view of the given size in device pixels, at scale
// 1 in the dark theme.
func NewView(w, h int) *View {
	v := &View{Hover: None, LiveHover: noLive, Selected: -1, Reveal: -1, Cursor: -1, Dirty: true, Scale: 1, Theme: Dark}
	v.relayout()
	v.Resize(w, h)
	return v
}

// PlotRect is the screen rectangle buffers are drawn in.
func (v *View) PlotRect() Rect {
	m := &v.m
	return Rect{m.left, m.top, float64(max(float64(v.W)-m.right, m.left+1)), float64(max(float64(v.H)-m.bottom, m.top+1))}
}

// StripRect is the screen rectangle of the live-bytes strip.
func (v *View) StripRect() Rect {
	p, m := v.PlotRect(), &v.m
	y0 := p.Y1 + 4*m.u + m.ch + m.phaseRow + 6*m.u
	return Rect{p.X0, y0, p.X1, y0 + m.strip}
}

// relayout sets the margins and places the legend: after a change of
// size, scale, plan, theme or legend. The camera keeps what it shows.
func (v *View) relayout() {
	gs := max(1, int(math.Round(v.Scale)))
	u := float64(gs)
	m := metrics{gs: gs, u: u, ch: CharH * u, left: 76 * u, right: 10 * u, strip: 44 * u}
	if v.Layout != nil && len(v.Layout.Phases) > 0 {
		m.phaseRow = m.ch + u
	}
	m.bottom = 4*u + m.ch + m.phaseRow + 6*u + m.strip + 8*u
	// The top band holds the head rows (the title, the names of far
	// lines), then the y axis title and, right-aligned, the legend.
	m.head = v.headLabels(4*u, 4*u, float64(v.W)-m.right, gs)
	y0 := 4 * u
	for _, lb := range m.head {
		y0 = max(y0, lb.Y+m.ch)
	}
	m.axisY = y0
	rows := 1
	if v.Layout != nil && !v.noLegend {
		x0 := 4*u + textWidth("offset (MiB)", gs) + 16*u
		m.legend, rows = layoutLegend(Legend(v.Theme, v.Layout), x0, float64(v.W)-m.right, y0, gs)
		rows = max(rows, 1)
	}
	m.top = y0 + float64(rows)*m.ch + 6*u
	v.m = m
	if p := v.PlotRect(); p != v.Cam.View {
		v.Cam.Resize(p)
	}
	v.Dirty = true
}

// ShowTitle shows the plan's heading (the graph, its strategy and arena)
// in a row above the plot, as the plan's picture (svgplot) has it: for a
// viewer that stands in for that picture, a widget gone live. memplan's
// app and lessons say it in panels of their own.
func (v *View) ShowTitle(on bool) {
	if v.titled != on {
		v.titled = on
		v.relayout()
	}
}

// Title is the canvas's heading of plan p, in the words the font draws
// (the picture's, with the graph's name in lower case).
func Title(p *planner.Plan) string {
	name := strings.ToLower(p.Name)
	if name == "" {
		name = "plan"
	}
	s := name + ": " + p.Strategy + ", arena " + FormatBytes(p.ArenaSize)
	if p.Optimal || p.OptimalBySearch {
		s += " (optimal)"
	}
	return s
}

// farLine says whether line ln lies beyond the whole plan's reach (a
// budget far above the arena): fitting the plot leaves it out, so its
// name goes in a head row, clear of the buffers.
func (l *Layout) farLine(ln Line) bool { return ln.Y > l.Bounds.Y1 }

// lineName is line ln's name as labels write it.
func (l *Layout) lineName(ln Line) string {
	if ln.Role == LineBudget && l.OverBudget {
		return ln.Label + " exceeded by " + FormatBytes(l.Plan.ArenaSize-l.Budget)
	}
	return ln.Label
}

// headLabels lays out the head rows between the left margin x0 and x1
// from y: the title on the left of the first, then the far lines' names,
// right-aligned, beside it where they fit, else on rows of their own.
func (v *View) headLabels(x0, y, x1 float64, gs int) []Label {
	l := v.Layout
	if l == nil {
		return nil
	}
	u, h := float64(gs), float64(CharH*gs)
	var out []Label
	left, end := x0, x1-4*u // the row's free span; names end where a line's label does
	if v.titled {
		t := Title(l.Plan)
		out = append(out, Label{X: x0, Y: y, Text: t, C: v.Theme.Text})
		left += textWidth(t, gs) + 16*u
	}
	for _, ln := range l.Lines {
		if !l.farLine(ln) {
			continue
		}
		t := l.lineName(ln) + ", off the top"
		w := textWidth(t, gs)
		if end-w < left && (left > x0 || end < x1-4*u) {
			y, left, end = y+h, x0, x1-4*u
		}
		out = append(out, Label{X: end - w, Y: y, Text: t, C: v.lineColor(ln)})
		end -= w + 16*u
	}
	return out
}

// SetScale sets the device pixel ratio (see View.Scale).
func (v *View) SetScale(s float64) {
	if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		s = 1
	}
	if s != v.Scale {
		v.Scale = s
		v.relayout()
	}
}

// SetTheme picks the colours by name, "dark" or "light"; it reports
// whether the name is known.
func (v *View) SetTheme(name string) bool {
	th := ThemeNamed(name)
	if th == nil {
		return false
	}
	if th != v.Theme {
		v.Theme = th
		v.relayout()
	}
	return true
}

// ShowLegend shows or hides the canvas's legend, for a host that renders
// Legend itself.
func (v *View) ShowLegend(on bool) {
	if v.noLegend == !on {
		return
	}
	v.noLegend = !on
	v.relayout()
}

// Legend is what the view's legend lists, in its theme.
func (v *View) Legend() []LegendEntry { return Legend(v.Theme, v.Layout) }

// TensorColor is tensor i's fill in the view's theme.
func (v *View) TensorColor(i int) RGB { return v.Theme.TensorColor(v.Layout.Plan, i, false) }

// Resize sets the screen size, keeping what is at the centre.
func (v *View) Resize(w, h int) {
	if w == v.W && h == v.H {
		return
	}
	v.W, v.H = w, h
	v.relayout()
}

// SetLayout shows a new plan. keepCamera keeps the zoom and position when
// the world is the same size (a re-plan with other options); otherwise
// the view fits the new plan. The selection survives when the tensor of
// that name still exists.
func (v *View) SetLayout(l *Layout, keepCamera bool) {
	var selName string
	if v.Layout != nil && v.Selected >= 0 {
		selName = v.Layout.Plan.Tensors[v.Selected].Name
	}
	same := v.Layout != nil && v.Layout.Bounds == l.Bounds
	v.Layout = l
	v.relayout()
	v.Cam.World = l.Bounds
	v.Cam.View = v.PlotRect()
	if !keepCamera || !same {
		v.Cam.Fit()
	}
	v.Hover, v.LiveHover = None, noLive
	v.Reveal = -1 // a new plan shows whole
	v.Explained = nil
	if v.Cursor > l.LastStep() {
		v.Cursor = l.LastStep()
	}
	v.Select(l.Index(selName))
	v.Dirty = true
}

// Index returns the index of the tensor named name, or -1.
func (l *Layout) Index(name string) int {
	if name == "" {
		return -1
	}
	return l.tensorByName(name)
}

// Select makes tensor i the selection (-1 clears it) and highlights every
// tensor that shared its bytes.
func (v *View) Select(i int) {
	if i != v.Selected {
		v.Explained = nil // it explained the old selection
	}
	v.Selected = i
	v.Partners = nil
	v.related = nil
	if v.Layout != nil && i >= 0 && i < len(v.Layout.Plan.Tensors) {
		v.Partners = v.Layout.Partners(i)
		v.related = map[int32]bool{int32(i): true}
		for _, j := range v.Partners {
			v.related[int32(j)] = true
		}
	} else {
		v.Selected = -1
	}
	v.Dirty = true
}

// FocusTensor zooms to tensor i with some context around it.
func (v *View) FocusTensor(i int) bool {
	if v.Layout == nil || i < 0 || i >= len(v.Layout.ItemOf) || v.Layout.ItemOf[i] < 0 {
		return false
	}
	r := v.Layout.Items[v.Layout.ItemOf[i]].Rect
	// Never zoom in so far that the tensor fills the screen: its
	// neighbours are what the picture is about.
	minW := (v.Cam.World.X1 - v.Cam.World.X0) / 50
	minH := (v.Cam.World.Y1 - v.Cam.World.Y0) / 50
	if w := r.X1 - r.X0; w < minW {
		r.X0, r.X1 = r.X0-(minW-w)/2, r.X1+(minW-w)/2
	}
	if h := r.Y1 - r.Y0; h < minH {
		r.Y0, r.Y1 = r.Y0-(minH-h)/2, r.Y1+(minH-h)/2
	}
	v.Cam.FitRect(r, 1)
	v.Dirty = true
	return true
}

// KeepInView pans the camera, at the same zoom, to centre tensor i when
// it is not wholly in view (zooming out to it if it is larger than the
// view): a replay's newest buffer is never placed off screen. It reports
// whether the camera moved.
func (v *View) KeepInView(i int) bool {
	if v.Layout == nil || i < 0 || i >= len(v.Layout.ItemOf) || v.Layout.ItemOf[i] < 0 {
		return false
	}
	r, vis := v.Layout.Items[v.Layout.ItemOf[i]].Rect, v.Cam.Visible()
	if r.X0 >= vis.X0 && r.X1 <= vis.X1 && r.Y0 >= vis.Y0 && r.Y1 <= vis.Y1 {
		return false
	}
	w, h := vis.X1-vis.X0, vis.Y1-vis.Y0
	if r.X1-r.X0 > w || r.Y1-r.Y0 > h {
		return v.FocusTensor(i)
	}
	cx, cy := (r.X0+r.X1)/2, (r.Y0+r.Y1)/2
	v.Cam.Show(Rect{X0: cx - w/2, Y0: cy - h/2, X1: cx + w/2, Y1: cy + h/2})
	v.Dirty = true
	return true
}

// HitAt is what lies under the point (sx, sy) in CSS pixels; in a
// replay, only what is placed so far.
func (v *View) HitAt(sx, sy float64) Hit {
	sx, sy = sx*v.Scale, sy*v.Scale
	if v.Layout == nil || !v.PlotRect().Contains(sx, sy) {
		return None
	}
	x, y := v.Cam.ToWorld(sx, sy)
	h := v.Layout.HitTest(x, y)
	if h.Tensor >= 0 && v.replaying() && !v.revealed(h.Tensor) {
		return None
	}
	return h
}

// ShareWorld widens the world to at least steps × bytes, with the
// headroom a plan's own world has, and fits it: two viewers given the
// larger of their two plans draw them at one scale, side by side.
func (v *View) ShareWorld(steps, bytes float64) {
	if v.Layout == nil {
		return
	}
	w := v.Layout.Bounds
	w.X1, w.Y1 = max(w.X1, steps), max(w.Y1, bytes*worldHeadroom)
	v.Cam.World = w
	v.Cam.Fit()
	v.Dirty = true
}

// SetReveal replays the placement up to its n-th buffer (-1: show all).
func (v *View) SetReveal(n int) {
	if v.Layout == nil || v.Layout.Placed == 0 || n < 0 {
		n = -1
	}
	if n >= 0 {
		n = min(n, v.Layout.Placed)
	}
	if n != v.Reveal {
		v.Reveal = n
		v.Dirty = true
	}
}

func (v *View) replaying() bool { return v.Reveal >= 0 && v.Layout.Placed > 0 }

// revealed reports whether tensor t is placed at this point of a replay.
func (v *View) revealed(t int32) bool {
	r := v.Layout.Rank[t]
	return r >= 0 && int(r) < v.Reveal
}

// justPlaced is the tensor placed last in a replay, or -1.
func (v *View) justPlaced() int32 {
	if v.Layout == nil || !v.replaying() || v.Reveal == 0 {
		return -1
	}
	name := v.Layout.Plan.PlacementOrder[v.Reveal-1]
	return int32(v.Layout.Index(name))
}

// SetHover records what is under the pointer; it reports whether that
// changed. None (the pointer left) also clears the live strip's readout.
func (v *View) SetHover(h Hit) bool {
	hc, _ := v.SetPointer(h, noLive)
	return hc
}

// SetPointer records what is under the pointer in the plot and in the
// live strip; it reports which of the two changed.
func (v *View) SetPointer(h Hit, lh LiveHit) (hover, live bool) {
	hover, live = h != v.Hover, lh != v.LiveHover
	v.Hover, v.LiveHover = h, lh
	if hover || live {
		v.Dirty = true
	}
	return hover, live
}

// ScreenRect is where tensor i is on screen now, unclipped, in CSS
// pixels, and whether it is drawn at all.
func (v *View) ScreenRect(i int) (Rect, bool) {
	r, ok := v.deviceRect(i)
	s := v.Scale
	return Rect{r.X0 / s, r.Y0 / s, r.X1 / s, r.Y1 / s}, ok
}

// deviceRect is ScreenRect in device pixels.
func (v *View) deviceRect(i int) (Rect, bool) {
	if v.Layout == nil || i < 0 || i >= len(v.Layout.ItemOf) || v.Layout.ItemOf[i] < 0 ||
		v.replaying() && !v.revealed(int32(i)) {
		return Rect{}, false
	}
	r := v.Layout.Items[v.Layout.ItemOf[i]].Rect
	x0, y1 := v.Cam.ToScreen(r.X0, r.Y0)
	x1, y0 := v.Cam.ToScreen(r.X1, r.Y1)
	return Rect{x0, y0, x1, y1}, true
}

// Quads appends everything to draw, back to front, to dst.
func (v *View) Quads(dst []Quad) []Quad {
	th, m := v.Theme, &v.m
	u := m.u
	if v.Layout == nil {
		return appendText(dst, 10*u, 10*u, "no plan loaded", th.Text, m.gs)
	}
	plot := v.PlotRect()
	vis := v.Cam.Visible()
	l := v.Layout
	yTicks, _ := ByteTicks(vis.Y0, vis.Y1, v.Cam.KY, 48*u)

	// Grid lines at the byte ticks, under everything.
	for _, t := range yTicks {
		_, sy := v.Cam.ToScreen(0, t.V)
		sy = math.Round(sy)
		dst = append(dst, Quad{float32(plot.X0), float32(sy), float32(plot.X1), float32(sy + 1), th.Grid, false})
	}
	dst = v.appendGaps(dst)

	m3 := v.Cam.Matrix()
	ax, bx, ay, by := m3.At(0, 0), m3.At(0, 2), m3.At(1, 1), m3.At(1, 2)
	key := builtKey{l, th, v.Selected, v.Reveal, v.Cursor, v.Cam.KX, v.Cam.KY, v.W, v.H}
	dx, dy := bx-v.builtB[0], by-v.builtB[1]
	// Only whole-pixel moves keep the pixels a fresh build would paint:
	// thin items are snapped to the pixel grid when built.
	rdx, rdy := math.Round(dx), math.Round(dy)
	whole := math.Abs(dx-rdx) < 1e-3 && math.Abs(dy-rdy) < 1e-3
	dx, dy = rdx, rdy
	// The part of the plot that shows the world, where the items were built.
	need := intersect(Rect{plot.X0 - dx, plot.Y0 - dy, plot.X1 - dx, plot.Y1 - dy}, v.builtWorld)
	r := v.builtReach
	if key != v.built || !whole || need.X1 > need.X0 && need.Y1 > need.Y0 &&
		(need.X0 < r.X0 || need.Y0 < r.Y0 || need.X1 > r.X1 || need.Y1 > r.Y1) {
		world := Rect{math.Floor(ax*l.Bounds.X0 + bx), math.Floor(ay*l.Bounds.Y1 + by), math.Ceil(ax*l.Bounds.X1 + bx), math.Ceil(ay*l.Bounds.Y0 + by)}
		reach, cull := plot, vis
		if key == v.built && whole {
			// Panning: build further than the plot so the next pans
			// only move what is built. Not while zooming, which
			// rebuilds every frame anyway.
			w, h := plot.X1-plot.X0, plot.Y1-plot.Y0
			if e := intersect(Rect{plot.X0 - w, plot.Y0 - h, plot.X1 + w, plot.Y1 + h}, world); e.X1 > e.X0 && e.Y1 > e.Y0 {
				reach = e
				cull = Rect{(e.X0 - bx) / ax, (e.Y1 - by) / ay, (e.X1 - bx) / ax, (e.Y0 - by) / ay}
			}
		}
		v.items = v.buildItems(v.items[:0], reach, cull, ax, bx, ay, by)
		v.built, v.builtB, v.builtWorld, v.builtReach = key, [2]float64{bx, by}, world, reach
		dx, dy = 0, 0
	}
	if dx == 0 && dy == 0 && v.builtReach == plot {
		// Built for this frame's plot (zooming): in place already.
		dst = append(dst, v.items...)
	} else {
		fx, fy := float32(dx), float32(dy)
		px0, py0, px1, py1 := float32(plot.X0), float32(plot.Y0), float32(plot.X1), float32(plot.Y1)
		for _, q := range v.items {
			q.X0, q.Y0 = q.X0+fx, q.Y0+fy
			q.X1, q.Y1 = q.X1+fx, q.Y1+fy
			// Compared by hand: on wasm, min and max of floats are
			// calls, and this loop runs over every item built.
			if q.X1 <= px0 || q.X0 >= px1 || q.Y1 <= py0 || q.Y0 >= py1 {
				continue
			}
			if q.X0 < px0 {
				q.X0 = px0
			}
			if q.Y0 < py0 {
				q.Y0 = py0
			}
			if q.X1 > px1 {
				q.X1 = px1
			}
			if q.Y1 > py1 {
				q.Y1 = py1
			}
			dst = append(dst, q)
		}
	}

	// The hovered and selected tensors get a ring, and so does the one
	// just placed in a replay.
	for _, t := range []int32{v.Hover.Tensor, int32(v.Selected), v.justPlaced()} {
		if t < 0 || int(t) >= len(l.ItemOf) || l.ItemOf[t] < 0 {
			continue
		}
		it := &l.Items[l.ItemOf[t]]
		x0, y1 := v.Cam.ToScreen(it.X0, it.Y0)
		x1, y0 := v.Cam.ToScreen(it.X1, it.Y1)
		dst = v.appendOutline(dst, plot, x0-1, y0-1, x1+1, y1+1, th.Select)
	}
	dst = v.appendCursorAndConflicts(dst)

	// The reference lines; the lower bound is dashed, so a line a pixel
	// away (often the arena) shows through its gaps.
	for _, ln := range l.Lines {
		sy, ok := v.lineY(ln)
		if !ok {
			continue
		}
		c := v.lineColor(ln)
		if ln.Role != LineLowerBound {
			dst = append(dst, Quad{float32(plot.X0), float32(sy - u), float32(plot.X1), float32(sy + u), c, false})
			continue
		}
		for x := plot.X0; x < plot.X1; x += 10 * u {
			dst = append(dst, Quad{float32(x), float32(sy - u), float32(min(x+6*u, plot.X1)), float32(sy + u), c, false})
		}
	}

	// Axes and their ticks.
	dst = append(dst,
		Quad{float32(plot.X0 - u), float32(plot.Y0), float32(plot.X0), float32(plot.Y1 + u), th.Axis, false},
		Quad{float32(plot.X0 - u), float32(plot.Y1), float32(plot.X1), float32(plot.Y1 + u), th.Axis, false})
	for _, t := range StepTicks(vis.X0, vis.X1, v.Cam.KX, 64*u) {
		sx, _ := v.Cam.ToScreen(t.V, 0)
		sx = math.Round(sx)
		dst = append(dst, Quad{float32(sx), float32(plot.Y1), float32(sx + u), float32(plot.Y1 + 4*u), th.Axis, false})
	}
	for _, t := range yTicks {
		_, sy := v.Cam.ToScreen(0, t.V)
		sy = math.Round(sy)
		dst = append(dst, Quad{float32(plot.X0 - 5*u), float32(sy), float32(plot.X0 - u), float32(sy + u), th.Axis, false})
	}
	dst = v.appendStrip(dst)
	dst = v.appendPhases(dst)
	dst = v.appendLegend(dst)
	v.labels = v.Labels(v.labels[:0])
	for _, lb := range v.labels {
		if lb.bg != boxNone {
			b := lb.box(m.gs, 0)
			b.X0, b.X1 = b.X0-2*u, b.X1+u
			if lb.bg == boxFramed {
				dst = append(dst, Quad{float32(b.X0 - u), float32(b.Y0 - u), float32(b.X1 + u), float32(b.Y1 + u), th.Axis, false})
			}
			dst = append(dst, Quad{float32(b.X0), float32(b.Y0), float32(b.X1), float32(b.Y1), th.Background, false})
		}
		dst = appendText(dst, lb.X, lb.Y, lb.Text, lb.C, m.gs)
	}
	return dst
}

// lineY is where line ln is drawn, rounded to a pixel, and whether it is
// inside the plot.
func (v *View) lineY(ln Line) (float64, bool) {
	plot := v.PlotRect()
	_, sy := v.Cam.ToScreen(0, ln.Y)
	if sy < plot.Y0-1 || sy > plot.Y1+1 {
		return 0, false
	}
	return math.Round(sy), true
}

// appendLegend draws the legend's swatches; Labels writes its words.
func (v *View) appendLegend(dst []Quad) []Quad {
	th, u := v.Theme, v.m.u
	for _, it := range v.m.legend {
		s := it.swatch
		q := func(x0, y0, x1, y1 float64, c RGB, hatch bool) {
			dst = append(dst, Quad{float32(x0), float32(y0), float32(x1), float32(y1), c, hatch})
		}
		mid := math.Round((s.Y0+s.Y1)/2 - u)
		switch it.Mark {
		case "fill":
			q(s.X0, s.Y0, s.X1, s.Y1, it.c, false)
		case "hatch":
			q(s.X0, s.Y0, s.X1, s.Y1, it.c, true)
		case "outline":
			q(s.X0, s.Y0, s.X1, s.Y1, it.c, false)
			q(s.X0+u, s.Y0+u, s.X1-u, s.Y1-u, th.Background, false)
		case "line":
			q(s.X0, mid, s.X1, mid+2*u, it.c, false)
		case "dashed":
			for x := s.X0; x < s.X1; x += 6 * u {
				q(x, mid, min(x+4*u, s.X1), mid+2*u, it.c, false)
			}
		}
	}
	return dst
}

// buildItems appends the buffers, guards and views inside reach, a screen
// region with whole-pixel bounds; cull is that region in the world. The
// camera's affine map comes unpacked: this loop runs over every item.
func (v *View) buildItems(dst []Quad, reach, cull Rect, ax, bx, ay, by float64) []Quad {
	l, th := v.Layout, v.Theme
	fill, base := l.paint(th)
	gx0, gy0 := int(reach.X0), int(reach.Y0)
	gw, gh := int(reach.X1)-gx0, int(reach.Y1)-gy0
	if cap(v.grid) < gw*gh {
		v.grid = make([]uint8, gw*gh)
	}
	// appendGridRuns leaves it clear: a pan's build covers nine plots,
	// and most of them are often empty.
	v.grid = v.grid[:gw*gh]
	v.gridR = [4]int{gx0, gy0, gw, gh}
	v.gridUsed = [4]int{gw, gh, 0, 0}
	v.gridColor = append(v.gridColor[:0], RGB{})
	v.gridOpen = true
	replay := v.replaying()
	var placedNow Rect // the buffer just placed in a replay; empty if none
	if t := v.justPlaced(); t >= 0 && l.ItemOf[t] >= 0 {
		placedNow = l.Items[l.ItemOf[t]].Rect
	}
	v.walked += len(l.Items)
	selected, cursor := v.related != nil, v.Cursor >= 0
	// This loop runs over every item each time the zoom changes: what
	// does not change is hoisted, and a sliver, the common case when a
	// large plan is zoomed out, goes straight to the grid.
	cx0, cy0, cx1, cy1 := cull.X0, cull.Y0, cull.X1, cull.Y1
	rx0, ry0, rx1, ry1 := reach.X0, reach.Y0, reach.X1, reach.Y1
	lastC, lastID := RGB{}, uint8(0)
	for i := range l.Items {
		it := &l.Items[i]
		if it.X0 >= cx1 || cx0 >= it.X1 || it.Y0 >= cy1 || cy0 >= it.Y1 || replay && !v.revealed(it.Tensor) {
			continue
		}
		dim := selected && !v.related[it.Tensor] ||
			cursor && !v.liveAtCursor(it) ||
			replay && placedNow.X1 > placedNow.X0 && (it.X1 <= placedNow.X0 || placedNow.X1 <= it.X0)
		x0, y1 := ax*it.X0+bx, ay*it.Y0+by
		x1, y0 := ax*it.X1+bx, ay*it.Y1+by
		if it.Kind == ItemBuffer && x1-x0 < 1 && y1-y0 < 1 && x0 >= rx0 && y0 >= ry0 && x1 <= rx1 && y1 <= ry1 {
			// Under a pixel both ways and inside the grid: what
			// appendRect does, without its clipping.
			c := base[it.Tensor]
			if dim {
				c = th.Dim(c)
			}
			if c != lastC || lastID == 0 {
				lastC, lastID = c, v.gridID(c)
			}
			if lastID != 0 {
				px, py := int(math.Floor(x0))-gx0, int(math.Floor(y0))-gy0
				if px >= 0 && py >= 0 && px < gw && py < gh {
					v.grid[py*gw+px] = lastID
					u := &v.gridUsed
					u[0], u[1], u[2], u[3] = min(u[0], px), min(u[1], py), max(u[2], px+1), max(u[3], py+1)
					continue
				}
			}
		}
		switch it.Kind {
		case ItemBuffer:
			c := fill[it.Tensor]
			if x1-x0 < 1 || y1-y0 < 1 {
				// Too thin to tell neighbours apart: the kind's own
				// colour, so runs of them merge.
				c = base[it.Tensor]
			}
			if dim {
				c = th.Dim(c)
			}
			// A one-pixel gap on the left and top keeps touching
			// neighbours apart once they are big enough to spare it.
			if x1-x0 >= 4 {
				x0++
			}
			if y1-y0 >= 4 {
				y0++
			}
			dst = v.appendRect(dst, reach, x0, y0, x1, y1, c, false)
		case ItemGuard:
			// Tall enough for stripes: one hatched quad (the pattern's
			// gaps are a darker shade, so it stays opaque); else a solid
			// band.
			c, hatch := th.Guard, y1-y0 >= 3 && x1-x0 >= 3
			if !hatch {
				c = th.Guard.Mix(th.Background, 0.5)
			}
			if dim {
				c = th.Dim(c)
			}
			dst = v.appendRect(dst, reach, x0, y0, x1, y1, c, hatch)
		case ItemView:
			c := th.View
			if dim {
				c = th.Dim(c)
			}
			dst = v.appendOutline(dst, reach, x0, y0, x1, y1, c)
		}
	}

	v.gridOpen = false
	dst = v.appendGridRuns(dst)
	return dst
}

func intersect(a, b Rect) Rect {
	return Rect{max(a.X0, b.X0), max(a.Y0, b.Y0), min(a.X1, b.X1), min(a.Y1, b.Y1)}
}

func (v *View) lineColor(ln Line) RGB {
	th := v.Theme
	switch ln.Role {
	case LineLowerBound:
		return th.Lower
	case LineBudget:
		if v.Layout.OverBudget {
			return th.BudgetOver
		}
		return th.BudgetOK
	case LineCut, LinePlanner:
		return th.Cut
	}
	return th.Arena
}

// liveTop is the byte count at the top of the live strip.
func (l *Layout) liveTop() float64 { return float64(max(l.MaxLive, l.Plan.ArenaSize, 1)) }

// appendStrip draws live bytes per pixel column under the plot: the
// maximum over the steps the column covers, so short peaks stay visible.
// The step under the pointer is drawn in the text colour.
func (v *View) appendStrip(dst []Quad) []Quad {
	l, th, u := v.Layout, v.Theme, v.m.u
	s := v.StripRect()
	dst = append(dst, Quad{float32(s.X0), float32(s.Y0), float32(s.X1), float32(s.Y1), th.Grid, false})
	top := l.liveTop()
	pts := l.Live
	k := 0
	runX, runH := s.X0, -1.0
	flush := func(x float64) {
		if runH > 0 {
			dst = append(dst, Quad{float32(runX), float32(s.Y1 - runH), float32(x), float32(s.Y1), th.Live, false})
		}
	}
	for px := s.X0; px < s.X1; px++ {
		wx0, _ := v.Cam.ToWorld(px, 0)
		wx1, _ := v.Cam.ToWorld(px+1, 0)
		for k+1 < len(pts) && pts[k+1].X <= wx0 {
			k++
		}
		// Piece j covers [pts[j].X, pts[j+1].X); after the advance above,
		// piece k ends after wx0, so every piece from k starting before
		// wx1 meets the column.
		var m int64
		for j := k; j < len(pts) && pts[j].X < wx1; j++ {
			m = max(m, pts[j].Bytes)
		}
		h := math.Round(float64(m) / top * (s.Y1 - s.Y0))
		if h != runH {
			flush(px)
			runX, runH = px, h
		}
	}
	flush(s.X1)
	if lh := v.LiveHover; lh.Step >= 0 {
		x0, x1 := v.stepColumn(lh.Step)
		h := math.Max(math.Round(float64(lh.Bytes)/top*(s.Y1-s.Y0)), 1)
		dst = append(dst, Quad{float32(x0), float32(s.Y1 - h), float32(x1), float32(s.Y1), th.Text, false})
	}
	// The peak (lower bound) as a line across the strip.
	y := math.Round(s.Y1 - float64(l.MaxLive)/top*(s.Y1-s.Y0))
	dst = append(dst, Quad{float32(s.X0), float32(y), float32(s.X1), float32(y + 1), th.Lower, false})
	// Its scale: ticks at the top and at zero.
	for _, ty := range []float64{s.Y0, math.Round((s.Y0 + s.Y1) / 2), s.Y1 - u} {
		dst = append(dst, Quad{float32(s.X0 - 5*u), float32(ty), float32(s.X0 - u), float32(ty + u), th.Axis, false})
	}
	return dst
}

// stepColumn is the screen span of a step in the strip, at least a pixel
// wide.
func (v *View) stepColumn(step int) (float64, float64) {
	s := v.StripRect()
	x0, _ := v.Cam.ToScreen(float64(step), 0)
	x1, _ := v.Cam.ToScreen(float64(step+1), 0)
	x0, x1 = math.Round(x0), math.Round(x1)
	if x1-x0 < 1 {
		x1 = x0 + 1
	}
	return max(x0, s.X0), min(x1, s.X1)
}

// appendPhases marks where each phase starts and ends with a line down the
// plot and the strip, and its peak with a line across its part of the
// strip.
func (v *View) appendPhases(dst []Quad) []Quad {
	l, th := v.Layout, v.Theme
	plot, s := v.PlotRect(), v.StripRect()
	top := l.liveTop()
	edge := func(x float64) {
		sx, _ := v.Cam.ToScreen(x, 0)
		sx = math.Round(sx)
		if sx < plot.X0 || sx >= plot.X1 {
			return
		}
		dst = append(dst,
			Quad{float32(sx), float32(plot.Y0), float32(sx + 1), float32(plot.Y1), th.Phase, false},
			Quad{float32(sx), float32(s.Y0), float32(sx + 1), float32(s.Y1), th.Phase, false})
	}
	for k, b := range l.Phases {
		if k == 0 || l.Phases[k-1].X1 != b.X0 {
			edge(b.X0)
		}
		edge(b.X1)
		x0, _ := v.Cam.ToScreen(b.X0, 0)
		x1, _ := v.Cam.ToScreen(b.X1, 0)
		x0, x1 = max(math.Round(x0), s.X0), min(math.Round(x1), s.X1)
		if x1 > x0 {
			y := math.Round(s.Y1 - float64(b.Peak)/top*(s.Y1-s.Y0))
			dst = append(dst, Quad{float32(x0), float32(y), float32(x1), float32(y + 1), th.Phase, false})
		}
	}
	return dst
}

// appendRect clips a rectangle to the plot and appends it, at least one
// pixel in each direction. Opaque rectangles thinner than a pixel either
// way go to the pixel grid instead (see View.grid) while the items are
// built; a ring or an outline drawn after is a quad.
func (v *View) appendRect(dst []Quad, plot Rect, x0, y0, x1, y1 float64, c RGB, hatch bool) []Quad {
	// Clipped by hand: on wasm, min and max of floats are calls, and
	// this runs for every item built.
	if x0 < plot.X0 {
		x0 = plot.X0
	}
	if x1 > plot.X1 {
		x1 = plot.X1
	}
	if y0 < plot.Y0 {
		y0 = plot.Y0
	}
	if y1 > plot.Y1 {
		y1 = plot.Y1
	}
	thinX, thinY := x1-x0 < 1, y1-y0 < 1
	if thinX {
		x0 = math.Floor(x0)
		x1 = x0 + 1
	}
	if thinY {
		y0 = math.Floor(y0)
		y1 = y0 + 1
	}
	if x1 <= x0 || y1 <= y0 || x1 < plot.X0 || y1 < plot.Y0 || x0 > plot.X1 || y0 > plot.Y1 {
		return dst
	}
	if (thinX || thinY) && !hatch && v.gridOpen {
		if id := v.gridID(c); id != 0 {
			g := v.gridR
			// In grid coordinates.
			px0, px1 := max(int(math.Floor(x0))-g[0], 0), min(int(math.Ceil(x1))-g[0], g[2])
			py0, py1 := max(int(math.Floor(y0))-g[1], 0), min(int(math.Ceil(y1))-g[1], g[3])
			if px1 <= px0 || py1 <= py0 {
				return dst
			}
			u := &v.gridUsed
			u[0], u[1], u[2], u[3] = min(u[0], px0), min(u[1], py0), max(u[2], px1), max(u[3], py1)
			for py := py0; py < py1; py++ {
				row := v.grid[py*g[2] : (py+1)*g[2]]
				for px := px0; px < px1; px++ {
					row[px] = id
				}
			}
			return dst
		}
	}
	return append(dst, Quad{float32(x0), float32(y0), float32(x1), float32(y1), c, hatch})
}

// gridID is the grid's id of colour c, 0 when the 255 ids are used up.
func (v *View) gridID(c RGB) uint8 {
	for i := len(v.gridColor) - 1; i > 0; i-- {
		if v.gridColor[i] == c {
			return uint8(i)
		}
	}
	if len(v.gridColor) > 255 {
		return 0
	}
	v.gridColor = append(v.gridColor, c)
	return uint8(len(v.gridColor) - 1)
}

// appendGridRuns draws the pixel grid as one quad per run of equal
// pixels along each row, and clears it.
func (v *View) appendGridRuns(dst []Quad) []Quad {
	g, u := v.gridR, v.gridUsed
	for y := u[1]; y < u[3]; y++ {
		row := v.grid[y*g[2]+u[0] : y*g[2]+u[2]]
		x0 := g[0] + u[0]
		for x := 0; x < len(row); {
			id := row[x]
			if id == 0 {
				// Skip empty pixels eight at a time.
				for x+8 <= len(row) && binary.LittleEndian.Uint64(row[x:]) == 0 {
					x += 8
				}
				for x < len(row) && row[x] == 0 {
					x++
				}
				continue
			}
			end := x + 1
			for end < len(row) && row[end] == id {
				end++
			}
			dst = append(dst, Quad{float32(x + x0), float32(y + g[1]), float32(end + x0), float32(y + g[1] + 1), v.gridColor[id], false})
			x = end
		}
		clear(row)
	}
	return dst
}

// appendOutline appends the four one-pixel sides of a rectangle, clipped
// to the plot.
func (v *View) appendOutline(dst []Quad, plot Rect, x0, y0, x1, y1 float64, c RGB) []Quad {
	x0, y0, x1, y1 = math.Round(x0), math.Round(y0), math.Round(x1), math.Round(y1)
	if x1-x0 < 3 || y1-y0 < 3 {
		return v.appendRect(dst, plot, x0, y0, x1, y1, c, false)
	}
	side := func(ax0, ay0, ax1, ay1 float64) {
		ax0, ax1 = max(ax0, plot.X0), min(ax1, plot.X1)
		ay0, ay1 = max(ay0, plot.Y0), min(ay1, plot.Y1)
		if ax1 > ax0 && ay1 > ay0 {
			dst = append(dst, Quad{float32(ax0), float32(ay0), float32(ax1), float32(ay1), c, false})
		}
	}
	side(x0, y0, x1, y0+1)
	side(x0, y1-1, x1, y1)
	side(x0, y0+1, x0+1, y1-1)
	side(x1-1, y0+1, x1, y1-1)
	return dst
}

// Labels appends the text to draw: axis titles and tick labels, the
// names of the reference lines, the live strip's title and scale, phase
// names, the legend's words and the strip's readout. Quads draws them;
// Labels is there for tests and hosts that want the words. No two
// overlap and no line crosses one (placeLabels).
func (v *View) Labels(dst []Label) []Label {
	th, m := v.Theme, &v.m
	gs, u, ch := m.gs, m.u, m.ch
	if v.Layout == nil {
		return append(dst, Label{X: 10 * u, Y: 10 * u, Text: "no plan loaded", C: th.Text})
	}
	l := v.Layout
	plot, s := v.PlotRect(), v.StripRect()
	vis := v.Cam.Visible()
	text := func(x, y float64, s string) Label { return Label{X: x, Y: y, Text: s, C: th.Text} }
	right := func(x, y float64, s string) Label { return text(x-textWidth(s, gs), y, s) }

	// x: the title at the axis's right end; tick labels yield to it.
	row := plot.Y1 + 4*u
	cands := [][]Label{{right(plot.X1, row, "step")}}
	for _, t := range StepTicks(vis.X0, vis.X1, v.Cam.KX, 64*u) {
		sx, _ := v.Cam.ToScreen(t.V, 0)
		cands = append(cands, []Label{text(sx-textWidth(t.Label, gs)/2, row, t.Label)})
	}
	dst = placeLabels(dst, cands, nil, Rect{0, row, float64(v.W), row + ch}, gs, 2*u)

	// y: the title, with the unit of the tick labels, above the axis.
	ticks, unit := ByteTicks(vis.Y0, vis.Y1, v.Cam.KY, 48*u)
	dst = append(dst, text(4*u, m.axisY, "offset ("+unit+")"))
	dst = append(dst, m.head...)
	cands = cands[:0]
	for _, t := range ticks {
		_, sy := v.Cam.ToScreen(0, t.V)
		cands = append(cands, []Label{right(plot.X0-7*u, math.Round(sy)-ch/2, t.Label)})
	}
	dst = placeLabels(dst, cands, nil, Rect{0, plot.Y0, plot.X0, plot.Y1 + ch/2}, gs, 0)

	// The reference lines' names, kept off every line and each other.
	var bands []Rect
	widest := 0.0
	names := make([]string, len(l.Lines))
	for i, ln := range l.Lines {
		names[i] = l.lineName(ln)
		widest = max(widest, textWidth(names[i], gs))
		if sy, ok := v.lineY(ln); ok {
			bands = append(bands, Rect{plot.X0, sy - u, plot.X1, sy + u})
		}
	}
	cands = cands[:0]
	for i, ln := range l.Lines {
		c := v.lineColor(ln)
		if sy, ok := v.lineY(ln); ok {
			cands = append(cands, lineLabelCandidates(names[i], c, sy, plot.X1, gs, widest))
			continue
		}
		if l.farLine(ln) {
			continue // named in a head row, clear of the buffers
		}
		// Off screen (a far budget, or zoomed in): say where it went,
		// at the edge it is beyond.
		_, sy := v.Cam.ToScreen(0, ln.Y)
		t, y, dy := names[i]+", off the top", plot.Y0+2*u, ch
		if sy > plot.Y1 {
			t, y, dy = names[i]+", off the bottom", plot.Y1-ch-2*u, -ch
		}
		var cs []Label
		for k := range 4 {
			cs = append(cs, Label{X: plot.X1 - 4*u - textWidth(t, gs), Y: y + float64(k)*dy, Text: t, C: c, bg: boxBackdrop})
		}
		cands = append(cands, cs)
	}
	dst = placeLabels(dst, cands, bands, plot, gs, u)
	dst = v.handLabels(dst, bands)

	// The live strip: its title beside it, its scale at the top and zero.
	dst = append(dst,
		text(4*u, math.Round((s.Y0+s.Y1-ch)/2), "live bytes"),
		right(s.X0-7*u, s.Y0-ch/2+u/2, FormatBytes(int64(l.liveTop()))),
		right(s.X0-7*u, s.Y1-ch/2-u/2, "0"))

	// Each phase's name (and peak, room allowing) over its part of the
	// strip; the font has no capitals to spare.
	prow := plot.Y1 + 4*u + ch + u
	cands = cands[:0]
	for _, b := range l.Phases {
		x0, _ := v.Cam.ToScreen(b.X0, 0)
		x1, _ := v.Cam.ToScreen(b.X1, 0)
		x0, x1 = max(x0, s.X0)+3*u, min(x1, s.X1)-3*u
		name := strings.ToLower(b.Name)
		var cs []Label
		for _, t := range []string{name + " " + FormatBytes(b.Peak), name} {
			if textWidth(t, gs) <= x1-x0 {
				cs = append(cs, text(x0, prow, t))
			}
		}
		cands = append(cands, cs)
	}
	dst = placeLabels(dst, cands, nil, Rect{s.X0, prow, s.X1, prow + ch}, gs, u)

	for _, it := range m.legend {
		lb := it.label
		lb.C = th.Text
		dst = append(dst, lb)
	}

	// The readout of the step under the pointer, beside its column; else
	// the cursor's, with the bound and the arena to compare.
	lh := v.LiveHover
	var ts []string // the readout, then shorter ones for when it does not fit
	if lh.Step >= 0 {
		ts = []string{fmt.Sprintf("step %d: %s", lh.Step, FormatBytes(lh.Bytes))}
	} else if v.Cursor >= 0 {
		lh = LiveHit{Step: v.Cursor, Bytes: l.LiveAt(v.Cursor)}
		b := FormatBytes(lh.Bytes)
		ts = []string{
			fmt.Sprintf("step %d: live %s, bound %s, arena %s", lh.Step, b, FormatBytes(l.Plan.LowerBound), FormatBytes(l.Plan.ArenaSize)),
			fmt.Sprintf("step %d: live %s of %s", lh.Step, b, FormatBytes(l.Plan.LowerBound)),
			fmt.Sprintf("step %d: %s", lh.Step, b),
		}
	}
	if len(ts) > 0 {
		x0, x1 := v.stepColumn(lh.Step)
		var t string
		var x float64
		for _, t = range ts { // beside the column, right or left, if it fits
			if x = x1 + 6*u; x+textWidth(t, gs)+4*u <= float64(v.W) {
				break
			}
			if x = x0 - 6*u - textWidth(t, gs); x >= s.X0 {
				break
			}
		}
		x = max(x, 4*u) // a narrow screen: over the column rather than off it
		lb := text(x, math.Round((s.Y0+s.Y1-ch)/2), t)
		lb.bg = boxFramed
		dst = append(dst, lb)
	}
	return dst
}
