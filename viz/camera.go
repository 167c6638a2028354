package viz

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Camera maps world coordinates (steps, bytes; y up) to screen pixels
// (y down) inside a viewport. x and y zoom separately: a schedule of ten
// steps and an arena of a gigabyte share one picture.
type Camera struct {
	// View is the screen rectangle the plot occupies, in pixels.
	View Rect
	// Org is the world point at the view's bottom-left corner.
	OrgX, OrgY float64
	// KX and KY are pixels per step and pixels per byte.
	KX, KY float64
	// World is what Fit shows; zoom and pan stay near it.
	World Rect
}

// Zoom limits, relative to the fitted scale and absolute.
const (
	minZoomOut    = 0.5  // of the fitted scale
	maxPxPerStep  = 2000 // wide enough to read one step's labels
	maxPxPerByte  = 64   // a byte can be 64 px tall, no more
	minVisibleEps = 1e-9
)

// Matrix is the world-to-screen transform.
func (c *Camera) Matrix() mgl64.Mat3 {
	return mgl64.Translate2D(c.View.X0-c.OrgX*c.KX, c.View.Y1+c.OrgY*c.KY).
		Mul3(mgl64.Scale2D(c.KX, -c.KY))
}

// ToScreen maps a world point to pixels.
func (c *Camera) ToScreen(x, y float64) (float64, float64) {
	v := c.Matrix().Mul3x1(mgl64.Vec3{x, y, 1})
	return v[0], v[1]
}

// ToWorld maps pixels to a world point: Matrix inverted in closed form,
// since the live strip asks twice per pixel column and inverting the
// matrix each time cost a new plan's first frame ~10 ms in the browser.
func (c *Camera) ToWorld(sx, sy float64) (float64, float64) {
	return c.OrgX + (sx-c.View.X0)/c.KX, c.OrgY + (c.View.Y1-sy)/c.KY
}

// Visible is the world rectangle inside the view.
func (c *Camera) Visible() Rect {
	return Rect{c.OrgX, c.OrgY, c.OrgX + (c.View.X1-c.View.X0)/c.KX, c.OrgY + (c.View.Y1-c.View.Y0)/c.KY}
}

// Fit shows the whole world in the view.
func (c *Camera) Fit() {
	w, h := c.viewSize()
	ww, wh := max(c.World.X1-c.World.X0, minVisibleEps), max(c.World.Y1-c.World.Y0, minVisibleEps)
	c.KX, c.KY = w/ww, h/wh
	c.OrgX, c.OrgY = c.World.X0, c.World.Y0
}

// Show shows the world rectangle r across the whole view, as a link
// restores a camera: Visible then returns r, unless r lies beyond the zoom
// and pan limits, which hold.
func (c *Camera) Show(r Rect) {
	w, h := c.viewSize()
	c.KX, c.KY = w/max(r.X1-r.X0, minVisibleEps), h/max(r.Y1-r.Y0, minVisibleEps)
	c.OrgX, c.OrgY = r.X0, r.Y0
	c.clampScale()
	c.clampPan()
}

// FitRect shows r in the view with a margin of a fraction of its size on
// every side, within the zoom limits.
func (c *Camera) FitRect(r Rect, margin float64) {
	w, h := c.viewSize()
	rw, rh := max(r.X1-r.X0, minVisibleEps), max(r.Y1-r.Y0, minVisibleEps)
	c.KX, c.KY = w/(rw*(1+2*margin)), h/(rh*(1+2*margin))
	c.clampScale()
	c.OrgX = (r.X0+r.X1)/2 - w/c.KX/2
	c.OrgY = (r.Y0+r.Y1)/2 - h/c.KY/2
	c.clampPan()
}

// ZoomAt scales x by fx and y by fy (>1 zooms in) keeping the world point
// under screen point (sx, sy) where it is.
func (c *Camera) ZoomAt(sx, sy, fx, fy float64) {
	wx, wy := c.ToWorld(sx, sy)
	c.KX *= fx
	c.KY *= fy
	c.clampScale()
	// Solve ToScreen(wx, wy) == (sx, sy) for the origin.
	c.OrgX = wx - (sx-c.View.X0)/c.KX
	c.OrgY = wy - (c.View.Y1-sy)/c.KY
	c.clampPan()
}

// Pan moves the picture by (dx, dy) pixels, as a drag does.
func (c *Camera) Pan(dx, dy float64) {
	c.OrgX -= dx / c.KX
	c.OrgY += dy / c.KY
	c.clampPan()
}

// Resize changes the viewport keeping the same world rectangle in view,
// stretched to the new size.
func (c *Camera) Resize(view Rect) {
	if c.KX == 0 || c.KY == 0 {
		c.View = view
		c.Fit()
		return
	}
	v := c.Visible()
	c.View = view
	w, h := c.viewSize()
	c.KX, c.KY = w/(v.X1-v.X0), h/(v.Y1-v.Y0)
	c.OrgX, c.OrgY = v.X0, v.Y0
	c.clampScale()
	c.clampPan()
}

func (c *Camera) viewSize() (float64, float64) {
	return max(c.View.X1-c.View.X0, 1), max(c.View.Y1-c.View.Y0, 1)
}

func (c *Camera) fitScale() (float64, float64) {
	w, h := c.viewSize()
	return w / max(c.World.X1-c.World.X0, minVisibleEps), h / max(c.World.Y1-c.World.Y0, minVisibleEps)
}

func (c *Camera) clampScale() {
	fx, fy := c.fitScale()
	c.KX = clamp(c.KX, fx*minZoomOut, max(maxPxPerStep, fx))
	c.KY = clamp(c.KY, fy*minZoomOut, max(maxPxPerByte, fy))
}

// clampPan keeps the centre of the view over the world, so the picture
// cannot be lost off-screen.
func (c *Camera) clampPan() {
	w, h := c.viewSize()
	cx := clamp(c.OrgX+w/c.KX/2, c.World.X0, c.World.X1)
	cy := clamp(c.OrgY+h/c.KY/2, c.World.Y0, c.World.Y1)
	c.OrgX, c.OrgY = cx-w/c.KX/2, cy-h/c.KY/2
}

func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return math.Min(math.Max(v, lo), hi)
}
