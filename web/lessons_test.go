package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	_ "memplan/ir/onnx" // a lesson may plan an ONNX model
	"memplan/planner"
	"memplan/wasm/protocol"
)

// lesson is the shape of a file in lessons/ (learn.js reads it;
// docs/lessons.md describes it).
type lesson struct {
	Title   string          `json:"title"`
	Short   string          `json:"short"` // the lesson list's name for it
	Prose   []string        `json:"prose"`
	Example string          `json:"example"`
	File    *lessonFile     `json:"file"`
	Options json.RawMessage `json:"options"`
	Caption string          `json:"caption"`
	Beside  *struct {
		File    *lessonFile     `json:"file"`
		Options json.RawMessage `json:"options"`
		Caption string          `json:"caption"`
	} `json:"beside"`
	// Plans are more plans of the lesson's file, unseen, that its words
	// refer to by name.
	Plans   map[string]json.RawMessage `json:"plans"`
	Checks  []check                    `json:"checks"`
	Actions []struct {
		Label string          `json:"label"`
		Send  json.RawMessage `json:"send"`
	} `json:"actions"`
	Task struct {
		Text   string      `json:"text"`
		Event  string      `json:"event"`
		Answer []condition `json:"answer"`
		When   []condition `json:"when"`
		Wrong  []struct {
			When []condition `json:"when"`
			Hint string      `json:"hint"`
		} `json:"wrong"`
		Hint string `json:"hint"`
		Done string `json:"done"`
	} `json:"task"`
}

// condition is one test of a task: path (and other) into the viewer's
// event, fact into the lesson's facts.
type condition struct {
	Path  string `json:"path"`
	Op    string `json:"op"`
	Value any    `json:"value"`
	Other string `json:"other"`
	Fact  string `json:"fact"`
}

// check is a claim a lesson's words make, tested on its facts: path and
// other are fact paths.
type check struct {
	Says  string `json:"says"`
	Path  string `json:"path"`
	Op    string `json:"op"`
	Value any    `json:"value"`
	Other string `json:"other"`
}

type lessonFile struct {
	Name  string          `json:"name"`
	Graph json.RawMessage `json:"graph"`
	CSV   []string        `json:"csv"`
	URL   string          `json:"url"` // a file beside the lessons
}

// What a lesson may send the viewer (docs/embedding.md; cursor, peak and
// explain are the time cursor's), the events a task may watch, and the
// comparisons learn.js knows.
var (
	viewerRequests = []string{"load", "example", "options", "dismiss", "select", "focus", "fit", "theme", "reveal", "key", "wheel", "world", "camera", "cursor", "peak", "explain", "place", "placing"}
	viewerEvents   = []string{"summary", "select", "hover", "cursor", "explain", "placed"}
	taskOps        = []string{"==", "!=", "<", "<=", ">", ">=", "in", "!in", "has", "exists"}
	// factKeys are what a fact path may read of a plan: the fields the
	// viewer's summary and the plan record share, the tensors by name and
	// the time cursor at the peak; of the fit verdict only whether it fits.
	factKeys = []string{"arena_size", "lower_bound", "total_unshared", "saved", "steps", "alignment", "strategy",
		"optimal", "proven", "options", "symbols", "binding", "limits", "buffers", "tensors", "peak", "fit"}
	factFormats = []string{"", "bytes", "count", "names"}
)

func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// readLessons reads the index and every lesson it lists, strictly.
func readLessons(t *testing.T) ([]string, []*lesson) {
	t.Helper()
	var index struct {
		Lessons []string `json:"lessons"`
	}
	data, err := os.ReadFile("lessons/index.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := strict(data, &index); err != nil || len(index.Lessons) == 0 {
		t.Fatalf("lessons/index.json: %v (%d lessons)", err, len(index.Lessons))
	}
	var ls []*lesson
	for _, name := range index.Lessons {
		data, err := os.ReadFile(filepath.Join("lessons", name))
		if err != nil {
			t.Fatal(err)
		}
		var l lesson
		if err := strict(data, &l); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ls = append(ls, &l)
	}
	return index.Lessons, ls
}

