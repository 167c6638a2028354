package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"memplan/ir"
	"memplan/planner"
)

// planOf plans a file of the repository as the app does with default
// options: the plan the page shows, computed here independently.
func planOf(t *testing.T, root, rel string) *planner.Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load(filepath.Base(rel), data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// liveAt is what the plan holds at step s: the bytes (size + guard) of the
// buffers live then, and the names of every placed tensor live then.
func liveAt(plan *planner.Plan, s int) (int64, map[string]bool) {
	var bytes int64
	live := map[string]bool{}
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if t.Offset < 0 || s < t.Birth || s > t.Death {
			continue
		}
		live[t.Name] = true
		if t.Placed() {
			bytes += t.Size + t.Guard
		}
	}
	return bytes, live
}

// grouped writes n with thousands separators, as the page does.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// stepPixel is a page pixel in tensor name's rectangle, in the middle of
// its column for step s (which must be in its live range), and the
// tensor's own colour.
func (p *page) stepPixel(name string, s int) (float64, float64, string) {
	p.t.Helper()
	type pt struct {
		X, Y  float64
		Color string
	}
	r := eval[*pt](p, fmt.Sprintf(`(() => { const m = %s.memplan, r = m.rectOf(%q); if (!r) return null;
		const v = m.state().visible, f = document.getElementById("viewer").getBoundingClientRect();
		const st = m.state().strip, x = st.x0 + (%d + 0.5 - v.x0) / (v.x1 - v.x0) * (st.x1 - st.x0);
		return {X: f.left + x, Y: f.top + r.y + r.h / 2, Color: r.color}; })()`, frame, name, s))
	if r == nil {
		p.fail("%s is not drawn", name)
	}
	return r.X, r.Y, r.Color
}

// stripX is the page x of step s's column in the live strip, and the
// strip's middle y.
func (p *page) stripX(s int) (float64, float64) {
	p.t.Helper()
	type pt struct{ X, Y float64 }
	r := eval[pt](p, fmt.Sprintf(`(() => { const m = %s.memplan, v = m.state().visible, st = m.state().strip;
		const f = document.getElementById("viewer").getBoundingClientRect();
		return {X: f.left + st.x0 + (%d + 0.5 - v.x0) / (v.x1 - v.x0) * (st.x1 - st.x0), Y: f.top + (st.y0 + st.y1) / 2}; })()`, frame, s))
	return r.X, r.Y
}

// TestBrowserTeach drives the time cursor and then the why-here through
// the app, in one browser (each costs a start and a first screen).
func TestBrowserTeach(t *testing.T) {
	s := open(t, "/")
	s.page.wait("the default example", viewerShows("transformer.json"))
	s.page.settle()
	timeCursor(t, s)
	whyHere(t, s)
}

