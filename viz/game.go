package viz

import (
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
)

// Game runs a View as an ebiten game: it reads the pointer in Update, draws in
// Draw only when something changed, and tells its host what the pointer
// is over.
type Game struct {
	V *View
	R *Renderer

	// BeforeUpdate, if set, runs first in every Update: the wasm host
	// applies queued commands and finished plans there.
	BeforeUpdate func()
	// OnHover is called when the pointer moves over the plot, with what
	// is under it and the pointer's position in CSS pixels.
	OnHover func(h Hit, sx, sy float64)
	// OnLiveHover is called when the step under the pointer in the live
	// strip changes, with the pointer's position in CSS pixels; Step is
	// -1 when the pointer left the strip.
	OnLiveHover func(lh LiveHit, sx, sy float64)
	// OnSelect is called when a click changes the selection.
	OnSelect func(tensor int)
	// OnCursor is called when a drag moves the time cursor.
	OnCursor func(step int)
	// OnPlace is called when a drag moves a buffer of a placement by
	// hand (View.Hand), and once more, with done, when the drag ends.
	OnPlace func(done bool)

	// Draws counts the frames that were drawn, for measuring.
	Draws int

	pressX, pressY float64 // where the left button went down
	lastX, lastY   float64
	dragging       bool
	scrubbing      bool    // the press began on the strip or the cursor: it moves the cursor
	lastClick      int     // tick of the last click, for double clicks
	lastClickX     float64 // and where it was
	lastClickY     float64
	tick           int
	lastCursorX    float64
	lastCursorY    float64
	// left is set when the pointer left the canvas (PointerLeft): ebiten
	// keeps its last position, which must not hover again on a redraw.
	left bool
	// Placing by hand, a press on a buffer drags it: moving is the
	// tensor (-1: the press pans), from its offset at the press, with
	// the pointer then at world height pressWY.
	moving    int
	moveStart int64
	pressWY   float64
	// touch is the touch that acts as the pointer while it lasts (-1:
	// none, the mouse does), and touchX, touchY where it was last.
	touch          ebiten.TouchID
	touchX, touchY int
}

// pointer is the mouse, or the first finger while one touches: where it
// is, in device pixels, and whether its button is down, went down this
// frame or came up.
func (g *Game) pointer() (x, y int, down, justDown, justUp bool) {
	if g.touch < 0 {
		if ids := inpututil.AppendJustPressedTouchIDs(nil); len(ids) > 0 {
			g.touch = ids[0]
			g.touchX, g.touchY = ebiten.TouchPosition(g.touch)
			return g.touchX, g.touchY, true, true, false
		}
		x, y = ebiten.CursorPosition()
		return x, y, ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
			inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft), inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft)
	}
	if inpututil.IsTouchJustReleased(g.touch) {
		g.touch = -1
		return g.touchX, g.touchY, false, false, true
	}
	g.touchX, g.touchY = ebiten.TouchPosition(g.touch)
	return g.touchX, g.touchY, true, false, false
}

// PointerLeft clears the hover and keeps it clear until the pointer moves
// over the canvas again.
func (g *Game) PointerLeft() {
	g.left = true
	if g.V.SetHover(None) && g.OnHover != nil {
		g.OnHover(None, -1, -1)
	}
}

// NewGame is a game showing v.
func NewGame(v *View) *Game {
	return &Game{V: v, R: NewRenderer(), lastClick: -100, moving: -1, touch: -1}
}