// lessonPlan is one plan a lesson's words may refer to: its name, the
// file and the options.
type lessonPlan struct {
	name    string
	file    string // the name the viewer gets it by
	data    []byte
	example bool
	options json.RawMessage
}

// plansOf is every plan of the lesson, as learn.js asks the viewer for
// them: "lesson" (its file and options), "beside" when it has a plan
// beside, and its named plans of its own file.
func plansOf(t *testing.T, l *lesson) []lessonPlan {
	t.Helper()
	name, data := lessonInput(t, l.Example, l.File)
	out := []lessonPlan{{"lesson", name, data, l.Example != "", l.Options}}
	if l.Beside != nil {
		if l.Beside.File != nil {
			bn, bd := lessonInput(t, "", l.Beside.File)
			out = append(out, lessonPlan{"beside", bn, bd, false, l.Beside.Options})
		} else {
			out = append(out, lessonPlan{"beside", name, data, l.Example != "", l.Beside.Options})
		}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range l.Plans {
			if !yield(k) {
				return
			}
		}
	}) {
		if k == "lesson" || k == "beside" || strings.ContainsAny(k, ".{}|") {
			t.Errorf("a plan may not be named %q", k)
		}
		out = append(out, lessonPlan{k, name, data, l.Example != "", l.Plans[k]})
	}
	return out
}

// lessonInput is a lesson's file by name and its bytes.
func lessonInput(t *testing.T, example string, f *lessonFile) (string, []byte) {
	t.Helper()
	switch {
	case example != "":
		b, err := examples.FS.ReadFile(example)
		if err != nil {
			t.Fatalf("example %s: %v", example, err)
		}
		return example, b
	case f == nil:
		t.Fatal("a lesson has an example or a file")
	case f.Graph != nil:
		return f.Name, f.Graph
	case f.URL != "":
		b, err := os.ReadFile(filepath.Join("lessons", filepath.FromSlash(f.URL)))
		if err != nil {
			t.Fatalf("file %s: %v", f.URL, err)
		}
		return f.Name, b
	}
	return f.Name, []byte(strings.Join(f.CSV, "\n") + "\n")
}

