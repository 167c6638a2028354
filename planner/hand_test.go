package planner_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// handPlan plans a file of the examples with strategy, as the viewer
// gets it.
func handPlan(t *testing.T, name string, data []byte, strategy string) *planner.Plan {
	t.Helper()
	in, err := planner.Load(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.Alignment = 256 // so that an offset can miss it
	plan, err := planner.PlanSource(context.Background(), in.Source, opts, strategy, planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

const handCSV = "id,lower,upper,size\na,0,1,3072\nb,0,3,1024\nc,1,2,2048\nd,1,4,1024\ne,2,5,1024\nf,3,4,2048\ng,4,5,3072\n"

func offsetsOf(p *planner.Plan) []int64 {
	out := make([]int64, len(p.Tensors))
	for i := range p.Tensors {
		out[i] = p.Tensors[i].Offset
	}
	return out
}

func TestWithOffsets(t *testing.T) {
	views, err := os.ReadFile("../examples/r1-views.json")
	if err != nil {
		t.Fatal(err) // a missing input is a failure
	}
	for _, file := range []struct {
		name string
		data []byte
	}{{"hard.csv", []byte(handCSV)}, {"r1-views.json", views}} {
		base := handPlan(t, file.name, file.data, "best-fit")
		stacked, err := base.StackedOffsets()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			offsets []int64
		}{{"the planner's own", offsetsOf(base)}, {"stacked", stacked}} {
			t.Run(file.name+"/"+c.name, func(t *testing.T) {
				q, err := base.WithOffsets(c.offsets, planner.StrategyHand)
				if err != nil {
					t.Fatal(err)
				}
				if err := planner.Verify(q); err != nil {
					t.Fatalf("Verify: %v", err)
				}
				var want int64
				for i := range q.Tensors {
					tt := &q.Tensors[i]
					if tt.Owns() {
						want = max(want, c.offsets[i]+tt.Size+tt.Guard)
					}
					if tt.IsView() && !tt.Skipped {
						root := &q.Tensors[q.IndexOf(tt.Root)]
						if tt.Offset != root.Offset+tt.ViewOffset {
							t.Errorf("view %s at %d, root %s at %d + %d", tt.Name, tt.Offset, root.Name, root.Offset, tt.ViewOffset)
						}
					}
				}
				if q.ArenaSize != want {
					t.Errorf("arena %d, want %d", q.ArenaSize, want)
				}
				if c.name == "stacked" && q.ArenaSize != q.TotalUnshared {
					t.Errorf("stacked arena %d, want total unshared %d", q.ArenaSize, q.TotalUnshared)
				}
				if q.Strategy != planner.StrategyHand || q.PlacementOrder != nil {
					t.Errorf("strategy %q, order %v: a hand placement claims no rule's order", q.Strategy, q.PlacementOrder)
				}
				if base.Tensors[0].Offset != offsetsOf(base)[0] || &base.Tensors[0] == &q.Tensors[0] {
					t.Error("WithOffsets changed or shares the plan it was given")
				}
			})
		}
	}
}

// A plan made under no_reuse, placed by hand, is a record of its own,
// which Verify takes: its offsets may share bytes.
func TestWithOffsetsOfNoReuse(t *testing.T) {
	in, err := planner.Load("hard.csv", []byte(handCSV), ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.DefaultOptions()
	opts.NoReuse = true
	base, err := planner.PlanSource(context.Background(), in.Source, opts, "auto", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	packed := handPlan(t, "hard.csv", []byte(handCSV), "best-fit")
	q, err := base.WithOffsets(offsetsOf(packed), planner.StrategyHand)
	if err != nil {
		t.Fatal(err)
	}
	if err := planner.Verify(q); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if q.ArenaSize >= base.ArenaSize {
		t.Errorf("arena %d, want below no_reuse's %d", q.ArenaSize, base.ArenaSize)
	}
}

func TestWithOffsetsRefuses(t *testing.T) {
	base := handPlan(t, "hard.csv", []byte(handCSV), "best-fit")
	b := base.IndexOf("b")
	for _, c := range []struct {
		name   string
		offset int64
		want   string
	}{
		{"negative", -64, "negative"},
		{"misaligned", base.AlignOf(&base.Tensors[b]) + 1, "not a multiple"},
		{"past the byte limit", ir.ByteLimit, "offset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			offs := offsetsOf(base)
			offs[b] = c.offset
			_, err := base.WithOffsets(offs, planner.StrategyHand)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	if _, err := base.WithOffsets(offsetsOf(base)[1:], planner.StrategyHand); err == nil {
		t.Error("too few offsets accepted")
	}
}

// An overlap the placement makes is Verify's to find: the record is
// still made, and Verify names both tensors.
func TestWithOffsetsOverlapIsVerifysToFind(t *testing.T) {
	base := handPlan(t, "hard.csv", []byte(handCSV), "best-fit")
	offs := offsetsOf(base)
	a, b := base.IndexOf("a"), base.IndexOf("b")
	offs[b] = offs[a]
	q, err := base.WithOffsets(offs, planner.StrategyHand)
	if err != nil {
		t.Fatal(err)
	}
	err = planner.Verify(q)
	if err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("Verify: %v, want the overlap of a and b", err)
	}
}
