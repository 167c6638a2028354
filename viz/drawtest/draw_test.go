package drawtest

import (
	"fmt"
	"image/color"
	"os"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"memplan/viz"
	"memplan/viz/internal/sample"
)

// TestMain runs the tests inside a running ebiten game, which ebiten needs
// before images can be drawn and read back.
func TestMain(m *testing.M) {
	if os.Getenv("DISPLAY") == "" {
		// Without a display ebiten cannot start: every test skips.
		noDisplay = true
		os.Exit(m.Run())
	}
	g := &runner{m: m, done: make(chan int, 1)}
	ebiten.SetWindowSize(64, 64)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil && err != ebiten.Termination {
		fmt.Println("drawtest:", err)
		os.Exit(1)
	}
	os.Exit(g.code)
}

var noDisplay bool

// needDisplay skips a test that draws when there is no display.
func needDisplay(t *testing.T) {
	t.Helper()
	// Reading DISPLAY here, inside a test, makes go test's cache key on
	// it; TestMain's read happens before the cache is listening.
	if noDisplay || os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the pixel tests run under `xvfb-run -a go test ./viz/drawtest`")
	}
}

type runner struct {
	m       *testing.M
	started bool
	done    chan int
	code    int
}

func (r *runner) Update() error {
	if !r.started {
		r.started = true
		go func() { r.done <- r.m.Run() }()
	}
	select {
	case r.code = <-r.done:
		return ebiten.Termination
	default:
		return nil
	}
}

func (r *runner) Draw(*ebiten.Image)         {}
func (r *runner) Layout(w, h int) (int, int) { return w, h }

// render draws a view of the sample plan and returns the image.
func render(t *testing.T, w, h int, budget int64, setup func(v *viz.View)) (*viz.View, *ebiten.Image) {
	t.Helper()
	needDisplay(t)
	v := viz.NewView(w, h)
	v.SetLayout(viz.NewLayout(sample.Plan(), budget), false)
	if setup != nil {
		setup(v)
	}
	img := ebiten.NewImage(w, h)
	viz.NewRenderer().Draw(img, v)
	if v.Dirty {
		t.Error("view still dirty after drawing")
	}
	return v, img
}

func pixel(img *ebiten.Image, x, y float64) viz.RGB {
	c := color.RGBAModel.Convert(img.At(int(x), int(y))).(color.RGBA)
	return viz.RGB{R: c.R, G: c.G, B: c.B}
}

// centre is a pixel inside a tensor's screen rectangle, a third of the way
// in from its lower-left corner (h's middle is on its view's outline).
func centre(t *testing.T, v *viz.View, name string) (float64, float64) {
	t.Helper()
	r, ok := v.ScreenRect(v.Layout.Index(name))
	if !ok {
		t.Fatalf("%s not on screen", name)
	}
	return r.X0 + (r.X1-r.X0)/3, r.Y1 - (r.Y1-r.Y0)/3
}

func near(a, b viz.RGB) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) <= 2 && d(a.G, b.G) <= 2 && d(a.B, b.B) <= 2
}

func TestBuffersHaveTheirColours(t *testing.T) {
	v, img := render(t, 480, 360, 0, nil)
	p := v.Layout.Plan
	for _, name := range []string{"x", "w", "h", "y", "out"} {
		x, y := centre(t, v, name)
		want := viz.TensorColor(p, v.Layout.Index(name), false)
		if got := pixel(img, x, y); !near(got, want) {
			t.Errorf("%s at (%.0f, %.0f): %s, want %s", name, x, y, got.Hex(), want.Hex())
		}
	}
	// Neighbours of one kind that touch must not look the same.
	if a, b := viz.TensorColor(p, 2, false), viz.TensorColor(p, 4, false); a == b {
		t.Errorf("h and y share colour %s", a.Hex())
	}
	// Nothing lives at step 2 between out and w's guard... except the gap
	// above out: (2.5, 1100) is empty.
	sx, sy := v.Cam.ToScreen(2.5, 1100)
	if got := pixel(img, sx, sy); !near(got, viz.Dark.Background) {
		t.Errorf("empty space at (%.0f, %.0f) is %s, want background", sx, sy, got.Hex())
	}
}

