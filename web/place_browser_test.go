//go:build !js

package web

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/planner"
	"memplan/tools/site"
)

// placeStep is one step of a lesson that has the learner place buffers:
// a button pressed, or buffers moved to offsets (dragged, or with keys
// alone Tabbed to and moved with the arrows), and what the page must
// make of it: the hint of wrong answer want, or right (done); none: not
// an answer at all (nothing moved yet).
type placeStep struct {
	button string
	moves  []placeMove
	want   int
	right  bool
	none   bool
	// shows, for a button pressed once the task is done, is how the
	// readout under the plot then begins.
	shows string
	// only: "mouse" or "keys" for a step only one kind of learner takes
	// (keys alone: the way to the right answer); "": both.
	only string
}

type placeMove struct {
	name   string
	offset int64
}

// placeCases are the place lessons' steps, from the command line's
// facts: the offsets of the plan the task's answer copies (best fit's,
// or exact's), and the buffers a likely wrong move puts together.
var placeCases = map[string]func(f map[string]any) []placeStep{
	"10-pack.json": func(f map[string]any) []placeStep {
		at := func(plan, name string) int64 { return int64(field(f, plan+".tensors."+name+".offset").(float64)) }
		return []placeStep{
			{button: "Start placing", none: true},
			{moves: []placeMove{{"b", at("lesson", "a")}}, want: 0, only: "mouse"},
			{button: "Undo", none: true, only: "mouse"},
			{moves: []placeMove{{"e", 0}}, want: 1, only: "mouse"},
			{moves: movesTo(f, "best-fit"), right: true},
		}
	},
	"11-greedy.json": func(f map[string]any) []placeStep {
		at := func(plan, name string) int64 { return int64(field(f, plan+".tensors."+name+".offset").(float64)) }
		return []placeStep{
			{button: "Start from nothing", want: 2, only: "mouse"},
			{button: "Start from best fit's plan", want: 1, only: "mouse"},
			{button: "Start from best fit's plan", none: true, only: "keys"},
			{moves: []placeMove{{"d", at("lesson", "b")}}, want: 0, only: "mouse"},
			{moves: movesTo(f, "exact"), right: true},
			{button: "Show exact's answer", shows: "exact: arena " + bytesOf(f, "exact.arena_size")},
		}
	},
}

// bytesOf is a fact's size as the pages write it.
func bytesOf(f map[string]any, path string) string {
	return planner.ExactBytes(int64(field(f, path).(float64)))
}

// movesTo moves every buffer to its offset in one of the lesson's plans.
func movesTo(f map[string]any, plan string) []placeMove {
	var out []placeMove
	for _, t := range tensorsOf(f, plan) {
		out = append(out, placeMove{t["name"].(string), int64(t["offset"].(float64))})
	}
	return out
}

// watchPlaced keeps the viewer's last placed event where the test reads
// it (the page hears it later, by postMessage).
func (p *page) watchPlaced() {
	p.t.Helper()
	eval[bool](p, frame+`.__placedWatch || (`+frame+`.addEventListener("memplan", (e) => { if (e.detail.type === "placed") `+frame+`.__placed = e.detail; }), `+frame+`.__placedWatch = true)`)
}

// placedIs waits for the viewer's verdict on name at offset.
func (p *page) placedIs(name string, offset int64) {
	p.t.Helper()
	p.wait(fmt.Sprintf("%s at %d", name, offset), fmt.Sprintf(`(() => { const m = %s.__placed; return !!m && m.placing && m.selected === %q && m.offset === %d; })()`, frame, name, offset))
}

