package viz

import (
	"math"
	"strconv"
	"testing"

	"memplan/planner"
	"memplan/viz/internal/sample"
)

// countItemQuads counts the quads of colour c in the plot (the legend
// paints every kind's colour outside it).
func countItemQuads(qs []Quad, c RGB, plot Rect) int {
	n := 0
	for _, q := range qs {
		if q.C == c && plot.Contains(float64(q.X0), float64(q.Y0)) {
			n++
		}
	}
	return n
}

func TestQuadsCullOffscreen(t *testing.T) {
	v := NewView(640, 400)
	v.SetLayout(NewLayout(sample.Plan(), 0), false)
	p := v.Layout.Plan
	wcol := TensorColor(p, v.Layout.Index("w"), false)
	if countItemQuads(v.Quads(nil), wcol, v.PlotRect()) != 1 {
		t.Fatal("w not drawn once when fitted")
	}
	// Zoom onto step 5, past w's death at 4: w is culled.
	v.Cam.FitRect(Rect{5.2, 0, 5.8, 500}, 0)
	if n := countItemQuads(v.Quads(nil), wcol, v.PlotRect()); n != 0 {
		t.Errorf("w drawn %d times while off-screen", n)
	}
	for _, q := range v.Quads(nil) {
		if q.X0 < 0 || q.Y0 < 0 || q.X1 > 640 || q.Y1 > 400 {
			t.Fatalf("quad %+v outside the screen", q)
		}
	}
}

func TestSubPixelMerging(t *testing.T) {
	v := NewView(200, 150)
	v.SetLayout(NewLayout(sample.Many(20000), 0), false)
	qs := v.Quads(nil)
	plot := v.PlotRect()
	if max := int((plot.X1 - plot.X0) * (plot.Y1 - plot.Y0)); len(qs) > max+2000 {
		t.Errorf("%d quads on a %v-pixel plot: tiny buffers were not merged", len(qs), max)
	}
}

func TestSelectAndKeys(t *testing.T) {
	v := NewView(640, 400)
	v.SetLayout(NewLayout(sample.Plan(), 0), false)
	v.Select(v.Layout.Index("h"))
	if len(v.Partners) != 2 {
		t.Errorf("partners %v", v.Partners)
	}
	kx := v.Cam.KX
	if !v.Key("w", false) || v.Cam.KX <= kx {
		t.Error("w did not zoom in")
	}
	v.Key("f", false)
	if v.Cam.KX != kx {
		t.Error("f did not fit")
	}
	v.Key("Escape", false)
	if v.Selected != -1 {
		t.Error("Escape did not clear the selection")
	}
	if v.Key("q", false) {
		t.Error("q means nothing but was taken")
	}
	// A re-plan keeps the selection by name and, same bounds, the camera.
	v.Select(v.Layout.Index("y"))
	v.Key("w", false)
	k := v.Cam.KX
	v.SetLayout(NewLayout(sample.Plan(), 0), true)
	if v.Selected != v.Layout.Index("y") || v.Cam.KX != k {
		t.Errorf("re-plan lost selection (%d) or camera (%v != %v)", v.Selected, v.Cam.KX, k)
	}
}

func TestHitAtScreen(t *testing.T) {
	v := NewView(640, 400)
	v.SetLayout(NewLayout(sample.Plan(), 0), false)
	r, _ := v.ScreenRect(v.Layout.Index("w"))
	h := v.HitAt((r.X0+r.X1)/2, (r.Y0+r.Y1)/2)
	if h.Tensor < 0 || v.Layout.Plan.Tensors[h.Tensor].Name != "w" {
		t.Errorf("hit %+v at w's centre", h)
	}
	if h := v.HitAt(5, 5); h != None {
		t.Errorf("hit %+v in the margin", h)
	}
}

func TestLineLabelsDoNotOverlap(t *testing.T) {
	p := sample.Plan()
	p.LowerBound = p.ArenaSize - 10 // two lines a hair apart
	v := NewView(640, 400)
	v.SetLayout(NewLayout(p, 0), false)
	var ls []Label
	for _, l := range v.Labels(nil) {
		if l.C == Dark.Arena || l.C == Dark.Lower {
			ls = append(ls, l)
		}
	}
	if len(ls) != 2 {
		t.Fatalf("line labels %+v", ls)
	}
	a, b := ls[0], ls[1]
	if a.X < b.X+TextWidth(b.Text) && b.X < a.X+TextWidth(a.Text) {
		t.Errorf("labels %q at x=%v and %q at x=%v overlap", a.Text, a.X, b.Text, b.X)
	}
}

