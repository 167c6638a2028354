package planner

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestVerifyMatchesBigIntOracle feeds Verify random plan records whose
// offsets, sizes, guards and arenas sit near the int64 limits, with
// random overlaps, and checks its verdict against an independent O(n²)
// check in arbitrary-precision integers: Verify accepts exactly the valid
// plans, so no wrap-around can make an invalid plan pass.
func TestVerifyMatchesBigIntOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 62))
	const rounds = 20000
	var valid, invalid int
	for round := range rounds {
		plan := randomEdgePlan(rng)
		want := oracleValid(plan)
		err := Verify(plan)
		if (err == nil) != want {
			t.Fatalf("round %d: Verify says %v, the oracle says valid=%v\n%s", round, err, want, describePlan(plan))
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	// The generator must exercise both verdicts, or the test proves little.
	if valid < rounds/10 || invalid < rounds/10 {
		t.Fatalf("generator made %d valid and %d invalid plans; want at least %d of each", valid, invalid, rounds/10)
	}
}

// edgeValues are byte counts around the places where int64 sums wrap.
var edgeValues = []int64{
	0, 1, 8, 16, 64,
	1<<62 - 64, 1<<62 - 8, 1<<62 - 1, 1 << 62, 1<<62 + 8,
	1<<63 - 64, 1<<63 - 16, 1<<63 - 1, -1, -16, math.MinInt64,
}

func randomEdgePlan(rng *rand.Rand) *Plan {
	n := 2 + rng.IntN(5)
	steps := 1 + rng.IntN(4)
	align := []int64{1, 8}[rng.IntN(2)]
	plan := &Plan{Format: PlanFormat, Name: "edge", Alignment: align, Steps: steps, Schedule: []string{}, Strategy: "auto"}
	small := rng.IntN(3) > 0 // most plans small, so many are valid
	pick := func() int64 {
		if small || rng.IntN(4) == 0 {
			return int64(rng.IntN(5)) * 8
		}
		return edgeValues[rng.IntN(len(edgeValues))] + int64(rng.IntN(3))*8*int64(rng.IntN(2))
	}
	var off int64
	for i := range n {
		b := rng.IntN(steps + 1)
		d := b + rng.IntN(steps+1-b)
		tt := PlanTensor{Name: fmt.Sprintf("t%d", i), Kind: KindActivation, Shape: []int64{}, Birth: b, Death: d}
		tt.Size, tt.Guard = pick(), 0
		if rng.IntN(3) == 0 {
			tt.Guard = pick()
		}
		if small && rng.IntN(2) == 0 {
			tt.Offset = off // stacked: valid unless perturbed
			off += max(tt.Size, 0) + max(tt.Guard, 0)
		} else {
			tt.Offset = pick()
		}
		plan.Tensors = append(plan.Tensors, tt)
	}
	// The arena: usually the largest end, as a record states it;
	// sometimes an edge value.
	if rng.IntN(4) > 0 {
		for _, tt := range plan.Tensors {
			plan.ArenaSize = max(plan.ArenaSize, tt.Offset+tt.Size+tt.Guard)
		}
	} else {
		plan.ArenaSize = pick()
	}
	if lb, ok := oracleLiveMax(plan); ok && lb.IsInt64() {
		plan.LowerBound = lb.Int64()
	}
	if rng.IntN(5) == 0 {
		plan.LowerBound = pick()
	}
	if total, ok := oracleTotal(plan); ok && total.IsInt64() {
		plan.TotalUnshared = total.Int64()
	}
	if rng.IntN(5) == 0 {
		plan.TotalUnshared = pick()
	}
	plan.Saved = plan.TotalUnshared - plan.ArenaSize
	// The fields this test is not about follow from the rest, as a
	// record states them; the oracle leaves them to Verify's own tests.
	plan.AlignedLowerBound = plan.alignedLowerBound()
	plan.Fragmentation = fragmentation(plan.ArenaSize, plan.LowerBound)
	plan.Optimal = plan.ArenaSize == plan.AlignedLowerBound
	for i, r := range plan.reusedFrom() {
		plan.Tensors[i].Reuses = r
	}
	plan.Fingerprint = plan.ComputeFingerprint()
	return plan
}

// oracleTotal is total_unshared in big integers: the owners' spans end to
// end, each at an aligned offset.
func oracleTotal(plan *Plan) (*big.Int, bool) {
	end, a := new(big.Int), big.NewInt(plan.Alignment)
	for _, tt := range plan.Tensors {
		if tt.Size < 0 || tt.Guard < 0 {
			return nil, false
		}
		span := new(big.Int).Add(big.NewInt(tt.Size), big.NewInt(tt.Guard))
		if span.Sign() == 0 {
			continue
		}
		// Round up: end + (a - end mod a) mod a.
		pad := new(big.Int).Mod(new(big.Int).Sub(a, new(big.Int).Mod(end, a)), a)
		end.Add(end, pad).Add(end, span)
	}
	return end, true
}

// oracleValid decides validity the slow, obviously right way, with big
// integers, by the rules Verify documents.
func oracleValid(plan *Plan) bool {
	limit := new(big.Int).Lsh(big.NewInt(1), 62)
	inRange := func(vs ...int64) bool {
		for _, v := range vs {
			if v < 0 || big.NewInt(v).Cmp(limit) >= 0 {
				return false
			}
		}
		return true
	}
	sum := func(vs ...int64) *big.Int {
		s := new(big.Int)
		for _, v := range vs {
			s.Add(s, big.NewInt(v))
		}
		return s
	}
	if !inRange(plan.ArenaSize) {
		return false
	}
	arena := big.NewInt(plan.ArenaSize)
	top := new(big.Int) // where the owners' bytes end: the arena a record must state
	var owners []*PlanTensor
	for i := range plan.Tensors {
		tt := &plan.Tensors[i]
		if !inRange(tt.Size, tt.Guard, tt.Offset) || sum(tt.Size, tt.Guard).Cmp(limit) >= 0 || sum(tt.Offset, tt.Size, tt.Guard).Cmp(limit) >= 0 {
			return false
		}
		if tt.Birth < 0 || tt.Death < tt.Birth || tt.Death > plan.Steps || tt.Offset%plan.Alignment != 0 {
			return false
		}
		if tt.Size+tt.Guard > 0 {
			if sum(tt.Offset, tt.Size, tt.Guard).Cmp(arena) > 0 {
				return false
			}
			if end := sum(tt.Offset, tt.Size, tt.Guard); end.Cmp(top) > 0 {
				top = end
			}
			owners = append(owners, tt)
		}
	}
	for i, a := range owners {
		for _, b := range owners[i+1:] {
			liveTogether := a.Birth <= b.Death && b.Birth <= a.Death
			bytesMeet := sum(a.Offset).Cmp(sum(b.Offset, b.Size, b.Guard)) < 0 && sum(b.Offset).Cmp(sum(a.Offset, a.Size, a.Guard)) < 0
			if liveTogether && bytesMeet {
				return false
			}
		}
	}
	if top.Cmp(arena) != 0 {
		return false
	}
	lb, _ := oracleLiveMax(plan)
	if lb.Cmp(big.NewInt(plan.LowerBound)) != 0 || !inRange(plan.TotalUnshared) {
		return false
	}
	if total, _ := oracleTotal(plan); total.Cmp(big.NewInt(plan.TotalUnshared)) != 0 {
		return false
	}
	return sum(plan.Saved, plan.ArenaSize).Cmp(big.NewInt(plan.TotalUnshared)) == 0
}

// oracleLiveMax is the largest sum of size + guard live at one step, over
// tensors whose fields are in range; ok is false if any is not.
func oracleLiveMax(plan *Plan) (*big.Int, bool) {
	peak, ok := new(big.Int), true
	for s := 0; s <= plan.Steps; s++ {
		live := new(big.Int)
		for _, tt := range plan.Tensors {
			if tt.Size < 0 || tt.Guard < 0 {
				ok = false
				continue
			}
			if tt.Birth <= s && s <= tt.Death {
				live.Add(live, big.NewInt(tt.Size))
				live.Add(live, big.NewInt(tt.Guard))
			}
		}
		if live.Cmp(peak) > 0 {
			peak = live
		}
	}
	return peak, ok
}

func describePlan(p *Plan) string {
	s := fmt.Sprintf("arena %d lb %d total %d saved %d align %d steps %d\n", p.ArenaSize, p.LowerBound, p.TotalUnshared, p.Saved, p.Alignment, p.Steps)
	for _, t := range p.Tensors {
		s += fmt.Sprintf("  %s [%d,%d] offset %d size %d guard %d\n", t.Name, t.Birth, t.Death, t.Offset, t.Size, t.Guard)
	}
	return s
}
