//go:build !js

package web

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"memplan/ir"
	"memplan/planner"
)

// viewerIn is the window of the viewer iframe with the given id.
func viewerIn(id string) string { return fmt.Sprintf(`document.getElementById(%q).contentWindow`, id) }

// clickTensor clicks the middle-left of a tensor's rectangle in the
// viewer iframe id, as a person would.
func (p *page) clickTensor(id, name string) {
	p.t.Helper()
	type pt struct{ X, Y float64 }
	eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).scrollIntoView({block: "nearest"}), true)`, id))
	r := eval[*pt](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q); if (!r) return null;
		const f = document.getElementById(%q).getBoundingClientRect();
		return {X: f.left + r.x + Math.min(r.w / 3, 40), Y: f.top + r.y + r.h / 2}; })()`, viewerIn(id), name, id))
	if r == nil {
		p.fail("%s is not drawn in #%s", name, id)
	}
	// The pointer moves there first, as a hand does: ebiten reads where
	// it is once a frame.
	p.run("move to "+name, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X, r.Y))
	p.frames(2)
	p.click(r.X, r.Y)
}

// clickElement scrolls an element of the page into view and clicks its
// centre with the mouse.
func (p *page) clickElement(sel string) {
	p.t.Helper()
	type pt struct{ X, Y float64 }
	r := eval[*pt](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null;
		e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, sel))
	if r == nil {
		p.fail("no %s on the page", sel)
	}
	p.run("click "+sel,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, r.X, r.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, r.X, r.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// setFile puts a file into a file input, as choosing it in the picker
// does, and fires its change event.
func (p *page) setFile(sel, name string, content []byte) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(() => { const dt = new DataTransfer();
		dt.items.add(new File([%q], %q)); const f = document.querySelector(%q);
		f.files = dt.files; f.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, string(content), name, sel))
}

