package events_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol/events"
)

// tableRow is what a host reads of a table row.
type tableRow struct {
	Name       string `json:"name"`
	Offset     int64  `json:"offset"`
	OffsetText string `json:"offset_text"`
	Reuses     string `json:"reuses"`
}

// The table a host is sent follows the plan on screen: the placement by
// hand's once placing starts and after each change to it, the planner's
// again once it stops, each with a higher Rev; nothing is sent while the
// host's table shows what the canvas does.
func TestTableSync(t *testing.T) {
	base := placeBase(t, "transformer.json")
	reuses, views := false, false
	for i := range base.Tensors {
		reuses = reuses || base.Tensors[i].Reuses != ""
		views = views || base.Tensors[i].IsView() && !base.Tensors[i].Skipped && base.Tensors[i].Offset >= 0
	}
	if !reuses || !views {
		t.Fatalf("transformer.json's plan lacks a reuse (%v) or a placed view (%v): the test needs both", reuses, views)
	}
	h, err := viz.NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := viz.NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	owner := h.Owners[0]
	var s events.TableSync
	steps := []struct {
		name string
		do   func() error // the change before Next; nil for none
		hand *viz.Hand    // on screen; nil: the planner's plan
		// want is the plan the table is of (nil: none is sent), with rev
		// and placing.
		want    func() *planner.Plan
		rev     int
		placing bool
	}{
		{name: "a plan just shown: its own table came with it", hand: nil},
		{name: "placing starts", hand: h, want: func() *planner.Plan { return h.Plan }, rev: 1, placing: true},
		{name: "a selection: nothing changed", hand: h},
		{name: "a buffer moved", do: func() error { return h.Place(owner, h.Step(owner, true, true), false) },
			hand: h, want: func() *planner.Plan { return h.Plan }, rev: 2, placing: true},
		{name: "every buffer stacked", do: h.Empty, hand: h, want: func() *planner.Plan { return h.Plan }, rev: 3, placing: true},
		{name: "asked again", hand: h},
		{name: "placing stops", hand: nil, want: func() *planner.Plan { return base }, rev: 4},
		{name: "stopped, asked again", hand: nil},
		{name: "placing starts again", hand: h2, want: func() *planner.Plan { return h2.Plan }, rev: 5, placing: true},
		{name: "another plan on screen", do: func() error { s.Planned(); return nil }, hand: nil},
		{name: "placing the new plan", hand: h2, want: func() *planner.Plan { return h2.Plan }, rev: 1, placing: true},
	}
	stacked := false
	for _, st := range steps {
		if st.do != nil {
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		ev, table, ok := s.Next("transformer.json", st.hand)
		if st.want == nil {
			if ok {
				t.Errorf("%s: sent table rev %d; the host's shows the plan on screen already", st.name, ev.Rev)
			}
			continue
		}
		if !ok {
			t.Fatalf("%s: no table sent", st.name)
		}
		if ev.File != "transformer.json" || ev.Rev != st.rev || ev.Placing != st.placing {
			t.Errorf("%s: event %+v, want rev %d, placing %v", st.name, ev, st.rev, st.placing)
		}
		plan := st.want()
		var rows []tableRow
		if err := json.Unmarshal(table, &rows); err != nil {
			t.Fatalf("%s: the table does not read: %v", st.name, err)
		}
		if len(rows) != len(plan.Tensors) {
			t.Fatalf("%s: %d rows for %d tensors", st.name, len(rows), len(plan.Tensors))
		}
		for i, r := range rows {
			pt := &plan.Tensors[i]
			want := ""
			if pt.Offset >= 0 {
				want = planner.GroupDigits(pt.Offset)
			}
			if r.Name != pt.Name || r.Offset != pt.Offset || r.OffsetText != want || r.Reuses != pt.Reuses {
				t.Errorf("%s: row %d is %+v, want %s at %d (%q), reusing %q", st.name, i, r, pt.Name, pt.Offset, want, pt.Reuses)
			}
			if st.hand != nil && pt.Owns() && r.Offset != st.hand.Offset(i) {
				t.Errorf("%s: %s at %d in the table, at %d on screen", st.name, r.Name, r.Offset, st.hand.Offset(i))
			}
			stacked = stacked || st.placing && r.Offset != base.Tensors[i].Offset && r.Reuses != base.Tensors[i].Reuses
		}
		if !st.placing && !bytes.Equal(table, planner.AppendTableJSON(nil, base.Tensors)) {
			t.Errorf("%s: the table is not the planner's", st.name)
		}
	}
	if !stacked {
		t.Error("no table while placing showed an offset and a reuse other than the planner's")
	}
}

// Keys that move buffers hold the table back: only the timer of the last
// move comes due, and the table it sends is of the placement after every
// move; a plan shown meanwhile does not make an older timer due again.
func TestTableSyncHold(t *testing.T) {
	base := placeBase(t, "transformer.json")
	h, err := viz.NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	owner := h.Owners[0]
	var s events.TableSync
	if _, _, ok := s.Next("transformer.json", h); !ok {
		t.Fatal("placing starts: no table sent")
	}
	for _, presses := range []int{1, 5} {
		var tokens []int
		for k := 0; k < presses; k++ {
			if err := h.Place(owner, h.Step(owner, true, false), false); err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, s.Hold())
		}
		for k, tok := range tokens {
			if due, last := s.Due(tok), k == len(tokens)-1; due != last {
				t.Errorf("%d presses: timer %d of %d due %v", presses, k+1, presses, due)
			}
		}
		ev, table, ok := s.Next("transformer.json", h)
		if !ok {
			t.Fatalf("%d presses settled: no table sent", presses)
		}
		var rows []tableRow
		if err := json.Unmarshal(table, &rows); err != nil {
			t.Fatal(err)
		}
		if rows[owner].Offset != h.Offset(owner) || !ev.Placing {
			t.Errorf("%d presses: the table has %s at %d, placing %v; the placement at %d", presses, rows[owner].Name, rows[owner].Offset, ev.Placing, h.Offset(owner))
		}
		if _, _, ok := s.Next("transformer.json", h); ok {
			t.Errorf("%d presses: a second table for the same placement", presses)
		}
	}
	stale := s.Hold()
	s.Planned()
	if s.Due(stale) {
		t.Error("a timer from before a new plan is due again")
	}
	if tok := s.Hold(); tok == stale || !s.Due(tok) {
		t.Errorf("after a new plan, Hold gives token %d (stale %d), due %v", tok, stale, s.Due(tok))
	}
}
