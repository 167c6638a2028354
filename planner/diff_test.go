package planner

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// reportOffsets reads a plan's text report back into name → offset: an
// independent view of where each tensor sits, through the report's own
// format rather than the record the diff reads.
func reportOffsets(t *testing.T, p *Plan) map[string]int64 {
	t.Helper()
	var b strings.Builder
	if err := p.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var off, size int64
		var name string
		if _, err := fmt.Sscan(sc.Text(), &off, &size, &name); err != nil {
			t.Fatalf("report line %q: %v", sc.Text(), err)
		}
		out[name] = off
	}
	return out
}

func TestDiffTwoStrategiesAgainstTheirReports(t *testing.T) {
	for _, tt := range []struct {
		file, a, b  string
		wantChanged bool // the test's premise: the two strategies disagree somewhere
	}{
		{"input.12.csv", "best-fit", "first-use", true},
		{"input.12.csv", "best-fit", "no-reuse", true},
		{"input.12.csv", "first-use", "breadth", false},
		{"C.1048576.csv", "best-fit", "breadth", true},
	} {
		t.Run(tt.file+"/"+tt.a+"-"+tt.b, func(t *testing.T) {
			prob := loadCSV(t, "testdata/"+tt.file)
			pa, _, err := PlanProblem(context.Background(), prob, tt.a, PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pb, _, err := PlanProblem(context.Background(), prob, tt.b, PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := DiffPlans(pa, pb, "", "")
			offA, offB := reportOffsets(t, pa), reportOffsets(t, pb)
			want := map[string][2]int64{}
			for name, oa := range offA {
				if ob := offB[name]; ob != oa {
					want[name] = [2]int64{oa, ob}
				}
			}
			got := map[string][2]int64{}
			for _, c := range d.Changed {
				if c.What != "offset" {
					t.Errorf("%s changed %q; one problem's tensors can only move", c.Name, c.What)
				}
				got[c.Name] = [2]int64{c.OffsetA, c.OffsetB}
			}
			if !maps.Equal(got, want) {
				t.Errorf("changed %v, want %v", got, want)
			}
			if (len(want) > 0) != tt.wantChanged {
				t.Fatalf("the premise fails: %d tensors moved", len(want))
			}
			if d.ArenaDelta != pb.ArenaSize-pa.ArenaSize || d.LowerBoundDelta != 0 || d.Matched != len(prob.Tensors) {
				t.Errorf("deltas arena %d bound %d matched %d", d.ArenaDelta, d.LowerBoundDelta, d.Matched)
			}
			if len(d.OnlyA)+len(d.OnlyB) != 0 {
				t.Errorf("only A %v only B %v", d.OnlyA, d.OnlyB)
			}
		})
	}
}

func TestDiffLifetimeSizeAndUnmatched(t *testing.T) {
	prob := loadCSV(t, "testdata/input.12.csv")
	pa, _, err := PlanProblem(context.Background(), prob, "best-fit", PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// B: b2 lives one step longer and is 8 bytes, b5 is renamed b6.
	b := *pa
	b.Tensors = slices.Clone(pa.Tensors)
	for i := range b.Tensors {
		switch b.Tensors[i].Name {
		case "b2":
			b.Tensors[i].Death++
			b.Tensors[i].Size = 8
		case "b5":
			b.Tensors[i].Name = "b6"
		}
	}
	d := DiffPlans(pa, &b, "A", "B")
	if len(d.Changed) != 1 || d.Changed[0].Name != "b2" || d.Changed[0].What != "lifetime,size" {
		t.Errorf("changed %+v, want b2 lifetime,size", d.Changed)
	}
	if !slices.Equal(d.OnlyA, []string{"b5"}) || !slices.Equal(d.OnlyB, []string{"b6"}) || d.Matched != 4 {
		t.Errorf("only A %v only B %v matched %d", d.OnlyA, d.OnlyB, d.Matched)
	}
	var out strings.Builder
	if err := d.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# 1 of 4 matched tensors changed; 1 only in A, 1 only in B", "lifetime,size", "only in A:  b5", "only in B:  b6"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
