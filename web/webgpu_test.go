package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
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
	if err := planner.ExplainFit(fit, plan.Symbols, lower); err != nil {
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
			// The cut is where GPU buffer 2 starts, so where the tensor
			// placed at that offset has its lower edge.
			type cutAt struct {
				N      int
				Tensor string
			}
			cut := eval[cutAt](p, `(() => { const s = window.memplanApp.summary, ts = window.memplanApp.tensors || [];
				const t = ts.find((t) => t.buffer === 1 && t.buffer_offset === 0 && !t.root);
				return {N: (s.buffers || []).length, Tensor: t ? t.name : ""}; })()`)
			if c.binding == "arena" {
				if cut.N != 0 || cut.Tensor != "" {
					p.fail("arena binding has GPU buffers: %+v", cut)
				}
				return
			}
			if cut.N != 2 || cut.Tensor == "" {
				p.fail("the summary lists %d GPU buffers and tensor %q at the start of the second; want 2 and one", cut.N, cut.Tensor)
			}
			type rect struct{ X, Y, W, H float64 }
			r := eval[*rect](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q);
				const f = document.getElementById("viewer").getBoundingClientRect();
				return r && {X: f.left + r.x, Y: f.top + r.y + r.h, W: r.w, H: r.h}; })()`, frame, cut.Tensor))
			if r == nil {
				p.fail("%s is not drawn", cut.Tensor)
			}
			img := p.capture()
			colours := map[string]bool{viz.Dark.Cut.Hex(): true, viz.Light.Cut.Hex(): true}
			hits := 0
			for k := 1; k < 10; k++ {
				x := int(r.X + r.W*float64(k)/10)
				if colours[hex(img, x, int(r.Y)-1)] || colours[hex(img, x, int(r.Y))] {
					hits++
				}
			}
			if hits < 7 { // a label may sit on the line here and there
				p.fail("the cut under %s at y=%.0f shows the cut colour at %d of 9 points", cut.Tensor, r.Y, hits)
			}
			p.screenshot("webgpu-tensor-binding")
		})
	}
}