// paint fills the pixels whose centres the quads cover, as a rasterizer
// does, hatching aside.
func paint(qs []Quad, w, h int) []RGB {
	px := make([]RGB, w*h)
	for _, q := range qs {
		for y := max(int(math.Ceil(float64(q.Y0)-0.5)), 0); y < min(int(math.Ceil(float64(q.Y1)-0.5)), h); y++ {
			for x := max(int(math.Ceil(float64(q.X0)-0.5)), 0); x < min(int(math.Ceil(float64(q.X1)-0.5)), w); x++ {
				px[y*w+x] = q.C
			}
		}
	}
	return px
}

// Panning moves the items built before instead of building them again:
// the picture must match a fresh build's.
func TestPanMatchesFreshBuild(t *testing.T) {
	const w, h = 640, 400
	l := NewLayout(sample.Many(20000), 0)
	v := NewView(w, h)
	v.SetLayout(l, false)
	v.Cam.ZoomAt(300, 200, 3, 2)
	v.Quads(nil)
	for i, k := range []string{"ArrowRight", "ArrowRight", "ArrowDown", "ArrowRight", "ArrowLeft", "ArrowUp", "ArrowUp"} {
		v.Key(k, false)
		v.Drag(float64(i%3-1)*7, 3)
		got := paint(v.Quads(nil), w, h)
		f := NewView(w, h)
		f.SetLayout(l, false)
		f.Cam = v.Cam
		want := paint(f.Quads(nil), w, h)
		bad := 0
		for j := range got {
			if got[j] != want[j] {
				bad++
			}
		}
		// Sub-pixel slivers at the plot's edges may round differently.
		if bad > w+h {
			t.Errorf("after %s: %d pixels differ from a fresh build", k, bad)
		}
	}
	v.Key("ArrowLeft", false)
	v.Quads(nil)
	b := v.builtB
	v.Key("ArrowRight", false)
	v.Quads(nil)
	if v.builtB != b {
		t.Error("a pan built the items again")
	}
}

// A plan with phases shows where each starts and ends, its peak in the
// live strip, and its name there.
func TestPhaseBands(t *testing.T) {
	p := sample.Plan()
	p.Schedule = []string{"x", "w", "h", "y", "out"}
	p.Phases = []string{"", "prefill", "prefill", "Decode", "Decode"}
	v := NewView(640, 400)
	v.SetLayout(NewLayout(p, 0), false)
	// Live at step 1: x, w, h with guards; at 3 and 4: w, y, out.
	want := []PhaseBand{{"prefill", 1, 3, 1152 + 2176 + 4096}, {"Decode", 3, 5, 2176 + 4096 + 1024}}
	if len(v.Layout.Phases) != len(want) || v.Layout.Phases[0] != want[0] || v.Layout.Phases[1] != want[1] {
		t.Fatalf("phase bands %+v, want %+v", v.Layout.Phases, want)
	}
	plot, strip := v.PlotRect(), v.StripRect()
	qs := v.Quads(nil)
	px := paint(qs, v.W, v.H)
	for _, step := range []float64{1, 3, 5} {
		sx, _ := v.Cam.ToScreen(step, 0)
		x := int(math.Round(sx))
		for _, y := range []int{int(plot.Y0) + 3, int(plot.Y1) - 3, int(strip.Y0) + 1} {
			if c := px[y*v.W+x]; c != Dark.Phase {
				t.Errorf("pixel (%d, %d) on the edge at step %v is %v, want the phase colour", x, y, step, c)
			}
		}
	}
	// The peaks: prefill's line sits higher in the strip than decode's.
	var peakY []float32
	for _, q := range qs {
		if q.C == Dark.Phase && q.Y1-q.Y0 == 1 && float64(q.Y0) >= strip.Y0 {
			peakY = append(peakY, q.Y0)
		}
	}
	if len(peakY) != 2 || peakY[0] >= peakY[1] {
		t.Errorf("peak lines at y %v: want prefill's above decode's", peakY)
	}
	var texts []string
	for _, l := range v.Labels(nil) {
		if l.Y == plot.Y1+4+CharH+1 {
			texts = append(texts, l.Text)
		}
	}
	if len(texts) != 2 || texts[0] != "prefill "+FormatBytes(want[0].Peak) || texts[1] != "decode "+FormatBytes(want[1].Peak) {
		t.Errorf("phase labels %q", texts)
	}
}

