package viz

import (
	"math"
	"strings"
)

// Quad is one opaque screen-space rectangle to draw, in pixels. Hatched
// quads take a diagonal stripe pattern (guard bands); the others are solid.
// Everything is opaque so the renderer can draw without blending, which
// matters when WebGL runs on a software rasterizer.
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
}

// TextColor is the colour of axis labels.
var TextColor = RGB{200, 204, 214}

// Cell size of the label font (font.go): 5×7 glyphs with room around.
const (
	CharW = 6
	CharH = 11
)

// Plot margins in pixels: room for byte labels on the left, step labels
// and the live-bytes strip below.
const (
	marginLeft   = 76
	marginRight  = 10
	marginTop    = 10
	stripHeight  = 44
	marginBottom = CharH + 6 + stripHeight + 8
)

// View is the interactive state of the picture: the layout, the camera,
// what is hovered and selected. It is plain Go; game.go feeds it input
// and draws what Quads and Labels return.
type View struct {
	Layout *Layout
	Cam    Camera
	W, H   int // screen size in pixels

	Hover    Hit
	Selected int // tensor index, -1 for none
	// Reveal, when >= 0, replays the placement: only the first Reveal
	// buffers of Layout's placement order (and their views) are drawn,
	// the last of them ringed and those it shared no step with dimmed,
	// so what it had to avoid stands out. -1 draws everything.
	Reveal   int
	related  map[int32]bool // selected, its partners and its views
	Partners []int

	// Dirty is set by every change that alters the picture; the game
	// draws only when it is set.
	Dirty bool

	// Rectangles thinner than a pixel are painted into grid, one colour
	// id a screen pixel, and drawn as runs of equal pixels along each row:
	// a plan of 100k buffers then costs a few thousand quads, not 100k.
	grid      []uint8
	gridR     [4]int // grid's screen region at build time: x0, y0, w, h
	gridColor []RGB  // by id; 0 is empty
	labels    []Label

	// Buffers, guards and views are built once for a zoom and selection
	// (walking every item costs milliseconds) and only moved while the
	// camera pans; when panning, over a plot's size more on every side.
	items      []Quad
	built      builtKey
	builtB     [2]float64 // the camera's screen offset they were built at
	builtWorld Rect       // the world on screen then
	builtReach Rect       // the screen region they cover then
}

// builtKey is what the built items depend on besides the pan.
type builtKey struct {
	l      *Layout
	sel    int
	reveal int
	kx, ky float64
	w, h   int
}

// NewView is an empty view of the given screen size.
func NewView(w, h int) *View {
	v := &View{Hover: None, Selected: -1, Reveal: -1, Dirty: true}
	v.Resize(w, h)
	return v
}

// PlotRect is the screen rectangle buffers are drawn in.
func (v *View) PlotRect() Rect {
	return Rect{marginLeft, marginTop, float64(max(v.W-marginRight, marginLeft+1)), float64(max(v.H-marginBottom, marginTop+1))}
}

// StripRect is the screen rectangle of the live-bytes strip.
func (v *View) StripRect() Rect {
	p := v.PlotRect()
	y0 := p.Y1 + CharH + 6
	return Rect{p.X0, y0, p.X1, y0 + stripHeight}
}

