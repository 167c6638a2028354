package viz

import (
	"math"
	"unsafe"
)

// The picture is painted here, on the CPU, into a frame of pixels that the
// renderer uploads to the GPU. With WebGL on a software rasterizer
// (SwiftShader, on machines with no GPU) each pass over a 960×560 canvas
// cost the GPU process about 5 ms of CPU: a frame drawn as triangles paid
// for the background, the quads over it and the copy to the canvas, on top
// of ebiten's clear of the canvas, and about half a microsecond for every
// quad. Painted here, it costs the upload of the rows that changed and the
// copy; the painting itself takes under a millisecond of wasm.

// painter paints views into frames: Renderer's plain Go, which tests can
// run without a display.
type painter struct {
	quads     []Quad
	cur, next frame // the frame painted last, and the one before it

	// Stats are the work of the last frame, for measuring and for tests
	// that hold it down.
	Stats FrameStats
}

// FrameStats counts the work of a frame.
type FrameStats struct {
	Quads    int // quads painted, the background's included
	Built    int // items walked to build the plot's quads again; 0 when they were only moved
	Painted  int // pixels written, counting overdraw
	Uploaded int // bytes uploaded to the GPU
}

// paint paints the view, w×h pixels, and returns the rows to upload from
// y0 on: those that differ from the frame painted before, or all when
// fresh (the image drawn into is another one, or new); none when nothing
// changed. The rows stay valid until the next paint.
func (p *painter) paint(v *View, w, h int, fresh bool) (y0 int, rows []uint32) {
	th := v.Theme
	// The background is the first quad, under everything.
	p.quads = append(p.quads[:0], Quad{0, 0, float32(w), float32(h), th.Background, false})
	walked := v.walked
	p.quads = v.Quads(p.quads)
	p.next.resize(w, h)
	painted := p.next.paint(p.quads, th.Background, v.m.gs)
	v.Dirty = false
	y0, y1 := 0, h
	if !fresh && p.cur.w == w && p.cur.h == h {
		y0, y1 = changedRows(&p.next, &p.cur)
	}
	p.cur, p.next = p.next, p.cur
	rows = p.cur.pix[y0*w : y1*w]
	p.Stats = FrameStats{Quads: len(p.quads), Built: v.walked - walked, Painted: painted, Uploaded: 4 * len(rows)}
	return y0, rows
}

// HatchGap is how far a hatch's gaps go from its colour toward the
// background.
const HatchGap = 0.65

// frame is a picture of w×h pixels, RGBA with alpha 255, four bytes a
// pixel in memory order (little-endian R, G, B, A), as ebiten's
// WritePixels takes them.
type frame struct {
	w, h int
	pix  []uint32
}

// resize makes the frame w×h; it reports whether it changed size (its
// pixels are then undefined).
func (f *frame) resize(w, h int) bool {
	if f.w == w && f.h == h && f.pix != nil {
		return false
	}
	f.w, f.h = w, h
	if cap(f.pix) < w*h {
		f.pix = make([]uint32, w*h)
	}
	f.pix = f.pix[:w*h]
	return true
}

func packRGB(c RGB) uint32 { return uint32(c.R) | uint32(c.G)<<8 | uint32(c.B)<<16 | 0xff000000 }

// paint paints quads in order, each over those before, as the GPU would
// draw them: a pixel is covered when its centre lies inside the quad, on
// the left or top edge included. Hatched quads take stripes of gs×gs
// pixel cells, lit where (x+y) mod 8 < 2 in cells, the rest the colour
// mixed toward bg by HatchGap. It returns the pixels written.
func (f *frame) paint(qs []Quad, bg RGB, gs int) int {
	w, h := f.w, f.h
	painted := 0
	for i := range qs {
		q := &qs[i]
		x0, x1 := span(q.X0, q.X1, w)
		y0, y1 := span(q.Y0, q.Y1, h)
		if x1 <= x0 || y1 <= y0 {
			continue
		}
		painted += (x1 - x0) * (y1 - y0)
		c := packRGB(q.C)
		if !q.Hatch {
			row := f.pix[y0*w+x0 : y0*w+x1]
			for i := range row {
				row[i] = c
			}
			for y := y0 + 1; y < y1; y++ {
				copy(f.pix[y*w+x0:y*w+x1], row)
			}
			continue
		}
		gap := packRGB(q.C.Mix(bg, HatchGap))
		for y := y0; y < y1; y++ {
			row := f.pix[y*w : y*w+x1]
			cy := y / gs
			for x := x0; x < x1; x++ {
				if (x/gs+cy)%8 < 2 {
					row[x] = c
				} else {
					row[x] = gap
				}
			}
		}
	}
	return painted
}

// span is the pixels [p0, p1) whose centres lie in [a, b), within [0, n).
func span(a, b float32, n int) (int, int) {
	p0 := int(math.Ceil(float64(a) - 0.5))
	p1 := int(math.Ceil(float64(b) - 0.5))
	if p0 < 0 {
		p0 = 0
	}
	if p1 > n {
		p1 = n
	}
	return p0, p1
}

// changedRows is the rows [y0, y1) where f and g differ; y0 == y1 when
// none do. Both are the same size. A frame where little changed is
// compared whole, so pixels are compared two at a time: on wasm that is
// about twice as fast as comparing rows as bytes.
func changedRows(f, g *frame) (int, int) {
	n := len(f.pix) / 2
	a := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f.pix))), n)
	b := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(g.pix))), n)
	i, j := 0, n
	for i < j && a[i] == b[i] {
		i++
	}
	for j > i && a[j-1] == b[j-1] {
		j--
	}
	lo, hi := 2*i, 2*j // the pixels that differ lie in [lo, hi)
	if last := len(f.pix) - 1; last%2 == 0 && f.pix[last] != g.pix[last] {
		lo, hi = min(lo, last), last+1
	}
	if lo >= hi {
		return 0, 0
	}
	return lo / f.w, (hi + f.w - 1) / f.w
}
