package planner

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"memplan/ir"
)

// Verify proves a plan record valid, independently of the code that placed
// it: every tensor that owns bytes lies inside the arena at an aligned
// offset; tensors live at a common step occupy disjoint bytes, guards
// included; every view lies inside its root's bytes and live range. Then
// it recomputes every field that follows from the others and rejects a
// record that states another value: the arena, bounds, totals, saved,
// fragmentation and optimal from the placement; each tensor's kind, size,
// birth, phase and reuses; steps, the manifest, the GPU buffers and the
// fingerprint (docs/plan-format.md lists them, and the labels it does not
// check). It reports up to ten violations, naming the tensors and fields.
func Verify(plan *Plan) error {
	v := &violations{}
	verifyRecord(plan, v)
	return v.err()
}

// verifyRecord is Verify, adding what it finds to v.
func verifyRecord(plan *Plan, v *violations) {
	found := v.count // what v held before: the source's differences
	// The hash reads the record alone and holds no assumption the checks
	// make; on a million tensors it costs as much as a fifth of them, so
	// it runs beside them where there is a second thread (its finding
	// still comes last).
	fingerprint := startWork(plan.ComputeFingerprint)
	if plan.Format != PlanFormat {
		v.add("format is %s, want %s", ir.Quote(plan.Format), ir.Quote(PlanFormat))
	}
	if plan.Alignment < 1 || plan.Alignment >= ir.ByteLimit || plan.Alignment&(plan.Alignment-1) != 0 {
		v.add("alignment %d is not a power of two below 2^62", plan.Alignment)
	}
	if err := ir.CheckSize(plan.ArenaSize); err != nil {
		v.add("arena_size: %v", err)
	}
	if plan.Steps < 0 || plan.Steps > maxSteps {
		v.add("steps is %d, want 0..%d", plan.Steps, maxSteps)
	}
	if len(plan.Phases) > 0 && len(plan.Phases) != len(plan.Schedule) {
		v.add("phases has length %d, but schedule %d", len(plan.Phases), len(plan.Schedule))
	}
	byName := make(map[string]int, len(plan.Tensors))
	var owners []int // tensors that own bytes
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		// A name seen before leaves the map's size as it was: one hash
		// and probe per name, not two.
		known := len(byName)
		if byName[t.Name] = i; len(byName) == known {
			v.add("tensor %s appears twice", ir.Quote(t.Name))
		}
		if ok := verifyTensor(plan, t, v); ok && t.Placed() && t.Size+t.Guard > 0 {
			owners = append(owners, i)
		}
	}
	// The reuses, the costliest field to derive, are found beside the
	// checks below too, once every tensor's own fields are in range,
	// which finding them assumes; they are compared only if the checks
	// pass. (Their finding wastes nothing but a thread if they do not.)
	var reuses func() []string
	if v.count == found {
		reuses = startWork(plan.reusedFrom)
	}
	for i := range plan.Tensors {
		if t := &plan.Tensors[i]; t.Root != "" && !t.Skipped {
			verifyView(plan, byName, t, v)
		}
	}
	verifyReads(plan, v)
	verifyDisjoint(plan, owners, v)
	verifyGPU(plan, byName, v)
	if plan.PlacementOrder != nil {
		verifyOrder(plan, byName, owners, v)
	}
	verifyLabels(plan, v)
	// Only a plan whose owners are in range and disjoint has a meaningful
	// peak; it is then at most the arena, so the sums that derive the
	// other fields cannot wrap.
	if v.count == found {
		verifyDerived(plan, byName, owners, reuses, v)
	}
	if fp := fingerprint(); fp != plan.Fingerprint {
		v.add("fingerprint is %s, but the record hashes to %s", ir.Quote(plan.Fingerprint), fp)
	}
}

// verifyLabels checks the form of the fields that say how a plan was
// made rather than what it is: placement_rule names a rule, and one that
// placed buffers in turn. Whether the strategy named made this placement,
// or placed it in placement_order by that rule, no record can show
// (memplan explain says when the rule does not give an offset); another
// solver's placement, scored by tools/bench, names its own strategy.
func verifyLabels(plan *Plan, v *violations) {
	switch plan.PlacementRule {
	case "", RuleBestFit, RuleFirstFit, RuleFirstUse, RuleStack, RuleSearch:
	default:
		v.add("placement_rule is %s, not a rule of memplan", ir.Quote(plan.PlacementRule))
	}
	if plan.PlacementOrder != nil && plan.PlacementRule == RuleSearch {
		v.add("placement_order is given, but placement_rule search places no buffer in turn")
	}
}

