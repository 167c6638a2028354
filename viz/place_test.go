package viz

import (
	"fmt"
	"strings"
	"testing"

	"memplan/viz/internal/sample"
)

// placeLines places labels for horizontal lines at screen ys the way
// View.Labels does, and returns them with the lines' bands.
func placeLines(ys []float64, texts []string, plot Rect, gs int) ([]Label, []Rect) {
	u := float64(gs)
	var bands []Rect
	widest := 0.0
	for i, y := range ys {
		bands = append(bands, Rect{plot.X0, y - u, plot.X1, y + u})
		widest = max(widest, textWidth(texts[i], gs))
	}
	var cands [][]Label
	for i, y := range ys {
		cands = append(cands, lineLabelCandidates(texts[i], RGB{}, y, plot.X1, gs, widest))
	}
	return placeLabels(nil, cands, bands, plot, gs, u), bands
}

func TestPlaceLineLabels(t *testing.T) {
	plot := Rect{76, 20, 800, 500}
	three := []string{"arena 7.25 KiB", "lower bound 7 KiB", "budget 8 KiB"}
	for _, c := range []struct {
		name  string
		ys    []float64
		texts []string
		gs    int
		all   bool // every label must find a place
	}{
		{"apart", []float64{100, 300}, three[:2], 1, true},
		{"one pixel apart", []float64{200, 201}, three[:2], 1, true},
		{"the same pixel", []float64{200, 200}, three[:2], 1, true},
		{"three within three pixels", []float64{200, 201, 203}, three, 1, true},
		{"at the top edge", []float64{21, 22}, three[:2], 1, true},
		{"at the bottom edge", []float64{498, 499}, three[:2], 1, true},
		{"two rows apart", []float64{200, 200 + CharH + 3}, three[:2], 1, true},
		{"at 2x, one pixel apart", []float64{200, 201, 202}, three, 2, true},
		{"in a tiny plot", []float64{25, 26, 27}, three, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plot
			if c.name == "in a tiny plot" {
				p = Rect{76, 20, 800, 40}
			}
			got, bands := placeLines(c.ys, c.texts, p, c.gs)
			if c.all && len(got) != len(c.ys) {
				t.Fatalf("placed %d of %d labels: %+v", len(got), len(c.ys), got)
			}
			checkLabels(t, got, bands, p, c.gs)
		})
	}
}

// checkLabels fails when two labels overlap, a band crosses a label or a
// label leaves bounds.
func checkLabels(t *testing.T, ls []Label, bands []Rect, bounds Rect, gs int) {
	t.Helper()
	for i, a := range ls {
		b := a.box(gs, 0)
		if b.X0 < bounds.X0 || b.Y0 < bounds.Y0 || b.X1 > bounds.X1 || b.Y1 > bounds.Y1 {
			t.Errorf("%q at %+v outside %+v", a.Text, b, bounds)
		}
		for _, ln := range bands {
			if b.Overlaps(ln) {
				t.Errorf("the line at y=[%v, %v) crosses %q at y=[%v, %v)", ln.Y0, ln.Y1, a.Text, b.Y0, b.Y1)
			}
		}
		for _, o := range ls[i+1:] {
			if b.Overlaps(o.box(gs, 0)) {
				t.Errorf("%q at (%v, %v) overlaps %q at (%v, %v)", a.Text, a.X, a.Y, o.Text, o.X, o.Y)
			}
		}
	}
}

// Many ticks close together: the labels that would touch are dropped, the
// others stay where they were asked to be.
func TestPlaceTickLabels(t *testing.T) {
	for _, c := range []struct {
		n       int
		spacing float64
		gs      int
	}{{200, 3, 1}, {50, 20, 1}, {30, 64, 1}, {100, 7.5, 2}, {1000, 0.5, 1}} {
		var cands [][]Label
		for i := range c.n {
			s := fmt.Sprint(i * 1000)
			x := 10 + float64(i)*c.spacing
			cands = append(cands, []Label{{X: x - textWidth(s, c.gs)/2, Y: 0, Text: s}})
		}
		bounds := Rect{0, 0, 1e6, float64(CharH * c.gs)}
		got := placeLabels(nil, cands, nil, bounds, c.gs, 2)
		if len(got) == 0 || got[0].Text != "0" {
			t.Errorf("%d ticks %v apart: the first was dropped", c.n, c.spacing)
		}
		checkLabels(t, got, nil, Rect{-2, 0, 1e6, bounds.Y1}, c.gs)
		if wide := textWidth("29000", c.gs) + 4; c.spacing > wide && len(got) != c.n {
			t.Errorf("%d ticks %v apart, room for all: %d placed", c.n, c.spacing, len(got))
		}
	}
}

