// Package svgplot draws a memory plan as an SVG picture: the canvas's
// picture (x = schedule step, y = arena offset, a rectangle per buffer,
// the arena, lower-bound and budget lines, axes and labels) as vector
// shapes that stay crisp in documents and papers and open in any browser.
// It paints with viz/palette's themes and viz/axis's ticks, the canvas's
// own, and has no ebiten: the command line (memplan plan --svg) and the
// browser's planner worker both use it.
package svgplot

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"memplan/ir"
	"memplan/planner"
	"memplan/viz/axis"
	"memplan/viz/palette"
)

// Options choose the picture's size, theme and budget line.
type Options struct {
	// Width and Height of the whole picture in CSS pixels; 0 means 960
	// by 540.
	Width, Height int
	// Theme names the colours, "dark" or "light"; "" means light, which
	// prints well.
	Theme string
	// Budget draws a budget line at this many bytes, red when the arena
	// crosses it; 0 draws none.
	Budget int64
}

// The margins round the plot, in pixels: room for the y axis's labels on
// the left, the title (and the legend, where it fits beside it) on top
// and the x axis's labels below.
const (
	marginLeft   = 84
	marginRight  = 16
	marginTop    = 40
	marginBottom = 44
	fontSize     = 12
)

// Write writes the plan's picture to w. Every buffer that owns arena bytes
// is one <rect class="buffer"> whose data-name, data-offset, data-size,
// data-birth and data-death attributes name what it shows, so scripts and
// tests can find it; each has a <title>, which browsers show as a tooltip.
func Write(w io.Writer, p *planner.Plan, o Options) error {
	th := palette.Named(o.Theme)
	if o.Theme == "" {
		th = palette.Light
	}
	if th == nil {
		return fmt.Errorf("svg: unknown theme %q (want dark or light)", o.Theme)
	}
	width, height := o.Width, o.Height
	if width == 0 && height == 0 {
		width, height = 960, 540
	}
	if width < marginLeft+marginRight+16 || height < marginTop+marginBottom+16 || width > 1<<15 || height > 1<<15 {
		return fmt.Errorf("svg: a picture of %d×%d pixels cannot hold the plot", width, height)
	}
	// The legend names the kinds of the buffers that own bytes, views and
	// guards, as the canvas's (the lines are labelled where they are
	// drawn).
	var on [len(legendKinds) + 1]bool
	steps := float64(max(p.Steps, 1))
	for i := range p.Tensors {
		t := &p.Tensors[i]
		steps = max(steps, float64(t.Death+1))
		for k, kind := range legendKinds {
			on[k] = on[k] || t.Offset >= 0 && (t.Placed() && t.Kind == kind || kind == planner.KindView && t.IsView())
		}
		on[len(legendKinds)] = on[len(legendKinds)] || t.Offset >= 0 && t.Placed() && t.Guard > 0
	}
	top := max(p.ArenaSize, p.LowerBound, 1)
	if o.Budget <= 4*top {
		// As the canvas: a far-off budget would squash the plot into a
		// sliver, so the plot reaches it only within 4x of the arena.
		top = max(top, o.Budget)
	}
	// It sits beside the title where it fits, else in a row below it,
	// pressed to the picture's width where it is wider (widths are
	// guesses from the bytes of the text: the reader's font draws it).
	lw, ly, fit := 0.0, 18, ""
	for k := range on {
		if on[k] {
			lw += 0.55 * fontSize * float64(len(legendMarks[k])+3)
		}
	}
	plot := rect{marginLeft, marginTop, float64(width - marginRight), float64(height - marginBottom)}
	if 8+0.6*fontSize*float64(len(title(p)))+24+lw > plot.x1 {
		ly, plot.y0 = 36, min(marginTop+20, plot.y1-16)
		if lw > plot.x1-8 {
			fit = fmt.Sprintf(` textLength="%d" lengthAdjust="spacingAndGlyphs"`, width-marginRight-8)
		}
	}
	// A budget beyond the plot is named above it, clear of the buffers:
	// beside the arena's label where the row has room (past the y axis's
	// title), else on a row of its own over it.
	var farX, farY float64
	var farText string
	if o.Budget > top {
		farText = budgetText(p, o.Budget) + " \u2191"
		farX, farY = plot.x1-4, plot.y0-4
		arenaW := guessWidth("arena " + ir.FormatBytes(p.ArenaSize))
		if plot.x1-4-arenaW-16-guessWidth(farText) >= 8+guessWidth("offset (MiB)")+16 {
			farX -= arenaW + 16
		} else {
			plot.y0 = min(plot.y0+16, plot.y1-16)
		}
	}
	kx, ky := (plot.x1-plot.x0)/steps, (plot.y1-plot.y0)/float64(top)
	x := func(step float64) float64 { return plot.x0 + step*kx }
	y := func(offset float64) float64 { return plot.y1 - offset*ky }

	b := bufio.NewWriter(w)
	f := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, sans-serif" font-size="%d">`+"\n",
		width, height, width, height, fontSize)
	f("<title>%s</title>\n", esc(title(p)))
	f(`<rect class="background" width="%d" height="%d" fill="%s"/>`+"\n", width, height, th.Background.Hex())
	f(`<rect class="plot" x="%s" y="%s" width="%s" height="%s" fill="none" data-steps="%s" data-top="%d"/>`+"\n",
		num(plot.x0), num(plot.y0), num(plot.x1-plot.x0), num(plot.y1-plot.y0), num(steps), top)

	// Grid and ticks, as the canvas chooses them.
	byteTicks, unit := axis.ByteTicks(0, float64(top), ky, 48)
	stepTicks := axis.StepTicks(0, steps, kx, 64)
	f(`<g class="grid" stroke="%s" stroke-width="1" shape-rendering="crispEdges">`+"\n", th.Grid.Hex())
	for _, t := range byteTicks {
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(plot.x0), num(y(t.V)), num(plot.x1), num(y(t.V)))
	}
	f("</g>\n")

	// Buffers, their guard bands, then views outlined on top.
	f(`<g class="buffers" shape-rendering="crispEdges">` + "\n")
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if !t.Placed() || t.Offset < 0 {
			continue
		}
		x0, x1 := x(float64(t.Birth)), x(float64(t.Death+1))
		y0, y1 := y(float64(t.Offset)+float64(t.Size)), y(float64(t.Offset))
		f(`<rect class="buffer" x="%s" y="%s" width="%s" height="%s" fill="%s" data-name="%s" data-kind="%s" data-offset="%d" data-size="%d" data-birth="%d" data-death="%d"><title>%s</title></rect>`+"\n",
			num(x0), num(y0), num(x1-x0), num(y1-y0), th.TensorColor(p, i, false).Hex(), esc(ir.Display(t.Name)), esc(ir.Display(string(t.Kind))),
			t.Offset, t.Size, t.Birth, t.Death, esc(describe(t)))
		if t.Guard > 0 {
			g0 := y(float64(t.Offset) + float64(t.Size) + float64(t.Guard))
			f(`<rect class="guard" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.5"/>`+"\n",
				num(x0), num(g0), num(x1-x0), num(y0-g0), th.Guard.Hex())
		}
	}
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if !t.IsView() || t.Offset < 0 {
			continue
		}
		x0, x1 := x(float64(t.Birth)), x(float64(t.Death+1))
		y0, y1 := y(float64(t.Offset)+float64(t.Size)), y(float64(t.Offset))
		f(`<rect class="view" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s" stroke-width="1.5" data-name="%s"><title>%s</title></rect>`+"\n",
			num(x0), num(y0), num(x1-x0), num(y1-y0), th.View.Hex(), esc(ir.Display(t.Name)), esc(describe(t)))
	}
	f("</g>\n")

	// The arena, the lower bound and the budget, labelled at the right.
	// A label sits above its line, or dy below it where another's would
	// cover it; a budget above the plot is a label at its top.
	line := func(class string, at int64, c palette.RGB, dash, label string, dy float64) {
		yy := num(y(float64(at)))
		if at <= top {
			f(`<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5"%s/>`+"\n",
				class, num(plot.x0), yy, num(plot.x1), yy, c.Hex(), dash)
		}
		// Haloed in the background's colour: a label may lie over buffers.
		f(`<text class="%s-label" x="%s" y="%s" text-anchor="end" fill="%s" stroke="%s" stroke-width="3" stroke-linejoin="round" paint-order="stroke">%s</text>`+"\n",
			class, num(plot.x1-4), num(y(float64(min(at, top)))+dy), c.Hex(), th.Background.Hex(), esc(label))
	}
	line("arena", p.ArenaSize, th.Arena, "", "arena "+ir.FormatBytes(p.ArenaSize), -4)
	if p.LowerBound != p.ArenaSize {
		dy := -4.0
		if y(float64(p.LowerBound))-y(float64(p.ArenaSize)) < 14 {
			dy = 13
		}
		line("lower-bound", p.LowerBound, th.Lower, ` stroke-dasharray="6 4"`, "lower bound "+ir.FormatBytes(p.LowerBound), dy)
	}
	if o.Budget > 0 {
		c := th.BudgetOK
		if p.ArenaSize > o.Budget {
			c = th.BudgetOver
		}
		if farText != "" {
			f(`<text class="budget-label" x="%s" y="%s" text-anchor="end" fill="%s">%s</text>`+"\n", num(farX), num(farY), c.Hex(), esc(farText))
		} else {
			line("budget", o.Budget, c, ` stroke-dasharray="2 3"`, budgetText(p, o.Budget), -4)
		}
	}

	// Axes, ticks and their labels.
	f(`<g class="axes" stroke="%s" stroke-width="1" shape-rendering="crispEdges">`+"\n", th.Axis.Hex())
	f(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(plot.x0), num(plot.y0), num(plot.x0), num(plot.y1))
	f(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(plot.x0), num(plot.y1), num(plot.x1), num(plot.y1))
	for _, t := range stepTicks {
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x(t.V)), num(plot.y1), num(x(t.V)), num(plot.y1+4))
	}
	for _, t := range byteTicks {
		f(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(plot.x0-4), num(y(t.V)), num(plot.x0), num(y(t.V)))
	}
	f("</g>\n")
	f(`<g class="labels" fill="%s">`+"\n", th.Text.Hex())
	for _, t := range stepTicks {
		f(`<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(x(t.V)), num(plot.y1+17), esc(t.Label))
	}
	for _, t := range byteTicks {
		f(`<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", num(plot.x0-7), num(y(t.V)), esc(t.Label))
	}
	f(`<text x="%s" y="%d" text-anchor="middle">step</text>`+"\n", num((plot.x0+plot.x1)/2), height-8)
	f(`<text x="8" y="%s">offset (%s)</text>`+"\n", num(plot.y0-8), unit)
	f(`<text x="8" y="18" font-weight="600">%s</text>`+"\n", esc(title(p)))
	f("</g>\n")

	// The legend: a swatch in each entry's colour, and its name.
	f(`<text class="legend" x="%d" y="%d" text-anchor="end" fill="%s"%s>`, width-marginRight, ly, th.Text.Hex(), fit)
	sep := ""
	for k := range on {
		if on[k] {
			c, half := th.Guard, ` fill-opacity="0.5"`
			if k < len(legendKinds) {
				c, half = th.KindColor(legendKinds[k]), ""
			}
			// The swatch is the entry's first rune (3 bytes), then its name.
			f(`%s<tspan fill="%s"%s>%s</tspan>%s`, sep, c.Hex(), half, legendMarks[k][:3], legendMarks[k][3:])
			sep = "\u00a0\u00a0 "
		}
	}
	f("</text>\n")
	f("</svg>\n")
	return b.Flush()
}

