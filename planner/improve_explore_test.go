package planner

import (
	"context"
	"memplan/ir"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestImproveExplore(t *testing.T) {
	path := os.Getenv("IMPROVE_FILE")
	if path == "" {
		t.Skip()
	}
	var p *Problem
	if n, err := strconv.Atoi(path); err == nil {
		p = Generate(n, 1)
	} else if strings.HasSuffix(path, ".onnx") {
		data, _ := os.ReadFile(path)
		src, err := ir.Decode(path, data, ir.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.SkipParams, opts.SkipConstants = true, true
		p, err = Lower(src, opts)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		p = loadCSV(t, path)
	}
	secs, _ := strconv.ParseFloat(os.Getenv("IMPROVE_SECS"), 64)
	start := time.Now()
	pl, err := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
	if err != nil {
		t.Fatal(err)
	}
	lb := LowerBound(p)
	t.Logf("n=%d auto %.5f in %v", len(p.Buffers), float64(pl.Arena)/float64(lb), time.Since(start))
	pr := prepare(p, PlaceOptions{})
	off := pl.Offsets
	for _, d := range []float64{secs / 30, secs / 6, secs} {
		s := time.Now()
		nodes, err := pr.improve(context.Background(), off, AlignedLowerBound(p), improveOptions{seed: 1, deadline: time.Now().Add(time.Duration(d * float64(time.Second)))})
		if err != nil {
			t.Fatal(err)
		}
		a := ArenaOf(p, off)
		t.Logf("+%.1fs: %.5f nodes %d (%v)", d, float64(a)/float64(lb), nodes, time.Since(s))
	}
	pl.Offsets = off
	pl.Arena = ArenaOf(p, off)
	if err := Verify(NewPlan(p, "auto", pl)); err != nil {
		t.Fatal(err)
	}
}