// pageOptions reads options as the page sends them (absent fields take
// their defaults).
func pageOptions(t *testing.T, raw json.RawMessage) protocol.Options {
	t.Helper()
	o := protocol.Options{Options: planner.DefaultOptions()}
	if len(raw) > 0 {
		if err := strict(raw, &o); err != nil {
			t.Fatalf("options %s: %v", raw, err)
		}
	}
	if err := o.Resolve(); err != nil {
		t.Fatal(err)
	}
	if err := protocol.ResolveGPU(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

// planIn plans a lesson's plan in this process as memplan plan does,
// with the command line's defaults for the search, and gives the verdict
// the page shows (nil: none).
func planIn(t *testing.T, lp lessonPlan) (*planner.Plan, *planner.Fit) {
	t.Helper()
	o := pageOptions(t, lp.options)
	in, err := planner.Load(lp.file, lp.data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	if in.Source == nil {
		t.Fatalf("%s is a plan record; a lesson plans a graph or buffer list", lp.file)
	}
	p, err := planner.Lower(in.Source, o.Options)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := planner.PlanProblem(context.Background(), p, o.Strategy, planner.PlaceOptions{})
	if err != nil { // PlanProblem has run Verify
		t.Fatal(err)
	}
	budget := int64(-1)
	if o.Budget > 0 {
		budget = o.Budget
	}
	return plan, plan.FitOf(budget)
}

// planLesson plans the lesson's file with raw options, as the page does.
func planLesson(t *testing.T, l *lesson, raw json.RawMessage) *planner.Plan {
	t.Helper()
	lp := plansOf(t, l)[0]
	lp.options = raw
	plan, _ := planIn(t, lp)
	return plan
}

// factsOf is what a lesson's words may refer to of one plan, as learn.js
// reads it from the viewer: the plan record's fields (optimal as the
// summary says it: at the bound, or proven by exact's search), the
// tensors by name, the time cursor's report on the step that sets the
// lower bound (viz.CursorAt, computed here again from the record), and
// whether the plan fits its budget or device when it has one.
func factsOf(t *testing.T, plan *planner.Plan, fits *bool) map[string]any {
	t.Helper()
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	// proven: at the bound, or exact's search finished (the summary's).
	f["proven"] = plan.Optimal || plan.OptimalBySearch
	byName := map[string]any{}
	for _, tn := range f["tensors"].([]any) {
		byName[tn.(map[string]any)["name"].(string)] = tn
	}
	f["tensors"] = byName
	f["peak"] = jsonValue(t, peakOf(plan))
	f["fit"] = nil
	if fits != nil {
		f["fit"] = map[string]any{"fits": *fits}
	}
	return f
}

// peakOf is the time cursor's report on the first step whose live bytes
// reach the lower bound: the op there, what it reads and writes, the
// live bytes and the live tensors by offset.
func peakOf(plan *planner.Plan) map[string]any {
	step := -1
	for s := 0; s <= plan.Steps && step < 0; s++ {
		if b, _ := liveAt(plan, s); b == plan.LowerBound {
			step = s
		}
	}
	bytes, _ := liveAt(plan, step)
	c := map[string]any{"step": step, "live_bytes": bytes, "lower_bound": plan.LowerBound, "arena": plan.ArenaSize, "peak": step}
	op := ""
	if step >= 0 && step < len(plan.Schedule) {
		op = plan.Schedule[step]
	}
	reads, writes := []string{}, []string{}
	if step >= 0 && step < len(plan.Reads) {
		for _, i := range plan.Reads[step] {
			reads = append(reads, plan.Tensors[i].Name)
		}
	}
	var live []int
	for i := range plan.Tensors {
		tn := &plan.Tensors[i]
		loaded := tn.Kind == planner.KindInput || tn.Kind == planner.KindParam || tn.Kind == planner.KindConstant
		if tn.Birth == step && op != "" && !loaded {
			writes = append(writes, tn.Name)
		}
		if tn.Offset >= 0 && tn.Birth <= step && step <= tn.Death {
			live = append(live, i)
		}
	}
	// By offset, larger first, then schedule order, as the viewer lists them.
	slices.SortStableFunc(live, func(a, b int) int {
		ta, tb := &plan.Tensors[a], &plan.Tensors[b]
		if ta.Offset != tb.Offset {
			return int(ta.Offset - tb.Offset)
		}
		return int(tb.Size - ta.Size)
	})
	var liveOut []map[string]any
	for _, i := range live {
		tn := &plan.Tensors[i]
		liveOut = append(liveOut, map[string]any{"name": tn.Name, "offset": tn.Offset, "size": tn.Size, "kind": tn.Kind})
	}
	c["op"], c["reads"], c["writes"], c["live"] = op, reads, writes, liveOut
	return c
}

// jsonValue is v as JSON would give it back: numbers as float64.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// field reads a dotted path, as learn.js does: a key a list does not
// have ("length" and indexes it has) is read from each of its elements.
func field(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch o := v.(type) {
		case map[string]any:
			v = o[k]
		case []any:
			if k == "length" {
				v = float64(len(o))
			} else if i, err := strconv.Atoi(k); err == nil {
				if i < 0 || i >= len(o) {
					return nil
				}
				v = o[i]
			} else {
				out := make([]any, len(o))
				for j, e := range o {
					out[j] = field(e, k)
				}
				v = out
			}
		default:
			return nil
		}
	}
	return v
}

// holdsOp compares as learn.js's ops do.
func holdsOp(a any, op string, b any) bool {
	num := func(x any) (float64, bool) { f, ok := x.(float64); return f, ok }
	x, xok := num(a)
	y, yok := num(b)
	switch op {
	case "==": // JavaScript's ===: lists and objects are never equal
		switch a.(type) {
		case float64, string, bool:
			return a == b
		}
		return false
	case "!=":
		return !holdsOp(a, "==", b)
	case "<":
		return xok && yok && x < y
	case "<=":
		return xok && yok && x <= y
	case ">":
		return xok && yok && x > y
	case ">=":
		return xok && yok && x >= y
	case "in", "!in":
		list, ok := b.([]any)
		if !ok {
			return false
		}
		in := slices.ContainsFunc(list, func(e any) bool { return holdsOp(a, "==", e) })
		return in == (op == "in")
	case "has":
		return holdsOp(b, "in", a)
	case "exists":
		return a != nil && a != ""
	}
	return false
}

// placeholders are the {plan.path|format} facts in a lesson's text,
// outside its `code`.
var placeholder = regexp.MustCompile(`\{([^{}]+)\}`)

func factsIn(s string) [][2]string {
	var out [][2]string
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			continue
		}
		for _, m := range placeholder.FindAllStringSubmatch(part, -1) {
			path, format, _ := strings.Cut(m[1], "|")
			out = append(out, [2]string{path, format})
		}
	}
	return out
}

