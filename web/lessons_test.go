package web

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/wasm/protocol"
)

// lesson is the shape of a file in lessons/ (learn.js reads it).
type lesson struct {
	Title   string          `json:"title"`
	Short   string          `json:"short"` // the lesson list's name for it
	Prose   []string        `json:"prose"`
	Example string          `json:"example"`
	File    *lessonFile     `json:"file"`
	Options json.RawMessage `json:"options"`
	Caption string          `json:"caption"`
	Beside  *struct {
		Options json.RawMessage `json:"options"`
		Caption string          `json:"caption"`
	} `json:"beside"`
	Actions []struct {
		Label string          `json:"label"`
		Send  json.RawMessage `json:"send"`
	} `json:"actions"`
	Task struct {
		Text  string `json:"text"`
		Event string `json:"event"`
		When  []struct {
			Path  string `json:"path"`
			Op    string `json:"op"`
			Value any    `json:"value"`
			Other string `json:"other"`
		} `json:"when"`
		Done string `json:"done"`
	} `json:"task"`
}

type lessonFile struct {
	Name  string          `json:"name"`
	Graph json.RawMessage `json:"graph"`
	CSV   []string        `json:"csv"`
}

// What a lesson may send the viewer (docs/embedding.md; cursor, peak and
// explain are the time cursor's), the events a task may watch, and the
// comparisons learn.js knows.
var (
	viewerRequests = []string{"load", "example", "options", "dismiss", "select", "focus", "fit", "theme", "reveal", "key", "wheel", "world", "camera", "cursor", "peak", "explain"}
	viewerEvents   = []string{"summary", "select", "hover", "cursor", "explain"}
	taskOps        = []string{"==", "!=", "<", "<=", ">", ">=", "in", "exists"}
)

func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// planLesson plans the lesson's graph as the viewer would with the
// options the page sends (absent fields take their defaults).
func planLesson(t *testing.T, l *lesson, raw json.RawMessage) *planner.Plan {
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
	var name string
	var data []byte
	switch {
	case l.Example != "":
		name = l.Example
		b, err := examples.FS.ReadFile(l.Example)
		if err != nil {
			t.Fatalf("example %s: %v", l.Example, err)
		}
		data = b
	case l.File.Graph != nil:
		name, data = l.File.Name, l.File.Graph
	default:
		name, data = l.File.Name, []byte(strings.Join(l.File.CSV, "\n")+"\n")
	}
	in, err := planner.Load(name, data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	if in.Source == nil {
		t.Fatalf("%s is a plan record; a lesson plans a graph or buffer list", name)
	}
	p, err := planner.Lower(in.Source, o.Options)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := planner.PlanProblem(context.Background(), p, o.Strategy, planner.PlaceOptions{NodeLimit: 100_000})
	if err != nil { // PlanProblem has run Verify
		t.Fatal(err)
	}
	return plan
}

// Every lesson file parses, is listed, names what exists, and its graph
// plans and passes Verify with every set of options the lesson sends.
func TestLessons(t *testing.T) {
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
	files, _ := filepath.Glob("lessons/*.json")
	for _, f := range files {
		if b := filepath.Base(f); b != "index.json" && !slices.Contains(index.Lessons, b) {
			t.Errorf("%s is not listed in lessons/index.json", f)
		}
	}
	for _, name := range index.Lessons {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("lessons", name))
			if err != nil {
				t.Fatal(err)
			}
			var l lesson
			if err := strict(data, &l); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if l.Title == "" || len(l.Prose) == 0 || l.Task.Text == "" || l.Task.Done == "" {
				t.Error("a lesson needs a title, prose, a task and what to say when it is done")
			}
			if (l.Example == "") == (l.File == nil) {
				t.Fatal("a lesson has either an example or a file")
			}
			if l.File != nil && (l.File.Name == "" || (l.File.Graph == nil) == (l.File.CSV == nil)) {
				t.Fatal("a file has a name and either a graph or csv lines")
			}
			plan := planLesson(t, &l, l.Options)
			if l.Beside != nil {
				planLesson(t, &l, l.Beside.Options)
			}
			names := map[string]bool{}
			for _, tn := range plan.Tensors {
				names[tn.Name] = true
			}
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
					planLesson(t, &l, msg.Options)
				case "select", "focus", "explain":
					if !names[msg.Name] {
						t.Errorf("action %q names %q, which the plan does not have", a.Label, msg.Name)
					}
				}
			}
			if !slices.Contains(viewerEvents, l.Task.Event) || len(l.Task.When) == 0 {
				t.Errorf("task watches %q with %d conditions", l.Task.Event, len(l.Task.When))
			}
			for _, c := range l.Task.When {
				if c.Path == "" || !slices.Contains(taskOps, c.Op) || (c.Op != "exists" && (c.Value == nil) == (c.Other == "")) {
					t.Errorf("condition %+v: want a path, an op of %v, and a value or another path", c, taskOps)
				}
				if strings.HasSuffix(c.Path, "tensor.name") && !names[c.Value.(string)] {
					t.Errorf("the task names %v, which the plan does not have", c.Value)
				}
			}
		})
	}
}
