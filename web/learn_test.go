//go:build !js

package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

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
	for ci, c := range []struct{ a, b string }{{"best-fit", "no-reuse"}, {"best-fit", "first-use"}} {
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
		// One camera: zooming and panning one viewer with its keys (A,
		// then B in the second comparison) moves the other to the same
		// world rectangle, and the follower's move does not bounce back.
		same := func(a, b string) string {
			return fmt.Sprintf(`(() => { const a = %s, b = %s, w = Math.max(a.x1 - a.x0, 1), h = Math.max(a.y1 - a.y0, 1);
				return Math.abs(a.x0 - b.x0) <= 1e-6 * w && Math.abs(a.x1 - b.x1) <= 1e-6 * w &&
					Math.abs(a.y0 - b.y0) <= 1e-6 * h && Math.abs(a.y1 - b.y1) <= 1e-6 * h; })()`, a, b)
		}
		lead, follow := "viewer-a", "viewer-b"
		if ci%2 == 1 {
			lead, follow = follow, lead
		}
		visLead, visFollow := viewerIn(lead)+`.memplan.state().visible`, viewerIn(follow)+`.memplan.state().visible`
		eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).focus(), true)`, lead))
		for _, k := range []string{"w", "w", "d"} {
			p.run("key "+k+" in "+lead, chromedp.KeyEvent(k))
		}
		p.wait(lead+" zoomed in and panned", fmt.Sprintf(`(() => { const v = %s; return v.x1 - v.x0 < %g && v.x0 > %g; })()`, visLead, va.X1-va.X0, va.X0))
		p.wait(follow+" at "+lead+"'s camera", same(visLead, visFollow))
		zoomed := eval[world](p, visLead)
		p.settle2()
		if now := eval[world](p, visLead); now != zoomed {
			p.fail("%s's camera moved on from %+v to %+v after %s followed it", lead, zoomed, now, follow)
		}
		if !eval[bool](p, same(visLead, visFollow)) {
			p.fail("%s left %s's camera: %+v and %+v", follow, lead, eval[world](p, visFollow), eval[world](p, visLead))
		}
		p.screenshot("compare-" + c.a + "-" + c.b)
	}
	for _, size := range []struct{ w, h int64 }{{800, 600}, {390, 844}} {
		p.resize(size.w, size.h)
		p.settle2()
		p.screenshot(fmt.Sprintf("compare-%dx%d", size.w, size.h))
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

// dragCursor drags the time cursor along the lesson viewer's live strip
// from step from to step to, as a hand does.
func (p *page) dragCursor(from, to int) {
	p.t.Helper()
	eval[bool](p, `(document.getElementById("viewer").scrollIntoView({block: "nearest"}), true)`)
	x0, y := p.stripX(from)
	x1, _ := p.stripX(to)
	p.run("press on the strip", chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.frames(2)
	p.wait(fmt.Sprintf("the cursor at step %d", from), fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, from))
	p.run("drag", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft))
	p.frames(2)
	p.run("drag on", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.ButtonLeft))
	p.frames(2)
	p.run("release", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.wait(fmt.Sprintf("the cursor at step %d", to), fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, to))
}
