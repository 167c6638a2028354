package viz

import (
	"runtime"
	"testing"

	"memplan/examples"
	"memplan/planner"
	"memplan/viz/internal/sample"
)

// frameWork is what frames cost on average, counted, never timed.
type frameWork struct {
	quads, built, painted, uploaded int // FrameStats, averaged
	allocs, bytes                   int // heap allocations and bytes
}

// measureFrames paints frames of v, calling change before each, and
// returns the average work of a frame. A few frames first settle what is
// built once (the frames, the items for the zoom); averaging over many
// keeps a stray allocation of the runtime's from tipping a ceiling.
func measureFrames(v *View, w, h int, frames int, change func(i int)) frameWork {
	p := &painter{}
	for i := range 4 {
		change(i)
		p.paint(v, w, h, false)
	}
	var sum frameWork
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range frames {
		change(4 + i)
		p.paint(v, w, h, false)
		s := p.Stats
		sum.quads += s.Quads
		sum.built += s.Built
		sum.painted += s.Painted
		sum.uploaded += s.Uploaded
	}
	runtime.ReadMemStats(&m1)
	sum.allocs, sum.bytes = int(m1.Mallocs-m0.Mallocs), int(m1.TotalAlloc-m0.TotalAlloc)
	return frameWork{sum.quads / frames, sum.built / frames, sum.painted / frames, sum.uploaded / frames,
		sum.allocs / frames, sum.bytes / frames}
}

// TestFrameWork counts the work of the frames tools/framebench times, on
// a fixed plan of 100k buffers and on the default example, at
// framebench's canvas size: the quads built, the items walked to build
// them, the pixels painted, the bytes uploaded to the GPU and the heap
// allocated. Each must stay within its ceiling, set a little above what a
// frame cost when it was written: a feature that makes every frame do
// more fails here, on any machine, rather than costing frames unseen. When
// a change lowers the work, lower the ceilings with it.
func TestFrameWork(t *testing.T) {
	const w, h = 960, 560
	big := NewLayout(sample.Synthetic(100000), 0)
	small, err := planner.DecodeBinary(examples.DefaultPlan)
	if err != nil {
		t.Fatal(err)
	}
	smallLayout := NewLayout(small, 0)
	keys := func(v *View, ks ...string) func(int) {
		return func(i int) { v.Key(ks[i%len(ks)], false) }
	}
	pan := make([]string, 60) // framebench's: 30 steps right, 30 back
	for i := range pan {
		pan[i] = map[bool]string{true: "ArrowRight", false: "ArrowLeft"}[i < 30]
	}
	cases := []struct {
		name   string
		layout *Layout
		frames int
		setup  func(v *View) func(int)
		max    frameWork
	}{
		{"zooming the whole 100k plan", big, 30,
			func(v *View) func(int) { return keys(v, "w", "s") },
			// Every item built again each frame, every row uploaded.
			frameWork{quads: 11200, built: 100000, painted: 955000, uploaded: 4 * w * h, allocs: 72, bytes: 7200}},
		{"panning 100k, time zoomed 2x", big, 60,
			func(v *View) func(int) {
				for range 3 {
					v.Key("w", true)
				}
				return keys(v, pan...)
			},
			// The items are built for a plot's size around the plot and
			// moved; built again about every twelfth frame.
			frameWork{quads: 6000, built: 9200, painted: 810000, uploaded: 1030000, allocs: 66, bytes: 9100}},
		{"hovering 100k", big, 30,
			func(v *View) func(int) {
				a, b := v.HitAt(300, 200), v.HitAt(500, 300)
				return func(i int) { v.SetPointer([]Hit{a, b}[i%2], noLive) }
			},
			// Nothing built; the rows from one ring to the other uploaded.
			frameWork{quads: 10200, built: 0, painted: 925000, uploaded: 445000, allocs: 63, bytes: 9700}},
		{"moving the cursor over 100k", big, 30,
			func(v *View) func(int) { return keys(v, ".", ",") },
			// The cursor dims what is not live at its step: built again.
			frameWork{quads: 10500, built: 100000, painted: 935000, uploaded: 55000, allocs: 76, bytes: 9000}},
		{"redrawing 100k unchanged", big, 30,
			func(v *View) func(int) { return func(int) { v.Dirty = true } },
			// Painted again, but nothing built and nothing uploaded.
			frameWork{quads: 10200, built: 0, painted: 925000, uploaded: 0, allocs: 62, bytes: 8700}},
		{"zooming the default example", smallLayout, 30,
			func(v *View) func(int) { return keys(v, "w", "s") },
			// Most quads are the labels' glyphs.
			frameWork{quads: 1170, built: 60, painted: 1020000, uploaded: 4 * w * h, allocs: 51, bytes: 5000}},
	}
	for _, c := range cases {
		v := NewView(w, h)
		v.SetLayout(c.layout, false)
		got := measureFrames(v, w, h, c.frames, c.setup(v))
		t.Logf("%s: %+v", c.name, got)
		for _, f := range []struct {
			what     string
			got, max int
		}{
			{"quads", got.quads, c.max.quads},
			{"items built", got.built, c.max.built},
			{"pixels painted", got.painted, c.max.painted},
			{"bytes uploaded", got.uploaded, c.max.uploaded},
			{"heap allocations", got.allocs, c.max.allocs},
			{"heap bytes", got.bytes, c.max.bytes},
		} {
			if f.got > f.max {
				t.Errorf("%s: %d %s a frame, more than the %d allowed", c.name, f.got, f.what, f.max)
			}
		}
	}
}
