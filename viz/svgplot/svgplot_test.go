package svgplot_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz/palette"
	"memplan/viz/svgplot"
)

func plan(t *testing.T, name string) *planner.Plan {
	t.Helper()
	data, err := examples.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{NodeLimit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// element is one start element, with its attributes by name.
type element struct {
	name  string
	attrs map[string]string
}

// parse reads the picture with encoding/xml, failing on any error.
func parse(t *testing.T, b []byte) []element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []element
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			e := element{se.Name.Local, map[string]string{}}
			for _, a := range se.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		}
	}
}

func float(t *testing.T, e element, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[k], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, k, e.attrs[k], err)
	}
	return v
}

// The picture parses as XML and has one rectangle per buffer that owns
// bytes, placed and sized by its offset, size and life on the plot's
// scale, in its theme colour.
func TestSVGBuffers(t *testing.T) {
	for _, c := range []struct{ file, theme string }{
		{"transformer.json", ""}, {"r1-views.json", "dark"}, {"train-forward.json", "light"},
	} {
		t.Run(c.file, func(t *testing.T) {
			p := plan(t, c.file)
			var b bytes.Buffer
			if err := svgplot.Write(&b, p, svgplot.Options{Theme: c.theme, Budget: p.ArenaSize / 2}); err != nil {
				t.Fatal(err)
			}
			els := parse(t, b.Bytes())
			if len(els) == 0 || els[0].name != "svg" {
				t.Fatal("the root is not <svg>")
			}
			var frame *element
			rects := map[string]element{}
			for i, e := range els {
				switch {
				case e.name == "rect" && e.attrs["class"] == "plot":
					frame = &els[i]
				case e.name == "rect" && e.attrs["class"] == "buffer":
					if _, dup := rects[e.attrs["data-name"]]; dup {
						t.Errorf("two rectangles for %s", e.attrs["data-name"])
					}
					rects[e.attrs["data-name"]] = e
				}
			}
			if frame == nil {
				t.Fatal("no plot frame")
			}
			x0, y0, h := float(t, *frame, "x"), float(t, *frame, "y"), float(t, *frame, "height")
			kx := float(t, *frame, "width") / float(t, *frame, "data-steps")
			ky := h / float(t, *frame, "data-top")
			th := palette.Light
			if c.theme == "dark" {
				th = palette.Dark
			}
			placed := 0
			for i, tn := range p.Tensors {
				if !tn.Placed() {
					continue
				}
				placed++
				r, ok := rects[tn.Name]
				if !ok {
					t.Errorf("%s has no rectangle", tn.Name)
					continue
				}
				// Coordinates are written to 0.01 px.
				near := func(what string, got, want float64) {
					if math.Abs(got-want) > 0.011 {
						t.Errorf("%s: %s = %.3f, want %.3f", tn.Name, what, got, want)
					}
				}
				near("x", float(t, r, "x"), x0+float64(tn.Birth)*kx)
				near("width", float(t, r, "width"), float64(tn.Death+1-tn.Birth)*kx)
				near("bottom", float(t, r, "y")+float(t, r, "height"), y0+h-float64(tn.Offset)*ky)
				near("height", float(t, r, "height"), float64(tn.Size)*ky)
				if got, want := r.attrs["fill"], th.TensorColor(p, i, false).Hex(); got != want {
					t.Errorf("%s: fill %s, want %s", tn.Name, got, want)
				}
			}
			if placed == 0 || len(rects) != placed {
				t.Errorf("%d buffer rectangles for %d placed tensors", len(rects), placed)
			}
			if !strings.Contains(b.String(), `class="budget"`) || !strings.Contains(b.String(), `class="arena"`) {
				t.Error("no arena or budget line")
			}
		})
	}
}