// verifyReads checks the record's reads: one list per step, each naming
// tensors that are live at that step.
func verifyReads(plan *Plan, v *violations) {
	if plan.Reads == nil {
		return
	}
	if len(plan.Reads) != plan.Steps {
		v.add("reads has %d steps, but steps is %d", len(plan.Reads), plan.Steps)
		return
	}
	for s, r := range plan.Reads {
		for _, i := range r {
			switch {
			case i < 0 || i >= len(plan.Tensors):
				v.add("reads[%d] names tensor %d, outside 0..%d", s, i, len(plan.Tensors)-1)
			case plan.Tensors[i].Birth > s || plan.Tensors[i].Death < s:
				t := &plan.Tensors[i]
				v.add("step %d reads %s, which lives only over [%d, %d]", s, ir.Quote(t.Name), t.Birth, t.Death)
			}
		}
	}
}

// maxSteps bounds a schedule's length: far more ops than any model has,
// and small enough that a step plus one never wraps.
const maxSteps = 1 << 40

// verifyTensor checks one tensor's own fields with checked arithmetic and
// reports whether its offset, size and guard are in range; one that is not
// is left out of the overlap sweep, whose sums would otherwise wrap.
func verifyTensor(plan *Plan, t *PlanTensor, v *violations) bool {
	bad := func(format string, args ...any) bool {
		v.add("tensor %s: %s", ir.Quote(t.Name), fmt.Sprintf(format, args...))
		return false
	}
	if err := ir.CheckSize(t.Size); err != nil {
		return bad("size: %v", err)
	}
	if err := ir.CheckSize(t.Guard); err != nil {
		return bad("guard: %v", err)
	}
	span, err := ir.AddSize(t.Size, t.Guard)
	if err != nil {
		return bad("size %d + guard %d: %v", t.Size, t.Guard, err)
	}
	switch {
	case t.Birth < 0 || t.Death < t.Birth || t.Death > plan.Steps:
		return bad("live range [%d, %d] is empty or outside the schedule's steps 0..%d", t.Birth, t.Death, plan.Steps)
	case (t.Skipped || t.Root != "") && t.Alignment != 0:
		return bad("alignment %d, but it owns no bytes to align", t.Alignment)
	case t.Skipped:
		if t.Offset != -1 {
			return bad("skipped, but has offset %d", t.Offset)
		}
		return true
	case t.Root != "":
		return true // checked against its root by verifyView
	}
	if err := ir.CheckSize(t.Offset); err != nil {
		return bad("offset: %v", err)
	}
	end, err := ir.AddSize(t.Offset, span)
	if err != nil {
		return bad("offset %d + size %d + guard %d: %v", t.Offset, t.Size, t.Guard, err)
	}
	if a := t.Alignment; a != 0 && (a < 1 || a >= ir.ByteLimit || a&(a-1) != 0 || a == plan.Alignment) {
		return bad("alignment %d is not a power of two below 2^62 other than the plan's %d", a, plan.Alignment)
	}
	// Misplaced but in range: it still takes part in the overlap sweep.
	if a := plan.alignOf(t); a > 0 && t.Offset%a != 0 {
		bad("offset %d is not a multiple of the alignment %d", t.Offset, a)
	}
	if span > 0 && end > plan.ArenaSize {
		bad("bytes [%d, %d) end past the arena (%d)", t.Offset, end, plan.ArenaSize)
	}
	return true
}

// verifyOrder checks that placement_order names every tensor that owns
// bytes once, and nothing else.
func verifyOrder(plan *Plan, byName map[string]int, owners []int, v *violations) {
	owns := make([]bool, len(plan.Tensors))
	for _, i := range owners {
		owns[i] = true
	}
	seen := make([]bool, len(plan.Tensors))
	named := 0
	for _, name := range plan.PlacementOrder {
		i, ok := byName[name]
		switch {
		case ok && seen[i]:
			v.add("placement_order names %s twice", ir.Quote(name))
		case !ok || !owns[i]:
			v.add("placement_order names %s, which owns no bytes of the arena", ir.Quote(name))
		default:
			seen[i] = true
			named++
		}
	}
	if named < len(owners) {
		for _, i := range owners {
			if !seen[i] {
				v.add("placement_order leaves out %s", ir.Quote(plan.Tensors[i].Name))
				break
			}
		}
	}
}

