package viz

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// handBase plans a buffer list (or a file of the examples) with a
// strategy, as the viewer receives it.
func handBase(t *testing.T, name string, data []byte, strategy string) *planner.Plan {
	t.Helper()
	in, err := planner.Load(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.Alignment = 256
	plan, err := planner.PlanSource(context.Background(), in.Source, opts, strategy, planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// The buffers of lesson 6: their bound, 4096 bytes, cannot be reached.
const handCSV = "id,lower,upper,size\na,0,1,3072\nb,0,3,1024\nc,1,2,2048\nd,1,4,1024\ne,2,5,1024\nf,3,4,2048\ng,4,5,3072\n"

func TestHandVerdicts(t *testing.T) {
	base := handBase(t, "hard.csv", []byte(handCSV), "best-fit")
	idx := func(name string) int { return base.IndexOf(name) }
	tests := []struct {
		name      string
		do        func(h *Hand) error
		valid     bool
		conflicts [][2]string // a, b
		steps     [][2]int    // from, to
		arena     int64       // 0: the planner's
		text      string
	}{
		{"the planner's own offsets", func(h *Hand) error { return nil }, true, nil, nil, 0, "as small as best-fit's"},
		{"b onto a, live together at step 0", func(h *Hand) error {
			if err := h.Empty(); err != nil {
				return err
			}
			return h.Place(idx("b"), h.Offset(idx("a")), false)
		}, false, [][2]string{{"a", "b"}}, [][2]int{{0, 0}}, -1, "a and b share bytes at step 0"},
		{"d onto c, live together at step 1", func(h *Hand) error {
			if err := h.Empty(); err != nil {
				return err
			}
			return h.Place(idx("d"), h.Offset(idx("c")), false)
		}, false, [][2]string{{"c", "d"}}, [][2]int{{1, 1}}, -1, "c and d share bytes at step 1"},
		{"e onto d, live together at steps 2–3", func(h *Hand) error {
			if err := h.Empty(); err != nil {
				return err
			}
			return h.Place(idx("e"), h.Offset(idx("d")), false)
		}, false, [][2]string{{"d", "e"}}, [][2]int{{2, 3}}, -1, "d and e share bytes at steps 2–3"},
		{"g onto a, never live together", func(h *Hand) error {
			if err := h.Empty(); err != nil {
				return err
			}
			return h.Place(idx("g"), h.Offset(idx("a")), false)
		}, true, nil, nil, -1, "A plan of"},
		{"everything stacked", func(h *Hand) error { return h.Empty() }, true, nil, nil, base.TotalUnshared, "above best-fit's"},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewHand(base)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.do(h); err != nil {
				t.Fatal(err)
			}
			v := h.Verdict
			if v.Valid != c.valid || v.Valid != (planner.Verify(h.Plan) == nil) {
				t.Fatalf("valid %v (Verify: %v), want %v", v.Valid, planner.Verify(h.Plan), c.valid)
			}
			var got [][2]string
			var steps [][2]int
			for _, k := range v.Conflicts {
				got, steps = append(got, [2]string{k.A, k.B}), append(steps, [2]int{k.From, k.To})
			}
			if !slices.Equal(got, c.conflicts) || !slices.Equal(steps, c.steps) || v.Overlaps != len(c.conflicts) {
				t.Errorf("conflicts %v at %v (%d), want %v at %v", got, steps, v.Overlaps, c.conflicts, c.steps)
			}
			var top int64
			for _, i := range h.Owners {
				top = max(top, h.Offset(i)+base.Tensors[i].Size)
			}
			if v.Arena != top {
				t.Errorf("arena %d, want the highest byte %d", v.Arena, top)
			}
			if c.arena == 0 && v.Arena != base.ArenaSize || c.arena > 0 && v.Arena != c.arena {
				t.Errorf("arena %d, want %d", v.Arena, max(c.arena, base.ArenaSize))
			}
			if v.LowerBound != base.LowerBound || v.PlannerArena != base.ArenaSize || v.PlannerStrategy != "best-fit" {
				t.Errorf("bound %d, planner %s %d; want %d, best-fit %d", v.LowerBound, v.PlannerStrategy, v.PlannerArena, base.LowerBound, base.ArenaSize)
			}
			if !strings.Contains(v.Text, c.text) {
				t.Errorf("text %q, want it to say %q", v.Text, c.text)
			}
		})
	}
}

// A placement that cannot be a plan's is refused and changes nothing.
func TestHandRefuses(t *testing.T) {
	base := handBase(t, "hard.csv", []byte(handCSV), "best-fit")
	b := base.IndexOf("b")
	for _, c := range []struct {
		name string
		i    int
		off  int64
		want string
	}{{"negative", b, -256, "negative"}, {"misaligned", b, 100, "alignment"}, {"no tensor", len(base.Tensors), 0, "no tensor"}} {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewHand(base)
			if err != nil {
				t.Fatal(err)
			}
			before := h.Verdict
			if err := h.Place(c.i, c.off, false); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if h.Verdict.Undo != 0 || h.Verdict.Arena != before.Arena || h.Offset(b) != base.Tensors[b].Offset {
				t.Error("a refused move changed the placement")
			}
		})
	}
}

