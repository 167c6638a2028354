//go:build !js

package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/planner"
	"memplan/tools/site"
)

// The memplan command line, built once for the tests that ask it what a
// lesson's plans are.
var cli struct {
	once sync.Once
	bin  string
	err  error
}

func memplanCLI(t *testing.T, root string) string {
	t.Helper()
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "memplan-cli")
		if cli.err = err; err != nil {
			return
		}
		cli.bin = filepath.Join(dir, "memplan")
		cmd := exec.Command("go", "build", "-o", cli.bin, "./tools/memplan")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("building the command line: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.bin
}

// cliFlags says a lesson's options (as the page sends them) as memplan
// plan's flags.
func cliFlags(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var o map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
	}
	var flags, skip []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range o {
			if !yield(k) {
				return
			}
		}
	}) {
		v := o[k]
		switch k {
		case "strategy", "webgpu", "binding", "limits", "if_branch":
			flags = append(flags, "--"+strings.ReplaceAll(k, "_", "-"), fmt.Sprint(v))
		case "alignment":
			flags = append(flags, "--align", fmt.Sprint(v))
		case "guard", "budget", "node_limit":
			flags = append(flags, "--"+strings.ReplaceAll(k, "_", "-"), fmt.Sprint(v))
		case "f32_uniform", "no_reuse":
			if v == true {
				flags = append(flags, "--"+strings.ReplaceAll(k, "_", "-"))
			}
		case "skip_params", "skip_inputs", "skip_constants":
			if v == true {
				skip = append(skip, strings.TrimPrefix(k, "skip_"))
			}
		case "symbols":
			syms := v.(map[string]any)
			for _, s := range slices.Sorted(func(yield func(string) bool) {
				for s := range syms {
					if !yield(s) {
						return
					}
				}
			}) {
				flags = append(flags, "--set", fmt.Sprintf("%s=%v", s, syms[s]))
			}
		default:
			t.Fatalf("option %s: the test does not know its flag", k)
		}
	}
	if skip != nil {
		flags = append(flags, "--skip", strings.Join(skip, ","))
	}
	return flags
}

// lessonFactsCLI asks memplan plan for every plan of a lesson and reads
// its facts, by plan name: what the page's words must say.
func lessonFactsCLI(t *testing.T, root string, l *lesson) map[string]any {
	t.Helper()
	bin := memplanCLI(t, root)
	facts := map[string]any{}
	for _, lp := range plansOf(t, l) {
		dir := t.TempDir()
		path := filepath.Join(dir, lp.file)
		if err := os.WriteFile(path, lp.data, 0o644); err != nil {
			t.Fatal(err)
		}
		a := runCLI(t, bin, root, conformanceCase{path, conformanceOptions{lp.name, nil, cliFlags(t, lp.options)}})
		if a.err != "" {
			t.Fatalf("memplan plan %s (%s): %s", lp.file, lp.name, a.err)
		}
		b, _ := json.Marshal(a.record)
		var plan planner.Plan
		if err := json.Unmarshal(b, &plan); err != nil {
			t.Fatal(err)
		}
		var fits *bool
		o := pageOptions(t, lp.options)
		if o.F32Uniform || o.WebGPU != "" || o.Budget > 0 { // the plans that have a verdict
			f := !a.over
			fits = &f
		}
		facts[lp.name] = factsOf(t, &plan, fits)
	}
	return facts
}

// shownFact is a fact as the page shows it in a lesson's words.
type shownFact struct {
	Fact, Format, Text string
	Pending            bool
}

// lessonWords is what the lesson on screen shows in its words (title,
// prose, task, hint, verdict, captions): every fact, and the rest of the
// text without facts and code.
func (p *page) lessonWords() ([]shownFact, string) {
	p.t.Helper()
	const sel = `#title, #prose, #task-text, #hint, #verdict, #caption, #beside-caption`
	facts := eval[[]shownFact](p, `[...document.querySelectorAll(`+"`"+sel+"`"+`)].filter((e) => !e.hidden && !e.closest("[hidden]"))
		.flatMap((e) => [...e.querySelectorAll(".fact")].map((f) => ({Fact: f.dataset.fact, Format: f.dataset.format,
			Text: f.textContent, Pending: f.classList.contains("pending")})))`)
	rest := eval[string](p, `[...document.querySelectorAll(`+"`"+sel+"`"+`)].filter((e) => !e.hidden && !e.closest("[hidden]"))
		.map((e) => { const c = e.cloneNode(true); c.querySelectorAll(".fact, code, .num").forEach((x) => x.remove());
			return c.textContent; }).join("\n")`)
	return facts, rest
}

