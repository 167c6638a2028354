package viz

import (
	"slices"
	"testing"

	"memplan/planner"
	"memplan/viz/internal/sample"
)

func TestLayoutRects(t *testing.T) {
	l := NewLayout(sample.Plan(), 0)
	want := map[string]struct {
		kind ItemKind
		r    Rect
	}{
		"x":   {ItemBuffer, Rect{0, 0, 2, 1024}},
		"w":   {ItemBuffer, Rect{0, 1152, 5, 3200}},
		"h":   {ItemBuffer, Rect{1, 3328, 3, 7424}},
		"hv":  {ItemView, Rect{2, 4352, 3, 5376}},
		"y":   {ItemBuffer, Rect{3, 3328, 5, 7424}},
		"out": {ItemBuffer, Rect{2, 0, 6, 1024}},
	}
	for name, w := range want {
		i := l.Index(name)
		it := l.Items[l.ItemOf[i]]
		if it.Kind != w.kind || it.Rect != w.r {
			t.Errorf("%s: got %v %+v, want %v %+v", name, it.Kind, it.Rect, w.kind, w.r)
		}
	}
	var guards []Rect
	for _, it := range l.Items {
		if it.Kind == ItemGuard {
			guards = append(guards, it.Rect)
		}
	}
	wantGuards := []Rect{{0, 1024, 2, 1152}, {0, 3200, 5, 3328}}
	if !slices.Equal(guards, wantGuards) {
		t.Errorf("guards %v, want %v", guards, wantGuards)
	}
	if l.Bounds.X1 != 6 || l.Bounds.Y1 < 7424 {
		t.Errorf("bounds %+v, want x to 6 and y past the arena", l.Bounds)
	}
	// Views draw after every buffer and guard, so their outlines stay on top.
	if l.Items[len(l.Items)-1].Kind != ItemView {
		t.Errorf("last item is %v, want the view", l.Items[len(l.Items)-1].Kind)
	}
}

func TestLayoutSkipsUnplaced(t *testing.T) {
	p := sample.Plan()
	p.Tensors[1].Offset, p.Tensors[1].Skipped = -1, true
	l := NewLayout(p, 0)
	if l.ItemOf[1] != -1 {
		t.Fatalf("skipped tensor has item %d", l.ItemOf[1])
	}
	for _, it := range l.Items {
		if it.Tensor == 1 {
			t.Fatalf("skipped tensor drawn as %v", it.Kind)
		}
	}
}

func TestLayoutLinesAndBudget(t *testing.T) {
	p := sample.Plan()
	l := NewLayout(p, 4096)
	roles := map[LineRole]float64{}
	for _, ln := range l.Lines {
		roles[ln.Role] = ln.Y
	}
	if roles[LineArena] != 7424 || roles[LineLowerBound] != 7000 || roles[LineBudget] != 4096 {
		t.Errorf("lines %+v", l.Lines)
	}
	if !l.OverBudget {
		t.Error("arena 7424 over budget 4096 not flagged")
	}
	if NewLayout(p, 1<<20).OverBudget {
		t.Error("arena under a 1 MiB budget flagged")
	}
	// A budget far above the arena must not squash the plot.
	if b := NewLayout(p, 1<<30).Bounds; b.Y1 > 8000 {
		t.Errorf("bounds %+v stretched to a far budget", b)
	}
	p.Options.F32Uniform = true
	if Budget(p) != planner.WebGPUBindingLimit {
		t.Errorf("f32-uniform budget %d", Budget(p))
	}
}

func TestLiveProfile(t *testing.T) {
	l := NewLayout(sample.Plan(), 0)
	// x+guard 1152, w+guard 2176, h 4096, y 4096, out 1024; views add nothing.
	// Step 3 swaps h for y at the same total, so it is no new point.
	want := []LivePoint{{0, 3328}, {1, 7424}, {2, 2176 + 4096 + 1024}, {5, 1024}, {6, 0}}
	if !slices.Equal(l.Live, want) {
		t.Errorf("live %v, want %v", l.Live, want)
	}
	if l.MaxLive != 7424 {
		t.Errorf("max live %d", l.MaxLive)
	}
}