// The legend's entries, in the canvas's order (the kinds in the data's
// flow, views, then guards): the kind, and the entry, its swatch (a
// glyph in the entry's colour: a view's an outline, as views are drawn,
// a guard's half opaque) and its name.
var (
	legendKinds = [...]planner.Kind{planner.KindInput, planner.KindParam, planner.KindConstant, planner.KindActivation, planner.KindOutput, planner.KindView}
	legendMarks = [...]string{"\u25a0 input", "\u25a0 param", "\u25a0 constant", "\u25a0 activation", "\u25a0 output", "\u25a1 view", "\u25a0 guard"}
)

type rect struct{ x0, y0, x1, y1 float64 }

// budgetText names the budget line, and by how much the arena crosses it.
func budgetText(p *planner.Plan, budget int64) string {
	s := "budget " + ir.FormatBytes(budget)
	if p.ArenaSize > budget {
		s += " exceeded by " + ir.FormatBytes(p.ArenaSize-budget)
	}
	return s
}

// guessWidth is how wide text is drawn at the font size, guessed from
// its runes (the reader's font draws it).
func guessWidth(s string) float64 { return 0.6 * fontSize * float64(utf8.RuneCountInString(s)) }

// title is the picture's heading: the graph, its strategy and its arena.
func title(p *planner.Plan) string {
	name := ir.Display(p.Name)
	if name == "" {
		name = "plan"
	}
	s := fmt.Sprintf("%s — %s, arena %s", name, ir.Display(p.Strategy), ir.FormatBytes(p.ArenaSize))
	if p.Optimal || p.OptimalBySearch {
		s += " (optimal)"
	}
	return s
}

// describe is a buffer's tooltip.
func describe(t *planner.PlanTensor) string {
	// Names as ir.Display shows them: XML allows no control characters,
	// escaped or not.
	s := fmt.Sprintf("%s (%s, %s): %s at offset %d, steps %d–%d", ir.Display(t.Name), ir.Display(string(t.Kind)), ir.Display(t.Op), ir.FormatBytes(t.Size), t.Offset, t.Birth, t.Death)
	if t.Root != "" {
		s += ", view of " + ir.Display(t.Root)
	}
	return s
}

// num writes a coordinate with two decimals at most: crisp enough, and
// short.
func num(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// esc escapes text for an element's content or a quoted attribute.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			// XML 1.0 has no way to write most control characters.
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
				b.WriteRune('\uFFFD')
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