// literalNumbers are the numbers written out in s outside its {facts} and
// `code`: a run of digits that is not part of a word (f32, l0).
var number = regexp.MustCompile(`(^|[^\p{L}\p{N}_])(\d[\d,.]*)`)

func literalNumbers(s string) []string {
	var out []string
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			continue
		}
		for _, m := range number.FindAllStringSubmatch(placeholder.ReplaceAllString(part, " "), -1) {
			out = append(out, strings.TrimRight(m[2], ".,"))
		}
	}
	return out
}

// texts are a lesson's words, by where they are.
func (l *lesson) texts() map[string]string {
	out := map[string]string{"title": l.Title, "caption": l.Caption, "task": l.Task.Text, "done": l.Task.Done, "hint": l.Task.Hint}
	for i, p := range l.Prose {
		out[fmt.Sprintf("prose %d", i+1)] = p
	}
	if l.Beside != nil {
		out["beside's caption"] = l.Beside.Caption
	}
	for i, w := range l.Task.Wrong {
		out[fmt.Sprintf("wrong answer %d's hint", i+1)] = w.Hint
	}
	return out
}

// formatFact writes a fact as learn.js sets it in the text (its
// textContent), or says why it cannot.
func formatFact(v any, format string) (string, error) {
	n, isNum := v.(float64)
	list, isList := v.([]any)
	switch {
	case isNum && n != math.Trunc(n):
		return "", fmt.Errorf("%v is not a whole number", v)
	case format == "bytes" && isNum:
		return grouped(int64(n)) + " bytes", nil
	case format == "count" && isList:
		return grouped(int64(len(list))), nil
	case (format == "names" || format == "") && isList:
		var names []string
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("%v is not a list of names", v)
			}
			names = append(names, s)
		}
		switch len(names) {
		case 0:
			return "none", nil
		case 1:
			return names[0], nil
		}
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1], nil
	case format == "" && isNum:
		return grouped(int64(n)), nil
	case format == "":
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("%v (%T) cannot be set as %q", v, v, format)
}

// checkFactPath says what is wrong with a fact path, or nil.
func checkFactPath(path string, facts map[string]any) error {
	parts := strings.Split(path, ".")
	if len(parts) < 2 || facts[parts[0]] == nil {
		return fmt.Errorf("%s: no plan %q", path, parts[0])
	}
	if !slices.Contains(factKeys, parts[1]) {
		return fmt.Errorf("%s: a plan's facts are %v", path, factKeys)
	}
	if parts[1] == "fit" && (len(parts) != 3 || parts[2] != "fits") {
		return fmt.Errorf("%s: of the verdict, only fit.fits", path)
	}
	if field(facts, path) == nil {
		return fmt.Errorf("%s: nothing there", path)
	}
	return nil
}