// Undo takes back a change, a drag whole; redo makes it again; a new
// change drops what redo had.
func TestHandUndoRedo(t *testing.T) {
	base := handBase(t, "hard.csv", []byte(handCSV), "best-fit")
	h, err := NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	b := base.IndexOf("b")
	start := h.Offset(b)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.Place(b, start+256, true))
	must(h.Place(b, start+512, true))
	must(h.Place(b, start+768, true)) // one drag
	h.EndDrag()
	must(h.Place(b, start+1024, false))
	if h.Verdict.Undo != 2 {
		t.Fatalf("%d changes to undo, want 2 (a drag and a move)", h.Verdict.Undo)
	}
	steps := []struct {
		undo bool
		want int64
	}{{true, start + 768}, {true, start}, {false, start + 768}, {false, start + 1024}}
	for k, s := range steps {
		var ok bool
		if s.undo {
			ok, err = h.Undo()
		} else {
			ok, err = h.Redo()
		}
		must(err)
		if !ok || h.Offset(b) != s.want || h.Verdict.Moved != "b" {
			t.Fatalf("step %d: ok %v, b at %d moved %q; want b at %d", k, ok, h.Offset(b), h.Verdict.Moved, s.want)
		}
	}
	if ok, _ := h.Redo(); ok {
		t.Error("redo past the last change")
	}
	must(h.Empty())
	must(h.Reset())
	if h.Offset(b) != base.Tensors[b].Offset || h.Verdict.Undo != 4 {
		t.Errorf("after reset b at %d with %d to undo, want %d and 4", h.Offset(b), h.Verdict.Undo, base.Tensors[b].Offset)
	}
	h.Undo()
	must(h.Place(b, 0, false))
	if h.Verdict.Redo != 0 {
		t.Error("a new change kept the redo list")
	}
}

// Views move with their roots, as the planner defines them.
func TestHandViewsFollow(t *testing.T) {
	data, err := os.ReadFile("../examples/r1-views.json")
	if err != nil {
		t.Fatal(err)
	}
	base := handBase(t, "r1-views.json", data, "best-fit")
	h, err := NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Empty(); err != nil {
		t.Fatal(err)
	}
	views := 0
	for i := range h.Plan.Tensors {
		v := &h.Plan.Tensors[i]
		if !v.IsView() || v.Skipped {
			continue
		}
		views++
		root := &h.Plan.Tensors[h.Plan.IndexOf(v.Root)]
		if v.Offset != root.Offset+v.ViewOffset || root.Offset != h.Offset(h.Plan.IndexOf(v.Root)) {
			t.Errorf("view %s at %d, root %s at %d + %d", v.Name, v.Offset, root.Name, root.Offset, v.ViewOffset)
		}
	}
	if views == 0 {
		t.Fatal("r1-views.json has no views to follow")
	}
	if !h.Verdict.Valid {
		t.Errorf("stacked views: %s", h.Verdict.Problem)
	}
}

