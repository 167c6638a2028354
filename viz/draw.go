package viz

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

// quadShader colours each pixel from its vertex colour alone, and stripes
// hatched quads (Custom0 = 1) in screen space: no texture is read. On a
// software rasterizer (WebGL on SwiftShader) texture sampling, and the
// repeat addressing a shared stripe texture needed, were a cost paid per
// pixel per frame.
//
// The stripes are those of an 8×8 tile (of Scale×Scale pixel cells)
// whose cell (x, y) is lit when (x+y) mod 8 < 2; the gaps are the colour
// mixed most of the way to the background, so a hatched quad stays opaque
// and reads as stripes on either theme.
const quadShader = `//kage:unit pixels

package main

var Background vec3
var Scale float

func Fragment(dstPos vec4, srcPos vec2, color vec4, custom vec4) vec4 {
	if custom.x > 0.5 {
		p := floor((dstPos.xy - imageDstOrigin()) / Scale)
		if mod(p.x+p.y, 8) >= 2 {
			return vec4(mix(color.rgb, Background, HatchGap), 1)
		}
	}
	return vec4(color.rgb, 1)
}

const HatchGap = 0.65
`

// HatchGap is how far a hatch's gaps go from its colour toward the
// background (the shader's constant of the same name).
const HatchGap = 0.65

// Renderer draws a View's quads, labels and background included, in one
// DrawTrianglesShader32 call.
type Renderer struct {
	shader *ebiten.Shader
	verts  []ebiten.Vertex
	idx    []uint32
	quads  []Quad

	// Stats of the last frame, for measuring: quads drawn and the time
	// spent building them and their vertices.
	LastQuads int
	LastBuild time.Duration
}

// NewRenderer compiles the quad shader.
func NewRenderer() *Renderer {
	s, err := ebiten.NewShader([]byte(quadShader))
	if err != nil {
		panic("viz: quad shader: " + err.Error()) // a constant: a bug, not an input
	}
	return &Renderer{shader: s}
}

// Draw draws the whole view onto dst and clears the view's dirty flag.
func (r *Renderer) Draw(dst *ebiten.Image, v *View) {
	start := time.Now()
	// The background is the first quad of the batch rather than a Fill:
	// a separate full-screen pass costs as much as the quads themselves
	// on a software rasterizer.
	b := dst.Bounds()
	th := v.Theme
	r.quads = append(r.quads[:0], Quad{float32(b.Min.X), float32(b.Min.Y), float32(b.Max.X), float32(b.Max.Y), th.Background, false})
	r.quads = v.Quads(r.quads)
	r.verts, r.idx = appendVertices(r.verts[:0], r.idx[:0], r.quads)
	r.LastQuads, r.LastBuild = len(r.quads), time.Since(start)
	// Every quad is opaque: copying without blending spares a software
	// rasterizer reading the screen back.
	op := &ebiten.DrawTrianglesShaderOptions{Blend: ebiten.BlendCopy, Uniforms: map[string]any{
		"Background": []float32{float32(th.Background.R) / 255, float32(th.Background.G) / 255, float32(th.Background.B) / 255},
		"Scale":      float32(v.m.gs),
	}}
	dst.DrawTrianglesShader32(r.verts, r.idx, r.shader, op)
	v.Dirty = false
}

// appendVertices turns quads into two triangles each.
func appendVertices(vs []ebiten.Vertex, is []uint32, qs []Quad) ([]ebiten.Vertex, []uint32) {
	for _, q := range qs {
		n := uint32(len(vs))
		cr, cg, cb := float32(q.C.R)/255, float32(q.C.G)/255, float32(q.C.B)/255
		var h float32
		if q.Hatch {
			h = 1
		}
		corner := func(x, y float32) ebiten.Vertex {
			return ebiten.Vertex{DstX: x, DstY: y, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: 1, Custom0: h}
		}
		vs = append(vs, corner(q.X0, q.Y0), corner(q.X1, q.Y0), corner(q.X0, q.Y1), corner(q.X1, q.Y1))
		is = append(is, n, n+1, n+2, n+1, n+3, n+2)
	}
	return vs, is
}