// Every lesson file parses, is listed, names what exists, and its graph
// plans and passes Verify with every set of options the lesson sends; its
// words refer only to facts its plans have, every claim it checks holds
// on them, and every number it writes out is one a claim checks.
func TestLessons(t *testing.T) {
	names, lessons := readLessons(t)
	files, _ := filepath.Glob("lessons/*.json")
	for _, f := range files {
		if b := filepath.Base(f); b != "index.json" && !slices.Contains(names, b) {
			t.Errorf("%s is not listed in lessons/index.json", f)
		}
	}
	for k, name := range names {
		l := lessons[k]
		t.Run(name, func(t *testing.T) {
			if l.Title == "" || len(l.Prose) == 0 || l.Task.Text == "" || l.Task.Done == "" {
				t.Error("a lesson needs a title, prose, a task and what to say when it is done")
			}
			if (l.Example == "") == (l.File == nil) {
				t.Fatal("a lesson has either an example or a file")
			}
			for _, f := range []*lessonFile{l.File, besideFile(l)} {
				if f == nil {
					continue
				}
				kinds := 0
				for _, has := range []bool{f.Graph != nil, f.CSV != nil, f.URL != ""} {
					if has {
						kinds++
					}
				}
				if f.Name == "" || kinds != 1 {
					t.Fatalf("a file has a name and one of a graph, csv lines or a url: %+v", f)
				}
			}
			facts := lessonFactsIn(t, l)
			plan := facts["lesson"].(map[string]any)
			tensorNames := plan["tensors"].(map[string]any)
			for _, a := range l.Actions {
				var msg struct {
					Type    string          `json:"type"`
					Name    string          `json:"name"`
					Options json.RawMessage `json:"options"`
				}
				if err := json.Unmarshal(a.Send, &msg); err != nil || a.Label == "" {
					t.Fatalf("action %q: %v", a.Label, err)
				}
				if !slices.Contains(viewerRequests, msg.Type) {
					t.Errorf("action %q sends %q, which the viewer does not take", a.Label, msg.Type)
				}
				switch msg.Type {
				case "options":
					planLesson(t, l, msg.Options)
				case "select", "focus", "explain":
					if tensorNames[msg.Name] == nil {
						t.Errorf("action %q names %q, which the plan does not have", a.Label, msg.Name)
					}
				}
			}

			// The task: its event, its conditions, and an answer for
			// every wrong try.
			if !slices.Contains(viewerEvents, l.Task.Event) || len(l.Task.When) == 0 {
				t.Errorf("task watches %q with %d conditions", l.Task.Event, len(l.Task.When))
			}
			if len(l.Task.Wrong) == 0 || l.Task.Hint == "" {
				t.Error("a task names the wrong answers a learner is likely to give, with a hint for each, and has a hint for any other")
			}
			conds := slices.Concat(l.Task.Answer, l.Task.When)
			for _, w := range l.Task.Wrong {
				if len(w.When) == 0 || w.Hint == "" {
					t.Errorf("a wrong answer needs conditions and a hint: %+v", w)
				}
				conds = append(conds, w.When...)
			}
			for _, c := range conds {
				given := 0
				for _, has := range []bool{c.Value != nil, c.Other != "", c.Fact != ""} {
					if has {
						given++
					}
				}
				if c.Path == "" || !slices.Contains(taskOps, c.Op) || (c.Op != "exists" && given != 1) {
					t.Errorf("condition %+v: want a path, an op of %v, and a value, another path or a fact", c, taskOps)
				}
				if c.Fact != "" {
					if err := checkFactPath(c.Fact, facts); err != nil {
						t.Errorf("condition %+v: %v", c, err)
					}
				}
				if strings.HasSuffix(c.Path, "tensor.name") {
					if s, ok := c.Value.(string); ok && tensorNames[s] == nil {
						t.Errorf("the task names %v, which the plan does not have", c.Value)
					}
				}
			}

			// The words: every fact they refer to exists and can be set
			// as asked; every number written out is one a claim checks.
			var claimed []string
			for _, c := range l.Checks {
				if c.Says == "" || c.Path == "" || !slices.Contains(taskOps, c.Op) {
					t.Errorf("check %+v: want what it backs (says), a path and an op of %v", c, taskOps)
					continue
				}
				claimed = append(claimed, literalNumbers(c.Says)...)
				for _, p := range []string{c.Path, c.Other} {
					if p == "" {
						continue
					}
					if err := checkFactPath(p, facts); err != nil && c.Op != "exists" {
						t.Errorf("check %q: %v", c.Says, err)
					}
				}
				other := c.Value
				if c.Other != "" {
					other = field(facts, c.Other)
				}
				if got := field(facts, c.Path); !holdsOp(got, c.Op, other) {
					t.Errorf("the lesson says %q, but the planner gives %s = %v, not %s %v", c.Says, c.Path, got, c.Op, other)
				}
			}
			for where, s := range l.texts() {
				for _, f := range factsIn(s) {
					if err := checkFactPath(f[0], facts); err != nil {
						t.Errorf("%s: {%s}: %v", where, f[0], err)
					} else if !slices.Contains(factFormats, f[1]) {
						t.Errorf("%s: {%s|%s}: formats are %q", where, f[0], f[1], factFormats)
					} else if _, err := formatFact(field(facts, f[0]), f[1]); err != nil {
						t.Errorf("%s: {%s|%s}: %v", where, f[0], f[1], err)
					}
				}
				for _, n := range literalNumbers(s) {
					if !slices.Contains(claimed, n) {
						t.Errorf("%s writes out %s: a number in a lesson is a {fact} of its plans, or one of its checks says it and holds", where, n)
					}
				}
			}
		})
	}
}

