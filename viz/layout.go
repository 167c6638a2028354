package viz

import (
	"fmt"
	"slices"

	"memplan/planner"
)

// Rect is an axis-aligned rectangle in world units: x in schedule steps,
// y in arena bytes. X1 and Y1 are exclusive.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Contains reports whether (x, y) lies in the half-open rectangle.
func (r Rect) Contains(x, y float64) bool {
	return r.X0 <= x && x < r.X1 && r.Y0 <= y && y < r.Y1
}

// Overlaps reports whether two half-open rectangles share any area.
func (r Rect) Overlaps(o Rect) bool {
	return r.X0 < o.X1 && o.X0 < r.X1 && r.Y0 < o.Y1 && o.Y0 < r.Y1
}

// ItemKind says what an Item draws.
type ItemKind uint8

const (
	ItemBuffer ItemKind = iota // a tensor's own bytes, filled
	ItemGuard                  // the guard band above a buffer, hatched
	ItemView                   // a view inside its root, outlined
)

func (k ItemKind) String() string {
	return [...]string{"buffer", "guard", "view"}[k]
}

// Item is one rectangle of the picture.
type Item struct {
	Rect
	Tensor int32 // index into Plan.Tensors
	Kind   ItemKind
}

// LineRole names a horizontal reference line.
type LineRole uint8

const (
	LineArena LineRole = iota
	LineLowerBound
	LineBudget
	// LineCut is where one GPU buffer ends and the next begins, under
	// tensor binding: no tensor crosses it.
	LineCut
	// LinePlanner is the arena the planner found, beside a placement by
	// hand (View.Hand).
	LinePlanner
)

// Line is a horizontal reference line across the plot.
type Line struct {
	Y     float64
	Role  LineRole
	Label string
}

// LivePoint is one piece of the live-bytes step function: Bytes are live
// from step X until the next point's X.
type LivePoint struct {
	X     float64
	Bytes int64
}

// PhaseBand is a run of steps in one phase (planner.PhaseRun), in world
// x: steps [X0, X1).
type PhaseBand struct {
	Name   string
	X0, X1 float64
	Peak   int64 // most bytes live at one of its steps
}

// worldHeadroom is the room a plan's world has above its tallest line.
const worldHeadroom = 1.02

// Layout is a plan laid out in world coordinates, ready to draw and hit
// test. Items are in draw order: buffers, then guards, then views on top.
type Layout struct {
	Plan  *planner.Plan
	Items []Item
	// ItemOf maps a tensor to its buffer or view item, -1 when it has
	// none (skipped tensors).
	ItemOf []int32
	// Bounds spans every step and the arena (and the budget when it is
	// close enough to be worth showing).
	Bounds  Rect
	Lines   []Line
	Live    []LivePoint
	MaxLive int64
	Phases  []PhaseBand
	// Rank is each tensor's place in the plan's placement order (a view
	// takes its root's), -1 when it has none; Placed is the order's length.
	Rank       []int32
	Placed     int
	Budget     int64 // 0: none
	OverBudget bool
	index      *hitIndex
	// The fill of each tensor and its kind's colour (for tensors thinner
	// than a pixel) in the theme paintedIn.
	colors, base []RGB
	paintedIn    *Theme
}

// Budget returns the budget a plan is held to when none is given, as the
// planner's fit verdict decides it (planner.Judge): its device's binding
// under arena binding, WebGPU's binding limit in f32-uniform mode, else
// none (0).
func Budget(p *planner.Plan) int64 {
	if f := planner.Judge(p, 0); f != nil {
		return f.Budget
	}
	return 0
}

// NewLayout lays out a plan. budget is the arena budget to draw (0 for
// none).
func NewLayout(p *planner.Plan, budget int64) *Layout {
	l := &Layout{Plan: p, Budget: budget, ItemOf: make([]int32, len(p.Tensors))}
	steps := float64(max(p.Steps, 0) + 1)
	var top float64
	views := 0
	for i := range p.Tensors {
		l.ItemOf[i] = -1
		t := &p.Tensors[i]
		if t.Offset < 0 {
			continue
		}
		steps = max(steps, float64(t.Death+1))
		top = max(top, float64(t.Offset+t.Size+t.Guard))
		if t.IsView() {
			views++
		}
	}
	l.Items = make([]Item, 0, len(p.Tensors)+views)
	var guards []Item
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if t.Offset < 0 || t.IsView() {
			continue
		}
		r := Rect{float64(t.Birth), float64(t.Offset), float64(t.Death + 1), float64(t.Offset + t.Size)}
		l.ItemOf[i] = int32(len(l.Items))
		l.Items = append(l.Items, Item{r, int32(i), ItemBuffer})
		if t.Guard > 0 {
			g := r
			g.Y0, g.Y1 = r.Y1, r.Y1+float64(t.Guard)
			guards = append(guards, Item{g, int32(i), ItemGuard})
		}
	}
	l.Items = append(l.Items, guards...)
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if t.Offset < 0 || !t.IsView() {
			continue
		}
		r := Rect{float64(t.Birth), float64(t.Offset), float64(t.Death + 1), float64(t.Offset + t.Size)}
		l.ItemOf[i] = int32(len(l.Items))
		l.Items = append(l.Items, Item{r, int32(i), ItemView})
	}

	arena := float64(p.ArenaSize)
	top = max(top, arena, 1)
	l.Lines = append(l.Lines, Line{arena, LineArena, "arena " + FormatBytes(p.ArenaSize)})
	if p.LowerBound != p.ArenaSize {
		l.Lines = append(l.Lines, Line{float64(p.LowerBound), LineLowerBound, "lower bound " + FormatBytes(p.LowerBound)})
	}
	if budget > 0 {
		l.OverBudget = p.ArenaSize > budget
		l.Lines = append(l.Lines, Line{float64(budget), LineBudget, "budget " + FormatBytes(budget)})
		// A far-off budget would squash the plot into a sliver; fitting
		// shows it only when it is within 4x of the arena.
		if float64(budget) <= 4*top {
			top = max(top, float64(budget))
		}
	}
	for k, b := range p.Buffers {
		if k > 0 {
			l.Lines = append(l.Lines, Line{float64(b.Offset), LineCut, fmt.Sprintf("gpu buffer %d of %d", k+1, len(p.Buffers))})
		}
	}
	l.Bounds = Rect{0, 0, steps, top * worldHeadroom}
	l.Live, l.MaxLive = liveProfile(p)
	l.rankTensors()
	for _, r := range p.PhaseRuns() {
		l.Phases = append(l.Phases, PhaseBand{r.Phase, float64(r.First), float64(r.Last + 1), r.Peak})
	}
	l.index = newHitIndex(l.Items)
	return l
}

