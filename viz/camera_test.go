package viz

import (
	"math"
	"testing"
)

func newCam() Camera {
	c := Camera{View: Rect{50, 10, 850, 610}, World: Rect{0, 0, 100, 1 << 20}}
	c.Fit()
	return c
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(a), math.Abs(b)) }

func TestCameraFitMapsCorners(t *testing.T) {
	c := newCam()
	// World origin at the bottom-left of the view; y grows upward.
	if x, y := c.ToScreen(0, 0); !close(x, 50) || !close(y, 610) {
		t.Errorf("origin at (%v, %v), want (50, 610)", x, y)
	}
	if x, y := c.ToScreen(100, 1<<20); !close(x, 850) || !close(y, 10) {
		t.Errorf("far corner at (%v, %v), want (850, 10)", x, y)
	}
}

func TestCameraRoundTrip(t *testing.T) {
	c := newCam()
	c.ZoomAt(300, 200, 3, 7)
	c.Pan(-40, 25)
	for _, p := range [][2]float64{{0, 0}, {12.5, 4096}, {99, 1 << 19}} {
		sx, sy := c.ToScreen(p[0], p[1])
		x, y := c.ToWorld(sx, sy)
		if !close(x, p[0]) || !close(y, p[1]) {
			t.Errorf("%v -> (%v, %v) -> (%v, %v)", p, sx, sy, x, y)
		}
	}
}

func TestZoomKeepsPointUnderCursor(t *testing.T) {
	c := newCam()
	wx, wy := c.ToWorld(333, 222)
	c.ZoomAt(333, 222, 2, 1)
	if x, y := c.ToWorld(333, 222); !close(x, wx) || !close(y, wy) {
		t.Errorf("point under cursor moved from (%v, %v) to (%v, %v)", wx, wy, x, y)
	}
	kx, ky := c.KX, c.KY
	c.ZoomAt(333, 222, 1, 4) // y only
	if c.KX != kx || !close(c.KY, 4*ky) {
		t.Errorf("y-only zoom changed kx %v->%v, ky %v->%v", kx, c.KX, ky, c.KY)
	}
}

func TestZoomLimits(t *testing.T) {
	c := newCam()
	fx, fy := c.KX, c.KY
	for range 100 {
		c.ZoomAt(400, 300, 0.5, 0.5)
	}
	if c.KX < fx*minZoomOut*0.999 || c.KY < fy*minZoomOut*0.999 {
		t.Errorf("zoomed out past the limit: %v, %v", c.KX, c.KY)
	}
	for range 200 {
		c.ZoomAt(400, 300, 2, 2)
	}
	if c.KX > maxPxPerStep || c.KY > maxPxPerByte {
		t.Errorf("zoomed in past the limit: %v px/step, %v px/byte", c.KX, c.KY)
	}
}

func TestPanCannotLoseThePicture(t *testing.T) {
	c := newCam()
	c.ZoomAt(400, 300, 4, 4)
	c.Pan(1e6, -1e6)
	v := c.Visible()
	cx, cy := (v.X0+v.X1)/2, (v.Y0+v.Y1)/2
	// Dragging right and up moves the view left and down: it stops with
	// its centre on the world's bottom-left corner.
	if !close(cx, c.World.X0) || !close(cy, c.World.Y0) {
		t.Errorf("view centre (%v, %v) left the world %+v", cx, cy, c.World)
	}
}

func TestFitRectShowsRect(t *testing.T) {
	c := newCam()
	r := Rect{10, 1000, 12, 5000}
	c.FitRect(r, 0.5)
	v := c.Visible()
	if v.X0 > r.X0 || v.X1 < r.X1 || v.Y0 > r.Y0 || v.Y1 < r.Y1 {
		t.Errorf("visible %+v does not contain %+v", v, r)
	}
}

func TestResizeKeepsWhatIsVisible(t *testing.T) {
	c := newCam()
	c.FitRect(Rect{10, 1000, 30, 9000}, 0)
	before := c.Visible()
	c.Resize(Rect{0, 0, 400, 300})
	if after := c.Visible(); !close(after.X0, before.X0) || !close(after.X1, before.X1) || !close(after.Y0, before.Y0) || !close(after.Y1, before.Y1) {
		t.Errorf("visible %+v after resize, want %+v", after, before)
	}
}

// Show restores what a camera showed; a rectangle past the limits is
// held to them, as a zoom or a drag would be.
func TestCameraShow(t *testing.T) {
	c := newCam()
	c.ZoomAt(300, 200, 3, 7)
	c.Pan(-40, 25)
	want := c.Visible()
	d := newCam()
	d.Show(want)
	if got := d.Visible(); !close(got.X0, want.X0) || !close(got.Y0, want.Y0) || !close(got.X1, want.X1) || !close(got.Y1, want.Y1) {
		t.Errorf("Show(%v) shows %v", want, got)
	}
	d.Show(Rect{1e6, 1e12, 1e6 + 1e-12, 1e12 + 1e-12}) // far off and far too deep
	got := d.Visible()
	if cx := (got.X0 + got.X1) / 2; cx < 0 || cx > 100 || got.X1-got.X0 < 100/maxPxPerStep {
		t.Errorf("an impossible view gave %v", got)
	}
}
