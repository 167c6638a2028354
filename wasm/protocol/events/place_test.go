package events_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
)

// placeBase is an example planned as the viewer gets it.
func placeBase(t *testing.T, name string) *planner.Plan {
	t.Helper()
	data, err := os.ReadFile("../../../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "best-fit", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// A place message reads strictly; one that cannot be a placement is an
// error naming its field and changes nothing; one that can is judged.
func TestHandPlace(t *testing.T) {
	base := placeBase(t, "r1-views.json")
	var owner, view, other string
	for i := range base.Tensors {
		tt := &base.Tensors[i]
		switch {
		case tt.IsView() && view == "":
			view = tt.Name
		case tt.Owns() && owner == "":
			owner = tt.Name
		}
	}
	// other: an owner live beside owner.
	o := &base.Tensors[base.IndexOf(owner)]
	for i := range base.Tensors {
		u := &base.Tensors[i]
		if u.Owns() && u.Name != owner && u.Birth <= o.Death && o.Birth <= u.Death {
			other = u.Name
			break
		}
	}
	if view == "" || other == "" {
		t.Fatalf("r1-views.json lacks a view (%q) or two owners live together (%q, %q)", view, owner, other)
	}
	align := base.AlignOf(o)
	tests := []struct {
		name  string
		msg   map[string]any
		field string // the field the error names; "" for none
		valid bool
	}{
		{"unknown tensor", map[string]any{"type": "place", "name": "nobody", "offset": 0.0}, "name", false},
		{"no name", map[string]any{"type": "place", "offset": 0.0}, "name", false},
		{"negative offset", map[string]any{"type": "place", "name": owner, "offset": -64.0}, "offset", false},
		{"fractional offset", map[string]any{"type": "place", "name": owner, "offset": 1.5}, "offset", false},
		{"misaligned offset", map[string]any{"type": "place", "name": owner, "offset": float64(align + 1)}, "offset", false},
		{"a view: it moves with its root", map[string]any{"type": "place", "name": view, "offset": 0.0}, "name", false},
		{"onto a tensor live beside it", map[string]any{"type": "place", "name": owner, "offset": float64(base.Tensors[base.IndexOf(other)].Offset)}, "", false},
		{"where the planner put it", map[string]any{"type": "place", "name": owner, "offset": float64(o.Offset)}, "", true},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			h, err := viz.NewHand(base)
			if err != nil {
				t.Fatal(err)
			}
			before := h.Verdict
			cmd, err := protocol.DecodeCommand(c.msg)
			if err == nil {
				err = events.HandPlace(h, cmd.(*protocol.Place))
			}
			var fe *protocol.FieldError
			switch {
			case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field || fe.Type != "place"):
				t.Fatalf("got %v, want an error naming field %q of place", err, c.field)
			case c.field != "":
				if h.Verdict.Undo != 0 || h.Verdict.Arena != before.Arena {
					t.Error("a refused place changed the placement")
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			v := h.Verdict
			if v.Valid != c.valid {
				t.Fatalf("valid %v, want %v (%s)", v.Valid, c.valid, v.Text)
			}
			if !c.valid {
				named := false
				for _, k := range v.Conflicts {
					named = named || (k.A == owner || k.B == owner) && (k.A == other || k.B == other)
				}
				if !named {
					t.Errorf("conflicts %+v do not name %s and %s", v.Conflicts, owner, other)
				}
			}
			if c.valid && v.Arena != base.ArenaSize {
				t.Errorf("at the planner's offsets the arena is %d, want the planner's %d", v.Arena, base.ArenaSize)
			}
		})
	}
}

// Every placing action reads, and the ones that change the placement are
// undone in turn; one Go does not know is an error naming the field.
func TestHandAct(t *testing.T) {
	base := placeBase(t, "mlp.json")
	h, err := viz.NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		action string
		arena  int64
	}{
		{"empty", base.TotalUnshared},
		{"reset", base.ArenaSize},
		{"undo", base.TotalUnshared},
		{"undo", base.ArenaSize},
		{"redo", base.TotalUnshared},
	}
	for k, s := range steps {
		cmd, err := protocol.DecodeCommand(map[string]any{"type": "placing", "action": s.action})
		if err != nil {
			t.Fatal(err)
		}
		if err := events.HandAct(h, cmd.(*protocol.Placing).Action); err != nil {
			t.Fatal(err)
		}
		if !h.Verdict.Valid || h.Verdict.Arena != s.arena {
			t.Errorf("step %d (%s): arena %d valid %v, want %d and valid", k, s.action, h.Verdict.Arena, h.Verdict.Valid, s.arena)
		}
	}
	_, err = protocol.DecodeCommand(map[string]any{"type": "placing", "action": "shuffle"})
	var fe *protocol.FieldError
	if !errors.As(err, &fe) || fe.Field != "action" {
		t.Errorf("got %v, want an error naming action", err)
	}
}

// The placement exported is a plan record memplan verify accepts when it
// is valid: it reads back as one, and Verify proves it.
func TestHandRecordVerifies(t *testing.T) {
	base := placeBase(t, "transformer.json")
	h, err := viz.NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Empty(); err != nil {
		t.Fatal(err)
	}
	b, err := ir.EncodeJSON(h.Plan, "  ")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load("placed.plan.json", b, ir.DecodeOptions{})
	if err != nil {
		t.Fatalf("the exported placement does not load as a plan record: %v", err)
	}
	if in.Plan == nil || in.Plan.Strategy != planner.StrategyHand || in.Plan.ArenaSize != base.TotalUnshared {
		t.Errorf("read back %+v", in.Plan)
	}
}
