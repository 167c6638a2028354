package viz

import (
	"slices"
	"testing"

	"memplan/planner"
	"memplan/viz/internal/sample"
)

func cursorPlan() *planner.Plan {
	p := sample.Plan()
	p.Schedule = []string{"h", "hv", "out", "y", "end"}
	// x w h hv y out: the op at each step reads these tensors.
	p.Reads = [][]int{{0, 1}, {2}, {3, 0}, {2, 1}, {4, 5}}
	return p
}

// What a step holds: the live bytes of the strip, the op with what it
// reads and writes, and the live tensors by offset.
func TestCursorAt(t *testing.T) {
	l := NewLayout(cursorPlan(), 0)
	names := func(ts []CursorTensor) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	tests := []struct {
		step         int
		bytes        int64
		op           string
		reads, write []string
		live         []string
	}{
		{0, 3328, "h", []string{"x", "w"}, []string{}, []string{"x", "w"}},
		{2, 7296, "out", []string{"hv", "x"}, []string{"hv", "out"}, []string{"out", "w", "h", "hv"}},
		{5, 1024, "", []string{}, []string{}, []string{"out"}},
	}
	for _, tc := range tests {
		c := l.CursorAt(tc.step)
		if c.Step != tc.step || c.LiveBytes != tc.bytes || c.Op != tc.op || !slices.Equal(c.Reads, tc.reads) ||
			!slices.Equal(c.Writes, tc.write) || !slices.Equal(names(c.Live), tc.live) {
			t.Errorf("CursorAt(%d) = step %d, %d bytes, op %q reads %v writes %v, live %v; want %d bytes, op %q reads %v writes %v, live %v",
				tc.step, c.Step, c.LiveBytes, c.Op, c.Reads, c.Writes, names(c.Live), tc.bytes, tc.op, tc.reads, tc.write, tc.live)
		}
		if c.Peak != 1 || c.Arena != 7424 {
			t.Errorf("CursorAt(%d): peak %d, arena %d; want 1, 7424", tc.step, c.Peak, c.Arena)
		}
	}
	if c := l.CursorAt(-4); c.Step != -1 || len(c.Live) != 0 {
		t.Errorf("a hidden cursor holds %+v", c)
	}
}

// The cursor's keys, from Go's bindings: a step either way (ten with
// Shift), the peak, hidden; clamped to the schedule.
func TestCursorKeys(t *testing.T) {
	v := NewView(640, 400)
	v.SetLayout(NewLayout(cursorPlan(), 0), false)
	for _, c := range []struct {
		key   string
		shift bool
		want  int
	}{
		{".", false, 0}, // shown at the start
		{".", false, 1},
		{">", true, 5}, // ten on, clamped to one past the last op
		{",", false, 4},
		{"<", true, 0},
		{"h", false, -1},
		{",", false, 5}, // shown at the end
		{"p", false, 1}, // the peak
	} {
		if !v.Key(c.key, c.shift) || v.Cursor != c.want {
			t.Fatalf("key %q (shift %v): cursor %d, want %d", c.key, c.shift, v.Cursor, c.want)
		}
	}
}

// At the cursor's step the live tensors keep their colour and the dead
// ones are dimmed; hidden, nothing is.
func TestCursorDims(t *testing.T) {
	const w, h = 640, 400
	v := NewView(w, h)
	l := NewLayout(cursorPlan(), 0)
	v.SetLayout(l, false)
	fill, _ := l.paint(v.Theme)
	at := func(name string, step float64) RGB {
		it := &l.Items[l.ItemOf[l.Index(name)]]
		x, _ := v.Cam.ToScreen(step, 0)
		_, y := v.Cam.ToScreen(0, (it.Y0+it.Y1)/2)
		return paint(v.Quads(nil), w, h)[int(y)*w+int(x)]
	}
	v.SetCursor(3)
	yIdx, hIdx := l.Index("y"), l.Index("h")
	if got := at("y", 4.5); got != fill[yIdx] {
		t.Errorf("y, live at step 3, is %v, want %v", got, fill[yIdx])
	}
	if got, want := at("h", 1.5), v.Theme.Dim(fill[hIdx]); got != want {
		t.Errorf("h, dead at step 3, is %v, want dimmed %v", got, want)
	}
	v.SetCursor(-1)
	if got := at("h", 1.5); got != fill[hIdx] {
		t.Errorf("with no cursor h is %v, want %v", got, fill[hIdx])
	}
}

// An explanation outlines its conflicts in the lower bound's colour and
// shades its gaps over the buffer's lifetime.
func TestExplainedDrawn(t *testing.T) {
	const w, h = 640, 400
	v := NewView(w, h)
	l := NewLayout(cursorPlan(), 0)
	v.SetLayout(l, false)
	r := &planner.PlaceReason{Buffer: "y", Offset: 3328, Span: 4096, Birth: 3, Death: 4,
		Conflicts: []planner.Neighbour{{Name: "w", Offset: 1152, End: 3328, Birth: 0, Death: 4}, {Name: "out", Offset: 0, End: 1024, Birth: 2, Death: 5}},
		Gaps:      []planner.Gap{{Lo: 1024, Hi: 1152}, {Lo: 3328, Hi: -1, Fits: true}}, Chosen: 1}
	e := l.ExplainedFrom(r)
	if len(e.Conflicts) != 2 || len(e.Gaps) != 2 || e.Gaps[0] != (Rect{3, 1024, 5, 1152}) || e.Gaps[1] != (Rect{3, 3328, 5, 7424}) {
		t.Fatalf("ExplainedFrom = %+v", e)
	}
	v.SetExplained(e)
	px := paint(v.Quads(nil), w, h)
	it := &l.Items[l.ItemOf[l.Index("w")]]
	x, _ := v.Cam.ToScreen((it.X0+it.X1)/2, 0)
	_, y := v.Cam.ToScreen(0, it.Y1)
	if got := px[int(y+0.5)*w+int(x)]; got != v.Theme.Lower {
		t.Errorf("the top edge of conflict w is %v, want %v", got, v.Theme.Lower)
	}
	// Selecting another tensor drops the explanation of the old one.
	v.Select(l.Index("h"))
	if v.Explained != nil {
		t.Error("the explanation outlived its selection")
	}
}