// fileName is the name the viewer shows the lesson's file by.
func (l *lesson) fileName() string {
	if l.Example != "" {
		return l.Example
	}
	return l.File.Name
}

func besideFile(l *lesson) *lessonFile {
	if l.Beside == nil {
		return nil
	}
	return l.Beside.File
}

// lessonFactsIn plans every plan of a lesson in this process and reads
// its facts, by plan name.
func lessonFactsIn(t *testing.T, l *lesson) map[string]any {
	t.Helper()
	facts := map[string]any{}
	for _, lp := range plansOf(t, l) {
		plan, fit := planIn(t, lp)
		var fits *bool
		if fit != nil {
			fits = &fit.Fits
		}
		facts[lp.name] = factsOf(t, plan, fits)
	}
	return facts
}

// The checker of lesson words finds the numbers written out and the
// facts, and reads paths as learn.js does.
func TestLessonWords(t *testing.T) {
	for _, c := range []struct {
		s    string
		nums []string
		fs   [][2]string
	}{
		{"at most 128 MiB, f32 and `l0.up` at step {lesson.peak.step}.", []string{"128"}, [][2]string{{"lesson.peak.step", ""}}},
		{"the 9th of 2,048 numbers, in `{not.a.fact}`, {a.b|bytes}", []string{"9", "2,048"}, [][2]string{{"a.b", "bytes"}}},
		{"Step 1. bf16 and SR2", []string{"1"}, nil},
	} {
		if got := literalNumbers(c.s); !slices.Equal(got, c.nums) {
			t.Errorf("literalNumbers(%q) = %q, want %q", c.s, got, c.nums)
		}
		if got := factsIn(c.s); !slices.Equal(got, c.fs) {
			t.Errorf("factsIn(%q) = %q, want %q", c.s, got, c.fs)
		}
	}
	v := jsonValue(t, map[string]any{"p": map[string]any{"live": []map[string]any{{"name": "a"}, {"name": "b"}}, "buffers": []int{3, 4}}})
	for _, c := range []struct {
		path string
		want string
	}{
		{"p.live.name", "[a b]"}, {"p.live.length", "2"}, {"p.buffers.1", "4"}, {"p.buffers.2", "<nil>"}, {"p.none.x", "<nil>"},
	} {
		if got := fmt.Sprint(field(v, c.path)); got != c.want {
			t.Errorf("field(%s) = %s, want %s", c.path, got, c.want)
		}
	}
	for _, c := range []struct {
		a    any
		op   string
		b    any
		want bool
	}{
		{1.0, "==", 1.0, true}, {"1", "==", 1.0, false}, {nil, "==", nil, false}, {2.0, "<", 3.0, true}, {"a", "<", "b", false},
		{"a", "in", []any{"a", "b"}, true}, {"c", "!in", []any{"a", "b"}, true}, {[]any{"a"}, "has", "a", true},
		{"", "exists", nil, false}, {0.0, "exists", nil, true},
	} {
		if got := holdsOp(c.a, c.op, c.b); got != c.want {
			t.Errorf("%v %s %v = %v, want %v", c.a, c.op, c.b, got, c.want)
		}
	}
}