// checkWords checks every fact the lesson on screen shows against the
// command line's plans, and that every number it writes out is one its
// checks say (and hold, on the command line's plans too).
func (p *page) checkWords(l *lesson, facts map[string]any, where string) {
	p.t.Helper()
	shown, rest := p.lessonWords()
	for _, f := range shown {
		want, err := formatFact(field(facts, f.Fact), f.Format)
		switch {
		case f.Pending:
			p.fail("%s: {%s} is not filled in", where, f.Fact)
		case err != nil:
			p.fail("%s: {%s}: %v", where, f.Fact, err)
		case f.Text != want:
			p.fail("%s: the page says %q for {%s|%s}; memplan plan says %q", where, f.Text, f.Fact, f.Format, want)
		}
	}
	var claimed []string
	for _, c := range l.Checks {
		claimed = append(claimed, literalNumbers(c.Says)...)
		other := c.Value
		if c.Other != "" {
			other = field(facts, c.Other)
		}
		if got := field(facts, c.Path); !holdsOp(got, c.Op, other) {
			p.fail("the lesson says %q, but memplan plan gives %s = %v, not %s %v", c.Says, c.Path, got, c.Op, other)
		}
	}
	for _, n := range literalNumbers(rest) {
		if !slices.Contains(claimed, n) {
			p.fail("%s: the page writes out %s, which is neither the planner's fact nor a checked claim:\n%s", where, n, rest)
		}
	}
	if eval[bool](p, `!document.getElementById("stale").hidden`) {
		p.fail("%s: the page says the planner contradicts the lesson: %s", where, p.text("#stale"))
	}
}

// An answer to a lesson's task, and what the page must make of it.
type lessonTry struct {
	button string // press the lesson's button with this label, or
	tensor string // select this tensor, or
	cursor string // move the time cursor to the "first" or "last" step or the "peak"
	// cursorFirst moves the time cursor there before a tensor is
	// selected: not an answer, what the learner sees as it picks.
	cursorFirst string
	// want is the hint the page must show (a wrong answer's index; -1:
	// the generic hint), unless right: then it completes the task.
	want  int
	right bool
}

// lessonCase is a lesson as the test knows it: its file, the answers it
// tries, and for select tasks the test's own reading of which tensors
// are right and which hint each wrong one earns (every tensor is tried,
// from the list under the plot, so the task accepts exactly the right
// ones).
type lessonCase struct {
	file string
	// place, for lessons that have the learner place buffers by hand,
	// names their steps in placeCases.
	place string
	tries func(facts map[string]any) []lessonTry
	// judge, for select tasks, is the outcome of selecting a tensor.
	judge func(facts map[string]any, tensor map[string]any) lessonTry
	// click are tensors clicked on the plot, as a learner does.
	click []string
}

func tensorsOf(facts map[string]any, plan string) []map[string]any {
	var out []map[string]any
	byName := field(facts, plan+".tensors").(map[string]any)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range byName {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, byName[k].(map[string]any))
	}
	return out
}

func strategyTries(facts map[string]any, right func(plan string) bool, hints map[string]int) []lessonTry {
	var out []lessonTry
	var rights []lessonTry
	for _, s := range []string{"best-fit", "first-use", "breadth", "auto", "exact"} {
		k, ok := hints[s]
		if !ok {
			continue
		}
		if right(s) {
			rights = append(rights, lessonTry{button: s, right: true})
		} else {
			out = append(out, lessonTry{button: s, want: k})
		}
	}
	return append(out, rights...)
}