func verifyView(plan *Plan, byName map[string]int, t *PlanTensor, v *violations) {
	ri, ok := byName[t.Root]
	if !ok {
		v.add("view %s: root %s is not a tensor of the plan", ir.Quote(t.Name), ir.Quote(t.Root))
		return
	}
	r := &plan.Tensors[ri]
	end, err := ir.AddSize(t.ViewOffset, t.Size)
	switch {
	case err != nil:
		v.add("view %s: view_offset %d + size %d: %v", ir.Quote(t.Name), t.ViewOffset, t.Size, err)
	case r.Root != "":
		v.add("view %s: root %s is itself a view", ir.Quote(t.Name), ir.Quote(r.Name))
	case r.Skipped:
		v.add("view %s: root %s is skipped but the view is not", ir.Quote(t.Name), ir.Quote(r.Name))
	case end > r.Size:
		v.add("view %s: bytes [%d, %d) of root %s fall outside its %d bytes", ir.Quote(t.Name), t.ViewOffset, end, ir.Quote(r.Name), r.Size)
	case t.Offset != r.Offset+t.ViewOffset:
		v.add("view %s: offset %d is not root %s's offset %d + view offset %d", ir.Quote(t.Name), t.Offset, ir.Quote(r.Name), r.Offset, t.ViewOffset)
	case t.Birth < r.Birth || t.Death > r.Death:
		v.add("view %s: live range [%d, %d] is outside root %s's [%d, %d]", ir.Quote(t.Name), t.Birth, t.Death, ir.Quote(r.Name), r.Birth, r.Death)
	}
}

// verifyDisjoint reports owners that are live at a common step and share
// bytes, guards included.
func verifyDisjoint(plan *Plan, owners []int, v *violations) {
	ts := plan.Tensors
	sweepOverlaps(owners,
		func(i int) (int, int) { return ts[i].Birth, ts[i].Death },
		func(i int) (int64, int64) { return ts[i].Offset, ts[i].Offset + ts[i].Size + ts[i].Guard },
		func(a, b int) { v.clash(&ts[a], &ts[b]) })
}

// sweepOverlaps calls clash for items live at a common step whose bytes
// [off, end) intersect. It sweeps time in birth order, keeping the live
// items sorted by offset: while they are pairwise disjoint, a newcomer
// overlaps one of them iff it overlaps a neighbour in that order, so a set
// with any overlap gets at least one call. Ends must not wrap: callers
// pass checked values. The callbacks are read once per item into slices:
// the sorts and searches then compare plain numbers, which in wasm is
// several times faster than calling back.
func sweepOverlaps(items []int, live func(int) (birth, death int), bytes func(int) (off, end int64), clash func(a, b int)) {
	n := len(items)
	births, deaths := make([]int, n), make([]int, n)
	offs, ends := make([]int64, n), make([]int64, n)
	for k, i := range items {
		births[k], deaths[k] = live(i)
		offs[k], ends[k] = bytes(i)
	}
	// In birth order, so that the sweep reads each slice from start to
	// end rather than at random (a random permutation of a million
	// buffers missed the cache at every step).
	perm := byStep(births)
	births, deaths, offs, ends = permuted(births, perm), permuted(deaths, perm), permuted(offs, perm), permuted(ends, perm)
	byDeath := byStep(deaths)
	set := &liveSet{offs: offs}
	d := 0
	for k := range n {
		for ; d < n && deaths[byDeath[d]] < births[k]; d++ {
			set.remove(byDeath[d])
		}
		prev, next := set.neighbours(offs[k])
		if prev >= 0 && ends[prev] > offs[k] {
			clash(items[perm[prev]], items[perm[k]])
		}
		if next >= 0 && ends[k] > offs[next] {
			clash(items[perm[next]], items[perm[k]])
		}
		set.insert(k)
	}
}

// permuted returns vals in the order perm gives: vals[perm[0]], ...
func permuted[T any](vals []T, perm []int) []T {
	out := make([]T, len(perm))
	for k, j := range perm {
		out[k] = vals[j]
	}
	return out
}

