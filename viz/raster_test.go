package viz

import (
	"testing"
)

// The painter covers a pixel when its centre lies in the quad, left and
// top edges in, right and bottom out, as a GPU rasterizes two triangles;
// later quads paint over earlier ones.
func TestFramePaintCoverage(t *testing.T) {
	a, b, c := RGB{R: 1}, RGB{G: 2}, RGB{B: 3}
	cases := []struct {
		name    string
		q       Quad
		want    [2][2]int // covered columns [x0, x1) and rows [y0, y1)
		painted int
	}{
		{"whole pixels", Quad{1, 1, 3, 2, b, false}, [2][2]int{{1, 3}, {1, 2}}, 2},
		{"centre on the left edge is in", Quad{1.5, 0.5, 2.5, 1.5, b, false}, [2][2]int{{1, 2}, {0, 1}}, 1},
		{"centre on the right edge is out", Quad{0.2, 0, 1.5, 1, b, false}, [2][2]int{{0, 1}, {0, 1}}, 1},
		{"a sliver missing every centre", Quad{2.6, 0, 3.4, 4, b, false}, [2][2]int{{3, 3}, {0, 4}}, 0},
		{"clipped to the frame", Quad{-5, -5, 2, 100, b, false}, [2][2]int{{0, 2}, {0, 4}}, 8},
	}
	for _, tc := range cases {
		f := &frame{}
		f.resize(4, 4)
		if got := f.paint([]Quad{{0, 0, 4, 4, a, false}, tc.q}, c, 1); got != 16+tc.painted {
			t.Errorf("%s: painted %d pixels, want %d", tc.name, got, 16+tc.painted)
		}
		for y := range 4 {
			for x := range 4 {
				in := tc.want[0][0] <= x && x < tc.want[0][1] && tc.want[1][0] <= y && y < tc.want[1][1]
				want := packRGB(a)
				if in {
					want = packRGB(b)
				}
				if got := f.pix[y*4+x]; got != want {
					t.Errorf("%s: pixel (%d, %d) is %08x, want %08x", tc.name, x, y, got, want)
				}
			}
		}
	}
}

// Hatched quads are striped in cells of gs×gs pixels: lit where the
// cells' x+y is 0 or 1 mod 8, the gap colour (mixed toward the
// background) elsewhere, at the frame's coordinates wherever the quad is.
func TestFramePaintHatch(t *testing.T) {
	c, bg := Dark.Guard, Dark.Background
	gap := c.Mix(bg, HatchGap)
	for _, gs := range []int{1, 2} {
		f := &frame{}
		f.resize(40, 20)
		f.paint([]Quad{{3, 2, 37, 19, c, true}}, bg, gs)
		for y := 2; y < 19; y++ {
			for x := 3; x < 37; x++ {
				want := gap
				if (x/gs+y/gs)%8 < 2 {
					want = c
				}
				if got := f.pix[y*40+x]; got != packRGB(want) {
					t.Fatalf("scale %d: pixel (%d, %d) is %08x, want %08x", gs, x, y, got, packRGB(want))
				}
			}
		}
	}
}

// The rows to upload are those where two frames differ.
func TestChangedRows(t *testing.T) {
	cases := []struct {
		w, h   int
		change []int // pixels that differ
		y0, y1 int
	}{
		{5, 6, nil, 0, 0},
		{5, 6, []int{2*5 + 4, 3 * 5}, 2, 4},
		{5, 6, []int{0}, 0, 1},
		{5, 6, []int{29}, 5, 6},
		{3, 3, []int{8}, 2, 3}, // the odd pixel out of the pairs
		{3, 3, []int{4, 8}, 1, 3},
		{3, 3, nil, 0, 0},
	}
	for _, c := range cases {
		f, g := &frame{}, &frame{}
		f.resize(c.w, c.h)
		g.resize(c.w, c.h)
		for _, i := range c.change {
			g.pix[i] = 1
		}
		if y0, y1 := changedRows(f, g); y0 != c.y0 || y1 != c.y1 {
			t.Errorf("%d×%d, pixels %v changed: rows [%d, %d), want [%d, %d)", c.w, c.h, c.change, y0, y1, c.y0, c.y1)
		}
	}
}
