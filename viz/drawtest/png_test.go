package drawtest

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/viz/internal/sample"
)

// TestSnapshots writes PNGs of real plans for people to look at, when
// VIZ_PNG_DIR names a directory; otherwise it skips.
func TestSnapshots(t *testing.T) {
	dir := os.Getenv("VIZ_PNG_DIR")
	if dir == "" {
		t.Skip("set VIZ_PNG_DIR to write snapshots")
	}
	needDisplay(t)
	plan := func(file string, opts planner.Options) *planner.Plan {
		data, err := os.ReadFile(filepath.Join("../../examples", file))
		if err != nil {
			t.Fatal(err)
		}
		src, err := ir.Decode(file, data, ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := planner.PlanSource(context.Background(), src, opts, planner.DefaultStrategy, planner.PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	f32 := planner.DefaultOptions()
	f32.F32Uniform = true
	plans := map[string]*planner.Plan{
		"transformer": plan("transformer.json", planner.DefaultOptions()),
		"streaming":   plan("streaming.json", planner.DefaultOptions()),
		"mlp-f32":     plan("mlp.json", f32),
		"sample":      sample.Plan(),
	}
	type shot struct {
		plan  string
		w, h  int
		theme string
		scale float64
		live  int // step hovered in the live strip, -1 for none
		zoom  *viz.Rect
	}
	shots := []shot{
		{"transformer", 1280, 800, "dark", 1, -1, nil},
		{"transformer", 1280, 800, "light", 1, 20, nil},
		{"transformer", 800, 600, "dark", 1, 44, nil},
		{"transformer", 800, 600, "light", 1, -1, nil},
		{"transformer", 800, 600, "dark", 2, 20, nil},
		{"streaming", 1280, 800, "dark", 1, 3, nil},
		{"streaming", 800, 600, "light", 1, -1, nil},
		{"mlp-f32", 800, 600, "dark", 1, -1, nil},
		{"sample", 800, 600, "light", 1, -1, nil},
		{"sample", 640, 400, "dark", 1, 2, nil},
		// Deep into the arena's top: byte ticks in bytes, arena and lower
		// bound labels on either side of their lines.
		{"transformer", 800, 600, "light", 1, -1, &viz.Rect{X0: 20, Y0: 22<<20 + 8000, X1: 24, Y1: 22<<20 + 12000}},
	}
	for _, s := range shots {
		w, h := int(float64(s.w)*s.scale), int(float64(s.h)*s.scale)
		v := viz.NewView(w, h)
		v.SetScale(s.scale)
		v.SetTheme(s.theme)
		p := plans[s.plan]
		v.SetLayout(viz.NewLayout(p, viz.Budget(p)), false)
		if s.zoom != nil {
			v.Cam.FitRect(*s.zoom, 0)
		}
		if s.live >= 0 {
			v.SetPointer(viz.None, viz.LiveHit{Step: s.live, Bytes: v.Layout.LiveAt(s.live)})
		}
		img := ebiten.NewImage(w, h)
		viz.NewRenderer().Draw(img, v)
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		img.ReadPixels(rgba.Pix)
		name := filepath.Join(dir, fmt.Sprintf("%s-%dx%d-%s@%gx%s.png", s.plan, s.w, s.h, s.theme, s.scale, map[bool]string{true: "-zoomed"}[s.zoom != nil]))
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, rgba); err != nil {
			t.Fatal(err)
		}
		f.Close()
		t.Log("wrote", name)
	}
}