func TestViewOutlineAndGuardHatch(t *testing.T) {
	v, img := render(t, 480, 360, 0, nil)
	r, _ := v.ScreenRect(v.Layout.Index("hv"))
	// The outline is the view colour; its inside shows the root's fill.
	if got := pixel(img, (r.X0+r.X1)/2, r.Y0+0.5); !near(got, viz.Dark.View) {
		t.Errorf("view outline top is %s, want %s", got.Hex(), viz.Dark.View.Hex())
	}
	root := viz.TensorColor(v.Layout.Plan, v.Layout.Index("h"), false)
	if got := pixel(img, (r.X0+r.X1)/2, (r.Y0+r.Y1)/2); !near(got, root) {
		t.Errorf("inside the view is %s, want the root's %s", got.Hex(), root.Hex())
	}
	// w's guard band [3200, 3328) over steps 0–4: stripes of the guard
	// colour on a darker base, both present along a row.
	_, gy0 := v.Cam.ToScreen(0, 3328)
	_, gy1 := v.Cam.ToScreen(0, 3200)
	y := (gy0 + gy1) / 2
	x0, _ := v.Cam.ToScreen(0.2, 0)
	x1, _ := v.Cam.ToScreen(4.8, 0)
	seen := map[bool]int{}
	g := viz.Dark.Guard
	bg := viz.Dark.Background
	mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-viz.HatchGap) + float64(b)*viz.HatchGap + 0.5) }
	gap := viz.RGB{R: mix(g.R, bg.R), G: mix(g.G, bg.G), B: mix(g.B, bg.B)}
	for x := x0; x < x1; x++ {
		c := pixel(img, x, y)
		seen[near(c, g)]++
		if !near(c, g) && !near(c, gap) {
			t.Errorf("guard band pixel at (%.0f, %.0f) is %s, neither stripe %s nor gap %s", x, y, c.Hex(), g.Hex(), gap.Hex())
			break
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("guard band row at y=%.0f is not striped: %v", y, seen)
	}
}

func TestSelectionDimsTheRest(t *testing.T) {
	v, img := render(t, 480, 360, 0, func(v *viz.View) { v.Select(v.Layout.Index("h")) })
	p := v.Layout.Plan
	x, y := centre(t, v, "y") // shares h's bytes: full colour
	if got, want := pixel(img, x, y), viz.TensorColor(p, v.Layout.Index("y"), false); !near(got, want) {
		t.Errorf("partner y is %s, want %s", got.Hex(), want.Hex())
	}
	x, y = centre(t, v, "w") // unrelated: dimmed
	if got, want := pixel(img, x, y), viz.TensorColor(p, v.Layout.Index("w"), true); !near(got, want) {
		t.Errorf("unrelated w is %s, want dimmed %s", got.Hex(), want.Hex())
	}
}

func TestBudgetLineRedWhenCrossed(t *testing.T) {
	for _, c := range []struct {
		budget int64
		want   viz.RGB
	}{{4096, viz.Dark.BudgetOver}, {7600, viz.Dark.BudgetOK}} {
		v, img := render(t, 480, 360, c.budget, nil)
		_, sy := v.Cam.ToScreen(0, float64(c.budget))
		plot := v.PlotRect()
		// Sample left of where the label is written.
		if got := pixel(img, plot.X0+20, sy); !near(got, c.want) {
			t.Errorf("budget %d: line pixel %s, want %s", c.budget, got.Hex(), c.want.Hex())
		}
	}
}

func TestZoomMovesPixels(t *testing.T) {
	v, img := render(t, 480, 360, 0, func(v *viz.View) {
		// Zoom far into x's lower-left corner: x fills the plot.
		v.Cam.FitRect(viz.Rect{X0: 0, Y0: 0, X1: 0.5, Y1: 200}, 0)
	})
	p := v.PlotRect()
	want := viz.TensorColor(v.Layout.Plan, v.Layout.Index("x"), false)
	for _, pt := range [][2]float64{{p.X0 + 10, p.Y0 + 10}, {p.X1 - 10, p.Y1 - 10}} {
		if got := pixel(img, pt[0], pt[1]); !near(got, want) {
			t.Errorf("zoomed pixel (%.0f, %.0f) is %s, want x's %s", pt[0], pt[1], got.Hex(), want.Hex())
		}
	}
}