// Update reads input and applies it to the view.
func (g *Game) Update() error {
	g.tick++
	if g.BeforeUpdate != nil {
		g.BeforeUpdate()
	}
	v := g.V
	// Keys arrive as host commands (View.Key), one per keydown: polling
	// them here once a frame would miss quick taps.
	shift := ebiten.IsKeyPressed(ebiten.KeyShift)

	// The cursor comes in device pixels (Layout's size); the view takes
	// CSS pixels.
	cx, cy, down, justDown, justUp := g.pointer()
	sx, sy := float64(cx)/v.Scale, float64(cy)/v.Scale
	if _, wy := ebiten.Wheel(); wy != 0 && v.PlotRect().Contains(float64(cx), float64(cy)) {
		v.Wheel(sx, sy, wy, shift, ebiten.IsKeyPressed(ebiten.KeyAlt))
	}

	switch {
	case justDown:
		g.pressX, g.pressY, g.lastX, g.lastY = sx, sy, sx, sy
		g.dragging = false
		g.scrubbing = v.OnCursorLine(sx, sy)
		if g.scrubbing {
			g.scrub(sx)
		}
		g.moving = -1
		if !g.scrubbing && v.Hand != nil {
			// A press on the selected buffer drags it even where another
			// is drawn over it: two in conflict can be pulled apart.
			t := int(v.HitAt(sx, sy).Tensor)
			if v.selectedUnder(float64(cx), float64(cy)) {
				t = v.Selected
			}
			if t >= 0 && v.Hand.owns(t) {
				g.moving = v.Hand.mover(t)
				g.moveStart = v.Hand.Offset(g.moving)
				_, g.pressWY = v.Cam.ToWorld(float64(cx), float64(cy))
			}
		}
	case g.scrubbing && down:
		g.scrub(sx)
	case g.scrubbing:
		g.scrubbing = false
	case down:
		if math.Hypot(sx-g.pressX, sy-g.pressY) > 3 {
			g.dragging = true
		}
		switch {
		case g.dragging && g.moving >= 0:
			if v.Selected != g.moving {
				v.Select(g.moving)
				if g.OnSelect != nil {
					g.OnSelect(v.Selected)
				}
			}
			_, wy := v.Cam.ToWorld(float64(cx), float64(cy))
			if v.DragTo(g.moving, g.moveStart, g.pressWY, wy) && g.OnPlace != nil {
				g.OnPlace(false)
			}
		case g.dragging:
			v.Drag(sx-g.lastX, sy-g.lastY)
		}
		g.lastX, g.lastY = sx, sy
	case justUp:
		if !g.dragging {
			g.click(sx, sy)
		}
		if g.dragging && g.moving >= 0 && v.Hand != nil {
			v.Hand.EndDrag()
			if g.OnPlace != nil {
				g.OnPlace(true)
			}
		}
		g.dragging, g.moving = false, -1
	}

	if moved := sx != g.lastCursorX || sy != g.lastCursorY; moved {
		g.left = false
	}
	if !g.left && (sx != g.lastCursorX || sy != g.lastCursorY || v.Dirty) {
		g.lastCursorX, g.lastCursorY = sx, sy
		h := v.HitAt(sx, sy)
		changed, liveChanged := v.SetPointer(h, v.LiveAt(sx, sy))
		if g.OnHover != nil && (changed || h.Tensor >= 0) {
			g.OnHover(h, sx, sy)
		}
		if g.OnLiveHover != nil && liveChanged {
			g.OnLiveHover(v.LiveHover, sx, sy)
		}
	}
	return nil
}

// scrub puts the time cursor at the step under x.
func (g *Game) scrub(sx float64) {
	if g.V.SetCursor(g.V.StepAt(sx)) && g.OnCursor != nil {
		g.OnCursor(g.V.Cursor)
	}
}

// click selects what is under the pointer; a second click in the same
// place soon after fits the view instead.
func (g *Game) click(sx, sy float64) {
	v := g.V
	// A double click fits the view: two clicks in a third of a second at
	// the same spot. Two quick clicks on different tensors are two
	// selections.
	if g.tick-g.lastClick < 20 && math.Hypot(sx-g.lastClickX, sy-g.lastClickY) <= 6 {
		g.lastClick = -100
		v.Cam.Fit()
		v.Dirty = true
		return
	}
	g.lastClick, g.lastClickX, g.lastClickY = g.tick, sx, sy
	h := v.HitAt(sx, sy)
	if int(h.Tensor) == v.Selected {
		return
	}
	v.Select(int(h.Tensor))
	if g.OnSelect != nil {
		g.OnSelect(v.Selected)
	}
}

// Draw redraws only when the view changed: the screen is not cleared
// between frames.
func (g *Game) Draw(screen *ebiten.Image) {
	if !g.V.Dirty {
		return
	}
	g.R.Draw(screen, g.V)
	g.Draws++
}

// Layout draws at the device's resolution: the outside size is in CSS
// pixels, and a picture that size would be stretched, blurred or blocky,
// on a screen of 2 device pixels per CSS pixel.
func (g *Game) Layout(w, h int) (int, int) {
	s := ebiten.Monitor().DeviceScaleFactor()
	g.V.SetScale(s)
	dw, dh := int(math.Ceil(float64(w)*g.V.Scale)), int(math.Ceil(float64(h)*g.V.Scale))
	g.V.Resize(dw, dh)
	return dw, dh
}

// DrawFinalScreen copies the picture to the window without blending: it
// is opaque, and on a software rasterizer (WebGL on SwiftShader) the
// blend's read of every pixel is a cost paid each frame.
func (g *Game) DrawFinalScreen(screen ebiten.FinalScreen, offscreen *ebiten.Image, geoM ebiten.GeoM) {
	screen.DrawImage(offscreen, &ebiten.DrawImageOptions{GeoM: geoM, Blend: ebiten.BlendCopy})
}