func TestHitTest(t *testing.T) {
	l := NewLayout(sample.Plan(), 0)
	cases := []struct {
		x, y float64
		name string
		kind ItemKind
	}{
		{0.5, 10, "x", ItemBuffer},
		{1.5, 1100, "x", ItemGuard},
		{4.9, 3300, "w", ItemGuard},
		{1.5, 5000, "h", ItemBuffer},
		{2.5, 5000, "hv", ItemView}, // the view wins over its root
		{2.5, 4000, "h", ItemBuffer},
		{3, 3328, "y", ItemBuffer}, // lower-left corner is inside
		{5.5, 500, "out", ItemBuffer},
	}
	for _, c := range cases {
		h := l.HitTest(c.x, c.y)
		if h.Tensor < 0 {
			t.Errorf("(%v, %v): nothing, want %s", c.x, c.y, c.name)
			continue
		}
		if got := l.Plan.Tensors[h.Tensor].Name; got != c.name || h.Kind != c.kind {
			t.Errorf("(%v, %v): %s %v, want %s %v", c.x, c.y, got, h.Kind, c.name, c.kind)
		}
	}
	for _, p := range [][2]float64{{2.5, 1100}, {5.5, 3000}, {3, 7424}, {-1, 10}, {6, 10}} {
		if h := l.HitTest(p[0], p[1]); h != None {
			t.Errorf("(%v, %v): hit %+v, want none", p[0], p[1], h)
		}
	}
}

// The index must agree with a plain scan over every item.
func TestHitIndexMatchesScan(t *testing.T) {
	l := NewLayout(sample.Many(5000), 0)
	for k := 0; k < 3000; k++ {
		x := float64(k%179) * l.Bounds.X1 / 179
		y := float64(k*7919%100003) / 100003 * l.Bounds.Y1
		var want []int32
		for i := range l.Items {
			if l.Items[i].Contains(x, y) {
				want = append(want, int32(i))
			}
		}
		var got []int32
		l.index.visit(l.Items, x, y, func(i int32) { got = append(got, i) })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("(%v, %v): index %v, scan %v", x, y, got, want)
		}
	}
}

func TestPartners(t *testing.T) {
	l := NewLayout(sample.Plan(), 0)
	names := func(is []int) []string {
		var s []string
		for _, i := range is {
			s = append(s, l.Plan.Tensors[i].Name)
		}
		return s
	}
	if got := names(l.Partners(l.Index("h"))); !slices.Equal(got, []string{"hv", "y"}) {
		t.Errorf("partners of h: %v", got)
	}
	if got := names(l.Partners(l.Index("x"))); !slices.Equal(got, []string{"out"}) {
		t.Errorf("partners of x: %v", got)
	}
	// A view shares its root's bytes with whatever its root shares them with.
	if got := names(l.Partners(l.Index("hv"))); !slices.Equal(got, []string{"h", "y"}) {
		t.Errorf("partners of hv: %v", got)
	}
}

func BenchmarkHitTest100k(b *testing.B) {
	l := NewLayout(sample.Many(100000), 0)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		l.HitTest(float64(i%3000), float64(i*7919%(1<<20)))
	}
}

func BenchmarkQuads100k(b *testing.B) {
	v := NewView(1280, 800)
	v.SetLayout(NewLayout(sample.Many(100000), 0), false)
	var qs []Quad
	for b.Loop() {
		qs = v.Quads(qs[:0])
	}
}

func BenchmarkPan100k(b *testing.B) {
	v := NewView(1280, 800)
	v.SetLayout(NewLayout(sample.Many(100000), 0), false)
	v.Key("w", true)
	var qs []Quad
	for i := 0; b.Loop(); i++ {
		v.Key(map[bool]string{true: "ArrowRight", false: "ArrowLeft"}[i%60 < 30], false)
		qs = v.Quads(qs[:0])
	}
}

// BenchmarkZoom100k is a frame of zooming: the scale changes every time,
// so the items are built again.
func BenchmarkZoom100k(b *testing.B) {
	v := NewView(1280, 800)
	v.SetLayout(NewLayout(sample.Many(100000), 0), false)
	var qs []Quad
	for i := 0; b.Loop(); i++ {
		v.Key(map[bool]string{true: "w", false: "s"}[i%20 < 10], false)
		qs = v.Quads(qs[:0])
	}
}

// TestLayoutCuts: a tensor-binding plan's GPU buffers after the first
// each start a cut line, labelled, and the legend names it.
func TestLayoutCuts(t *testing.T) {
	p := sample.Plan()
	p.Buffers = []planner.GPUBuffer{{Offset: 0, Size: 4096}, {Offset: 4096, Size: 4096}, {Offset: 8192, Size: 256}}
	l := NewLayout(p, 0)
	var cuts []Line
	for _, ln := range l.Lines {
		if ln.Role == LineCut {
			cuts = append(cuts, ln)
		}
	}
	want := []Line{{4096, LineCut, "gpu buffer 2 of 3"}, {8192, LineCut, "gpu buffer 3 of 3"}}
	if !slices.Equal(cuts, want) {
		t.Errorf("cut lines %v, want %v", cuts, want)
	}
	if !slices.ContainsFunc(Legend(Dark, l), func(e LegendEntry) bool { return e.Label == "gpu buffer cut" }) {
		t.Error("the legend does not name the cuts")
	}
}
