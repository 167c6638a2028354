package viz

import (
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

// Renderer draws a View's quads, labels included, in one DrawTriangles32
// call.
type Renderer struct {
	// src is an 8×8 opaque stripe pattern, white stripes on grey, whose
	// texel (0, 0) is white: solid quads sample only that texel, hatched
	// quads sample the pattern in screen space with repeat addressing, so
	// both share one call.
	src   *ebiten.Image
	verts []ebiten.Vertex
	idx   []uint32
	quads []Quad

	// Stats of the last frame, for measuring: quads drawn and the time
	// spent building them and their vertices.
	LastQuads int
	LastBuild time.Duration
}

const (
	hatchSize = 8
	hatchGap  = 110 // brightness of the gaps between stripes, of 255
)

// NewRenderer makes the shared source pattern.
func NewRenderer() *Renderer {
	img := ebiten.NewImage(hatchSize, hatchSize)
	pix := make([]byte, 4*hatchSize*hatchSize)
	for y := 0; y < hatchSize; y++ {
		for x := 0; x < hatchSize; x++ {
			v := byte(hatchGap)
			if (x+y)%hatchSize < 2 {
				v = 255
			}
			copy(pix[4*(y*hatchSize+x):], []byte{v, v, v, 255})
		}
	}
	img.WritePixels(pix)
	return &Renderer{src: img}
}

// Draw draws the whole view onto dst and clears the view's dirty flag.
func (r *Renderer) Draw(dst *ebiten.Image, v *View) {
	start := time.Now()
	r.quads = v.Quads(r.quads[:0])
	r.verts, r.idx = appendVertices(r.verts[:0], r.idx[:0], r.quads)
	r.LastQuads, r.LastBuild = len(r.quads), time.Since(start)
	// Every quad is opaque: copying without blending spares a software
	// rasterizer (WebGL on SwiftShader) reading the screen back.
	dst.Fill(color.RGBA{Background.R, Background.G, Background.B, 255})
	op := &ebiten.DrawTrianglesOptions{Address: ebiten.AddressRepeat, Blend: ebiten.BlendCopy}
	dst.DrawTriangles32(r.verts, r.idx, r.src, op)
	v.Dirty = false
}

// appendVertices turns quads into two triangles each.
func appendVertices(vs []ebiten.Vertex, is []uint32, qs []Quad) ([]ebiten.Vertex, []uint32) {
	for _, q := range qs {
		n := uint32(len(vs))
		cr, cg, cb := float32(q.C.R)/255, float32(q.C.G)/255, float32(q.C.B)/255
		corner := func(x, y float32) ebiten.Vertex {
			sx, sy := float32(0.5), float32(0.5)
			if q.Hatch {
				sx, sy = x, y
			}
			return ebiten.Vertex{DstX: x, DstY: y, SrcX: sx, SrcY: sy, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: 1}
		}
		vs = append(vs, corner(q.X0, q.Y0), corner(q.X1, q.Y0), corner(q.X0, q.Y1), corner(q.X1, q.Y1))
		is = append(is, n, n+1, n+2, n+1, n+3, n+2)
	}
	return vs, is
}