var lessonCases = []lessonCase{
	{file: "liveness.json", tries: func(map[string]any) []lessonTry {
		return []lessonTry{{cursor: "first", want: 0}, {cursor: "last", want: 1}, {cursor: "peak", right: true}}
	}},
	{file: "reuse.json", click: []string{"x", "c"}, judge: func(f, tn map[string]any) lessonTry {
		switch {
		case tn["reuses"] != nil:
			return lessonTry{right: true}
		case tn["kind"] == "input":
			return lessonTry{want: 0}
		}
		for _, o := range tensorsOf(f, "lesson") { // did another take its bytes later?
			if o["reuses"] == tn["name"] {
				return lessonTry{want: 1}
			}
		}
		return lessonTry{want: -1}
	}},
	{file: "r1-views.json", click: []string{"x", "n"}, judge: func(f, tn map[string]any) lessonTry {
		switch {
		case tn["root"] == "mm" && tn["view_offset"] == field(f, "lesson.tensors.n.view_offset"):
			return lessonTry{right: true}
		case tn["root"] == "mm":
			return lessonTry{want: 0}
		case tn["name"] == "mm":
			return lessonTry{want: 1}
		}
		return lessonTry{want: -1}
	}},
	{file: "guards.json", tries: func(f map[string]any) []lessonTry {
		// Which is right is the command line's word: the guards cost more.
		if !holdsOp(field(f, "noguards.arena_size"), "<", field(f, "align1.arena_size")) {
			panic("memplan plan says the alignment costs more than the guards: the lesson's right answer is wrong")
		}
		return []lessonTry{{button: "Defaults", want: -1}, {button: "Alignment 1", want: 1}, {button: "Alignment 256", want: 2},
			{button: "Neither", want: 0}, {button: "No guards", right: true}}
	}},
	{file: "fragmentation.csv", tries: func(f map[string]any) []lessonTry {
		return strategyTries(f, func(s string) bool {
			return holdsOp(field(f, s+".arena_size"), "==", field(f, s+".lower_bound"))
		}, map[string]int{"best-fit": 0, "first-use": 1, "breadth": 2, "auto": -1, "exact": -1})
	}},
	{file: "hard.csv", tries: func(f map[string]any) []lessonTry {
		return strategyTries(f, func(s string) bool {
			plan := s
			if s == "auto" {
				plan = "lesson"
			}
			return field(f, plan+".proven") == true
		}, map[string]int{"best-fit": 0, "first-use": 0, "auto": 1, "exact": -1})
	}},
	{file: "transformer.json", tries: func(f map[string]any) []lessonTry {
		if field(f, "longest.fit.fits") != false || field(f, "lesson.fit.fits") != true {
			panic("memplan plan says seq 2048 fits, or seq 256 does not: the lesson's task is wrong")
		}
		return []lessonTry{{button: "seq 256, as written (f16)", want: 0}, {button: "seq 512", want: 1},
			{button: "seq 1024", want: 1}, {button: "seq 2048", right: true}}
	}},
	{file: "transformer.json", click: []string{"l0.up", "l0.attn"}, judge: func(f, tn map[string]any) lessonTry {
		switch tn["buffer"] {
		case 1.0:
			return lessonTry{right: true}
		case 0.0:
			return lessonTry{want: 0}
		}
		return lessonTry{want: -1}
	}},
	{file: "mnist.onnx", tries: func(map[string]any) []lessonTry {
		// Not alive at the peak, picked with the cursor there: dimmed.
		// (Every tensor is tried first with the cursor hidden.)
		return []lessonTry{{cursorFirst: "peak", tensor: "ReLU32_Output_0", want: 3}}
	}, click: []string{"Convolution28_Output_0", "Plus30_Output_0"}, judge: func(f, tn map[string]any) lessonTry {
		in := func(path string) bool { return slices.Contains(field(f, path).([]any), tn["name"]) }
		switch {
		case in("lesson.peak.writes"):
			return lessonTry{right: true}
		case in("lesson.peak.reads"):
			return lessonTry{want: 0}
		case tn["kind"] == "param":
			return lessonTry{want: 1}
		case !in("lesson.peak.live.name"):
			return lessonTry{want: 2} // with the cursor hidden, as the lesson opens
		}
		return lessonTry{want: -1}
	}},
	{file: "pack.csv", place: "10-pack.json"},
	{file: "greedy.csv", place: "11-greedy.json"},
}