// A comparison of two strategies on MiniMalloc's input.12.csv shows the
// deltas and the moved tensors Go computes, both plans in their viewers
// at one scale, and a moved tensor selected in both.
func TestBrowserCompare(t *testing.T) {
	s := open(t, "/compare.html")
	p := s.page
	csv := s.testdata("planner/testdata/input.12.csv")
	table, err := ir.DecodeBufferCSV("input.12.csv", csv)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := planner.FromTable(table, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.waitLong("the page's first comparison", `window.memplanCompare.diff !== null`)
	for _, c := range []struct{ a, b string }{{"best-fit", "no-reuse"}, {"best-fit", "first-use"}} {
		pa, _, err := planner.PlanProblem(context.Background(), prob, c.a, planner.PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pb, _, err := planner.PlanProblem(context.Background(), prob, c.b, planner.PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := planner.DiffPlans(pa, pb, "", "")
		if len(want.Changed) == 0 {
			t.Fatalf("premise: %s and %s place input.12.csv the same", c.a, c.b)
		}
		eval[bool](p, fmt.Sprintf(`(() => { document.querySelector("#side-a [name=strategy]").value = %q;
			document.querySelector("#side-b [name=strategy]").value = %q;
			document.querySelector("#side-b [name=file]").value = "\u0000same"; return true; })()`, c.a, c.b))
		p.setFile("#side-a [name=pick]", "input.12.csv", csv)
		p.wait("both plans of "+c.a+" and "+c.b, fmt.Sprintf(`(() => { const d = window.memplanCompare.diff;
			if (!d || d.a.strategy !== %q || d.b.strategy !== %q) return false;
			const a = %s.memplan, b = %s.memplan; if (!a || !b) return false;
			const sa = a.state(), sb = b.state();
			return sa.file === "a.plan.json" && sb.file === "b.plan.json" && !sa.dirty && !sb.dirty &&
				sa.arena_size === %d && sb.arena_size === %d && sa.selected !== null && sb.selected !== null; })()`,
			c.a, c.b, viewerIn("viewer-a"), viewerIn("viewer-b"), pa.ArenaSize, pb.ArenaSize))
		p.settle2()
		// The totals are Go's rows; the moved tensors are Go's, in order.
		rows := eval[[][]string](p, `[...document.querySelectorAll("#totals tbody tr")].map(r => [...r.cells].map(c => c.textContent))`)
		for i, r := range want.Totals {
			if i >= len(rows) || !slices.Equal(rows[i], []string{r.What, r.A, r.B, r.Delta}) {
				p.fail("totals row %d: %v, want %+v", i, rows, r)
			}
		}
		names := eval[[]string](p, `[...document.querySelectorAll("#changed tbody tr")].map(r => r.dataset.name)`)
		var wantNames []string
		for _, ch := range want.Changed {
			wantNames = append(wantNames, ch.Name)
		}
		if !slices.Equal(names, wantNames) {
			p.fail("changed rows %v, want %v", names, wantNames)
		}
		if got := p.text("#changed-title"); got != fmt.Sprintf("%d of %d matched tensors changed", len(want.Changed), want.Matched) {
			p.fail("changed title %q", got)
		}
		// One scale: both viewers show the same world rectangle.
		type world struct{ X0, Y0, X1, Y1 float64 }
		va := eval[world](p, viewerIn("viewer-a")+`.memplan.state().visible`)
		vb := eval[world](p, viewerIn("viewer-b")+`.memplan.state().visible`)
		if va != vb {
			p.fail("the two viewers show different worlds: %+v and %+v", va, vb)
		}
		// A moved tensor is drawn at its own offset in each: A's and B's
		// rectangles of it differ in height on the page exactly as the
		// offsets differ.
		moved := want.Changed[len(want.Changed)-1]
		p.clickElement(fmt.Sprintf(`#changed tbody tr[data-name=%q]`, moved.Name))
		p.wait("the selection in both viewers", fmt.Sprintf(`%s.memplan.state().selected === %q && %s.memplan.state().selected === %q &&
			document.querySelector("#changed tr.selected").dataset.name === %q`,
			viewerIn("viewer-a"), moved.Name, viewerIn("viewer-b"), moved.Name, moved.Name))
		type rect struct{ Y, H float64 }
		ra := eval[rect](p, fmt.Sprintf(`(({y, h}) => ({Y: y, H: h}))(%s.memplan.rectOf(%q))`, viewerIn("viewer-a"), moved.Name))
		rb := eval[rect](p, fmt.Sprintf(`(({y, h}) => ({Y: y, H: h}))(%s.memplan.rectOf(%q))`, viewerIn("viewer-b"), moved.Name))
		pxPerByte := ra.H / float64(moved.SizeA)
		if d := (ra.Y - rb.Y) - pxPerByte*float64(moved.OffsetB-moved.OffsetA); d > 1.5 || d < -1.5 {
			p.fail("%s is drawn at y %.1f in A and %.1f in B; offsets %d and %d at %.2f px a byte", moved.Name, ra.Y, rb.Y, moved.OffsetA, moved.OffsetB, pxPerByte)
		}
		p.screenshot("compare-" + c.a + "-" + c.b)
	}
	for _, size := range []struct{ w, h int64 }{{800, 600}, {390, 844}} {
		p.resize(size.w, size.h)
		p.settle2()
		p.screenshot(fmt.Sprintf("compare-%dx%d", size.w, size.h))
	}
}

// waitLong is wait for what a loaded machine may take minutes to do:
// start the planner workers.
func (p *page) waitLong(what, js string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 150*time.Second)
	defer cancel()
	start := time.Now()
	// Poll gives up after 30 s of its own unless told otherwise.
	poll := chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(150*time.Second))
	if _, err := chromedp.Run(ctx, poll); err != nil {
		state, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify({learn: window.memplanLearn && {at: memplanLearn.at, armed: memplanLearn.armed, n: memplanLearn.lessons.length},
			viewer: (() => { const f = document.querySelector("iframe"); return f && f.contentWindow.memplan ? f.contentWindow.memplan.state() : null; })()})`))
		p.fail("waiting %v for %s (%s): %v; page state %s", time.Since(start), what, js, err, state)
	}
}

// settle2 waits for both of the compare page's viewers to draw.
func (p *page) settle2() {
	p.t.Helper()
	for _, id := range []string{"viewer-a", "viewer-b"} {
		u := eval[int](p, viewerIn(id)+`.memplan.state().updates`)
		p.wait("frames in "+id, fmt.Sprintf(`%s.memplan.state().updates >= %d && !%s.memplan.state().dirty`, viewerIn(id), u+2, viewerIn(id)))
	}
}

// Each lesson loads, its task is done through the page (a click on the
// plan or on the lesson's own buttons), and the page says so; a wrong
// answer first does not count. Screenshots of every lesson at 1280×800
// and 800×600 go to the artifacts directory.
func TestBrowserLessons(t *testing.T) {
	type step struct {
		button string // a lesson button's label, or
		tensor string // a tensor to click on the plan
		// keyboard picks the tensor from the list under the plot by
		// typing its name, at the smaller size
		keyboard bool
	}
	lessons := []struct {
		file         string
		wrong, right step
	}{
		{"liveness.json", step{tensor: "b"}, step{tensor: "a"}},
		{"reuse.json", step{tensor: "x"}, step{tensor: "c"}},
		{"r1-views.json", step{tensor: "x"}, step{tensor: "n"}},
		{"guards.json", step{button: "Alignment 1"}, step{button: "No guards"}},
		{"fragmentation.csv", step{button: "first-use"}, step{button: "exact"}},
		{"transformer.json", step{button: "seq 1024"}, step{button: "seq 2048"}},
	}
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {800, 600}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			s := open(t, "/learn.html")
			p := s.page
			p.resize(size.w, size.h)
			p.wait("the lessons", `window.memplanLearn.lessons.length > 0`)
			if n := eval[int](p, `window.memplanLearn.lessons.length`); n != len(lessons) {
				p.fail("%d lessons, the test knows %d", n, len(lessons))
			}
			for i, l := range lessons {
				if i > 0 {
					p.clickElement("#next")
				}
				p.waitLong(fmt.Sprintf("lesson %d's plan", i+1), fmt.Sprintf(`window.memplanLearn.at === %d && window.memplanLearn.armed &&
					(() => { const s = %s.memplan.state(); return s.file === %q && !s.dirty; })()`, i, frame, l.file))
				if eval[bool](p, `document.getElementById("task").classList.contains("done")`) {
					p.fail("lesson %d is done before the task was tried", i+1)
				}
				p.settle()
				p.screenshot(fmt.Sprintf("lesson-%d-%dx%d-start", i+1, size.w, size.h))
				do := func(st step) {
					if st.button != "" {
						k := eval[int](p, fmt.Sprintf(`[...document.querySelectorAll("#actions button")].findIndex(b => b.textContent === %q)`, st.button))
						if k < 0 {
							p.fail("lesson %d has no button %q", i+1, st.button)
						}
						p.clickElement(fmt.Sprintf("#actions button:nth-child(%d)", k+1))
						// The button re-plans: wait for the new plan on screen.
						p.wait("the re-plan", fmt.Sprintf(`(() => { const s = %s.memplan.state(); return !s.dirty; })() &&
							document.getElementById("readout").textContent !== ""`, frame))
					} else if st.keyboard {
						// The keyboard's way: the tensor list under the plot.
						eval[bool](p, `(document.getElementById("pick-tensor").focus(), true)`)
						p.run("type "+st.tensor, chromedp.KeyEvent(st.tensor))
						p.wait("the selection of "+st.tensor, fmt.Sprintf(`%s.memplan.state().selected === %q`, frame, st.tensor))
					} else {
						p.settle()
						p.clickTensor("viewer", st.tensor)
						p.wait("the selection of "+st.tensor, fmt.Sprintf(`%s.memplan.state().selected === %q`, frame, st.tensor))
					}
				}
				do(l.wrong)
				p.frames(3)
				if eval[bool](p, `document.getElementById("task").classList.contains("done")`) {
					p.fail("lesson %d counted a wrong answer (%+v)", i+1, l.wrong)
				}
				right := l.right
				right.keyboard = right.tensor != "" && size.w < 1000
				do(right)
				p.wait(fmt.Sprintf("lesson %d done", i+1), `document.getElementById("task").classList.contains("done") &&
					document.getElementById("verdict").textContent.startsWith("Done.")`)
				if !eval[bool](p, fmt.Sprintf(`document.querySelectorAll("#lesson-list button")[%d].classList.contains("done")`, i)) {
					p.fail("the lesson list does not mark lesson %d done", i+1)
				}
				p.settle()
				if eval[bool](p, `!document.getElementById("beside-fig").hidden`) {
					p.wait("the plan beside", fmt.Sprintf(`(() => { const m = %s.memplan; return m && m.state().file === %q && !m.state().dirty; })()`, viewerIn("beside"), l.file))
				}
				p.screenshot(fmt.Sprintf("lesson-%d-%dx%d-done", i+1, size.w, size.h))
			}
		})
	}
}