// timeCursor: the time cursor, dragged on the live strip, stepped with
// keys and sent to the peak by the page's button: at each step the
// readout is the plan's live bytes there, the live tensors keep their
// colour and the dead ones are dimmed, and the page's table lists exactly
// the live ones.
func timeCursor(t *testing.T, s *session) {
	p := s.page
	plan := planOf(t, s.root, "examples/transformer.json")

	// Drag along the strip from step 3 to step 14.
	const from, to = 3, 14
	x0, y := p.stripX(from)
	x1, _ := p.stripX(to)
	p.run("press on the strip", chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.frames(2)
	p.wait("the cursor at the press", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, from))
	p.run("drag", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft))
	p.frames(2)
	p.run("drag on", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.ButtonLeft))
	p.frames(2)
	p.run("release", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.wait("the cursor at the drag's end", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, to))
	if sel := eval[*string](p, frame+`.memplan.state().selected`); sel != nil {
		p.fail("dragging the cursor selected %s", *sel)
	}
	p.checkStep(plan, to)

	// Keys: one step on, then back two.
	p.key(".")
	p.wait("a step on", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, to+1))
	p.key(",")
	p.key(",")
	p.wait("two steps back", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, to-1))
	p.checkStep(plan, to-1)
	p.shot("cursor-1280x800")

	// Jump to peak: the first step whose live bytes are the lower bound.
	peak := -1
	for st := 0; st <= plan.Steps && peak < 0; st++ {
		if b, _ := liveAt(plan, st); b == plan.LowerBound {
			peak = st
		}
	}
	if peak < 0 {
		t.Fatal("no step reaches the lower bound")
	}
	p.press("#time-peak")
	p.wait("the cursor at the peak", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, peak))
	p.checkStep(plan, peak)
	if c := p.text("#time-live caption"); !strings.Contains(c, "the peak") {
		p.fail("the live table's caption %q does not say it is the peak", c)
	}

	// Hidden, nothing is dimmed.
	p.press("#time-hide")
	p.wait("no cursor", frame+`.memplan.state().cursor === -1 && !`+frame+`.memplan.state().dirty`)
	p.settle()
	_, live := liveAt(plan, peak)
	for i := range plan.Tensors {
		if n := plan.Tensors[i].Name; !live[n] && plan.Tensors[i].Placed() && plan.Tensors[i].Size > 1<<20 {
			x, y, want := p.stepPixel(n, plan.Tensors[i].Birth)
			if got := p.pixel(x, y); got != want {
				p.fail("with the cursor hidden %s is %s, want its colour %s", n, got, want)
			}
			break
		}
	}
}

// press clicks the page's element sel with the mouse, at its middle.
func (p *page) press(sel string) {
	p.t.Helper()
	type pt struct{ X, Y float64 }
	r := eval[pt](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "nearest"});
		const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, sel))
	p.run("click "+sel,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, r.X, r.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, r.X, r.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// checkStep checks the page at cursor step st against the plan.
func (p *page) checkStep(plan *planner.Plan, st int) {
	p.t.Helper()
	p.settle()
	bytes, live := liveAt(plan, st)
	p.wait("the readout of step "+fmt.Sprint(st), fmt.Sprintf(`(() => {
		const dd = document.querySelectorAll("#time-readout dd");
		return dd.length > 1 && dd[0].textContent.startsWith("%d") && dd[1].textContent.includes(%q); })()`, st, grouped(bytes)+" B"))
	// The table lists exactly the live tensors, by offset.
	rows := eval[[]string](p, `Array.from(document.querySelectorAll("#time-live tbody tr")).map((r) => r.dataset.name)`)
	if len(rows) != len(live) {
		p.fail("step %d: the table lists %d tensors, the plan has %d live", st, len(rows), len(live))
	}
	for _, n := range rows {
		if !live[n] {
			p.fail("step %d: the table lists %s, which is not live", st, n)
		}
	}
	// A live activation that spans another step keeps its colour there;
	// a dead one is dimmed.
	img := p.capture()
	checkedLive, checkedDead := false, false
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if !t.Placed() || t.Size < 1<<20 || t.Kind == planner.KindInput || t.Kind == planner.KindParam {
			continue
		}
		switch {
		case !checkedLive && live[t.Name] && t.Death > t.Birth:
			other := t.Birth
			if other == st {
				other = st + 1
			}
			x, y, want := p.stepPixel(t.Name, other)
			if got := hex(img, int(x), int(y)); got != want {
				p.fail("step %d: live %s is %s at (%.0f, %.0f), want its colour %s", st, t.Name, got, x, y, want)
			}
			checkedLive = true
		case !checkedDead && !live[t.Name]:
			x, y, want := p.stepPixel(t.Name, t.Birth)
			if got := hex(img, int(x), int(y)); got == want {
				p.fail("step %d: dead %s keeps its colour %s at (%.0f, %.0f)", st, t.Name, got, x, y)
			}
			checkedDead = true
		}
	}
	if !checkedLive || !checkedDead {
		p.fail("step %d: found no live (%v) or dead (%v) activation of over a MiB to check", st, checkedLive, checkedDead)
	}
}

