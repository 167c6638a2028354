package planner

import (
	"slices"

	"memplan/ir"
)

// verifyDerived checks every field of a record that follows from its
// other fields: the totals and bounds from the placement, each tensor's
// kind, size, birth and phase from its op, shape, dtype and the schedule,
// the manifest from the kinds, reuses from the offsets, the GPU buffers
// from the arena and limits. It runs only on a record whose tensors are
// in range, inside the arena and disjoint, so its sums cannot wrap.
// (What a record says of its source, such as names, shapes and ops, is
// VerifyAgainst's to compare.)
func verifyDerived(plan *Plan, byName map[string]int, owners []int, reuses func() []string, v *violations) {
	var arena int64
	for _, i := range owners {
		t := &plan.Tensors[i]
		arena = max(arena, t.Offset+t.Size+t.Guard)
	}
	if plan.ArenaSize != arena {
		v.add("arena_size is %d, but the tensors' bytes end at %d", plan.ArenaSize, arena)
	}
	lb := liveMax(plan, owners)
	if lb != plan.LowerBound {
		v.add("lower_bound is %d, but the live ranges imply %d", plan.LowerBound, lb)
	}
	if alb := plan.alignedLowerBound(); alb != plan.AlignedLowerBound {
		v.add("aligned_lower_bound is %d, but the live ranges and alignment imply %d", plan.AlignedLowerBound, alb)
	} else if plan.Optimal && plan.ArenaSize != alb {
		// The one proof of optimality a record can carry is that the
		// arena reaches a lower bound; an exact search's word is the
		// label optimal_by_search.
		v.add("optimal is true, but arena_size %d is above the aligned lower bound %d, and no other proof can be checked", plan.ArenaSize, alb)
	} else if !plan.Optimal && plan.ArenaSize == alb {
		v.add("optimal is false, but arena_size %d equals the aligned lower bound", plan.ArenaSize)
	}
	if plan.OptimalBySearch && plan.Optimal {
		v.add("optimal_by_search is true, but optimal already is: the label is only for arenas above the bound")
	}
	if total, err := plan.totalUnshared(); err != nil {
		v.add("total_unshared: the owners' bytes end to end %v", err)
	} else if total != plan.TotalUnshared {
		v.add("total_unshared is %d, but the owners' bytes end to end, each aligned, take %d", plan.TotalUnshared, total)
	} else if plan.Saved != total-plan.ArenaSize {
		v.add("saved is %d, but total_unshared %d - arena_size %d is %d", plan.Saved, total, plan.ArenaSize, total-plan.ArenaSize)
	}
	if f := fragmentation(plan.ArenaSize, lb); plan.Fragmentation != f {
		v.add("fragmentation is %v, but arena_size / lower_bound is %v", plan.Fragmentation, f)
	}
	if src := plan.source(); src != sourceCode {
		verifyOptions(plan, v)
	}
	switch plan.source() {
	case sourceGraph:
		verifyGraphRecord(plan, byName, v)
	case sourceBuffers:
		verifyBufferList(plan, v)
	default:
		// A problem built in code (Generate's): its ops and kinds are
		// its own, so only what holds for every record is checked.
		for i := range plan.Tensors {
			t := &plan.Tensors[i]
			switch {
			case t.Root != "" && t.Kind != KindView:
				v.add("tensor %s: kind is %s, but it has a root: a view", ir.Quote(t.Name), ir.Quote(string(t.Kind)))
			case t.Root == "" && !t.Skipped && t.Kind == KindView:
				v.add("tensor %s: kind is view, but it has no root", ir.Quote(t.Name))
			}
		}
	}
	verifyReuses(plan, reuses(), v)
}

// verifyOptions checks the options a graph's or a buffer list's record
// states against what they decide: its alignment (which tensor binding
// raises to the device's), and under no_reuse the strategy.
func verifyOptions(plan *Plan, v *violations) {
	o := plan.Options
	want := o.Alignment
	if plan.Binding == BindTensor && plan.Limits != nil {
		want = max(want, plan.Limits.MinStorageBufferOffsetAlignment)
	}
	if plan.Alignment != want {
		v.add("alignment is %d, but options.alignment %d makes it %d", plan.Alignment, o.Alignment, want)
	}
	if o.NoReuse && plan.Strategy != "no-reuse" {
		v.add("strategy is %s, but options.no_reuse places with no-reuse", ir.Quote(plan.Strategy))
	}
}

// What a record was planned from, as its fields show.
const (
	sourceGraph   = "graph"
	sourceBuffers = "buffer list"
	sourceCode    = "code"
)