// lessonReady waits for lesson i's plan on screen (and the one beside,
// when it has one), its facts filled in and its task armed.
func (p *page) lessonReady(i int, file string) {
	p.t.Helper()
	p.waitLong(fmt.Sprintf("lesson %d's plan and facts", i+1), fmt.Sprintf(`window.memplanLearn.at === %d && window.memplanLearn.armed &&
		!document.querySelector(".lesson .fact.pending") &&
		(() => { const s = %s.memplan.state(); return s.file === %q && !s.dirty; })() &&
		(document.getElementById("beside-fig").hidden || !document.getElementById("beside").classList.contains("loading") &&
			!%s.memplan.state().dirty)`, i, frame, file, viewerIn("beside")))
}

// answered waits for the page to judge one more answer than before, and
// checks what it made of it.
func (p *page) answered(i, before int, tr lessonTry, what string) {
	p.t.Helper()
	p.wait(what+" judged", fmt.Sprintf(`window.memplanLearn.answers > %d`, before))
	done := eval[bool](p, `document.getElementById("task").classList.contains("done")`)
	which := eval[string](p, `document.getElementById("hint").hidden ? "" : document.getElementById("hint").dataset.which`)
	switch {
	case tr.right && !done:
		p.fail("lesson %d: %s is right, but the task is not done (hint %q: %s)", i+1, what, which, p.text("#hint"))
	case tr.right && !strings.HasPrefix(p.text("#verdict"), "Done."):
		p.fail("lesson %d: %s: the verdict is %q", i+1, what, p.text("#verdict"))
	case !tr.right && done:
		p.fail("lesson %d counted a wrong answer: %s", i+1, what)
	case !tr.right && which != fmt.Sprint(tr.want):
		p.fail("lesson %d: %s shows hint %q (%s), want %d", i+1, what, which, p.text("#hint"), tr.want)
	case !tr.right && !strings.HasPrefix(p.text("#hint"), "Not yet. "):
		p.fail("lesson %d: %s: the hint reads %q", i+1, what, p.text("#hint"))
	}
}

// Every lesson driven as a learner, at 1280×800 with the mouse and at a
// phone's 390×844 with keys alone: each wrong answer the test knows
// shows its hint and does not complete the task, the right answer
// completes it (select tasks: every tensor is tried, and exactly the
// right ones complete it), and every fact in the words equals what
// memplan plan says of the lesson's file.
func TestBrowserLessons(t *testing.T) {
	root := moduleRoot(t)
	names, lessons := readLessons(t)
	if len(names) != len(lessonCases) {
		t.Fatalf("%d lessons, the test knows %d", len(names), len(lessonCases))
	}
	facts := make([]map[string]any, len(lessons))
	for i, l := range lessons {
		facts[i] = lessonFactsCLI(t, root, l)
	}
	for _, mode := range []struct {
		w, h     int64
		keyboard bool
	}{{1280, 800, false}, {390, 844, true}} {
		how := "mouse"
		if mode.keyboard {
			how = "keyboard"
		}
		t.Run(fmt.Sprintf("%dx%d-%s", mode.w, mode.h, how), func(t *testing.T) {
			s := open(t, "/learn.html")
			p := s.page
			p.resize(mode.w, mode.h)
			p.wait("the lessons", `window.memplanLearn.lessons.length > 0`)
			if n := eval[int](p, `window.memplanLearn.lessons.length`); n != len(names) {
				p.fail("the page has %d lessons, the index %d", n, len(names))
			}
			for i, lc := range lessonCases {
				l := lessons[i]
				if i > 0 {
					p.activate("#next", mode.keyboard)
				}
				p.lessonReady(i, lc.file)
				if eval[bool](p, `document.getElementById("task").classList.contains("done")`) {
					p.fail("lesson %d is done before the task was tried", i+1)
				}
				if c := eval[int](p, frame+`.memplan.state().cursor`); c != -1 {
					p.fail("lesson %d opens with the time cursor at step %d", i+1, c)
				}
				p.checkWords(l, facts[i], fmt.Sprintf("lesson %d", i+1))
				// The readouts under the plots: the live plans' numbers, as
				// memplan plan gives them.
				for _, r := range []struct{ id, plan string }{{"readout", "lesson"}, {"beside-readout", "beside"}} {
					if facts[i][r.plan] == nil {
						continue
					}
					want := fmt.Sprintf("%s: arena %s, lower bound %s", field(facts[i], r.plan+".strategy"),
						planner.ExactBytes(int64(field(facts[i], r.plan+".arena_size").(float64))), planner.ExactBytes(int64(field(facts[i], r.plan+".lower_bound").(float64))))
					if got := p.text("#" + r.id); !strings.HasPrefix(got, want) {
						p.fail("lesson %d: the readout says %q; memplan plan says %q", i+1, got, want)
					}
				}
				p.settle()
				p.screenshot(fmt.Sprintf("lesson-%d-%dx%d-start", i+1, mode.w, mode.h))
				p.driveLesson(i, l, lc, facts[i], mode.keyboard)
				p.wait(fmt.Sprintf("lesson %d done", i+1), `document.getElementById("task").classList.contains("done")`)
				p.checkWords(l, facts[i], fmt.Sprintf("lesson %d, done", i+1))
				if !eval[bool](p, fmt.Sprintf(`document.querySelectorAll("#lesson-list button")[%d].classList.contains("done")`, i)) {
					p.fail("the lesson list does not mark lesson %d done", i+1)
				}
				p.settle()
				if eval[bool](p, `!document.getElementById("beside-fig").hidden`) {
					p.wait("the plan beside", fmt.Sprintf(`(() => { const m = %s.memplan; return m && !m.state().dirty; })()`, viewerIn("beside")))
				}
				p.screenshot(fmt.Sprintf("lesson-%d-%dx%d-done", i+1, mode.w, mode.h))
			}
			// Every lesson, its viewers and their planner: what a learner
			// downloads, gzipped as served, is within the app's budget.
			sent, total := s.served.Sent()
			if total > site.AppBudget {
				p.fail("the lessons downloaded %d bytes in all, over the budget of %d: %v", total, site.AppBudget, sent)
			}
			t.Logf("the lessons downloaded %d bytes in all (budget %d): %v", total, site.AppBudget, sent)
		})
	}
}