// Whatever the size, scale and zoom, the view's labels never overlap and
// no reference line runs through one.
func TestViewLabelsNeverCollide(t *testing.T) {
	p := sample.Plan()
	p.LowerBound = p.ArenaSize - 20 // a pixel or so below the arena
	p.Schedule = []string{"x", "w", "h", "y", "out"}
	p.Phases = []string{"", "prefill", "prefill", "decode", "decode"}
	for _, budget := range []int64{0, 7400, 1 << 30} {
		for _, sz := range [][2]int{{640, 400}, {800, 600}, {1280, 800}, {320, 240}, {390, 300}} {
			for _, scale := range []float64{1, 2} {
				for _, zoom := range []string{"", "w", "ww", "sss", "wwwwwwww"} {
					v := NewView(int(float64(sz[0])*scale), int(float64(sz[1])*scale))
					v.SetScale(scale)
					v.ShowTitle(sz[0] != 800) // as a widget's viewer; the app's has none
					v.SetLayout(NewLayout(p, budget), false)
					for _, k := range zoom {
						v.Key(string(k), false)
					}
					v.SetPointer(None, v.LiveAt((v.StripRect().X0+20)/scale, (v.StripRect().Y0+5)/scale))
					name := fmt.Sprintf("budget %d, %dx%d@%gx, zoom %q", budget, sz[0], sz[1], scale, zoom)
					ls := v.Labels(nil)
					var bands []Rect
					for _, ln := range v.Layout.Lines {
						if y, ok := v.lineY(ln); ok {
							bands = append(bands, Rect{v.PlotRect().X0, y - v.m.u, v.PlotRect().X1, y + v.m.u})
						}
					}
					for i, a := range ls {
						b := a.box(v.m.gs, 0)
						for _, o := range ls[i+1:] {
							if b.Overlaps(o.box(v.m.gs, 0)) {
								t.Errorf("%s: %q at (%v, %v) overlaps %q at (%v, %v)", name, a.Text, a.X, a.Y, o.Text, o.X, o.Y)
							}
						}
						if a.bg != boxNone && a.bg != boxFramed {
							for _, ln := range bands {
								if b.Overlaps(ln) {
									t.Errorf("%s: a line crosses %q", name, a.Text)
								}
							}
						}
						if b.X0 < 0 || b.X1 > float64(v.W) || b.Y0 < 0 || b.Y1 > float64(v.H) {
							t.Errorf("%s: %q at %+v is off the %dx%d screen", name, a.Text, b, v.W, v.H)
						}
					}
				}
			}
		}
	}
}

// A budget far above the arena is named in a row above the plot, clear
// of every buffer, whether the canvas shows the plan's title (a widget
// gone live) or not (the app), and the title is there when asked for,
// in glyphs the font has.
func TestFarBudgetAboveThePlot(t *testing.T) {
	p := sample.Plan()
	far := p.ArenaSize * 40
	for _, titled := range []bool{true, false} {
		for _, sz := range [][2]int{{390, 300}, {1280, 300}, {320, 240}} {
			for _, scale := range []float64{1, 2} {
				name := fmt.Sprintf("title %v, %dx%d@%gx", titled, sz[0], sz[1], scale)
				v := NewView(int(float64(sz[0])*scale), int(float64(sz[1])*scale))
				v.SetScale(scale)
				v.ShowTitle(titled)
				v.SetLayout(NewLayout(p, far), false)
				plot := v.PlotRect()
				var budget, title *Label
				ls := v.Labels(nil)
				for i, l := range ls {
					switch {
					case strings.HasPrefix(l.Text, "budget "):
						budget = &ls[i]
					case l.Text == Title(p):
						title = &ls[i]
					}
				}
				if budget == nil || !strings.HasSuffix(budget.Text, ", off the top") {
					t.Fatalf("%s: no label says the budget is off the top: %v", name, ls)
				}
				if b := budget.box(v.m.gs, 0); b.Y1 > plot.Y0 {
					t.Errorf("%s: %q at %+v reaches into the plot (top %v)", name, budget.Text, b, plot.Y0)
				}
				if (title != nil) != titled {
					t.Errorf("%s: the title shown: %v", name, title != nil)
				}
				if title != nil {
					if b := title.box(v.m.gs, 0); b.Y1 > plot.Y0 || b.X1 > float64(v.W) {
						t.Errorf("%s: the title at %+v is not above the plot (top %v) or off the screen", name, b, plot.Y0)
					}
					for _, r := range title.Text {
						if _, ok := glyphs[r]; !ok {
							t.Errorf("%s: the title %q has no glyph for %q", name, title.Text, r)
						}
					}
				}
			}
		}
	}
}
