package viz

import (
	"testing"

	"memplan/viz/internal/sample"
)

func TestLayoutLiveAt(t *testing.T) {
	l := NewLayout(sample.Plan(), 0)
	// Pieces: {0 3328} {1 7424} {2 7296} {5 1024} {6 0}.
	for step, want := range map[int]int64{-1: 0, 0: 3328, 1: 7424, 2: 7296, 3: 7296, 4: 7296, 5: 1024, 6: 0, 99: 0} {
		if got := l.LiveAt(step); got != want {
			t.Errorf("LiveAt(%d) = %d, want %d", step, got, want)
		}
	}
}

// Pointing at the strip gives the step under the pointer and what is live
// there; anywhere else gives none. Positions are CSS pixels at any scale.
func TestViewLiveAt(t *testing.T) {
	p := sample.Plan()
	p.Schedule = []string{"x", "w", "h", "y", "out"}
	p.Phases = []string{"", "prefill", "prefill", "decode", "decode"}
	for _, scale := range []float64{1, 2} {
		v := NewView(int(640*scale), int(400*scale))
		v.SetScale(scale)
		v.SetLayout(NewLayout(p, 0), false)
		s := v.StripRect()
		at := func(step float64) float64 { x, _ := v.Cam.ToScreen(step, 0); return x / scale }
		midY := (s.Y0 + s.Y1) / 2 / scale
		for _, c := range []struct {
			x, y float64
			want LiveHit
		}{
			{at(0.5), midY, LiveHit{0, 3328, ""}},
			{at(1.1), midY, LiveHit{1, 7424, "prefill"}},
			{at(3.9), s.Y0/scale + 0.5, LiveHit{3, 7296, "decode"}},
			{at(5.5), s.Y1/scale - 0.5, LiveHit{5, 1024, ""}},
			{at(2.5), s.Y0/scale - 2, noLive},      // above the strip
			{at(2.5), s.Y1/scale + 1, noLive},      // below it
			{s.X0/scale - 3, midY, noLive},         // the title's margin
			{at(2.5), v.PlotRect().Y0 + 5, noLive}, // the plot
		} {
			if got := v.LiveAt(c.x, c.y); got != c.want {
				t.Errorf("at %gx, LiveAt(%.1f, %.1f) = %+v, want %+v", scale, c.x, c.y, got, c.want)
			}
		}
		// The readout is drawn and named while the pointer is there, and
		// leaving the viewer clears it.
		_, live := v.SetPointer(None, v.LiveAt(at(1.5), midY))
		if !live || v.LiveHover.Step != 1 {
			t.Fatalf("SetPointer: changed %v, hover %+v", live, v.LiveHover)
		}
		found := false
		for _, l := range v.Labels(nil) {
			found = found || l.Text == "step 1: "+FormatBytes(7424)
		}
		if !found {
			t.Errorf("at %gx: no readout label", scale)
		}
		if !v.SetHover(None) && v.LiveHover.Step != -1 {
			t.Errorf("SetHover(None) kept the readout %+v", v.LiveHover)
		}
	}
	var empty View
	empty.Scale = 1
	if h := empty.LiveAt(10, 10); h != noLive {
		t.Errorf("no layout: %+v", h)
	}
}

// At a device pixel ratio of 2 the picture is drawn at twice the
// resolution, but the host still speaks CSS pixels.
func TestScaleTwo(t *testing.T) {
	one, two := NewView(640, 400), NewView(1280, 800)
	two.SetScale(2)
	for _, v := range []*View{one, two} {
		v.SetLayout(NewLayout(sample.Plan(), 0), false)
	}
	for _, name := range []string{"x", "w", "h", "out"} {
		r1, _ := one.ScreenRect(one.Layout.Index(name))
		r2, _ := two.ScreenRect(two.Layout.Index(name))
		if d := r1.X0 - r2.X0 + r1.Y0 - r2.Y0 + r1.X1 - r2.X1 + r1.Y1 - r2.Y1; d > 2 || d < -2 {
			t.Errorf("%s: %+v at 1x, %+v at 2x, in CSS pixels", name, r1, r2)
		}
		cx, cy := (r2.X0+r2.X1)/2, r2.Y0+(r2.Y1-r2.Y0)*0.7
		if h := two.HitAt(cx, cy); h.Tensor != int32(two.Layout.Index(name)) && h.Kind != ItemView {
			t.Errorf("HitAt(%v, %v) at 2x: %+v, want %s", cx, cy, h, name)
		}
	}
	if p1, p2 := one.PlotRect(), two.PlotRect(); p2.X0 != 2*p1.X0 || p2.Y0 != 2*p1.Y0 || p2.Y1 != 2*p1.Y1 {
		t.Errorf("plot %+v at 1x, %+v at 2x", p1, p2)
	}
	l1, l2 := one.Labels(nil), two.Labels(nil)
	if len(l1) != len(l2) {
		t.Errorf("%d labels at 1x, %d at 2x", len(l1), len(l2))
	}
	// Glyphs are twice the size: a "-" is a 10-pixel run two rows tall.
	qs := appendText(nil, 0, 0, "-", Dark.Text, 2)
	if len(qs) != 2 || qs[0].X1-qs[0].X0 != 10 || qs[0].Y0 != 2*fontTop+6 {
		t.Errorf("2x minus: %+v", qs)
	}
	// Zooming by wheel at a CSS point keeps what is under it.
	r, _ := two.ScreenRect(two.Layout.Index("w"))
	cx, cy := (r.X0+r.X1)/2, (r.Y0+r.Y1)/2
	two.Wheel(cx, cy, 240, false, false)
	if h := two.HitAt(cx, cy); h.Tensor != int32(two.Layout.Index("w")) {
		t.Errorf("after a zoom at w's centre, %+v is there", h)
	}
}
