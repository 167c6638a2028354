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