// source says what the record was planned from: a graph (it has a
// schedule, reads or dtypes), a buffer list (every tensor is a "buffer"
// row), or else a problem built in code.
func (p *Plan) source() string {
	if len(p.Schedule) > 0 || p.Reads != nil {
		return sourceGraph
	}
	rows := true
	for i := range p.Tensors {
		if p.Tensors[i].DType != "" {
			return sourceGraph
		}
		rows = rows && p.Tensors[i].Op == "buffer"
	}
	if rows {
		return sourceBuffers
	}
	return sourceCode
}

// verifyBufferList checks what a buffer list's record derives: each row
// is an activation with no shape, dtype, root or skip, the steps run to
// the last row's end, and there is no manifest.
func verifyBufferList(plan *Plan, v *violations) {
	steps := 0
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		steps = max(steps, t.Death+1)
		switch {
		case t.Kind != KindActivation:
			v.add("tensor %s: kind is %s, but a buffer list's rows are activations", ir.Quote(t.Name), ir.Quote(string(t.Kind)))
		case len(t.Shape) > 0 || t.Node != "" || t.Phase != "":
			v.add("tensor %s: a buffer list's row has no shape, node or phase", ir.Quote(t.Name))
		case t.Root != "" || t.Skipped:
			v.add("tensor %s: a buffer list's row has no root and is not skipped", ir.Quote(t.Name))
		}
	}
	if plan.Steps != steps {
		v.add("steps is %d, but a buffer list's steps end with its last row, at %d", plan.Steps, steps)
	}
	if o := plan.Options; o.F32Uniform || o.SkipParams || o.SkipInputs || o.SkipConstants || o.Guard != 0 || len(o.Symbols) > 0 || len(plan.Symbols) > 0 {
		v.add("options and symbols: a buffer list has no dtypes, kinds to skip, guards or symbols")
	}
	if len(plan.Phases) > 0 || plan.IO.Inputs != nil || plan.IO.Params != nil || plan.IO.Constants != nil || plan.IO.Outputs != nil {
		v.add("io and phases: a buffer list has none")
	}
}

// verifyGraphRecord checks what a graph's record derives from its
// schedule, ops, shapes and dtypes.
func verifyGraphRecord(plan *Plan, byName map[string]int, v *violations) {
	if plan.Steps != len(plan.Schedule) {
		v.add("steps is %d, but the schedule has %d ops", plan.Steps, len(plan.Schedule))
		return
	}
	if plan.Options.Guard < 0 {
		v.add("options.guard is %d, but a record states the guard it used", plan.Options.Guard)
	}
	for k, n := range plan.Options.Symbols {
		if used, ok := plan.Symbols[k]; ok && used != n {
			v.add("symbols: %s is %d, but options.symbols binds it to %d", ir.Quote(k), used, n)
		}
	}
	if plan.Reads == nil && plan.Steps > 0 {
		v.add("reads is missing: a graph's record lists what each of its %d steps reads", plan.Steps)
	}
	isOutput := make([]bool, len(plan.Tensors))
	last := -1
	for k, name := range plan.IO.Outputs {
		i, ok := byName[name]
		switch {
		case !ok:
			v.add("io.outputs[%d] is %s, not a tensor of the plan", k, ir.Quote(name))
			continue
		case i <= last:
			v.add("io.outputs[%d] is %s, out of the tensors' order or twice", k, ir.Quote(name))
		case plan.Tensors[i].Death != plan.Steps:
			v.add("tensor %s: an output, but its live range ends at %d, not at steps %d", ir.Quote(name), plan.Tensors[i].Death, plan.Steps)
		}
		isOutput[i], last = true, max(last, i)
	}
	var io IO
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		loadedOp := isLoaded(t.Op)
		want := KindActivation
		switch {
		case t.Root != "", t.Skipped && !loadedOp:
			// Options skip only loaded tensors; what else is skipped is
			// a view of one (whose record names no root).
			want = KindView
		case loadedOp:
			want = Kind(t.Op)
		case isOutput[i]:
			want = KindOutput
		}
		if t.Kind != want {
			v.add("tensor %s: kind is %s, but its op %s and the outputs make it %s", ir.Quote(t.Name), ir.Quote(string(t.Kind)), ir.Quote(t.Op), ir.Quote(string(want)))
		}
		switch t.Op {
		case ir.OpInput:
			io.Inputs = append(io.Inputs, t.Name)
		case ir.OpParam:
			io.Params = append(io.Params, t.Name)
		case ir.OpConstant:
			io.Constants = append(io.Constants, t.Name)
		}
		verifyGraphTensor(plan, t, loadedOp, v)
	}
	for _, l := range []struct {
		field     string
		got, want []string
	}{{"inputs", plan.IO.Inputs, io.Inputs}, {"params", plan.IO.Params, io.Params}, {"constants", plan.IO.Constants, io.Constants}} {
		if !slices.Equal(l.got, l.want) {
			v.add("io.%s lists %d tensors, but the tensors of that op are %d: %s", l.field, len(l.got), len(l.want), quoteList(l.want))
		}
	}
}

