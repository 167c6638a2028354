package web

import (
	"encoding/json"
	"testing"

	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol/events"
)

// TestPlaceLessons plays the tasks that watch placed events as the
// viewer would judge them, with the planner's own Hand: the answer the
// task wants can be reached (at the offsets of exact's plan of the same
// file), and the moves a learner is likely to make (the start, every
// buffer stacked, two buffers alive together in the same bytes) are each
// answered with one of the lesson's hints, never the generic one; and
// nothing the learner can reach without moving counts as an answer.
func TestPlaceLessons(t *testing.T) {
	names, lessons := readLessons(t)
	played := 0
	for k, name := range names {
		l := lessons[k]
		if l.Task.Event != "placed" {
			continue
		}
		played++
		t.Run(name, func(t *testing.T) {
			facts := lessonFactsIn(t, l)
			base := planLesson(t, l, l.Options)
			exact := planLesson(t, l, withStrategy(t, l.Options, "exact"))
			judge := func(h *viz.Hand) (answer, right bool, wrong int) {
				ev := jsonValue(t, events.Placed{File: l.fileName(), Placing: true, Verdict: h.Verdict})
				holds := func(conds []condition) bool {
					for _, c := range conds {
						other := c.Value
						switch {
						case c.Other != "":
							other = field(ev, c.Other)
						case c.Fact != "":
							other = field(facts, c.Fact)
						}
						if v, ok := other.(int); ok {
							other = float64(v)
						}
						if !holdsOp(field(ev, c.Path), c.Op, other) {
							return false
						}
					}
					return true
				}
				wrong = -1
				for i, w := range l.Task.Wrong {
					if holds(w.When) {
						wrong = i
						break
					}
				}
				return holds(l.Task.Answer), holds(l.Task.When), wrong
			}
			fresh := func() *viz.Hand {
				h, err := viz.NewHand(base)
				if err != nil {
					t.Fatal(err)
				}
				return h
			}

			// Started, unmoved: not an answer.
			if answer, _, _ := judge(fresh()); answer {
				t.Error("starting to place, with nothing moved, counts as an answer")
			}
			// Exact's offsets: right.
			h := fresh()
			var moves []viz.HandMove
			for i := range exact.Tensors {
				if tt := &exact.Tensors[i]; tt.Owns() {
					moves = append(moves, viz.HandMove{Name: tt.Name, Offset: tt.Offset})
				}
			}
			if err := h.Apply(moves); err != nil {
				t.Fatal(err)
			}
			if answer, right, _ := judge(h); !answer || !right {
				t.Errorf("exact's placement (arena %d) does not complete the task: answer %v, right %v (%s)", h.Verdict.Arena, answer, right, h.Verdict.Text)
			}
			// Likely wrong moves: each an answer with a hint of its own.
			likely := map[string]func(h *viz.Hand) error{
				"every buffer stacked": func(h *viz.Hand) error { return h.Empty() },
				"two alive together in the same bytes": func(h *viz.Hand) error {
					a, b := livePair(t, base)
					return h.Place(b, h.Offset(a), false)
				},
				"back at the planner's plan after a move": func(h *viz.Hand) error {
					if err := h.Empty(); err != nil {
						return err
					}
					return h.Reset()
				},
			}
			for what, do := range likely {
				h := fresh()
				if err := do(h); err != nil {
					t.Fatal(err)
				}
				if h.Verdict.Undo == 0 {
					continue // where the lesson starts (its plan is stacked already): the start, above
				}
				answer, right, wrong := judge(h)
				switch {
				case !answer:
					t.Errorf("%s: not taken as an answer", what)
				case right:
					t.Errorf("%s: taken as right (%s)", what, h.Verdict.Text)
				case !right && wrong < 0:
					t.Errorf("%s (%s): answered with the generic hint, not one of the lesson's", what, h.Verdict.Text)
				}
			}
		})
	}
	if played < 2 {
		t.Errorf("%d lessons have the learner place buffers, want at least 2", played)
	}
}

// withStrategy is page options raw with the strategy replaced.
func withStrategy(t *testing.T, raw json.RawMessage, strategy string) json.RawMessage {
	t.Helper()
	o := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
	}
	o["strategy"] = strategy
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// livePair is two buffers of plan alive at a common step.
func livePair(t *testing.T, plan *planner.Plan) (int, int) {
	t.Helper()
	for i := range plan.Tensors {
		for j := i + 1; j < len(plan.Tensors); j++ {
			a, b := &plan.Tensors[i], &plan.Tensors[j]
			if a.Owns() && b.Owns() && a.Birth <= b.Death && b.Birth <= a.Death {
				return i, j
			}
		}
	}
	t.Fatal("no two buffers alive together")
	return 0, 0
}