// driveLesson tries the lesson's answers: the wrong ones, then the right
// one, by mouse (or, keyboard, by keys alone) and checks each.
func (p *page) driveLesson(i int, l *lesson, lc lessonCase, facts map[string]any, keyboard bool) {
	p.t.Helper()
	if lc.place != "" {
		p.drivePlace(i, l, placeCases[lc.place](facts), facts, keyboard)
		return
	}
	do := func(tr lessonTry, more bool) {
		p.t.Helper()
		if tr.cursorFirst != "" {
			p.moveCursor(i, tr.cursorFirst, facts, keyboard)
		}
		before := eval[int](p, `window.memplanLearn.answers`)
		what := tr.button + tr.tensor + tr.cursor
		switch {
		case tr.button != "":
			p.activate(p.action(i, tr.button), keyboard)
		case tr.cursor != "":
			p.moveCursor(i, tr.cursor, facts, keyboard)
		case tr.tensor != "" && keyboard:
			p.tabTo("#pick-tensor")
			// Typing steps through the tensors the prefix matches first;
			// Enter settles on the one typed.
			p.run("type "+tr.tensor, chromedp.KeyEvent(tr.tensor))
			// Shown on the plot, but not an answer until settled on.
			p.wait(tr.tensor+" shown and held", fmt.Sprintf(`(() => { const e = window.memplanLearn.picking.event; return !!e && e.tensor.tensor.name === %q; })()`, tr.tensor))
			if n := eval[int](p, `window.memplanLearn.answers`); n != before {
				p.fail("lesson %d: typing %s in the list judged %d answers before Enter", i+1, tr.tensor, n-before)
			}
			p.run("Enter", chromedp.KeyEvent(kb.Enter))
		case tr.tensor != "":
			p.settle()
			p.clickTensor("viewer", tr.tensor)
		}
		p.answered(i, before, tr, what)
		p.checkWords(l, facts, fmt.Sprintf("lesson %d after %s", i+1, what))
		if tr.right && more {
			p.activate("#retry", keyboard) // for the next answer
			p.wait("the task open again", `!document.getElementById("task").classList.contains("done")`)
		}
	}
	var tries []lessonTry
	if lc.tries != nil {
		tries = lc.tries(facts)
	}
	for _, name := range lc.click { // a select task's answers, as a learner clicks them
		tn, ok := field(facts, "lesson.tensors").(map[string]any)[name].(map[string]any) // a name may hold dots
		if !ok {
			p.fail("lesson %d has no tensor %s", i+1, name)
		}
		tr := lc.judge(facts, tn)
		tr.tensor = name
		tries = append(tries, tr)
	}
	if len(tries) == 0 || !tries[len(tries)-1].right {
		p.fail("lesson %d: the test's last answer is not a right one", i+1)
	}
	seen := map[int]bool{}
	if lc.judge != nil && !keyboard {
		// Every tensor, from the list under the plot: exactly the right
		// ones complete the task.
		for _, tn := range tensorsOf(facts, "lesson") {
			tr := lc.judge(facts, tn)
			name := tn["name"].(string)
			before := eval[int](p, `window.memplanLearn.answers`)
			eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("pick-tensor"); s.value = %q;
				s.dispatchEvent(new Event("change")); return s.value === %q; })()`, name, name))
			p.answered(i, before, tr, "selecting "+name)
			if tr.right {
				p.activate("#retry", false)
			} else {
				seen[tr.want] = true
			}
		}
		// Nothing selected, so that a click on the last one selects it again.
		eval[bool](p, `(() => { const s = document.getElementById("pick-tensor"); s.value = "";
			s.dispatchEvent(new Event("change")); return true; })()`)
		p.wait("no selection", frame+`.memplan.state().selected === null`)
	}
	if keyboard {
		tries = tries[len(tries)-1:] // keys alone: the right answer
	}
	for k, tr := range tries {
		do(tr, k < len(tries)-1)
		if !tr.right {
			seen[tr.want] = true
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

// action is the selector of lesson i's button with this label.
func (p *page) action(i int, label string) string {
	p.t.Helper()
	k := eval[int](p, fmt.Sprintf(`[...document.querySelectorAll("#actions button")].findIndex(b => b.textContent === %q)`, label))
	if k < 0 {
		p.fail("lesson %d has no button %q", i+1, label)
	}
	return fmt.Sprintf("#actions button:nth-child(%d)", k+1)
}

// activate activates a page element: a mouse click, or with the
// keyboard, Tab to it and Enter.
func (p *page) activate(sel string, keyboard bool) {
	p.t.Helper()
	if !keyboard {
		p.clickElement(sel)
		return
	}
	p.tabTo(sel)
	p.run("Enter on "+sel, chromedp.KeyEvent("\r"))
}

// tabTo presses Tab until the element sel has the focus.
func (p *page) tabTo(sel string) {
	p.t.Helper()
	for range 80 {
		if eval[bool](p, fmt.Sprintf(`document.activeElement && document.activeElement.matches(%q)`, sel)) {
			return
		}
		p.run("Tab", chromedp.KeyEvent("\t"))
	}
	p.fail("80 presses of Tab did not reach %s (at %s)", sel, eval[string](p, `document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : "nothing"`))
}

// moveCursor moves lesson i's time cursor to the first or last step or
// to the peak: dragged along the live strip, or with the keyboard
// stepped with the lesson's buttons.
func (p *page) moveCursor(i int, where string, facts map[string]any, keyboard bool) {
	p.t.Helper()
	last := int(field(facts, "lesson.steps").(float64))
	to := map[string]int{"first": 0, "last": last, "peak": int(field(facts, "lesson.peak.step").(float64))}[where]
	if !keyboard {
		from := to
		if where == "peak" {
			from = 0
		}
		p.dragCursor(from, to)
		return
	}
	// From a hidden cursor: forward shows it at the first step, back at
	// the last.
	p.activate(p.action(i, "Hide the cursor"), true)
	p.wait("no cursor", frame+`.memplan.state().cursor === -1`)
	if where == "last" {
		p.activate(p.action(i, "← Step back"), true)
		p.wait("the cursor at the last step", fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, last))
		return
	}
	for c := -1; c != to; c++ {
		p.activate(p.action(i, "Step forward →"), true)
		p.wait(fmt.Sprintf("the cursor at step %d", c+1), fmt.Sprintf(`%s.memplan.state().cursor === %d`, frame, c+1))
	}
}

// Every lesson at 1280×800, 800×600 and a phone's 390×844: nothing runs
// off the side, the words and the plans do not overlap, and on a phone
// the plans come after the prose and before the buttons and the task
// that use them. Screenshots of each go to the artifacts directory (and
// to MEMPLAN_SHOTS, when set) for people to look at.
func TestLessonScreenshots(t *testing.T) {
	names, lessons := readLessons(t)
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {800, 600}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			s := open(t, "/learn.html")
			p := s.page
			p.resize(size.w, size.h)
			p.wait("the lessons", `window.memplanLearn.lessons.length > 0`)
			for i := range names {
				if i > 0 {
					p.clickElement(fmt.Sprintf("#lesson-list li:nth-child(%d) button", i+1))
				}
				p.lessonReady(i, lessons[i].fileName())
				p.settle()
				type box struct{ L, T, R, B float64 }
				b := eval[struct {
					Scroll, Width         float64
					Prose, Stage, Actions box
					Task, Viewer, Readout box
				}](p, `(() => { const r = (id) => { const e = document.querySelector(id).getBoundingClientRect();
					return {L: e.left + scrollX, T: e.top + scrollY, R: e.right + scrollX, B: e.bottom + scrollY}; };
					return {Scroll: document.documentElement.scrollWidth, Width: innerWidth, Prose: r("#prose"), Stage: r(".stage"),
						Actions: r("#actions"), Task: r("#task"), Viewer: r("#viewer"), Readout: r("#readout")}; })()`)
				where := fmt.Sprintf("lesson %d at %dx%d", i+1, size.w, size.h)
				if b.Scroll > b.Width {
					p.fail("%s: the page is %.0f px wide in a %.0f px window", where, b.Scroll, b.Width)
				}
				for name, r := range map[string]box{"prose": b.Prose, "plans": b.Stage, "task": b.Task, "viewer": b.Viewer} {
					if r.R-r.L < 100 || r.B-r.T < 20 || r.R > b.Width+0.5 {
						p.fail("%s: the %s is %+v", where, name, r)
					}
				}
				if size.w > 720 && b.Prose.R > b.Stage.L {
					p.fail("%s: the words (%+v) run under the plans (%+v)", where, b.Prose, b.Stage)
				}
				if size.w <= 720 && !(b.Prose.B <= b.Stage.T && b.Stage.B <= b.Actions.T && b.Actions.B <= b.Task.T) {
					p.fail("%s: on a phone the prose, the plans, the buttons and the task come in that order: %+v", where, b)
				}
				name := fmt.Sprintf("lesson-%d-%dx%d", i+1, size.w, size.h)
				eval[bool](p, `(window.scrollTo(0, 0), true)`)
				p.screenshot(name)
				p.shot(name)
				if size.w <= 720 {
					for _, at := range []string{"viewer", "task"} {
						eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).scrollIntoView({block: "center"}), true)`, at))
						p.settle()
						p.screenshot(name + "-" + at)
						p.shot(name + "-" + at)
					}
				}
			}
		})
	}
}