// liveSet keeps item indices sorted by their offset (offs[i]) in blocks
// of at most liveBlock entries, so an insert or delete moves one small
// block rather than the whole set: a million buffers with a hundred
// thousand live at once verify in well under a second.
type liveSet struct {
	offs   []int64
	blocks [][]int
}

const liveBlock = 512

// find returns the block that holds, or would hold, offset off.
func (s *liveSet) find(off int64) int {
	lo, hi := 0, len(s.blocks)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if blk := s.blocks[h]; s.offs[blk[len(blk)-1]] < off {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return min(lo, len(s.blocks)-1)
}

// at returns the first position in blk whose offset is at least off.
func (s *liveSet) at(blk []int, off int64) int {
	lo, hi := 0, len(blk)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if s.offs[blk[h]] < off {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

func (s *liveSet) insert(i int) {
	off := s.offs[i]
	if len(s.blocks) == 0 {
		s.blocks = [][]int{{i}}
		return
	}
	b := s.find(off)
	blk := s.blocks[b]
	blk = slices.Insert(blk, s.at(blk, off), i)
	if len(blk) > liveBlock { // split in two halves
		half := slices.Clone(blk[len(blk)/2:])
		blk = blk[:len(blk)/2]
		s.blocks = slices.Insert(s.blocks, b+1, half)
	}
	s.blocks[b] = blk
}

func (s *liveSet) remove(i int) {
	if len(s.blocks) == 0 {
		return
	}
	off := s.offs[i]
	// Equal offsets only arise in invalid plans; scan past them.
	for b := s.find(off); b < len(s.blocks); b++ {
		blk := s.blocks[b]
		for k := s.at(blk, off); k < len(blk) && s.offs[blk[k]] == off; k++ {
			if blk[k] == i {
				if blk = slices.Delete(blk, k, k+1); len(blk) == 0 {
					s.blocks = slices.Delete(s.blocks, b, b+1)
				} else {
					s.blocks[b] = blk
				}
				return
			}
		}
		if s.offs[blk[len(blk)-1]] > off {
			return
		}
	}
}

// neighbours returns the live tensors just below and at-or-above offset
// off, or -1.
func (s *liveSet) neighbours(off int64) (prev, next int) {
	prev, next = -1, -1
	if len(s.blocks) == 0 {
		return
	}
	b := s.find(off)
	blk := s.blocks[b]
	k := s.at(blk, off)
	if k < len(blk) {
		next = blk[k]
	} else if b+1 < len(s.blocks) {
		next = s.blocks[b+1][0]
	}
	if k > 0 {
		prev = blk[k-1]
	} else if b > 0 {
		pb := s.blocks[b-1]
		prev = pb[len(pb)-1]
	}
	return
}

// liveMax is the largest sum of size + guard over tensors live at one step.
func liveMax(plan *Plan, owners []int) int64 {
	// Read once, in order: the sums below visit them by step, which on the
	// tensors themselves missed the cache at nearly every one.
	births, deaths, bytes := make([]int, len(owners)), make([]int, len(owners)), make([]int64, len(owners))
	for k, i := range owners {
		t := &plan.Tensors[i]
		births[k], deaths[k], bytes[k] = t.Birth, t.Death, t.Size+t.Guard
	}
	// Frees come before allocations at equal times: a buffer born at s
	// uses bytes one that died at s-1 freed.
	var live, peak int64
	d := 0
	byDeath := byStep(deaths)
	for _, k := range byStep(births) {
		for ; d < len(byDeath) && deaths[byDeath[d]] < births[k]; d++ {
			live -= bytes[byDeath[d]]
		}
		live += bytes[k]
		peak = max(peak, live)
	}
	return peak
}

// byStep returns the positions of steps sorted by step, ties in position
// order. Schedules number steps densely, so it counts rather than
// compares when the steps span at most a few times their number.
func byStep(steps []int) []int {
	out := make([]int, len(steps))
	if len(steps) == 0 {
		return out
	}
	lo, hi := slices.Min(steps), slices.Max(steps)
	if span := uint(hi) - uint(lo); span > 4*uint(len(steps))+64 {
		for k := range out {
			out[k] = k
		}
		slices.SortFunc(out, func(a, b int) int { return cmp.Or(cmp.Compare(steps[a], steps[b]), a-b) })
		return out
	}
	start := make([]int, hi-lo+2)
	for _, s := range steps {
		start[s-lo+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	for k, s := range steps {
		out[start[s-lo]] = k
		start[s-lo]++
	}
	return out
}

type violations struct {
	errs  []error
	count int
}

const maxViolations = 10

func (v *violations) add(format string, args ...any) {
	v.count++
	if len(v.errs) < maxViolations {
		v.errs = append(v.errs, fmt.Errorf(format, args...))
	}
}

func (v *violations) clash(a, b *PlanTensor) {
	lo, hi := max(a.Birth, b.Birth), min(a.Death, b.Death)
	v.add("tensors %s [%d, %d) and %s [%d, %d) overlap in memory while both live (steps %d..%d)",
		ir.Quote(a.Name), a.Offset, a.Offset+a.Size+a.Guard, ir.Quote(b.Name), b.Offset, b.Offset+b.Size+b.Guard, lo, hi)
}

func (v *violations) err() error {
	if v.count == 0 {
		return nil
	}
	if v.count > len(v.errs) {
		v.errs = append(v.errs, fmt.Errorf("and %d more violations", v.count-len(v.errs)))
	}
	return fmt.Errorf("invalid plan: %w", errors.Join(v.errs...))
}

// VerifyAgainst checks that a plan record describes the given problem:
// every field it states of the source (name, options, alignment, steps,
// schedule, phases, reads, manifest, symbols, notes, and each tensor's
// name, op, node, phase, kind, shape, dtype, size, guard, live range,
// view, skip and alignment) is the source's, and fixed buffers keep
// their offsets; and that it is valid and its derived fields true, with
// Verify. The source's differences come first: a record edited in a field
// only the source knows (its name, reads, a shape) fails Verify on the
// fingerprint alone, and the field is what its reader needs to see.
func VerifyAgainst(p *Problem, plan *Plan) error {
	v := &violations{}
	verifySource(p, plan, v)
	verifyRecord(plan, v)
	return v.err()
}

// verifySource is VerifyAgainst's comparison with the source.
func verifySource(p *Problem, plan *Plan, v *violations) {
	if len(plan.Tensors) != len(p.Tensors) {
		v.add("plan has %d tensors, the source has %d", len(plan.Tensors), len(p.Tensors))
	} else {
		for i := range p.Tensors {
			verifyTensorAgainst(p, &p.Tensors[i], &plan.Tensors[i], i, v)
		}
	}
	if plan.Name != p.Name {
		v.add("name is %s, the source's is %s", ir.Quote(plan.Name), ir.Quote(p.Name))
	}
	opts := p.Options
	opts.GPU, opts.SharedWeights = nil, nil
	if got, want := plan.Options.key(), opts.key(); got != want {
		v.add("options are %s, but the source was lowered with %s", got, want)
	}
	if plan.Alignment != p.Alignment {
		v.add("alignment is %d, the source's is %d", plan.Alignment, p.Alignment)
	}
	if plan.Steps != p.Steps {
		v.add("steps is %d, the source has %d", plan.Steps, p.Steps)
	}
	if !slices.Equal(plan.Schedule, p.Schedule) {
		v.add("schedule differs from the source's ops: %s", firstDifference(plan.Schedule, p.Schedule))
	}
	if !slices.Equal(plan.Phases, p.Phases) {
		v.add("phases differ from the source's nodes' phases: %s", firstDifference(plan.Phases, p.Phases))
	}
	switch {
	case plan.Reads == nil && p.Reads != nil:
		// Present in every graph's record, [] for no steps.
		v.add("reads is missing, but the source is a graph: its record lists what each of its %d steps reads", p.Steps)
	case plan.Reads != nil && p.Reads == nil:
		v.add("reads is given, but the source is a buffer list, which has no ops")
	case !slices.EqualFunc(plan.Reads, p.Reads, slices.Equal):
		v.add("reads differ from what the source's ops read")
	}
	for _, l := range []struct {
		field     string
		got, want []string
	}{{"inputs", plan.IO.Inputs, p.IO.Inputs}, {"params", plan.IO.Params, p.IO.Params}, {"constants", plan.IO.Constants, p.IO.Constants}, {"outputs", plan.IO.Outputs, p.IO.Outputs}} {
		if !slices.Equal(l.got, l.want) {
			v.add("io.%s differs from the source's: %s", l.field, firstDifference(l.got, l.want))
		}
	}
	if !maps.Equal(plan.Symbols, p.Symbols) {
		v.add("symbols are %v, the source's are %v", plan.Symbols, p.Symbols)
	}
	if !slices.Equal(plan.Notes, p.Notes) {
		v.add("notes differ from the source's: %s", firstDifference(plan.Notes, p.Notes))
	}
	if g := p.GPU; g != nil && (plan.Binding != g.Binding || plan.Limits == nil || *plan.Limits != g.Limits) {
		v.add("the plan's binding %s and limits are not the ones it was planned for: %s binding, %+v", ir.Quote(plan.Binding), g.Binding, g.Limits)
	} else if g == nil && (plan.Binding != "" || plan.Limits != nil) {
		v.add("the plan has binding %s and limits, but the source was lowered for no GPU", ir.Quote(plan.Binding))
	}
}

// verifyTensorAgainst compares what the record says of tensor i with the
// source's tensor want, naming the first field that differs.
func verifyTensorAgainst(p *Problem, want *TensorInfo, got *PlanTensor, i int, v *violations) {
	if got.Name != want.Name {
		v.add("tensors[%d].name is %s, the source's tensor is %s", i, ir.Quote(got.Name), ir.Quote(want.Name))
		return
	}
	root, viewOffset := "", int64(0)
	if want.Root >= 0 && !want.Skipped { // a skipped view has no bytes to alias
		root, viewOffset = p.Tensors[want.Root].Name, want.ViewOffset
	}
	align := int64(0)
	if want.Buffer >= 0 && p.Buffers[want.Buffer].Align != p.Alignment {
		align = p.Buffers[want.Buffer].Align
	}
	// Compared one by one: a record has a million tensors, and boxing
	// every field to compare it would be most of the proof's garbage.
	var field string
	var g, w any
	switch {
	case got.Op != want.Op:
		field, g, w = "op", got.Op, want.Op
	case got.Node != want.Node:
		field, g, w = "node", got.Node, want.Node
	case got.Phase != want.Phase:
		field, g, w = "phase", got.Phase, want.Phase
	case got.Kind != want.Kind:
		field, g, w = "kind", got.Kind, want.Kind
	case !slices.Equal(got.Shape, want.Shape): // a scalar's shape is [], or nil in code
		field, g, w = "shape", got.Shape, want.Shape
	case got.DType != want.DType:
		field, g, w = "dtype", got.DType, want.DType
	case got.Size != want.Size:
		field, g, w = "size", got.Size, want.Size
	case got.Guard != want.Guard:
		field, g, w = "guard", got.Guard, want.Guard
	case got.Birth != want.Birth:
		field, g, w = "birth", got.Birth, want.Birth
	case got.Death != want.Death:
		field, g, w = "death", got.Death, want.Death
	case got.Root != root:
		field, g, w = "root", got.Root, root
	case got.ViewOffset != viewOffset:
		field, g, w = "view_offset", got.ViewOffset, viewOffset
	case got.Skipped != want.Skipped:
		field, g, w = "skipped", got.Skipped, want.Skipped
	case got.Alignment != align:
		field, g, w = "alignment", got.Alignment, align
	}
	if field != "" {
		v.add("tensor %s: %s is %s, the source's is %s", ir.Quote(got.Name), field, quoteValue(g), quoteValue(w))
		return
	}
	if want.Buffer >= 0 {
		if b := &p.Buffers[want.Buffer]; b.Fixed && got.Offset != b.Offset {
			v.add("tensor %s: offset %d, but it is fixed at %d", ir.Quote(got.Name), got.Offset, b.Offset)
		}
	}
}

// quoteValue writes a field's value for a message: strings quoted.
func quoteValue(x any) string {
	switch x := x.(type) {
	case string:
		return ir.Quote(x)
	case Kind:
		return ir.Quote(string(x))
	}
	return fmt.Sprint(x)
}

// firstDifference says where two lists of names first differ.
func firstDifference(got, want []string) string {
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			return fmt.Sprintf("[%d] is %s, the source's %s", k, ir.Quote(got[k]), ir.Quote(want[k]))
		}
	}
	switch {
	case len(got) > len(want):
		return fmt.Sprintf("[%d] is %s, which the source does not have", len(want), ir.Quote(got[len(want)]))
	case len(got) < len(want):
		return fmt.Sprintf("[%d] is missing: the source's is %s", len(got), ir.Quote(want[len(got)]))
	}
	return "they are the same" // not called for equal lists
}
