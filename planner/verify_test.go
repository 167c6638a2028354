package planner

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"memplan/ir"
)

func viewsPlan(t *testing.T) *Plan {
	g := &ir.Graph{Name: "views", Nodes: []ir.Node{
		node("x", ir.OpInput, ir.F32, []int64{8, 4}),
		node("w", ir.OpParam, ir.F32, []int64{4, 4}),
		node("mm", "matmul", ir.F32, []int64{8, 4}, "x", "w"),
		view(node("r", ir.OpReshape, ir.F32, []int64{32}, "mm"), ir.AliasWhole),
		narrow(node("n", ir.OpNarrow, ir.F32, []int64{16}, "r"), 8, 16),
		node("y", "relu", ir.F32, []int64{16}, "n"),
	}, Outputs: []string{"y"}}
	return planGraph(t, g, DefaultOptions(), "reference")
}

// The record says what each op reads, views as themselves.
func TestPlanRecordsReads(t *testing.T) {
	p := viewsPlan(t)
	names := make([][]string, len(p.Reads))
	for s, r := range p.Reads {
		names[s] = []string{}
		for _, i := range r {
			names[s] = append(names[s], p.Tensors[i].Name)
		}
	}
	want := [][]string{{"x", "w"}, {"mm"}, {"r"}, {"n"}}
	if !slices.EqualFunc(names, want, slices.Equal) {
		t.Fatalf("reads = %v, want %v", names, want)
	}
}

