package viz

import "unicode/utf8"

// A 5×7 pixel font for axis labels, drawn as quads like everything else:
// no font file, no text package, a few kilobytes of wasm.
// It covers what labels say: digits, lower-case letters, byte units and a
// little punctuation; anything else draws as a box. At a device pixel
// ratio of 2 the glyphs are enlarged with Scale2x (EPX), which rounds
// their diagonals instead of doubling every pixel into a block.

// glyphs maps a rune to seven rows of five pixels ('#' lit).
var glyphs = map[rune][7]string{
	' ': {".....", ".....", ".....", ".....", ".....", ".....", "....."},
	'0': {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	'1': {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'2': {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	'3': {"####.", "....#", "....#", ".###.", "....#", "....#", "####."},
	'4': {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	'5': {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	'6': {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	'7': {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	'8': {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	'9': {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
	'a': {".....", ".....", ".###.", "....#", ".####", "#...#", ".####"},
	'b': {"#....", "#....", "####.", "#...#", "#...#", "#...#", "####."},
	'c': {".....", ".....", ".###.", "#....", "#....", "#...#", ".###."},
	'd': {"....#", "....#", ".####", "#...#", "#...#", "#...#", ".####"},
	'e': {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."},
	'f': {"..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."},
	'g': {".....", ".####", "#...#", "#...#", ".####", "....#", ".###."},
	'h': {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#"},
	'i': {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."},
	'j': {"...#.", ".....", "..##.", "...#.", "...#.", "#..#.", ".##.."},
	'k': {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."},
	'l': {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'm': {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#"},
	'n': {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"},
	'o': {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."},
	'p': {".....", ".....", "####.", "#...#", "####.", "#....", "#...."},
	'q': {".....", ".....", ".####", "#...#", ".####", "....#", "....#"},
	'r': {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."},
	's': {".....", ".....", ".####", "#....", ".###.", "....#", "####."},
	't': {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."},
	'u': {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"},
	'v': {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."},
	'w': {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."},
	'x': {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"},
	'y': {".....", ".....", "#...#", "#...#", ".####", "....#", ".###."},
	'z': {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"},
	'B': {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."},
	'G': {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"},
	'K': {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"},
	'M': {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"},
	'T': {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."},
	'.': {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."},
	',': {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."},
	'-': {".....", ".....", ".....", "#####", ".....", ".....", "....."},
	'+': {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."},
	':': {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."},
	'/': {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."},
	'(': {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."},
	')': {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."},
	'%': {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"},
	'?': {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."},
}

// descenders replace the glyphs of letters that reach below the baseline
// with nine rows, the last two in the blank space under the cell's
// glyphs: a p squeezed into seven rows reads as a rotated r.
var descenders = map[rune][9]string{
	'g': {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."},
	'j': {"...#.", ".....", "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."},
	'p': {".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."},
	'q': {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#"},
	'y': {".....", ".....", "#...#", "#...#", "#...#", "#...#", ".####", "....#", ".###."},
}

var unknownGlyph = [7]string{"#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####"}

// Cell size of the font at scale 1: 5×7 glyphs with room around, fontTop
// blank rows above a glyph.
const (
	CharW   = 6
	CharH   = 11
	fontTop = 2
)

// bitmap is a glyph as rows of lit pixels.
type bitmap [][]bool

func toBitmap(g []string) bitmap {
	b := make(bitmap, len(g))
	for y, row := range g {
		b[y] = make([]bool, len(row))
		for x := range row {
			b[y][x] = row[x] == '#'
		}
	}
	return b
}

// scale2x doubles a bitmap with the EPX rule: a new pixel copies a
// neighbour where two neighbours agree and the other two do not, so
// steps along a diagonal become a smooth line.
func scale2x(b bitmap) bitmap {
	h, w := len(b), len(b[0])
	at := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && b[y][x] }
	out := make(bitmap, 2*h)
	for y := range out {
		out[y] = make([]bool, 2*w)
	}
	for y := range h {
		for x := range w {
			p := b[y][x]
			a, r, l, d := at(x, y-1), at(x+1, y), at(x-1, y), at(x, y+1)
			e0, e1, e2, e3 := p, p, p, p
			if l == a && l != d && a != r {
				e0 = a
			}
			if a == r && a != l && r != d {
				e1 = r
			}
			if d == l && d != r && l != a {
				e2 = l
			}
			if r == d && r != a && d != l {
				e3 = d
			}
			out[2*y][2*x], out[2*y][2*x+1], out[2*y+1][2*x], out[2*y+1][2*x+1] = e0, e1, e2, e3
		}
	}
	return out
}

// fonts[s-1] maps a rune to its bitmap at glyph scale s (1 or 2).
var fonts = func() [2]map[rune]bitmap {
	var f [2]map[rune]bitmap
	f[0], f[1] = map[rune]bitmap{}, map[rune]bitmap{}
	for r, g := range glyphs {
		rows := g[:]
		if d, ok := descenders[r]; ok {
			rows = d[:]
		}
		f[0][r] = toBitmap(rows)
		f[1][r] = scale2x(f[0][r])
	}
	f[0][0] = toBitmap(unknownGlyph[:])
	f[1][0] = scale2x(f[0][0])
	return f
}()

// TextWidth is the width in pixels of s drawn with the label font at
// scale 1.
func TextWidth(s string) float64 { return textWidth(s, 1) }

func textWidth(s string, gs int) float64 {
	// One call, not a loop over the runes: it is inlined wherever a
	// label is measured, and each loop cost the page's wasm about 200
	// bytes.
	return float64(utf8.RuneCountInString(s) * CharW * gs)
}

// appendText appends the quads that draw s at glyph scale gs with its
// top-left corner at (x, y): one quad for each horizontal run of lit
// pixels in a glyph row. Even scales above 2 enlarge the 2× glyphs.
func appendText(dst []Quad, x, y float64, s string, c RGB, gs int) []Quad {
	x, y = float64(int(x)), float64(int(y))
	font, px := fonts[0], gs
	if gs%2 == 0 {
		font, px = fonts[1], gs/2
	}
	for _, r := range s {
		g, ok := font[r]
		if !ok {
			g = font[0]
		}
		for row, bits := range g {
			for col := 0; col < len(bits); {
				if !bits[col] {
					col++
					continue
				}
				end := col
				for end < len(bits) && bits[end] {
					end++
				}
				qy := float32(y) + float32(row*px+fontTop*gs)
				dst = append(dst, Quad{float32(x) + float32(col*px), qy, float32(x) + float32(end*px), qy + float32(px), c, false})
				col = end
			}
		}
		x += float64(CharW * gs)
	}
	return dst
}