// A claim the live plans contradict is said on the page, never passed
// over: lesson 5 served with one more check, that breadth reaches the
// lower bound (it does not), shows a notice naming that claim and no
// other.
func TestBrowserLessonContradicted(t *testing.T) {
	data, err := os.ReadFile("lessons/05-fragmentation.json")
	if err != nil {
		t.Fatal(err)
	}
	var l map[string]any
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	const claim = "breadth reaches the lower bound"
	l["checks"] = append(l["checks"].([]any), map[string]any{"says": claim, "path": "breadth.arena_size", "op": "==", "other": "breadth.lower_bound"})
	lesson, _ := json.Marshal(l)
	serve := func(body []byte) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		})
	}
	s := openWith(t, "/learn.html", 3*time.Minute, map[string]http.Handler{
		"/lessons/index.json":            serve([]byte(`{"lessons": ["05-fragmentation.json"]}`)),
		"/lessons/05-fragmentation.json": serve(lesson),
	})
	p := s.page
	p.wait("the lesson", `window.memplanLearn.lessons.length === 1`)
	p.lessonReady(0, "fragmentation.csv")
	p.wait("the notice", `!document.getElementById("stale").hidden`)
	if got := p.text("#stale"); !strings.Contains(got, "“"+claim+"”") || strings.Count(got, "“") != 1 {
		p.fail("the notice reads %q; want it to name %q and no other claim", got, claim)
	}
}
