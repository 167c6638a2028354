package planner

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The placement order is the real history of a best-fit placement: each
// buffer sits in the smallest gap left by the buffers before it in the
// order that live with it, found here by a plain scan of those buffers.
func TestPlacementOrderReplaysBestFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for k := range 300 {
		p := randomProblem(rng, 1+rng.IntN(40), 1+rng.IntN(30))
		for _, strategy := range []string{"best-fit", "best-fit-temporal", "breadth"} {
			pl, err := Place(context.Background(), p, strategy, PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for n, i := range pl.Order {
				b := &p.Buffers[i]
				if b.Fixed {
					continue
				}
				var taken []span
				for _, j := range pl.Order[:n] {
					if o := &p.Buffers[j]; o.Overlaps(b) {
						taken = addSpan(taken, pl.Offsets[j], o.End(pl.Offsets[j]))
					}
				}
				if want := bestGap(taken, b.Span(), b.Align, p.Cut); pl.Offsets[i] != want {
					t.Fatalf("problem %d, %s: buffer %s, placed %d-th, is at %d; the buffers before it leave %d as the best gap",
						k, strategy, b.Name, n, pl.Offsets[i], want)
				}
			}
		}
	}
}

func TestPlacementOrderInRecord(t *testing.T) {
	p := randomProblem(rand.New(rand.NewPCG(1, 2)), 30, 20)
	for _, strategy := range []string{"auto", "first-use", "reference", "no-reuse"} {
		// Auto's slice, when it improves, leaves no order: see below.
		pl, err := Place(context.Background(), p, strategy, PlaceOptions{AutoSlice: -1})
		if err != nil {
			t.Fatal(err)
		}
		plan := NewPlan(p, strategy, pl)
		if len(plan.PlacementOrder) == 0 {
			t.Fatalf("%s: no placement order", strategy)
		}
		if err := Verify(plan); err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		// Fixed buffers come first: they were there before anything else.
		fixed := 0
		for i := range p.Buffers {
			if p.Buffers[i].Fixed && p.Buffers[i].Span() > 0 {
				fixed++
			}
		}
		for _, i := range pl.Order[:fixed] {
			if !p.Buffers[i].Fixed {
				t.Fatalf("%s: movable buffer %s among the first %d placed", strategy, p.Buffers[i].Name, fixed)
			}
		}
	}

	// An exact search that improves on auto's answer did not place one
	// buffer at a time: no order.
	c := loadCSV(t, "testdata/C.1048576.csv")
	if pl, err := Place(context.Background(), c, "exact", PlaceOptions{NodeLimit: 100_000}); err != nil || !pl.Optimal || pl.Order != nil {
		t.Errorf("exact on C: optimal %v, order of %d, err %v; want optimal, no order", pl.Optimal, len(pl.Order), err)
	}

	// Nor does auto's slice when it improves on the portfolio.
	if pl, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: 20_000}); err != nil || !strings.Contains(pl.Detail, "improved") || pl.Order != nil {
		t.Errorf("auto with its slice: %q, order of %d, err %v; want improved, no order", pl.Detail, len(pl.Order), err)
	}

	pl, _ := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1})
	for _, tc := range []struct {
		name   string
		change func(o []string) []string
		want   string
	}{
		{"duplicate", func(o []string) []string { return append(o, o[0]) }, "twice"},
		{"missing", func(o []string) []string { return o[1:] }, "leaves out"},
		{"stranger", func(o []string) []string { return append(o, "nobody") }, `"nobody", which owns no bytes`},
	} {
		plan := NewPlan(p, "auto", pl)
		plan.PlacementOrder = tc.change(slices.Clone(plan.PlacementOrder))
		if err := Verify(plan); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s placement order: Verify says %v, want %q", tc.name, err, tc.want)
		}
	}
}