// A lesson's words before the task is done (its prose, caption, task and
// buttons) never name a tensor that answers the task: the learner finds
// it. The answers are the names the task's conditions accept, from the
// engine's facts.
func TestLessonWordsKeepTheAnswer(t *testing.T) {
	names, lessons := readLessons(t)
	for k, name := range names {
		l := lessons[k]
		t.Run(name, func(t *testing.T) {
			var answers []string
			for _, c := range slices.Concat(l.Task.Answer, l.Task.When) {
				if c.Path != "tensor.tensor.name" || (c.Op != "in" && c.Op != "==") {
					continue
				}
				var v any = c.Value
				if c.Fact != "" {
					v = field(lessonFactsIn(t, l), c.Fact)
				}
				switch v := v.(type) {
				case string:
					answers = append(answers, v)
				case []any:
					for _, n := range v {
						answers = append(answers, fmt.Sprint(n))
					}
				}
			}
			words := slices.Concat(l.Prose, []string{l.Caption, l.Task.Text})
			if l.Beside != nil {
				words = append(words, l.Beside.Caption)
			}
			for _, a := range l.Actions {
				words = append(words, a.Label)
			}
			for _, a := range answers {
				// An ONNX exporter's name says its node's: naming the node
				// names the answer.
				if node, _, ok := strings.Cut(a, "_Output_"); ok {
					answers = append(answers, node)
				}
			}
			for _, a := range answers {
				// The name as a word: not part of a longer name.
				re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(a) + `($|[^\w])`)
				for _, w := range words {
					if re.MatchString(w) {
						t.Errorf("the lesson gives its answer %q away before the task: %q", a, w)
					}
				}
			}
		})
	}
}

// A hint speaks of what the learner sees. One that says a tensor is
// dimmed holds only while the time cursor is shown (the select event's
// cursor, -1 when hidden), and the same wrong answer with the cursor
// hidden, as every lesson opens, has a hint of its own.
func TestLessonHintsMatchTheCursor(t *testing.T) {
	names, lessons := readLessons(t)
	dimmed := regexp.MustCompile(`\b(is|are) dimmed\b`)
	isCursor := func(c condition) bool { return c.Path == "cursor" }
	without := func(cs []condition) []condition { return slices.DeleteFunc(slices.Clone(cs), isCursor) }
	for k, name := range names {
		l := lessons[k]
		t.Run(name, func(t *testing.T) {
			for _, w := range l.Task.Wrong {
				if !dimmed.MatchString(w.Hint) {
					continue
				}
				k := slices.IndexFunc(w.When, isCursor)
				if k < 0 || w.When[k].Op != ">=" || w.When[k].Value != 0.0 {
					t.Errorf("the hint %q says what the time cursor shows, but holds whether or not it is shown: %+v", w.Hint, w.When)
					continue
				}
				hidden := slices.ContainsFunc(l.Task.Wrong, func(o struct {
					When []condition `json:"when"`
					Hint string      `json:"hint"`
				}) bool {
					j := slices.IndexFunc(o.When, isCursor)
					return j >= 0 && o.When[j].Op == "<" && o.When[j].Value == 0.0 && reflect.DeepEqual(without(o.When), without(w.When)) && !dimmed.MatchString(o.Hint)
				})
				if !hidden {
					t.Errorf("the hint %q has no twin for the same answer with the cursor hidden", w.Hint)
				}
			}
		})
	}
}