// Each way of breaking a valid plan is caught, and the message names the tensor.
func TestVerifyCatchesViolations(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(p *Plan)
		want   string
	}{
		{"overlap", func(p *Plan) { p.Tensors[2].Offset = p.Tensors[0].Offset }, `overlap in memory`},
		{"guard overlap", func(p *Plan) {
			x := &p.Tensors[0] // the input's guard is after its bytes
			p.Tensors[2].Offset = x.Offset + x.Size
		}, "overlap in memory"},
		{"misaligned", func(p *Plan) { p.Tensors[5].Offset += 4 }, "not a multiple of the alignment"},
		{"past the arena", func(p *Plan) { p.ArenaSize = 10 }, "past the arena"},
		{"view outside root", func(p *Plan) { p.Tensors[4].ViewOffset = 100 }, "outside its"},
		{"view offset mismatch", func(p *Plan) { p.Tensors[4].Offset++ }, "is not root"},
		{"view outlives root", func(p *Plan) { p.Tensors[3].Death = p.Steps + 5 }, "outside root"},
		{"unknown root", func(p *Plan) { p.Tensors[3].Root = "nope" }, `root "nope"`},
		{"wrong lower bound", func(p *Plan) { p.LowerBound++ }, "lower_bound"},
		{"empty live range", func(p *Plan) { p.Tensors[5].Death = p.Tensors[5].Birth - 1 }, "is empty"},
		{"duplicate name", func(p *Plan) { p.Tensors[5].Name = "mm" }, "appears twice"},
		{"bad format", func(p *Plan) { p.Format = "x" }, "format"},
		{"read before birth", func(p *Plan) { p.Reads[0] = append(p.Reads[0], 5) }, `reads "y"`},
		{"read outside the tensors", func(p *Plan) { p.Reads[0] = []int{99} }, "outside 0..5"},
		{"reads of the wrong length", func(p *Plan) { p.Reads = p.Reads[:1] }, "reads has 1 steps"},
	}
	if err := Verify(viewsPlan(t)); err != nil {
		t.Fatalf("valid plan rejected: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := viewsPlan(t)
			tc.break_(p)
			err := Verify(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// ReusedFrom agrees with a quadratic scan on random valid placements,
// half of them with steps so far apart that a death times the buffer
// count would wrap (the painting then ranks the deaths).
func TestReusedFromMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for iter := range 300 {
		p := &Problem{Alignment: 1}
		for i := range 2 + r.IntN(60) {
			birth := r.IntN(40)
			p.Buffers = append(p.Buffers, Buffer{Name: string(rune('a' + i%26)), Size: int64(r.IntN(50)),
				Birth: birth, Death: birth + r.IntN(10), Align: 1})
		}
		pl, err := placeReference(t.Context(), p, PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if iter%2 == 1 { // the same order of steps, spread out
			for i := range p.Buffers {
				p.Buffers[i].Birth <<= 56
				p.Buffers[i].Death <<= 56
			}
		}
		got := ReusedFrom(p, pl.Offsets)
		for i := range p.Buffers {
			b := &p.Buffers[i]
			want := -1
			for j := range p.Buffers {
				o := &p.Buffers[j]
				if j == i || o.Size == 0 || b.Size == 0 || o.Death >= b.Birth {
					continue
				}
				if pl.Offsets[j] < pl.Offsets[i]+b.Size && pl.Offsets[i] < pl.Offsets[j]+o.Size {
					if want < 0 || o.Death > p.Buffers[want].Death {
						want = j
					}
				}
			}
			if (want < 0) != (got[i] < 0) || want >= 0 && p.Buffers[got[i]].Death != p.Buffers[want].Death {
				t.Fatalf("iter %d buffer %d: reuses %d, brute force %d", iter, i, got[i], want)
			}
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, b := viewsPlan(t), viewsPlan(t)
	if a.Fingerprint != b.Fingerprint || len(a.Fingerprint) != 32 {
		t.Fatalf("fingerprints differ across runs or have the wrong length: %s %s", a.Fingerprint, b.Fingerprint)
	}
	// A JSON round trip keeps it.
	data, _ := json.Marshal(a)
	var back Plan
	if err := json.Unmarshal(data, &back); err != nil || back.ComputeFingerprint() != a.Fingerprint {
		t.Fatalf("round trip changed the fingerprint: %v", err)
	}
	changes := map[string]func(p *Plan){
		"offset":   func(p *Plan) { p.Tensors[2].Offset += 64 },
		"shape":    func(p *Plan) { p.Tensors[2].Shape[0]++ },
		"name":     func(p *Plan) { p.Tensors[2].Name = "other" },
		"options":  func(p *Plan) { p.Options.F32Uniform = true },
		"lifetime": func(p *Plan) { p.Tensors[2].Death++ },
	}
	for what, change := range changes {
		p := viewsPlan(t)
		change(p)
		if p.ComputeFingerprint() == a.Fingerprint {
			t.Errorf("changing the %s keeps the fingerprint", what)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"134217728", 134217728, true}, {"128MiB", 128 << 20, true}, {"1GiB", 1 << 30, true},
		{"1.5GiB", 3 << 29, true}, {"512MB", 512e6, true}, {"64 KiB", 64 << 10, true}, {"7B", 7, true},
		{"", 0, false}, {"-1", 0, false}, {"MiB", 0, false}, {"12XB", 0, false}, {"9e30GiB", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestEstimateAndBudget(t *testing.T) {
	g := &ir.Graph{Name: "est", Nodes: []ir.Node{
		node("x", ir.OpInput, ir.F32, []int64{1 << 18}), // 1 MiB
		node("w", ir.OpParam, ir.F32, []int64{1 << 19}), // 2 MiB
		view(node("w_t", ir.OpReshape, ir.F32, []int64{1 << 19}, "w"), ir.AliasWhole),
		node("h", "mul", ir.F32, []int64{1 << 18}, "x", "w_t"), // 1 MiB
		node("y", "relu", ir.F32, []int64{1 << 18}, "h"),
	}, Outputs: []string{"y"}}
	e, _, err := EstimateGraph(t.Context(), g, DefaultOptions(), "", PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The tied view costs nothing; h and y are live together at step 4.
	if e.Weights != 2<<20 || e.Inputs != 1<<20 || e.Activation != 2<<20 || e.Peak != 5<<20 {
		t.Fatalf("estimate %+v", e)
	}
	if err := e.FitsIn(5 << 20); err != nil {
		t.Errorf("fits exactly, got %v", err)
	}
	err = e.FitsIn(4 << 20)
	want := "estimated peak 5 MiB exceeds budget 4 MiB by 1 MiB (activation 2 MiB, weights 2 MiB, inputs 1 MiB)"
	if err == nil || err.Error() != want {
		t.Errorf("FitsIn = %v, want %q", err, want)
	}
}

func TestPlanMoE(t *testing.T) {
	tests := []struct {
		name     string
		m        MoE
		resident int
		fits     bool
	}{
		{"all fit", MoE{ExpertBytes: 1 << 20, Layers: 2, ExpertsPerLayer: 4, Budget: 1 << 30}, 4, true},
		{"capped", MoE{ExpertBytes: 1 << 20, Layers: 2, ExpertsPerLayer: 8, MaxResident: 3, Budget: 1 << 30}, 3, true},
		{"budget bound", MoE{ExpertBytes: 100, Layers: 10, ExpertsPerLayer: 8, Budget: 5000, Reserve: 0.2, BaseBytes: 1000}, 3, true},
		{"not even one", MoE{ExpertBytes: 100, Layers: 10, ExpertsPerLayer: 8, Budget: 900}, 1, false},
	}
	for _, tc := range tests {
		r, err := PlanMoE(tc.m)
		if r.ResidentPerLayer != tc.resident || (err == nil) != tc.fits {
			t.Errorf("%s: resident %d err %v; want %d fits=%v", tc.name, r.ResidentPerLayer, err, tc.resident, tc.fits)
		}
		if want := tc.m.BaseBytes + int64(r.ResidentPerLayer*tc.m.Layers)*tc.m.ExpertBytes; r.Peak != want {
			t.Errorf("%s: peak %d, want %d", tc.name, r.Peak, want)
		}
	}
	if _, err := PlanMoE(MoE{ExpertBytes: 1 << 62, Layers: 8, ExpertsPerLayer: 1, Budget: 1}); !errors.Is(err, ir.ErrOverflow) {
		t.Errorf("overflow not caught: %v", err)
	}
}

// The blocked live set agrees with a plain sorted slice under random
// inserts and removals, including equal offsets.
func TestLiveSetMatchesSortedSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	offsets := make([]int64, 5000)
	for i := range offsets {
		offsets[i] = int64(r.IntN(3000)) // duplicates on purpose
	}
	s := &liveSet{offs: offsets}
	var ref []int // sorted by offset, then by insertion
	in := map[int]bool{}
	for step := range 20000 {
		i := r.IntN(len(offsets))
		if in[i] {
			s.remove(i)
			ref = slices.DeleteFunc(ref, func(j int) bool { return j == i })
			delete(in, i)
		} else {
			s.insert(i)
			k := sort.Search(len(ref), func(k int) bool { return offsets[ref[k]] >= offsets[i] })
			ref = slices.Insert(ref, k, i)
			in[i] = true
		}
		var got []int
		for _, b := range s.blocks {
			got = append(got, b...)
		}
		if len(got) != len(ref) {
			t.Fatalf("step %d: %d live, want %d", step, len(got), len(ref))
		}
		for k := range got {
			if offsets[got[k]] != offsets[ref[k]] {
				t.Fatalf("step %d: position %d has offset %d, want %d", step, k, offsets[got[k]], offsets[ref[k]])
			}
		}
		off := int64(r.IntN(3000))
		prev, next := s.neighbours(off)
		k := sort.Search(len(ref), func(k int) bool { return offsets[ref[k]] >= off })
		if wantNext := -1; k < len(ref) {
			if wantNext = ref[k]; next < 0 || offsets[next] != offsets[wantNext] {
				t.Fatalf("step %d: next of %d is %d, want offset %d", step, off, next, offsets[wantNext])
			}
		} else if next != -1 {
			t.Fatalf("step %d: next of %d is %d, want none", step, off, next)
		}
		if k > 0 && (prev < 0 || offsets[prev] != offsets[ref[k-1]]) || k == 0 && prev != -1 {
			t.Fatalf("step %d: prev of %d is %d", step, off, prev)
		}
	}
}

// firstUsePlan places p by first use, the quickest strategy, for the
// benchmarks of what follows placing.
func firstUsePlan(b *testing.B, p *Problem) (Placement, *Plan) {
	pl, err := Place(b.Context(), p, "first-use", PlaceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return pl, NewPlan(p, pl.Strategy, pl)
}

func BenchmarkVerifyGenerated1M(b *testing.B) {
	_, plan := firstUsePlan(b, Generate(1_000_000, 1))
	b.ResetTimer()
	for b.Loop() {
		if err := Verify(plan); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordRandom1M times the passes after placing, on a million
// random lives (which visit the buffers in birth and offset orders far
// from their own): the record, its proof and the text report.
func BenchmarkRecordRandom1M(b *testing.B) {
	p := GenerateRandom(1_000_000, 1)
	pl, plan := firstUsePlan(b, p)
	b.Run("new-plan", func(b *testing.B) {
		for b.Loop() {
			NewPlan(p, pl.Strategy, pl)
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := VerifyAgainst(p, plan); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("report", func(b *testing.B) {
		for b.Loop() {
			if err := plan.WriteReport(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLiveProfile covers the dense path (steps numbered closely) and the
// sorting one (steps far apart) against step functions worked by hand.
func TestLiveProfile(t *testing.T) {
	buf := func(birth, death int, size int64) Buffer {
		return Buffer{Name: "b", Size: size, Birth: birth, Death: death, Align: 1}
	}
	tests := []struct {
		name string
		bufs []Buffer
		want []LiveStep
	}{
		{"empty", nil, nil},
		{"zero sizes only", []Buffer{buf(0, 3, 0)}, nil},
		{"one", []Buffer{buf(2, 4, 10)}, []LiveStep{{2, 10}, {5, 0}}},
		{"handover keeps one step", []Buffer{buf(0, 1, 8), buf(2, 3, 8)}, []LiveStep{{0, 8}, {4, 0}}},
		{"overlap", []Buffer{buf(0, 2, 8), buf(1, 3, 4), buf(1, 1, 0)}, []LiveStep{{0, 8}, {1, 12}, {3, 4}, {4, 0}}},
		{"sparse steps", []Buffer{buf(0, 1_000_000_000, 8), buf(5, 7, 4), buf(1<<40, 1<<40, 2)},
			[]LiveStep{{0, 8}, {5, 12}, {8, 8}, {1_000_000_001, 0}, {1 << 40, 2}, {1<<40 + 1, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LiveProfile(&Problem{Buffers: tc.bufs})
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// byStep sorts positions by step, ties in position order, whether it
// counts (dense steps) or compares (sparse ones).
func TestByStep(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []int
		want  []int
	}{
		{"empty", nil, []int{}},
		{"dense with ties", []int{3, 1, 3, 0, 1}, []int{3, 1, 4, 0, 2}},
		{"sparse with ties", []int{1 << 40, 5, 1 << 40, 5, 0}, []int{4, 1, 3, 0, 2}},
		{"negative", []int{-2, 4, -2}, []int{0, 2, 1}},
	} {
		if got := byStep(tt.steps); !slices.Equal(got, tt.want) {
			t.Errorf("%s: byStep(%v) = %v, want %v", tt.name, tt.steps, got, tt.want)
		}
	}
}

// TestPlanProblemUnprovenProvesThePlan: the proof PlanProblemUnproven
// hands back checks the plan as it is when run, so a plan changed after
// it was made (or a strategy's wrong answer) fails as a bug.
func TestPlanProblemUnprovenProvesThePlan(t *testing.T) {
	p := loadProblem(t, "testdata/input.12.csv")
	tests := []struct {
		name   string
		tamper func(*Plan)
		ok     bool
	}{
		{"as made", func(*Plan) {}, true},
		{"every tensor at offset 0", func(pl *Plan) {
			for i := range pl.Tensors {
				pl.Tensors[i].Offset = 0
			}
		}, false},
		{"an arena smaller than its tensors", func(pl *Plan) { pl.ArenaSize = 1 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, _, prove, err := PlanProblemUnproven(context.Background(), p, "best-fit", PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tt.tamper(plan)
			err = prove()
			var bug *UnverifiedPlanError
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &bug)) {
				t.Fatalf("prove() = %v, want ok %v or an *UnverifiedPlanError", err, tt.ok)
			}
		})
	}
}

// runMap gives what an array of colours gives: the largest colour a range
// held, then the range in one colour. Sizes cross the words of each of
// its levels (64, 4,096 and 262,144 ranges); one range in eight is long,
// which leaves run starts far apart; keys come in any order, as an
// invalid plan's would.
func TestRunMapMatchesArray(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{1, 2, 63, 64, 65, 200, 4095, 4096, 4097, 9000, 262143, 262144, 300000} {
		m := newRunMap(n)
		colours := make([]int64, n)
		for i := range colours {
			colours[i] = -1
		}
		for op := range 3000 {
			lo := r.IntN(n)
			hi := lo + 1 + r.IntN(min(n-lo, 1+r.IntN(300)))
			if r.IntN(8) == 0 {
				hi = lo + 1 + r.IntN(n-lo)
			}
			key := r.Int64N(1000)
			want := int64(-1)
			for c := lo; c < hi; c++ {
				want = max(want, colours[c])
				colours[c] = key
			}
			if got := m.paint(lo, hi, key); got != want {
				t.Fatalf("n %d op %d: paint [%d, %d) found %d, the array %d", n, op, lo, hi, got, want)
			}
		}
	}
}