// Resize sets the screen size, keeping what is at the centre.
func (v *View) Resize(w, h int) {
	if w == v.W && h == v.H {
		return
	}
	v.W, v.H = w, h
	v.Cam.Resize(v.PlotRect())
	v.Dirty = true
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
	v.Cam.World = l.Bounds
	v.Cam.View = v.PlotRect()
	if !keepCamera || !same {
		v.Cam.Fit()
	}
	v.Hover = None
	v.Reveal = -1 // a new plan shows whole
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

// HitAt is what lies under screen point (sx, sy); in a replay, only what
// is placed so far.
func (v *View) HitAt(sx, sy float64) Hit {
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
// changed.
func (v *View) SetHover(h Hit) bool {
	if h == v.Hover {
		return false
	}
	v.Hover = h
	v.Dirty = true
	return true
}

// ScreenRect is where tensor i is on screen now, unclipped, and whether it
// is drawn at all.
func (v *View) ScreenRect(i int) (Rect, bool) {
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
	if v.Layout == nil {
		return appendText(dst, 10, 10, "no plan loaded", TextColor)
	}
	plot := v.PlotRect()
	vis := v.Cam.Visible()
	l := v.Layout

	// Grid lines at the byte ticks, under everything.
	for _, t := range ByteTicks(vis.Y0, vis.Y1, v.Cam.KY, 48) {
		_, sy := v.Cam.ToScreen(0, t.V)
		sy = math.Round(sy)
		dst = append(dst, Quad{float32(plot.X0), float32(sy), float32(plot.X1), float32(sy + 1), GridColor, false})
	}

	m := v.Cam.Matrix()
	ax, bx, ay, by := m.At(0, 0), m.At(0, 2), m.At(1, 1), m.At(1, 2)
	key := builtKey{l, v.Selected, v.Reveal, v.Cam.KX, v.Cam.KY, v.W, v.H}
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
			q.X0, q.Y0 = max(q.X0+fx, px0), max(q.Y0+fy, py0)
			q.X1, q.Y1 = min(q.X1+fx, px1), min(q.Y1+fy, py1)
			if q.X1 > q.X0 && q.Y1 > q.Y0 {
				dst = append(dst, q)
			}
		}
	}

	// The hovered and selected tensors get a white ring, and so does the
	// one just placed in a replay.
	for _, t := range []int32{v.Hover.Tensor, int32(v.Selected), v.justPlaced()} {
		if t < 0 || int(t) >= len(l.ItemOf) || l.ItemOf[t] < 0 {
			continue
		}
		it := &l.Items[l.ItemOf[t]]
		x0, y1 := v.Cam.ToScreen(it.X0, it.Y0)
		x1, y0 := v.Cam.ToScreen(it.X1, it.Y1)
		dst = v.appendOutline(dst, plot, x0-1, y0-1, x1+1, y1+1, SelectRing)
	}

	for _, ln := range l.Lines {
		_, sy := v.Cam.ToScreen(0, ln.Y)
		if sy < plot.Y0-1 || sy > plot.Y1+1 {
			continue
		}
		sy = math.Round(sy)
		dst = append(dst, Quad{float32(plot.X0), float32(sy - 1), float32(plot.X1), float32(sy + 1), lineColor(l, ln), false})
	}

	// Axes.
	dst = append(dst,
		Quad{float32(plot.X0 - 1), float32(plot.Y0), float32(plot.X0), float32(plot.Y1 + 1), AxisColor, false},
		Quad{float32(plot.X0 - 1), float32(plot.Y1), float32(plot.X1), float32(plot.Y1 + 1), AxisColor, false})
	for _, t := range StepTicks(vis.X0, vis.X1, v.Cam.KX, 64) {
		sx, _ := v.Cam.ToScreen(t.V, 0)
		sx = math.Round(sx)
		dst = append(dst, Quad{float32(sx), float32(plot.Y1), float32(sx + 1), float32(plot.Y1 + 4), AxisColor, false})
	}
	for _, t := range ByteTicks(vis.Y0, vis.Y1, v.Cam.KY, 48) {
		_, sy := v.Cam.ToScreen(0, t.V)
		sy = math.Round(sy)
		dst = append(dst, Quad{float32(plot.X0 - 5), float32(sy), float32(plot.X0 - 1), float32(sy + 1), AxisColor, false})
	}
	dst = v.appendStrip(dst)
	dst = v.appendPhases(dst)
	v.labels = v.Labels(v.labels[:0])
	for _, lb := range v.labels {
		dst = appendText(dst, lb.X, lb.Y, lb.Text, lb.C)
	}
	return dst
}

