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
	quads     []Quad
	cur, next frame         // what dst shows, and the frame being painted
	dst       *ebiten.Image // the image cur was uploaded to

	// Stats are the work of the last frame, for measuring and for tests
	// that hold it down.
	Stats FrameStats

	// The last frame's quads and the time spent building and painting
	// them, for measuring (Stats.Quads is the same count).
	LastQuads int
	LastBuild time.Duration
}

// FrameStats counts the work of a frame.
type FrameStats struct {
	Quads    int // quads painted, the background's included
	Built    int // items walked to build the plot's quads again; 0 when they were only moved
	Painted  int // pixels written, counting overdraw
	Uploaded int // bytes uploaded to the GPU
}

// NewRenderer is a renderer with nothing drawn yet.
func NewRenderer() *Renderer { return &Renderer{} }

// Draw draws the whole view onto dst and clears the view's dirty flag.
func (r *Renderer) Draw(dst *ebiten.Image, v *View) {
	b := dst.Bounds()
	y0, y1 := r.paint(v, b.Dx(), b.Dy(), dst != r.dst)
	if w := r.next.w; y1 > y0 && w > 0 {
		rows := r.next.pix[y0*w : y1*w]
		pix := unsafe.Slice((*byte)(unsafe.Pointer(&rows[0])), 4*len(rows))
		dst.SubImage(image.Rect(b.Min.X, b.Min.Y+y0, b.Max.X, b.Min.Y+y1)).(*ebiten.Image).WritePixels(pix)
	}
	r.cur, r.next, r.dst = r.next, r.cur, dst
	r.Stats.Uploaded = 4 * r.cur.w * (y1 - y0)
}

// paint paints the view into r.next, w×h pixels, and returns the rows
// [y0, y1) to upload: those that differ from r.cur, or all when fresh
// (the image drawn into is another one, or new).
func (r *Renderer) paint(v *View, w, h int, fresh bool) (int, int) {
	start := time.Now()
	th := v.Theme
	// The background is the first quad, under everything.
	r.quads = append(r.quads[:0], Quad{0, 0, float32(w), float32(h), th.Background, false})
	built := v.walked
	r.quads = v.Quads(r.quads)
	r.next.resize(w, h)
	painted := r.next.paint(r.quads, th.Background, v.m.gs)
	r.Stats = FrameStats{Quads: len(r.quads), Built: v.walked - built, Painted: painted}
	r.LastQuads, r.LastBuild = len(r.quads), time.Since(start)
	v.Dirty = false
	if fresh || r.cur.w != w || r.cur.h != h {
		return 0, h
	}
	return changedRows(&r.next, &r.cur)
}