// verifyGraphTensor checks one graph tensor's size against its shape and
// dtype, and its birth, phase and guard against its op.
func verifyGraphTensor(plan *Plan, t *PlanTensor, loadedOp bool, v *violations) {
	dt, ok := ir.ParseDType(t.DType)
	if !ok {
		v.add("tensor %s: dtype %s is not one memplan knows", ir.Quote(t.Name), ir.Quote(t.DType))
		return
	}
	if size, err := plan.Options.TensorBytes(t.Shape, dt); err != nil {
		v.add("tensor %s: shape %v: %v", ir.Quote(t.Name), t.Shape, err)
	} else if size != t.Size {
		v.add("tensor %s: size is %d, but shape %v of %s is %d bytes", ir.Quote(t.Name), t.Size, t.Shape, t.DType, size)
	}
	switch {
	case loadedOp && t.Root == "":
		if t.Birth != 0 || t.Death != plan.Steps {
			v.add("tensor %s: an %s lives over the whole run [0, %d], not [%d, %d]", ir.Quote(t.Name), t.Op, plan.Steps, t.Birth, t.Death)
		}
		if t.Size == 0 && t.Guard != 0 {
			v.add("tensor %s: guard is %d, but it has no bytes to guard", ir.Quote(t.Name), t.Guard)
		}
	case t.Birth >= plan.Steps:
		v.add("tensor %s: born at step %d, past the schedule's %d ops", ir.Quote(t.Name), t.Birth, plan.Steps)
	default:
		node := t.Name
		if t.Node != "" {
			node = t.Node
		}
		if plan.Schedule[t.Birth] != node {
			v.add("tensor %s: born at step %d, but schedule[%d] is %s, not its node %s", ir.Quote(t.Name), t.Birth, t.Birth, ir.Quote(plan.Schedule[t.Birth]), ir.Quote(node))
		}
		phase := ""
		if len(plan.Phases) > 0 {
			phase = plan.Phases[t.Birth]
		}
		if t.Phase != phase {
			v.add("tensor %s: phase is %s, but its node's step is in phase %s", ir.Quote(t.Name), ir.Quote(t.Phase), ir.Quote(phase))
		}
		if t.Guard != 0 {
			v.add("tensor %s: guard is %d, but only inputs, params and constants have guards", ir.Quote(t.Name), t.Guard)
		}
	}
}

// verifyReuses compares each tensor's reuses with want, the record's
// reusedFrom.
func verifyReuses(plan *Plan, want []string, v *violations) {
	for i := range plan.Tensors {
		if t := &plan.Tensors[i]; t.Reuses != want[i] {
			v.add("tensor %s: reuses is %s, but the last tensor to hold its bytes before it was born is %s", ir.Quote(t.Name), ir.Quote(t.Reuses), ir.Quote(want[i]))
		}
	}
}

// reusedFrom is ReusedFrom for a record: for each tensor that owns
// bytes, the name of the tensor that last held any of them before it was
// born; "" for the others.
func (plan *Plan) reusedFrom() []string {
	n := 0
	for i := range plan.Tensors {
		if plan.Tensors[i].Placed() {
			n++
		}
	}
	s := reuseSpans{make([]int64, 0, n), make([]int, 0, n), make([]int, 0, n)}
	offsets := make([]int64, 0, n)
	tensor := make([]int, 0, n) // the tensor of each buffer
	for i := range plan.Tensors {
		if t := &plan.Tensors[i]; t.Placed() {
			s.size, s.birth, s.death = append(s.size, t.Size), append(s.birth, t.Birth), append(s.death, t.Death)
			offsets = append(offsets, t.Offset)
			tensor = append(tensor, i)
		}
	}
	names := make([]string, len(plan.Tensors))
	for b, r := range s.reusedFrom(offsets) {
		if r >= 0 {
			names[tensor[b]] = plan.Tensors[tensor[r]].Name
		}
	}
	return names
}

// totalUnshared is TotalUnshared for a plan record: its owners' spans,
// each at its alignment, end to end in tensor order (the problem's
// buffer order), in checked arithmetic: a record may reuse bytes many
// times over.
func (p *Plan) totalUnshared() (int64, error) {
	var end int64
	for i := range p.Tensors {
		if t := &p.Tensors[i]; t.Placed() && t.Size+t.Guard > 0 {
			var err error
			if end, err = ir.AlignUp(end, p.alignOf(t)); err == nil {
				end, err = ir.AddSize(end, t.Size+t.Guard)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	return end, nil
}

// quoteList quotes names for a message, the first few.
func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := ""
	for k, n := range names {
		if k == 5 {
			return s + ", …"
		}
		if k > 0 {
			s += ", "
		}
		s += ir.Quote(n)
	}
	return s
}