func TestManySubPixelBuffers(t *testing.T) {
	needDisplay(t)
	v := viz.NewView(800, 600)
	v.SetLayout(viz.NewLayout(sample.Many(100000), 0), false)
	qs := v.Quads(nil)
	if len(qs) >= 100000 {
		t.Errorf("%d quads for 100000 buffers: sub-pixel merging did not merge", len(qs))
	}
	img := ebiten.NewImage(800, 600)
	viz.NewRenderer().Draw(img, v)
	// Lane 0 is activation-coloured somewhere along its bottom row.
	p := v.PlotRect()
	found := false
	for x := p.X0 + 2; x < p.X1-2 && !found; x++ {
		c := pixel(img, x, p.Y1-1)
		found = !near(c, viz.Dark.Background) && !near(c, viz.Dark.Grid) && !near(c, viz.Dark.Axis)
	}
	if !found {
		t.Error("no buffer pixels along the bottom of the plot")
	}
}

// renderThemed draws the sample plan in a theme at a device pixel ratio.
func renderThemed(t *testing.T, w, h int, theme string, scale float64) (*viz.View, *ebiten.Image) {
	t.Helper()
	needDisplay(t)
	w, h = int(float64(w)*scale), int(float64(h)*scale)
	v := viz.NewView(w, h)
	v.SetScale(scale)
	if !v.SetTheme(theme) {
		t.Fatalf("no theme %q", theme)
	}
	v.SetLayout(viz.NewLayout(sample.Plan(), 0), false)
	img := ebiten.NewImage(w, h)
	viz.NewRenderer().Draw(img, v)
	return v, img
}

// label finds a label by its text.
func label(t *testing.T, v *viz.View, text string) viz.Label {
	t.Helper()
	for _, l := range v.Labels(nil) {
		if l.Text == text {
			return l
		}
	}
	t.Fatalf("no label %q", text)
	return viz.Label{}
}

// Each legend swatch shows its entry's colour the way the plot uses it;
// the swatch sits left of its word (legend.go: 14 px wide, 4 px gap, as
// tall as the glyphs).
func TestLegendSwatches(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, scale := range []float64{1, 2} {
			v, img := renderThemed(t, 800, 600, theme, scale)
			u := scale
			bg := v.Theme.Background
			for _, e := range v.Legend() {
				l := label(t, v, e.Label)
				x0, x1 := l.X-4*u-14*u, l.X-4*u
				y0, y1 := l.Y+2*u, l.Y+float64(viz.CharH)*u-2*u
				cx, cy := (x0+x1)/2, (y0+y1)/2
				name := fmt.Sprintf("%s@%gx %s swatch", theme, scale, e.Label)
				switch e.Mark {
				case "fill", "line":
					if got := pixel(img, cx, cy); got.Hex() != e.Color {
						t.Errorf("%s centre (%.0f, %.0f) is %s, want %s", name, cx, cy, got.Hex(), e.Color)
					}
				case "outline":
					if got := pixel(img, cx, y0); got.Hex() != e.Color {
						t.Errorf("%s top edge is %s, want %s", name, got.Hex(), e.Color)
					}
					if got := pixel(img, cx, cy); !near(got, bg) {
						t.Errorf("%s inside is %s, want the background", name, got.Hex())
					}
				case "hatch", "dashed":
					seen := map[string]int{}
					for x := x0; x < x1; x++ {
						seen[pixel(img, x, cy).Hex()]++
					}
					if seen[e.Color] == 0 || len(seen) < 2 {
						t.Errorf("%s row is %v, want %s broken by another colour", name, seen, e.Color)
					}
				default:
					t.Errorf("%s: unknown mark %q", name, e.Mark)
				}
			}
		}
	}
}