// whyHere: the why-here text for a selected tensor is Go's explanation
// of it: it names the op that writes it, the op that reads it last and
// the buffers placed before it that it had to avoid.
func whyHere(t *testing.T, s *session) {
	p := s.page
	tests := []struct {
		file, tensor string
		want         []string
		byRow        bool // select it in the table: on the canvas its views lie over it
	}{
		{"transformer.json", "l0.gelu", []string{"op l0.gelu (gelu) writes it", "op l0.down reads it last", "placed before it (1): l0.up [0, 4194304)"}, false},
		{"r1-views.json", "mm", []string{"op mm (matmul) writes it", "its view n is a graph output", "x [0, 256) w [256, 448)"}, true},
	}
	for _, tc := range tests {
		if tc.file != "transformer.json" {
			eval[bool](p, fmt.Sprintf(`(() => { const e = document.getElementById("examples"); e.value = %q;
				e.dispatchEvent(new Event("change")); return true; })()`, tc.file))
			p.wait(tc.file, viewerShows(tc.file))
			p.settle()
		}
		plan := planOf(t, s.root, "examples/"+tc.file)
		e, err := planner.Explain(plan, tc.tensor)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(e.Text, w) {
				t.Fatalf("Go's explanation of %s lacks %q", tc.tensor, w)
			}
		}
		if tc.byRow {
			p.press(fmt.Sprintf(`#table tbody tr[data-name=%q]`, tc.tensor))
		} else {
			x, y, _ := p.point(tc.tensor)
			p.click(x, y)
		}
		p.wait("the why-here of "+tc.tensor, fmt.Sprintf(`document.getElementById("why").textContent === %q`, e.Text))
		p.key("f") // the whole plan, the conflicts included
		p.settle()
		// The conflicts are outlined in the lower bound's colour.
		if e.Placement != nil && len(e.Placement.Conflicts) > 0 {
			c := e.Placement.Conflicts[len(e.Placement.Conflicts)-1].Name
			type r struct{ X, Y, W, H float64 }
			rc := eval[r](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q), f = document.getElementById("viewer").getBoundingClientRect();
				return {X: f.left + r.x, Y: f.top + r.y, W: r.w, H: r.h}; })()`, frame, c))
			img := p.capture()
			lower := eval[string](p, frame+`.memplan.state().lower_color`)
			if got := hex(img, int(rc.X)+8, int(rc.Y)+1); got != lower { // left of the tooltip at the pointer
				p.fail("the top edge of conflict %s is %s, want the outline %s", c, got, lower)
			}
		}
		p.shot("why-" + strings.TrimSuffix(tc.file, ".json"))
	}
}

// TestTeachScreenshots saves the time cursor at the peak with a tensor
// explained, at each size, to the directory MEMPLAN_SHOTS names (skipped
// without it): pictures for people to look at.
func TestTeachScreenshots(t *testing.T) {
	if os.Getenv("MEMPLAN_SHOTS") == "" {
		t.Skip("set MEMPLAN_SHOTS to a directory to save the screenshots")
	}
	for _, c := range []struct{ w, h int64 }{{1280, 800}, {800, 600}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			s := openAt(t, c.w, c.h)
			p := s.page
			p.wait("the default example", viewerShows("transformer.json"))
			p.settle()
			p.press(`#table tbody tr[data-name="l0.attn"]`)
			p.wait("the why-here", `document.getElementById("why").textContent.includes("Gaps they leave")`)
			p.key("f")
			p.press("#time-peak")
			p.wait("the peak", frame+`.memplan.state().cursor >= 0`)
			p.settle()
			eval[bool](p, `(window.scrollTo(0, 0), true)`)
			p.shot(fmt.Sprintf("teach-%dx%d", c.w, c.h))
			eval[bool](p, `(document.getElementById("time").scrollIntoView(), true)`)
			p.shot(fmt.Sprintf("teach-%dx%d-time", c.w, c.h))
			eval[bool](p, `(document.getElementById("why").scrollIntoView(), true)`)
			p.shot(fmt.Sprintf("teach-%dx%d-why", c.w, c.h))
		})
	}
}