// dragBuffer drags buffer name by the bytes from its offset now (at) to
// offset, with the mouse or, touch, a finger.
func (p *page) dragBuffer(name string, at, offset, size int64, touch bool) {
	p.t.Helper()
	type pt struct{ X, Y, H float64 }
	eval[bool](p, `(document.getElementById("viewer").scrollIntoView({block: "nearest"}), true)`)
	r := eval[*pt](p, fmt.Sprintf(`(() => { const r = %s.memplan.rectOf(%q); if (!r) return null;
		const f = document.getElementById("viewer").getBoundingClientRect();
		return {X: f.left + r.x + r.w / 2, Y: f.top + r.y + r.h / 2, H: r.h}; })()`, frame, name))
	if r == nil {
		p.fail("%s is not drawn", name)
	}
	dy := -float64(offset-at) * r.H / float64(size)
	ys := []float64{r.Y, r.Y + dy/3, r.Y + 2*dy/3, r.Y + dy}
	if touch {
		touchEvent := func(typ input.DispatchTouchEventType, pts []*input.TouchPoint) chromedp.Action[chromedp.Void] {
			return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
				_, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: pts})
				return err
			})
		}
		for k, y := range ys {
			typ := input.DispatchTouchEventTypeTouchMove
			if k == 0 {
				typ = input.DispatchTouchEventTypeTouchStart
			}
			id := 1.0
			p.run("touch", touchEvent(typ, []*input.TouchPoint{{X: r.X, Y: y, ID: &id}}))
			p.frames(2)
		}
		p.run("lift", touchEvent(input.DispatchTouchEventTypeTouchEnd, []*input.TouchPoint{}))
		p.frames(2)
		return
	}
	p.run("move to "+name, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X, r.Y))
	p.frames(2)
	p.run("press on "+name, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, r.X, r.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.frames(2)
	for _, y := range ys[1:] {
		p.run("drag", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X, y, chromedp.ButtonLeft))
		p.frames(2)
	}
	p.run("release", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, r.X, ys[3], chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.frames(2)
}

// keyMove selects buffer name with Tab inside the plot (entering it
// with Tab from the page when the focus is elsewhere) and moves it from
// offset at to offset with the arrows, one alignment a press.
func (p *page) keyMove(name string, at, offset, align int64) {
	p.t.Helper()
	for tries := 0; ; tries++ {
		if tries == 40 {
			p.fail("40 presses of Tab did not select %s", name)
		}
		if !eval[bool](p, `document.activeElement === document.getElementById("viewer")`) {
			p.tabTo("#viewer")
		}
		if s := eval[*string](p, frame+`.memplan.state().selected`); s != nil && *s == name {
			break
		}
		p.run("Tab", chromedp.KeyEvent(kb.Tab))
		p.frames(2)
	}
	key := kb.ArrowUp
	if offset < at {
		key = kb.ArrowDown
	}
	for n := int(math.Abs(float64(offset-at)) / float64(align)); n > 0; n-- {
		p.run("arrow", chromedp.KeyEvent(key))
	}
}