func TestLightThemeIsLight(t *testing.T) {
	v, img := renderThemed(t, 640, 400, "light", 1)
	for _, pt := range [][2]float64{{float64(v.W) - 2, float64(v.H) - 2}, {float64(v.W) / 2, 1}} {
		got := pixel(img, pt[0], pt[1])
		if got != viz.Light.Background || got.Luminance() < 0.9 {
			t.Errorf("background at (%v, %v) is %s, want %s", pt[0], pt[1], got.Hex(), viz.Light.Background.Hex())
		}
	}
	// Empty space in the plot, and a buffer in its light-theme colour.
	sx, sy := v.Cam.ToScreen(2.5, 1100)
	if got := pixel(img, sx, sy); got != viz.Light.Background {
		t.Errorf("empty plot at (%.0f, %.0f) is %s", sx, sy, got.Hex())
	}
	x, y := centre(t, v, "x")
	if got, want := pixel(img, x, y), v.TensorColor(v.Layout.Index("x")); !near(got, want) {
		t.Errorf("x is %s, want %s", got.Hex(), want.Hex())
	}
}

// The axis titles are painted, in the text colour, at twice the size at a
// device pixel ratio of 2.
func TestAxisTitlesPainted(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, scale := range []float64{1, 2} {
			v, img := renderThemed(t, 640, 400, theme, scale)
			for _, text := range []string{"step", "offset (KiB)", "live bytes"} {
				l := label(t, v, text)
				w := float64(len(text) * viz.CharW)
				ink, top, bottom := 0, 1e9, -1.0
				for y := l.Y; y < l.Y+float64(viz.CharH)*scale; y++ {
					for x := l.X; x < l.X+w*scale; x++ {
						if pixel(img, x, y) == v.Theme.Text {
							ink++
							top, bottom = min(top, y), max(bottom, y)
						}
					}
				}
				if ink < len(text)*5*int(scale*scale) {
					t.Errorf("%s@%gx: %q has %d text-coloured pixels", theme, scale, text, ink)
				}
				// The glyphs' height, descenders included, scales.
				if h := bottom - top + 1; h < 7*scale || h > 9*scale {
					t.Errorf("%s@%gx: %q is %v pixels tall", theme, scale, text, h)
				}
			}
		}
	}
}

// A renderer uploads only the rows that changed since it last drew into
// an image: after a hover, a pan and a resize, the image must still be
// what a fresh renderer draws.
func TestRedrawMatchesFreshDraw(t *testing.T) {
	needDisplay(t)
	const w, h = 480, 360
	v := viz.NewView(w, h)
	v.SetLayout(viz.NewLayout(sample.Plan(), 0), false)
	r := viz.NewRenderer()
	img := ebiten.NewImage(w, h)
	r.Draw(img, v)
	if got, full := r.Stats.Uploaded, 4*w*h; got != full {
		t.Errorf("first frame uploaded %d bytes, want all %d", got, full)
	}
	steps := []struct {
		name    string
		change  func()
		partial bool // fewer rows than all should go up
	}{
		{"nothing", func() {}, true},
		{"hover", func() { x, y := centre(t, v, "w"); v.SetPointer(v.HitAt(x, y), v.LiveHover) }, true},
		{"pan", func() { v.Key("ArrowRight", false) }, false},
		{"select", func() { v.Select(v.Layout.Index("h")) }, false},
	}
	for _, s := range steps {
		s.change()
		r.Draw(img, v)
		if s.partial && r.Stats.Uploaded >= 4*w*h {
			t.Errorf("%s: uploaded every row", s.name)
		}
		want := ebiten.NewImage(w, h)
		viz.NewRenderer().Draw(want, v)
		a, b := make([]byte, 4*w*h), make([]byte, 4*w*h)
		img.ReadPixels(a)
		want.ReadPixels(b)
		if string(a) != string(b) {
			t.Errorf("after %s the image differs from a fresh draw", s.name)
		}
	}
	// Another image gets every row.
	other := ebiten.NewImage(w, h)
	r.Draw(other, v)
	if r.Stats.Uploaded != 4*w*h {
		t.Errorf("a new image got %d bytes, want all", r.Stats.Uploaded)
	}
}