// paint is every tensor's fill and kind colour in theme th, computed once
// a theme.
func (l *Layout) paint(th *Theme) (fill, base []RGB) {
	if l.paintedIn != th {
		p := l.Plan
		l.colors, l.base = make([]RGB, len(p.Tensors)), make([]RGB, len(p.Tensors))
		for i := range l.colors {
			l.colors[i] = th.TensorColor(p, i, false)
			l.base[i] = th.KindColor(p.Tensors[i].Kind)
		}
		l.paintedIn = th
	}
	return l.colors, l.base
}

// rankTensors fills Rank from the plan's placement order.
func (l *Layout) rankTensors() {
	p := l.Plan
	l.Rank = make([]int32, len(p.Tensors))
	for i := range l.Rank {
		l.Rank[i] = -1
	}
	if len(p.PlacementOrder) == 0 {
		return
	}
	byName := make(map[string]int32, len(p.PlacementOrder))
	for k, name := range p.PlacementOrder {
		byName[name] = int32(k)
	}
	for i := range p.Tensors {
		t := &p.Tensors[i]
		name := t.Name
		if t.IsView() {
			name = t.Root
		}
		if k, ok := byName[name]; ok {
			l.Rank[i] = k
		}
	}
	l.Placed = len(p.PlacementOrder)
}

// liveProfile is the bytes (size + guard) owned by live buffers, as a
// step function over the schedule, and its maximum.
func liveProfile(p *planner.Plan) ([]LivePoint, int64) {
	steps := p.LiveProfile()
	out := make([]LivePoint, len(steps))
	var peak int64
	for i, s := range steps {
		out[i] = LivePoint{float64(s.Start), s.Bytes}
		peak = max(peak, s.Bytes)
	}
	return out, peak
}

// Hit is what lies under a point.
type Hit struct {
	Item   int32 // index into Items, -1 for nothing
	Tensor int32 // index into Plan.Tensors, -1 for nothing
	Kind   ItemKind
}

// None is the empty hit.
var None = Hit{Item: -1, Tensor: -1}

// HitTest returns the item under the world point (x, y): the smallest view
// there if any, else the buffer or guard (which never overlap each other
// in a valid plan).
func (l *Layout) HitTest(x, y float64) Hit {
	best := None
	var bestArea float64
	l.index.visit(l.Items, x, y, func(i int32) {
		it := &l.Items[i]
		area := (it.X1 - it.X0) * (it.Y1 - it.Y0)
		better := best.Item < 0 ||
			(it.Kind == ItemView && (best.Kind != ItemView || area < bestArea)) ||
			(best.Kind == ItemGuard && it.Kind == ItemBuffer)
		if better {
			best, bestArea = Hit{i, it.Tensor, it.Kind}, area
		}
	})
	return best
}

// Partners lists the tensors that shared any of tensor i's bytes at some
// time (its own root's bytes for a view), in birth order, i excluded. Views
// of the tensors that shared are included.
func (l *Layout) Partners(i int) []int {
	p := l.Plan
	t := &p.Tensors[i]
	if t.Offset < 0 {
		return nil
	}
	lo, hi := t.Offset, t.Offset+t.Size+t.Guard
	if t.IsView() {
		if r := l.tensorByName(t.Root); r >= 0 {
			rt := &p.Tensors[r]
			lo, hi = rt.Offset, rt.Offset+rt.Size+rt.Guard
		}
	}
	var out []int
	for j := range p.Tensors {
		u := &p.Tensors[j]
		if j == i || u.Offset < 0 {
			continue
		}
		end := u.Offset + u.Size
		if !u.IsView() {
			end += u.Guard
		}
		if u.Offset < hi && lo < end && (hi > lo || u.Offset == lo) {
			out = append(out, j)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return p.Tensors[a].Birth - p.Tensors[b].Birth })
	return out
}

func (l *Layout) tensorByName(name string) int {
	for j := range l.Plan.Tensors {
		if l.Plan.Tensors[j].Name == name {
			return j
		}
	}
	return -1
}
