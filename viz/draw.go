package viz

import (
	"image"
	"time"
	"unsafe"

	"github.com/hajimehoshi/ebiten/v2"
)

// Renderer paints a View, labels and background included, into a frame of
// pixels (raster.go) and uploads to the image drawn into the rows that
// differ from what it last uploaded there.
type Renderer struct {
	painter
	dst *ebiten.Image // the image the painter's last frame went to

	// The last frame's quads and the time spent building and painting
	// them, for measuring (Stats.Quads is the same count).
	LastQuads int
	LastBuild time.Duration
}

// NewRenderer is a renderer with nothing drawn yet.
func NewRenderer() *Renderer { return &Renderer{} }

// Draw draws the whole view onto dst and clears the view's dirty flag.
func (r *Renderer) Draw(dst *ebiten.Image, v *View) {
	start := time.Now()
	b := dst.Bounds()
	y0, rows := r.paint(v, b.Dx(), b.Dy(), dst != r.dst)
	r.LastQuads, r.LastBuild = r.Stats.Quads, time.Since(start)
	r.dst = dst
	if len(rows) == 0 {
		return
	}
	pix := unsafe.Slice((*byte)(unsafe.Pointer(&rows[0])), 4*len(rows))
	dst.SubImage(image.Rect(b.Min.X, b.Min.Y+y0, b.Max.X, b.Min.Y+y0+len(rows)/b.Dx())).(*ebiten.Image).WritePixels(pix)
}