// Names are text, never markup; one that does not print is shown as
// ir.Display shows it, quoted with its escapes.
func TestSVGEscapesNames(t *testing.T) {
	p := &planner.Plan{Name: `<script>&"`, Steps: 2, ArenaSize: 8, LowerBound: 8, Strategy: "x",
		Tensors: []planner.PlanTensor{{Name: "a<b>&\"c'\x01", Kind: planner.KindActivation, Size: 8, Offset: 0, Birth: 0, Death: 1}}}
	var b bytes.Buffer
	if err := svgplot.Write(&b, p, svgplot.Options{}); err != nil {
		t.Fatal(err)
	}
	els := parse(t, b.Bytes())
	found := false
	for _, e := range els {
		found = found || e.attrs["data-name"] == `"a<b>&\"c'\x01"`
		if e.name == "script" {
			t.Error("a name became an element")
		}
	}
	if !found {
		t.Errorf("the name did not survive:\n%s", b.String())
	}
}

func TestSVGRefusesBadOptions(t *testing.T) {
	p := &planner.Plan{Steps: 1, ArenaSize: 1}
	for _, o := range []svgplot.Options{{Theme: "sepia"}, {Width: 10, Height: 10}, {Width: 1 << 20, Height: 500}} {
		if err := svgplot.Write(io.Discard, p, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// The legend names what the picture draws, as the canvas's does: the
// kinds of the buffers that own bytes, views and guards, in the theme's
// colours; beside the title where the picture is wide enough, else in a
// row of its own above the plot, pressed to fit the width.
func TestSVGLegend(t *testing.T) {
	p := plan(t, "transformer.json")
	entries := func(b []byte) (names []string, y string, fit bool) {
		s := string(b)
		i := strings.Index(s, `<text class="legend"`)
		if i < 0 {
			t.Fatal("no legend")
		}
		end := i + strings.Index(s[i:], "</text>")
		for _, e := range parse(t, []byte(s[i:end+len("</text>")])) {
			if e.name == "text" {
				y, fit = e.attrs["y"], e.attrs["textLength"] != ""
			}
		}
		for _, part := range strings.Split(s[i:end], "</tspan>")[1:] {
			names = append(names, strings.TrimSpace(strings.Split(strings.ReplaceAll(part, "\u00a0", " "), "<")[0]))
		}
		return names, y, fit
	}
	var b bytes.Buffer
	if err := svgplot.Write(&b, p, svgplot.Options{Theme: "dark"}); err != nil {
		t.Fatal(err)
	}
	names, y, fit := entries(b.Bytes())
	kinds := map[string]bool{}
	views, guards := false, false
	for _, tn := range p.Tensors {
		kinds[string(tn.Kind)] = kinds[string(tn.Kind)] || tn.Placed()
		views, guards = views || tn.IsView(), guards || tn.Placed() && tn.Guard > 0
	}
	var want []string
	for _, k := range []string{"input", "param", "constant", "activation", "output"} {
		if kinds[k] {
			want = append(want, k)
		}
	}
	if views {
		want = append(want, "view")
	}
	if guards {
		want = append(want, "guard")
	}
	if strings.Join(names, ",") != strings.Join(want, ",") || y != "18" || fit {
		t.Errorf("960 px wide: legend %v at y %s (pressed: %v), want %v beside the title", names, y, fit, want)
	}
	if !strings.Contains(b.String(), `<tspan fill="`+palette.Dark.KindColor(planner.KindActivation).Hex()+`">`) {
		t.Error("the activation swatch is not in the dark theme's colour")
	}
	// Narrow, as on a phone: a row of its own, pressed to the width.
	b.Reset()
	if err := svgplot.Write(&b, p, svgplot.Options{Width: 300, Height: 300}); err != nil {
		t.Fatal(err)
	}
	if _, y, fit := entries(b.Bytes()); y == "18" || !fit {
		t.Errorf("300 px wide: the legend at y %s (pressed: %v), want a row of its own, pressed", y, fit)
	}
	// Params left out of the arena are not in the legend.
	o := planner.DefaultOptions()
	o.SkipParams = true
	in, err := planner.Load("mlp.json", mustRead(t, "mlp.json"), ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	skipped, err := planner.PlanSource(context.Background(), in.Source, o, "", planner.PlaceOptions{NodeLimit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := svgplot.Write(&b, skipped, svgplot.Options{}); err != nil {
		t.Fatal(err)
	}
	if names, _, _ := entries(b.Bytes()); strings.Contains(strings.Join(names, ","), "param") {
		t.Errorf("params skipped, yet the legend has %v", names)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := examples.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A budget far above the arena does not squash the plot into a sliver,
// as on the canvas: the plot reaches it only within 4x of the arena, and
// above that the picture says it is there, at the plot's top.
func TestSVGFarBudget(t *testing.T) {
	p := plan(t, "mlp.json")
	for _, c := range []struct {
		budget int64
		line   bool
	}{{p.ArenaSize * 3, true}, {p.ArenaSize * 40, false}} {
		var b bytes.Buffer
		if err := svgplot.Write(&b, p, svgplot.Options{Budget: c.budget}); err != nil {
			t.Fatal(err)
		}
		var top string
		for _, e := range parse(t, b.Bytes()) {
			if e.name == "rect" && e.attrs["class"] == "plot" {
				top = e.attrs["data-top"]
			}
		}
		want := strconv.FormatInt(max(p.ArenaSize, p.LowerBound), 10)
		if c.line {
			want = strconv.FormatInt(c.budget, 10)
		}
		label := "budget " + ir.FormatBytes(c.budget)
		if !c.line {
			label += " \u2191"
		}
		if top != want || strings.Contains(b.String(), `class="budget"`) != c.line || !strings.Contains(b.String(), ">"+label+"<") {
			t.Errorf("budget %d (%.0fx the arena): the plot reaches %s (want %s), a budget line: %v (want %v), label %q in it: %v",
				c.budget, float64(c.budget)/float64(p.ArenaSize), top, want, strings.Contains(b.String(), `class="budget"`), c.line, label, strings.Contains(b.String(), label))
		}
	}
}

// A budget beyond the plot is named above it, clear of every buffer and
// of the arena's label, at a phone's width as at a page's: not inside the
// plot, over the buffers at its top.
func TestSVGFarBudgetLabelClear(t *testing.T) {
	p := plan(t, "mlp.json")
	for _, size := range [][2]int{{390, 300}, {640, 300}, {1280, 300}, {960, 540}, {200, 200}} {
		var b bytes.Buffer
		if err := svgplot.Write(&b, p, svgplot.Options{Budget: p.ArenaSize * 40, Width: size[0], Height: size[1]}); err != nil {
			t.Fatal(err)
		}
		f := func(e element, k string) float64 {
			v, err := strconv.ParseFloat(e.attrs[k], 64)
			if err != nil {
				t.Fatalf("%dx%d: %s's %s: %v", size[0], size[1], e.name, k, err)
			}
			return v
		}
		var label, arena, plot *element
		var buffers []element
		els := parse(t, b.Bytes())
		for i, e := range els {
			switch e.attrs["class"] {
			case "budget-label":
				label = &els[i]
			case "arena-label":
				arena = &els[i]
			case "plot":
				plot = &els[i]
			case "buffer":
				buffers = append(buffers, e)
			}
		}
		if label == nil || arena == nil || plot == nil || len(buffers) == 0 {
			t.Fatalf("%dx%d: the picture lacks the budget's label, the arena's, the plot or buffers", size[0], size[1])
		}
		// A text's baseline is its y: the glyphs rise 12 px above it.
		ly := f(*label, "y")
		if ly > f(*plot, "y") {
			t.Errorf("%dx%d: the budget's label (baseline %v) is inside the plot (top %v)", size[0], size[1], ly, f(*plot, "y"))
		}
		for _, r := range buffers {
			if ly > f(r, "y") && ly-12 < f(r, "y")+f(r, "height") {
				t.Errorf("%dx%d: the budget's label (baseline %v) meets buffer %s (y %v to %v)", size[0], size[1], ly, r.attrs["data-name"], f(r, "y"), f(r, "y")+f(r, "height"))
			}
		}
		// On the arena label's row, it ends before that label begins.
		if ay := f(*arena, "y"); ay == ly && f(*label, "x") > f(*arena, "x")-0.6*12*float64(len("arena "+ir.FormatBytes(p.ArenaSize))) {
			t.Errorf("%dx%d: the budget's label (ending at %v) runs into the arena's (ending at %v)", size[0], size[1], f(*label, "x"), f(*arena, "x"))
		} else if ay != ly && (ly > ay-12 && ly < ay+12) {
			t.Errorf("%dx%d: the budget's label (baseline %v) overlaps the arena's row (%v)", size[0], size[1], ly, ay)
		}
	}
}