// Replaying the placement order draws only the buffers placed so far (and
// their views), rings the last, and leaves the rest out of hit tests.
func TestReplayPlacement(t *testing.T) {
	p := sample.Plan()
	p.PlacementOrder = []string{"w", "x", "h", "y", "out"}
	v := NewView(640, 400)
	v.SetLayout(NewLayout(p, 0), false)
	l := v.Layout
	color := func(name string) RGB { return TensorColor(p, l.Index(name), false) }
	yRect, _ := v.ScreenRect(l.Index("y"))

	v.SetReveal(2)
	qs := v.Quads(nil)
	for name, want := range map[string]bool{"w": true, "x": true, "h": false, "y": false, "out": false} {
		if got := countItemQuads(qs, color(name), v.PlotRect()) > 0; got != want {
			t.Errorf("after 2 placed, %s drawn: %v, want %v", name, got, want)
		}
		if _, shown := v.ScreenRect(l.Index(name)); shown != want {
			t.Errorf("after 2 placed, ScreenRect(%s) shown: %v, want %v", name, shown, want)
		}
	}
	if countItemQuads(qs, Dark.View, v.PlotRect()) != 0 {
		t.Error("the view of h is drawn before h is placed")
	}
	if countItemQuads(qs, Dark.Select, v.PlotRect()) == 0 {
		t.Error("the buffer just placed (x) has no ring")
	}
	if h := v.HitAt((yRect.X0+yRect.X1)/2, (yRect.Y0+yRect.Y1)/2); h != None {
		t.Errorf("hit on y before it is placed: %+v", h)
	}

	v.SetReveal(3) // h comes, and its view with it
	if qs := v.Quads(nil); countItemQuads(qs, color("h"), v.PlotRect()) == 0 || countItemQuads(qs, Dark.View, v.PlotRect()) == 0 {
		t.Error("h or its view missing after 3 placed")
	}
	// y (steps 3-4) shares no step with x (0-1) or h (1-2): they dim; w
	// lives with it and stays bright.
	v.SetReveal(4)
	qs = v.Quads(nil)
	dimmed := func(name string) RGB { return TensorColor(p, l.Index(name), true) }
	for name, dim := range map[string]bool{"x": true, "h": true, "w": false, "y": false} {
		// (x's own colour is also the lower bound's, so count the dim one.)
		if got := countItemQuads(qs, dimmed(name), v.PlotRect()) > 0; got != dim {
			t.Errorf("with y just placed, %s dimmed: %v, want %v", name, got, dim)
		}
	}
	v.SetReveal(-1)
	if qs := v.Quads(nil); countItemQuads(qs, color("out"), v.PlotRect()) == 0 || countItemQuads(qs, Dark.Select, v.PlotRect()) != 0 {
		t.Error("the whole plan is not back, or a ring stayed")
	}
	v.SetReveal(1)
	v.SetLayout(NewLayout(p, 0), true)
	if v.Reveal != -1 {
		t.Errorf("a new plan kept the replay at %d", v.Reveal)
	}
	p.PlacementOrder = nil // a plan without an order cannot replay
	v.SetLayout(NewLayout(p, 0), true)
	if v.SetReveal(1); v.Reveal != -1 {
		t.Errorf("replay of a plan without an order: reveal %d", v.Reveal)
	}
}

// Two plans shown at one scale: the viewer of the smaller one, given the
// larger's size, draws a byte as many pixels tall as the larger's viewer.
func TestShareWorld(t *testing.T) {
	small, large := NewView(640, 400), NewView(640, 400)
	small.SetLayout(NewLayout(sample.Plan(), 0), false)
	big := *sample.Plan()
	big.ArenaSize *= 3
	large.SetLayout(NewLayout(&big, 0), false)
	if small.Cam.KY <= large.Cam.KY*1.5 {
		t.Fatalf("premise: each fitted alone, the smaller plan is drawn taller (%g vs %g px/byte)", small.Cam.KY, large.Cam.KY)
	}
	for _, v := range []*View{small, large} {
		v.ShareWorld(float64(big.Steps), float64(big.ArenaSize))
	}
	if math.Abs(small.Cam.KY-large.Cam.KY) > 1e-12 || small.Cam.KX != large.Cam.KX || small.Cam.OrgY != 0 {
		t.Errorf("shared world: %g vs %g px/byte, %g vs %g px/step, origin %g", small.Cam.KY, large.Cam.KY, small.Cam.KX, large.Cam.KX, small.Cam.OrgY)
	}
}