// Tab walks the owners and stops at either end; the arrows step by the
// alignment, and with Shift to the next edge of a neighbour.
func TestHandWalkAndStep(t *testing.T) {
	base := handBase(t, "hard.csv", []byte(handCSV), "best-fit")
	h, err := NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	var walked []string
	for i := h.Next(-1, false); i >= 0; i = h.Next(i, false) {
		walked = append(walked, base.Tensors[i].Name)
	}
	if want := []string{"a", "b", "c", "d", "e", "f", "g"}; !slices.Equal(walked, want) {
		t.Errorf("Tab walks %v, want %v", walked, want)
	}
	if h.Next(-1, true) != base.IndexOf("g") || h.Next(base.IndexOf("a"), true) != -1 {
		t.Error("Shift+Tab does not walk back from the last to before the first")
	}
	if err := h.Empty(); err != nil {
		t.Fatal(err)
	}
	// Stacked in order: a [0,3072) b [3072,4096) c [4096,6144) ...
	b, c := base.IndexOf("b"), base.IndexOf("c")
	tests := []struct {
		name    string
		i       int
		up, big bool
		want    int64
	}{
		{"b up one alignment", b, true, false, 3072 + 256},
		{"b down one alignment", b, false, false, 3072 - 256},
		{"b down to the next edge: a's bottom meets nothing, so 0", b, false, true, 0},
		{"c down to the next edge: its top at b's bottom", c, false, true, 3072 - 2048},
		{"b up to the next edge: its top at d's bottom", b, true, true, h.Offset(base.IndexOf("d")) - 1024},
	}
	for _, tc := range tests {
		if got := h.Step(tc.i, tc.up, tc.big); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The placing keys, as the page forwards them: Tab walks, the arrows
// move the selection, Z and Y undo and redo, and a drag snaps to the
// alignment; conflicts are drawn hatched in the alarm colour.
func TestHandKeys(t *testing.T) {
	base := handBase(t, "hard.csv", []byte(handCSV), "best-fit")
	h, err := NewHand(base)
	if err != nil {
		t.Fatal(err)
	}
	v := NewView(800, 600)
	v.SetLayout(NewLayout(base, 0), false)
	v.SetHand(h)
	a, b := base.IndexOf("a"), base.IndexOf("b")
	if !v.TabWalks(false) || !v.TabWalks(true) {
		t.Fatal("nothing selected, Tab does not walk")
	}
	steps := []struct {
		key   string
		shift bool
		acts  bool
		sel   int
		bAt   int64 // -1: unchanged from the planner's
	}{
		{"Tab", false, true, a, -1},
		{"Tab", false, true, b, -1},
		{"ArrowUp", false, true, b, base.Tensors[b].Offset + 256},
		{"ArrowDown", false, true, b, base.Tensors[b].Offset},
		{"z", false, true, b, base.Tensors[b].Offset + 256},
		{"y", false, true, b, base.Tensors[b].Offset},
		{"Tab", true, true, a, base.Tensors[b].Offset},
		{"Tab", true, false, a, base.Tensors[b].Offset}, // before the first: the focus moves on
	}
	for k, s := range steps {
		if got := v.Key(s.key, s.shift); got != s.acts {
			t.Fatalf("step %d: Key(%q, %v) = %v, want %v", k, s.key, s.shift, got, s.acts)
		}
		want := s.bAt
		if want < 0 {
			want = base.Tensors[b].Offset
		}
		if v.Selected != s.sel || h.Offset(b) != want || v.Layout.Plan != h.Plan {
			t.Fatalf("step %d (%s): selected %d, b at %d; want %d, %d, and the hand's record shown", k, s.key, v.Selected, h.Offset(b), s.sel, want)
		}
	}
	// Drag b by 300 bytes: it snaps to 256, one change.
	undo := h.Verdict.Undo
	if !v.DragTo(b, h.Offset(b), 1000, 1300) || h.Offset(b) != base.Tensors[b].Offset+256 {
		t.Fatalf("drag put b at %d, want %d", h.Offset(b), base.Tensors[b].Offset+256)
	}
	v.DragTo(b, base.Tensors[b].Offset, 1000, 1600)
	h.EndDrag()
	if h.Verdict.Undo != undo+1 || h.Offset(b) != base.Tensors[b].Offset+512 {
		t.Errorf("a drag took %d changes to b at %d; want one, to %d", h.Verdict.Undo-undo, h.Offset(b), base.Tensors[b].Offset+512)
	}
	// Onto a: a conflict, drawn hatched in BudgetOver.
	if err := h.Place(b, h.Offset(a), false); err != nil {
		t.Fatal(err)
	}
	v.SetHand(h)
	if h.Verdict.Valid {
		t.Fatal("b onto a is valid")
	}
	hatched := 0
	for _, q := range v.Quads(nil) {
		if q.C == v.Theme.BudgetOver && q.Hatch {
			hatched++
		}
	}
	if hatched == 0 {
		t.Error("the conflict's shared bytes are not hatched")
	}
	found := false
	for _, l := range v.Labels(nil) {
		found = found || l.Text == "a + b"
	}
	if !found {
		t.Error("the conflict's names are not written on the canvas")
	}
}
