package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
)

// goFit is Go's WebGPU fit report for the transformer example at the
// given options: the text the page must show, line by line.
func goFit(t *testing.T, symbols map[string]int64, profile, binding string) []string {
	t.Helper()
	data, err := examples.FS.ReadFile("transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	lower := func(syms map[string]int64) (*planner.Problem, error) {
		in, err := planner.Load("transformer.json", data, ir.DecodeOptions{})
		if err != nil {
			return nil, err
		}
		o := planner.DefaultOptions()
		o.F32Uniform, o.Symbols = true, syms
		if o.GPU, err = planner.ResolveGPU(profile, "", binding); err != nil {
			return nil, err
		}
		return planner.Lower(in.Source, o)
	}
	p, err := lower(symbols)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := planner.PlanProblem(context.Background(), p, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fit := plan.FitGPU()
	if err := fit.Drivers(plan.Symbols, lower); err != nil {
		t.Fatal(err)
	}
	return append([]string{fit.Text}, fit.Lines...)
}

// TestBrowserWebGPU picks a WebGPU profile and binding in the options:
// the summary shows Go's fit report, word for word, and under tensor
// binding the canvas draws the cut between GPU buffers in its colour.
func TestBrowserWebGPU(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	profiles := eval[[]string](p, `Array.from(document.querySelectorAll("#options [name=webgpu] option")).map((o) => o.value)`)
	if want := append([]string{""}, planner.ProfileNames()...); strings.Join(profiles, ",") != strings.Join(want, ",") {
		p.fail("the profile choice is %q, want Go's %q", profiles, want)
	}
	eval[bool](p, `(() => { document.querySelector("input[name=f32_uniform]").click(); return true; })()`)
	p.setField("symbols", "seq=4096")
	for _, c := range []struct {
		binding string
		fits    bool
	}{{"arena", false}, {"tensor", true}} {
		t.Run(c.binding, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			want := goFit(t, map[string]int64{"seq": 4096}, "default", c.binding)
			p.setField("binding", c.binding)
			p.setField("webgpu", "default")
			p.wait("Go's report", fmt.Sprintf(`document.getElementById("fit").textContent === %q`, want[0]))
			lines := eval[[]string](p, `Array.from(document.querySelectorAll("#fit-lines li")).map((li) => li.textContent)`)
			if strings.Join(lines, "\n") != strings.Join(want[1:], "\n") {
				p.fail("the report's lines are\n%s\nwant Go's\n%s", strings.Join(lines, "\n"), strings.Join(want[1:], "\n"))
			}
			if cls := eval[string](p, `document.getElementById("fit").className`); (cls == "ok") != c.fits {
				p.fail("the verdict is styled %q, want fits=%v", cls, c.fits)
			}
			p.wait("the plan drawn", viewerShows("transformer.json"))
			type line struct {
				Label     string
				Y, X0, X1 float64
				Color     string
			}
			cuts := eval[[]line](p, frame+`.memplan.state().lines.filter((l) => l.label.startsWith("gpu buffer"))`)
			if c.binding == "arena" {
				if len(cuts) != 0 {
					p.fail("arena binding draws cuts: %v", cuts)
				}
				return
			}
			if len(cuts) != 1 || cuts[0].Label != "gpu buffer 2 of 2" {
				p.fail("cut lines %v, want one at the start of GPU buffer 2 of 2", cuts)
			}
			cut := cuts[0]
			top := eval[float64](p, `document.getElementById("viewer").getBoundingClientRect().top`)
			left := eval[float64](p, `document.getElementById("viewer").getBoundingClientRect().left`)
			img := p.capture()
			hits := 0
			for k := 1; k < 10; k++ {
				x := int(left + cut.X0 + (cut.X1-cut.X0)*float64(k)/10)
				if hex(img, x, int(top+cut.Y)-1) == cut.Color || hex(img, x, int(top+cut.Y)) == cut.Color {
					hits++
				}
			}
			if hits < 7 { // a label may sit on the line here and there
				p.fail("the cut at y=%.0f shows its colour %s at %d of 9 points", cut.Y, cut.Color, hits)
			}
			p.screenshot("webgpu-tensor-binding")
		})
	}
}