// A buffer under a pixel both ways paints the one pixel its top-left
// corner falls in, in its kind's colour, and nothing else; dimmed by the
// cursor when it is not live then.
func TestSliverPaintsItsPixel(t *testing.T) {
	const w, h = 640, 400
	// 5000 one-step buffers of 64 bytes scattered over 5000 steps and
	// 320 kB: slivers when fitted.
	p := &planner.Plan{Format: planner.PlanFormat, Name: "slivers", Alignment: 64, Options: planner.DefaultOptions(), Steps: 5000}
	for i := range 5000 {
		p.Tensors = append(p.Tensors, planner.PlanTensor{Name: "t" + strconv.Itoa(i), Kind: planner.KindActivation, DType: "f32",
			Shape: []int64{16}, Size: 64, Offset: int64(i*7919%5000) * 64, Birth: i, Death: i})
	}
	p.ArenaSize, p.LowerBound = 5000*64, 64
	v := NewView(w, h)
	v.SetLayout(NewLayout(p, 0), false)
	act := Dark.KindColor(planner.KindActivation)
	for _, cursor := range []int{-1, 2500} {
		v.SetCursor(cursor)
		want := map[[2]int]RGB{}
		for i := range p.Tensors {
			it := v.Layout.Items[v.Layout.ItemOf[i]]
			x0, y0 := v.Cam.ToScreen(it.X0, it.Y1)
			x1, y1 := v.Cam.ToScreen(it.X1, it.Y0)
			if x1-x0 >= 1 || y1-y0 >= 1 {
				t.Fatalf("%s is %.2f×%.2f pixels, not a sliver", p.Tensors[i].Name, x1-x0, y1-y0)
			}
			c := act
			if cursor >= 0 && !v.liveAtCursor(&it) {
				c = Dark.Dim(act)
			}
			want[[2]int{int(math.Floor(x0)), int(math.Floor(y0))}] = c // later items paint over earlier
		}
		// The items alone: lines and their labels cross the plot too.
		v.Quads(nil)
		px := paint(v.items, w, h)
		plot := v.PlotRect()
		for y := int(plot.Y0); y < int(plot.Y1); y++ {
			for x := int(plot.X0); x < int(plot.X1); x++ {
				got := px[y*w+x]
				if c, ok := want[[2]int{x, y}]; ok && got != c {
					t.Fatalf("cursor %d: pixel (%d, %d) is %s, want %s", cursor, x, y, got.Hex(), c.Hex())
				}
				if _, ok := want[[2]int{x, y}]; !ok && (got == act || got == Dark.Dim(act)) {
					t.Fatalf("cursor %d: pixel (%d, %d) is painted, and no buffer's corner is in it", cursor, x, y)
				}
			}
		}
	}
}

// Outside the items' build, a rectangle thinner than a pixel (a ring
// clipped at the plot's edge) is a one-pixel quad: the pixel grid belongs
// to the build, which has already turned it into runs and left it clear.
func TestThinRectAfterTheBuildIsAQuad(t *testing.T) {
	v := NewView(640, 400)
	v.SetLayout(NewLayout(sample.Synthetic(2000), 0), false)
	v.Quads(nil)
	plot := v.PlotRect()
	qs := v.appendRect(nil, plot, plot.X0+10.2, plot.Y0+10, plot.X0+10.6, plot.Y0+30, Dark.Select, false)
	if len(qs) != 1 || qs[0].X1-qs[0].X0 != 1 {
		t.Errorf("a 0.4-pixel rectangle after the build gave %+v, want one quad a pixel wide", qs)
	}
	for i, id := range v.grid {
		if id != 0 {
			t.Fatalf("grid pixel %d holds colour %d after the build", i, id)
		}
	}
	v.Key("w", false)
	v.Quads(nil) // built again: no colour left over from before
}
