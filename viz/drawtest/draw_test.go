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
	if got := pixel(img, sx, sy); !near(got, viz.Background) {
		t.Errorf("empty space at (%.0f, %.0f) is %s, want background", sx, sy, got.Hex())
	}
}

func TestViewOutlineAndGuardHatch(t *testing.T) {
	v, img := render(t, 480, 360, 0, nil)
	r, _ := v.ScreenRect(v.Layout.Index("hv"))
	// The outline is the view colour; its inside shows the root's fill.
	if got := pixel(img, (r.X0+r.X1)/2, r.Y0+0.5); !near(got, viz.ViewColor) {
		t.Errorf("view outline top is %s, want %s", got.Hex(), viz.ViewColor.Hex())
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
	g := viz.GuardColor
	gap := viz.RGB{R: uint8(int(g.R) * 110 / 255), G: uint8(int(g.G) * 110 / 255), B: uint8(int(g.B) * 110 / 255)}
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
	}{{4096, viz.BudgetOver}, {7600, viz.BudgetOK}} {
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
		found = !near(c, viz.Background) && !near(c, viz.GridColor) && !near(c, viz.AxisColor)
	}
	if !found {
		t.Error("no buffer pixels along the bottom of the plot")
	}
}