// buildItems appends the buffers, guards and views inside reach, a screen
// region with whole-pixel bounds; cull is that region in the world. The
// camera's affine map comes unpacked: this loop runs over every item.
func (v *View) buildItems(dst []Quad, reach, cull Rect, ax, bx, ay, by float64) []Quad {
	l := v.Layout
	gx0, gy0 := int(reach.X0), int(reach.Y0)
	gw, gh := int(reach.X1)-gx0, int(reach.Y1)-gy0
	if cap(v.grid) < gw*gh {
		v.grid = make([]uint8, gw*gh)
	}
	v.grid = v.grid[:gw*gh]
	clear(v.grid)
	v.gridR = [4]int{gx0, gy0, gw, gh}
	v.gridColor = append(v.gridColor[:0], RGB{})
	replay := v.replaying()
	var placedNow Rect // the buffer just placed in a replay; empty if none
	if t := v.justPlaced(); t >= 0 && l.ItemOf[t] >= 0 {
		placedNow = l.Items[l.ItemOf[t]].Rect
	}
	for i := range l.Items {
		it := &l.Items[i]
		if !it.Overlaps(cull) || replay && !v.revealed(it.Tensor) {
			continue
		}
		dim := v.related != nil && !v.related[it.Tensor] ||
			replay && placedNow.X1 > placedNow.X0 && (it.X1 <= placedNow.X0 || placedNow.X1 <= it.X0)
		x0, y1 := ax*it.X0+bx, ay*it.Y0+by
		x1, y0 := ax*it.X1+bx, ay*it.Y1+by
		switch it.Kind {
		case ItemBuffer:
			c := l.colors[it.Tensor]
			if x1-x0 < 1 || y1-y0 < 1 {
				// Too thin to tell neighbours apart: the kind's own
				// colour, so runs of them merge.
				c = l.base[it.Tensor]
			}
			if dim {
				c = c.mix(Background, 0.75)
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
			c, hatch := GuardColor, y1-y0 >= 3 && x1-x0 >= 3
			if !hatch {
				c = GuardColor.mix(Background, 0.5)
			}
			if dim {
				c = c.mix(Background, 0.75)
			}
			dst = v.appendRect(dst, reach, x0, y0, x1, y1, c, hatch)
		case ItemView:
			c := ViewColor
			if dim {
				c = c.mix(Background, 0.75)
			}
			dst = v.appendOutline(dst, reach, x0, y0, x1, y1, c)
		}
	}

	dst = v.appendGridRuns(dst)
	return dst
}

func intersect(a, b Rect) Rect {
	return Rect{max(a.X0, b.X0), max(a.Y0, b.Y0), min(a.X1, b.X1), min(a.Y1, b.Y1)}
}

func lineColor(l *Layout, ln Line) RGB {
	switch ln.Role {
	case LineLowerBound:
		return LowerColor
	case LineBudget:
		if l.OverBudget {
			return BudgetOver
		}
		return BudgetOK
	}
	return ArenaColor
}

// appendStrip draws live bytes per pixel column under the plot: the
// maximum over the steps the column covers, so short peaks stay visible.
func (v *View) appendStrip(dst []Quad) []Quad {
	l := v.Layout
	s := v.StripRect()
	dst = append(dst, Quad{float32(s.X0), float32(s.Y0), float32(s.X1), float32(s.Y1), GridColor, false})
	top := float64(max(l.MaxLive, l.Plan.ArenaSize, 1))
	pts := l.Live
	k := 0
	runX, runH := s.X0, -1.0
	flush := func(x float64) {
		if runH > 0 {
			dst = append(dst, Quad{float32(runX), float32(s.Y1 - runH), float32(x), float32(s.Y1), LiveColor, false})
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
	// The peak (lower bound) as a line across the strip.
	y := s.Y1 - float64(l.MaxLive)/top*(s.Y1-s.Y0)
	dst = append(dst, Quad{float32(s.X0), float32(math.Round(y)), float32(s.X1), float32(math.Round(y) + 1), LowerColor, false})
	return dst
}

// appendPhases marks where each phase starts and ends with a line down the
// plot and the strip, and its peak with a line across its part of the
// strip.
func (v *View) appendPhases(dst []Quad) []Quad {
	l := v.Layout
	plot, s := v.PlotRect(), v.StripRect()
	top := float64(max(l.MaxLive, l.Plan.ArenaSize, 1))
	edge := func(x float64) {
		sx, _ := v.Cam.ToScreen(x, 0)
		sx = math.Round(sx)
		if sx < plot.X0 || sx >= plot.X1 {
			return
		}
		dst = append(dst,
			Quad{float32(sx), float32(plot.Y0), float32(sx + 1), float32(plot.Y1), PhaseColor, false},
			Quad{float32(sx), float32(s.Y0), float32(sx + 1), float32(s.Y1), PhaseColor, false})
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
			dst = append(dst, Quad{float32(x0), float32(y), float32(x1), float32(y + 1), PhaseColor, false})
		}
	}
	return dst
}

// appendRect clips a rectangle to the plot and appends it, at least one
// pixel in each direction. Opaque rectangles thinner than a pixel either
// way go to the pixel grid instead (see View.grid).
func (v *View) appendRect(dst []Quad, plot Rect, x0, y0, x1, y1 float64, c RGB, hatch bool) []Quad {
	x0, x1 = max(x0, plot.X0), min(x1, plot.X1)
	y0, y1 = max(y0, plot.Y0), min(y1, plot.Y1)
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
	if (thinX || thinY) && !hatch {
		if id := v.gridID(c); id != 0 {
			g := v.gridR
			// In grid coordinates.
			px0, px1 := max(int(math.Floor(x0))-g[0], 0), min(int(math.Ceil(x1))-g[0], g[2])
			py0, py1 := max(int(math.Floor(y0))-g[1], 0), min(int(math.Ceil(y1))-g[1], g[3])
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
// pixels along each row.
func (v *View) appendGridRuns(dst []Quad) []Quad {
	if len(v.gridColor) <= 1 {
		return dst
	}
	g := v.gridR
	for y := range g[3] {
		row := v.grid[y*g[2] : (y+1)*g[2]]
		for x := 0; x < len(row); {
			id := row[x]
			end := x + 1
			for end < len(row) && row[end] == id {
				end++
			}
			if id != 0 {
				dst = append(dst, Quad{float32(x + g[0]), float32(y + g[1]), float32(end + g[0]), float32(y + g[1] + 1), v.gridColor[id], false})
			}
			x = end
		}
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

// Labels appends the text to draw: axis tick labels and the names of the
// reference lines. Quads draws them; Labels is there for tests and hosts
// that want the words.
func (v *View) Labels(dst []Label) []Label {
	if v.Layout == nil {
		return append(dst, Label{10, 10, "no plan loaded", TextColor})
	}
	plot := v.PlotRect()
	vis := v.Cam.Visible()
	lastX := math.Inf(-1)
	for _, t := range StepTicks(vis.X0, vis.X1, v.Cam.KX, 64) {
		sx, _ := v.Cam.ToScreen(t.V, 0)
		x := sx - TextWidth(t.Label)/2
		if x < lastX+4 || x+TextWidth(t.Label) > float64(v.W) {
			continue
		}
		lastX = x + TextWidth(t.Label)
		dst = append(dst, Label{x, plot.Y1 + 4, t.Label, TextColor})
	}
	for _, t := range ByteTicks(vis.Y0, vis.Y1, v.Cam.KY, 48) {
		_, sy := v.Cam.ToScreen(0, t.V)
		if sy < plot.Y0+CharH/2 || sy > plot.Y1 {
			continue
		}
		dst = append(dst, Label{plot.X0 - 7 - TextWidth(t.Label), sy - CharH/2, t.Label, TextColor})
	}
	var placed []Label
	for _, ln := range v.Layout.Lines {
		_, sy := v.Cam.ToScreen(0, ln.Y)
		if sy < plot.Y0 || sy > plot.Y1 {
			continue
		}
		text := ln.Label
		if ln.Role == LineBudget && v.Layout.OverBudget {
			text += " exceeded by " + FormatBytes(v.Layout.Plan.ArenaSize-v.Layout.Budget)
		}
		// Lines close together (arena and lower bound often are) put
		// their labels side by side rather than on top of each other.
		x, y := plot.X1-TextWidth(text)-4, sy-CharH
		for _, o := range placed {
			if math.Abs(o.Y-y) < CharH && x < o.X+TextWidth(o.Text)+12 {
				x = min(x, o.X-TextWidth(text)-12)
			}
		}
		lb := Label{x, y, text, lineColor(v.Layout, ln)}
		placed = append(placed, lb)
		dst = append(dst, lb)
	}
	s := v.StripRect()
	dst = append(dst, Label{s.X0 - 7 - TextWidth("live"), s.Y0 + stripHeight/2 - CharH/2, "live", TextColor})
	// Each phase's name (and peak, room allowing) at the top of its part
	// of the strip; the font has no capitals to spare.
	for _, b := range v.Layout.Phases {
		x0, _ := v.Cam.ToScreen(b.X0, 0)
		x1, _ := v.Cam.ToScreen(b.X1, 0)
		x0, x1 = max(x0, s.X0)+3, min(x1, s.X1)-3
		name := strings.ToLower(b.Name)
		for _, text := range []string{name + " " + FormatBytes(b.Peak), name} {
			if TextWidth(text) <= x1-x0 {
				dst = append(dst, Label{x0, s.Y0 + 2, text, TextColor})
				break
			}
		}
	}
	return dst
}