// drivePlace takes a place lesson's steps (keys alone: those a learner
// with keys alone takes) and checks what the page makes of each.
func (p *page) drivePlace(i int, l *lesson, steps []placeStep, facts map[string]any, keyboard bool) {
	p.t.Helper()
	p.watchPlaced()
	offsets := map[string]int64{}
	sizes := map[string]int64{}
	for _, t := range tensorsOf(facts, "lesson") {
		offsets[t["name"].(string)] = int64(t["offset"].(float64))
		sizes[t["name"].(string)] = int64(t["size"].(float64))
	}
	align := int64(field(facts, "lesson.alignment").(float64))
	seen := map[int]bool{}
	touched := false
	for _, st := range steps {
		if keyboard && st.only == "mouse" || !keyboard && st.only == "keys" {
			continue
		}
		if st.shows != "" {
			p.activate(p.action(i, st.button), keyboard)
			p.wait(st.button, fmt.Sprintf(`document.getElementById("readout").textContent.startsWith(%q)`, st.shows))
			continue
		}
		before := eval[int](p, `window.memplanLearn.answers`)
		what := st.button
		if st.button != "" {
			p.activate(p.action(i, st.button), keyboard)
			p.wait("the verdict on "+st.button, frame+`.__placed && `+frame+`.__placed.placing`)
		}
		for _, m := range st.moves {
			what += fmt.Sprintf(" %s→%d", m.name, m.offset)
			if offsets[m.name] == m.offset {
				continue
			}
			if keyboard {
				p.keyMove(m.name, offsets[m.name], m.offset, align)
			} else {
				// Selected first, from the list under the plot: a press on
				// the selection drags it even where another buffer is
				// drawn over it.
				eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("pick-tensor"); s.value = %q;
					s.dispatchEvent(new Event("change")); return true; })()`, m.name))
				p.wait("the selection of "+m.name, fmt.Sprintf(`%s.memplan.state().selected === %q`, frame, m.name))
				p.dragBuffer(m.name, offsets[m.name], m.offset, sizes[m.name], !touched)
				touched = true
			}
			p.placedIs(m.name, m.offset)
			offsets[m.name] = m.offset
		}
		switch {
		case st.none:
			p.frames(4)
			if n := eval[int](p, `window.memplanLearn.answers`); n != before {
				p.fail("lesson %d: %s counted as %d answers", i+1, what, n-before)
			}
		case st.right:
			p.wait(what+" done", `document.getElementById("task").classList.contains("done")`)
			if !strings.HasPrefix(p.text("#verdict"), "Done.") {
				p.fail("lesson %d: %s: the verdict is %q", i+1, what, p.text("#verdict"))
			}
		default:
			p.wait(fmt.Sprintf("%s: hint %d", what, st.want), fmt.Sprintf(`window.memplanLearn.answers > %d && !document.getElementById("hint").hidden &&
				document.getElementById("hint").dataset.which === %q`, before, fmt.Sprint(st.want)))
			if eval[bool](p, `document.getElementById("task").classList.contains("done")`) {
				p.fail("lesson %d counted a wrong answer: %s", i+1, what)
			}
			seen[st.want] = true
		}
		// The readout says the planner's verdict, in its words.
		if r := p.text("#readout"); !strings.HasPrefix(r, "A plan") && !strings.HasPrefix(r, "Not a plan") {
			p.fail("lesson %d after %s: the readout says %q", i+1, what, r)
		}
		// Buttons move buffers where the test does not: read them back.
		if st.button != "" {
			for name := range offsets {
				offsets[name] = p.handOffset(name)
			}
		}
	}
	if keyboard {
		// Tab walks the buffers, then leaves the plot: the keyboard is
		// never trapped in it.
		if !eval[bool](p, `document.activeElement === document.getElementById("viewer")`) {
			p.tabTo("#viewer")
		}
		for k := 0; eval[bool](p, `document.activeElement === document.getElementById("viewer")`); k++ {
			if k > len(offsets)+1 {
				p.fail("lesson %d: %d presses of Tab did not leave the plot", i+1, k)
			}
			p.run("Tab", chromedp.KeyEvent(kb.Tab))
			p.frames(2)
		}
	}
	if !keyboard {
		for k := range l.Task.Wrong {
			if !seen[k] {
				p.fail("lesson %d: the test tries no answer that earns wrong answer %d's hint", i+1, k)
			}
		}
	}
}

// tableOffsetIs waits for the app's table row of tensor name to say
// offset, as Go writes it (the row is drawn: the tensor is selected).
func (p *page) tableOffsetIs(what, name string, offset int64) {
	p.t.Helper()
	p.wait(what, fmt.Sprintf(`(() => { const r = Array.from(document.querySelectorAll("#table tbody tr[data-pos]")).find((r) => r.dataset.name === %q);
		return !!r && r.children[6].textContent === %q; })()`, name, planner.GroupDigits(offset)))
}

// handOffset is where the viewer has tensor name now.
func (p *page) handOffset(name string) int64 {
	p.t.Helper()
	return int64(eval[float64](p, fmt.Sprintf(`%s.memplan.rectOf(%q).offset`, frame, name)))
}

// Only the lessons that have the learner place buffers, by mouse and
// touch at 1280×800 and by keys alone at 390×844, with screenshots of
// each at its start and once done.
func TestBrowserPlaceLessons(t *testing.T) {
	root := moduleRoot(t)
	names, lessons := readLessons(t)
	for _, mode := range []struct {
		w, h     int64
		keyboard bool
	}{{1280, 800, false}, {390, 844, true}} {
		t.Run(fmt.Sprintf("%dx%d", mode.w, mode.h), func(t *testing.T) {
			s := open(t, "/learn.html")
			p := s.page
			p.resize(mode.w, mode.h)
			p.wait("the lessons", `window.memplanLearn.lessons.length > 0`)
			played := 0
			for i, name := range names {
				steps, ok := placeCases[name]
				if !ok {
					if lessons[i].Task.Event == "placed" {
						t.Fatalf("%s has the learner place buffers; the test has no steps for it", name)
					}
					continue
				}
				played++
				facts := lessonFactsCLI(t, root, lessons[i])
				p.clickElement(fmt.Sprintf("#lesson-list li:nth-child(%d) button", i+1))
				p.lessonReady(i, lessons[i].fileName())
				p.settle()
				p.screenshot(fmt.Sprintf("place-lesson-%d-%dx%d-start", i+1, mode.w, mode.h))
				p.drivePlace(i, lessons[i], steps(facts), facts, mode.keyboard)
				p.settle()
				eval[bool](p, `(document.getElementById("viewer").scrollIntoView({block: "nearest"}), true)`)
				p.screenshot(fmt.Sprintf("place-lesson-%d-%dx%d-done", i+1, mode.w, mode.h))
			}
			if played < 2 {
				p.fail("%d place lessons played", played)
			}
		})
	}
}

// The app's place flow, through the protocol a host uses and the app's
// own buttons: a tensor moved onto one it lives beside is not a plan and
// the verdict names both; a misaligned offset is an error naming the
// field and changes nothing; undo makes it a plan again; "start empty"
// stacks every buffer; the link the app writes reopens the placement in
// a fresh browser; and the plan record exported is one memplan verify
// accepts. Screenshots at 1280×800 and 390×844.
func TestBrowserPlace(t *testing.T) {
	s := openAt(t, 1280, 800)
	p := s.page
	// The first screen's weight, as TestBrowserApp measures it: placing
	// by hand adds to the viewer's wasm, within the page's budget.
	sent, total := s.served.Sent()
	for _, path := range site.AfterFirstScreen {
		total -= sent[path]
	}
	if total > site.PageBudget {
		p.fail("the first screen downloaded %d bytes, over the budget of %d: %v", total, site.PageBudget, sent)
	}
	t.Logf("the first screen downloaded %d bytes (budget %d)", total, site.PageBudget)
	p.watchPlaced()
	eval[bool](p, frame+`.addEventListener("memplan", (e) => { if (e.detail.type === "error") `+frame+`.__error = e.detail; }) || true`)
	// The planner's offsets, as the table has them before placing.
	p.wait("the table", `window.memplanApp.tensorsOf !== "" && window.memplanApp.tensors.length > 0`)
	eval[bool](p, `(window.__plannerOffsets = window.memplanApp.tensors.filter((t) => t.offset >= 0).map((t) => [t.name, t.offset]), true)`)
	p.clickElement("#place-start")
	p.wait("placing", frame+`.__placed && `+frame+`.__placed.placing && `+frame+`.__placed.valid && `+frame+`.__placed.arena === `+frame+`.__placed.planner_arena`)
	// Two buffers alive together, from the plan's own record.
	pair := eval[[]string](p, `(() => { const ts = window.memplanApp.tensors.filter(t => t.offset >= 0 && !t.root && !t.skipped && t.size > 0);
		for (const a of ts) for (const b of ts) if (a.name < b.name && a.birth <= b.death && b.birth <= a.death) return [a.name, b.name];
		return []; })()`)
	if len(pair) != 2 {
		p.fail("no two buffers alive together")
	}
	a, b := pair[0], pair[1]
	aOff := int64(eval[float64](p, fmt.Sprintf(`%s.memplan.rectOf(%q).offset`, frame, a)))
	bOff := int64(eval[float64](p, fmt.Sprintf(`%s.memplan.rectOf(%q).offset`, frame, b)))
	eval[bool](p, fmt.Sprintf(`(%s.memplan.send({type: "place", name: %q, offset: %d}), true)`, frame, b, aOff))
	p.placedIs(b, aOff)
	// The table says what the canvas shows: b where the hand put it.
	p.tableOffsetIs("the table's row of "+b+" at its offset by hand", b, aOff)
	p.wait("the conflict named", fmt.Sprintf(`(() => { const m = %s.__placed; return !m.valid && m.conflicts.some(c => [c.a, c.b].sort().join() === [%q, %q].sort().join()); })()`, frame, a, b))
	if v := p.text("#place-verdict"); !strings.Contains(v, a) || !strings.Contains(v, b) || !strings.HasPrefix(v, "Not a plan") {
		p.fail("the verdict says %q; want it to name %s and %s", v, a, b)
	}
	p.settle()
	p.screenshot("place-app-1280x800-conflict")
	// A misaligned offset: an error naming the field; nothing changes.
	undo := eval[int](p, frame+`.__placed.undo`)
	eval[bool](p, fmt.Sprintf(`(%s.memplan.send({type: "place", name: %q, offset: %d}), true)`, frame, b, aOff+1))
	p.wait("the error", fmt.Sprintf(`(() => { const e = %s.__error; return !!e && e.message.includes("offset"); })()`, frame))
	if got := int64(eval[float64](p, fmt.Sprintf(`%s.memplan.rectOf(%q).offset`, frame, b))); got != aOff || eval[int](p, frame+`.__placed.undo`) != undo {
		p.fail("a misaligned place moved %s to %d", b, got)
	}
	p.clickElement("#place-undo")
	p.placedIs(b, bOff)
	p.wait("a plan again", frame+`.__placed.valid`)
	p.tableOffsetIs("the table's row of "+b+" back at the planner's offset", b, bOff)
	// Dragged there instead: the table follows once, when the drag ends,
	// not at every move of the pointer.
	eval[bool](p, `(window.__tables = 0, window.addEventListener("message", (e) => { if (e.data && e.data.type === "tensors") window.__tables++; }), true)`)
	p.dragBuffer(b, bOff, aOff, int64(eval[float64](p, fmt.Sprintf(`window.memplanApp.tensors.find((t) => t.name === %q).size`, b))), false)
	// Where a drag lands is as exact as a pixel: read it back.
	p.wait("the drag's verdict", fmt.Sprintf(`(() => { const m = %s.__placed; return !!m && m.placing && m.selected === %q && m.offset !== %d && m.undo > 0; })()`, frame, b, bOff))
	p.tableOffsetIs("the table's row of "+b+" dragged", b, p.handOffset(b))
	if n := eval[int](p, `window.__tables`); n != 1 {
		p.fail("one drag sent %d tables; want 1, at its end", n)
	}
	p.clickElement("#place-undo")
	p.placedIs(b, bOff)
	p.tableOffsetIs("the table's row of "+b+" back again", b, bOff)
	// Moved with keys: one press's row follows; presses in a burst, all
	// sent before the viewer's next frame as a held key's repeats come
	// faster than a large plan's table is written, send the table once,
	// after the last, with the offset they all made.
	press := func(n int) {
		p.t.Helper()
		eval[bool](p, fmt.Sprintf(`(() => { const w = %s;
			for (let k = 0; k < %d; k++) w.dispatchEvent(new w.KeyboardEvent("keydown", {key: "ArrowUp", bubbles: true}));
			return true; })()`, frame, n))
	}
	press(1)
	p.wait("one press's verdict", fmt.Sprintf(`(() => { const m = %s.__placed; return !!m && m.placing && m.selected === %q && m.offset > %d; })()`, frame, b, bOff))
	up := p.handOffset(b)
	p.tableOffsetIs("the table's row of "+b+" one press up", b, up)
	const presses = 5
	eval[bool](p, `(window.__tables = 0, true)`)
	press(presses)
	final := up + presses*(up-bOff)
	p.placedIs(b, final)
	p.tableOffsetIs(fmt.Sprintf("the table's row of %s %d presses further up", b, presses), b, final)
	if n := eval[int](p, `window.__tables`); n >= presses {
		p.fail("%d presses of a key sent %d tables; want fewer, once they settle", presses, n)
	}
	// Start empty: every buffer stacked; the link reopens it.
	p.clickElement("#place-empty")
	p.wait("stacked", frame+`.__placed.valid && `+frame+`.__placed.arena > `+frame+`.__placed.planner_arena`)
	arena := eval[float64](p, frame+`.__placed.arena`)
	// A buffer stacking moved, selected: its row says where it is now.
	c := eval[string](p, fmt.Sprintf(`(() => { for (const [name, off] of %s) { const r = %s.memplan.rectOf(name);
		if (r && r.offset !== off) return name; } return ""; })()`, "window.__plannerOffsets", frame))
	if c == "" {
		p.fail("stacking moved no buffer from the planner's offset")
	}
	cPlanner := int64(eval[float64](p, fmt.Sprintf(`new Map(window.__plannerOffsets).get(%q)`, c)))
	cHand := p.handOffset(c)
	eval[bool](p, fmt.Sprintf(`(%s.memplan.send({type: "focus", name: %q}), true)`, frame, c))
	p.wait("the selection of "+c, fmt.Sprintf(`window.memplanApp.selected === %q`, c))
	p.tableOffsetIs("the table's row of "+c+" stacked", c, cHand)
	eval[bool](p, `(document.getElementById("table-wrap").scrollIntoView({block: "center"}), true)`)
	p.settle()
	p.screenshot("place-app-1280x800-empty-table")
	// The address follows once the state has held still for some frames:
	// wait for the stacked placement's link, which moves every buffer, not
	// an earlier one that moved only the conflicting buffer.
	p.wait("the link", `(() => { const m = /[#&]place=([^&]*)/.exec(location.hash);
		return !!m && m[1] !== "none" && decodeURIComponent(m[1]).split(";").length > 2; })()`)
	hash := eval[string](p, `location.hash`)
	p.settle()
	p.screenshot("place-app-1280x800-empty")

	// The record, exported: memplan verify accepts it.
	p.clickElement("#export")
	p.wait("the menu", `!document.getElementById("export-menu").hidden`)
	p.clickElement(`#export-menu [data-what="plan"]`)
	p.wait("the plan export", `window.memplanApp.exports.length === 1`)
	text, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.memplanApp.exports[0].blob.text()`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.fail("reading the export: %v", err)
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "placed.plan.json")
	if err := os.WriteFile(rec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(memplanCLI(t, s.root), "verify", filepath.Join(s.root, "examples", "transformer.json"), rec)
	if out, err := cmd.CombinedOutput(); err != nil {
		p.fail("memplan verify refuses the exported placement: %v\n%s", err, out)
	}
	if !strings.Contains(text, `"strategy": "by-hand"`) {
		p.fail("the exported record does not say it was placed by hand")
	}
	// Placing stops: the table has the planner's offsets again.
	p.clickElement("#place-start")
	p.wait("placing stopped", `document.getElementById("place-start").getAttribute("aria-pressed") === "false"`)
	p.tableOffsetIs("the table's row of "+c+" at the planner's offset again", c, cPlanner)

	// The link, in a fresh browser: the same placement.
	s2 := open(t, "/index.html"+hash)
	// The app's own panel says it: placing, a plan, at the arena it had.
	s2.wait("the placement reopened", fmt.Sprintf(`document.getElementById("place-start").getAttribute("aria-pressed") === "true" &&
		(document.querySelector("#place-rows dd") || {}).textContent === %q`, planner.ExactBytes(int64(arena))))
	// Its table too, though the planner's table of the plan may come
	// after the placement's.
	eval[bool](s2.page, fmt.Sprintf(`(%s.memplan.send({type: "focus", name: %q}), true)`, frame, c))
	s2.wait("the selection of "+c, fmt.Sprintf(`window.memplanApp.selected === %q`, c))
	s2.tableOffsetIs("the reopened table's row of "+c, c, cHand)
	s2.resize(390, 844)
	s2.settle()
	s2.screenshot("place-app-390x844-reopened")
	if v := s2.text("#place-verdict"); !strings.HasPrefix(v, "A plan") {
		s2.fail("the reopened placement's verdict says %q", v)
	}
	eval[bool](s2.page, `(document.getElementById("place").scrollIntoView({block: "center"}), true)`)
	s2.screenshot("place-app-390x844-panel")
}
