package planner

import (
	"fmt"
	"slices"
	"strings"

	"memplan/ir"
)

// Analyze lowers a graph to a Problem: sizes, views, guards and liveness.
//
// Liveness follows REFERENCE R1, as inclusive steps [birth, death]: a
// tensor is born at its node's step and dies at its last reader's step; a
// read through a view is a read of every tensor up the view chain to the
// root; graph outputs (and their roots) live to step len(Nodes), one past
// the last node; inputs, params and constants live over the whole run;
// pins extend a tensor (and optionally its producers) to a given step. It
// does not keep every ancestor of an output alive, which would remove
// almost all reuse.
func Analyze(g *ir.Graph, opts Options) (*Problem, error) {
	a, err := newAnalysis(g, opts)
	if err != nil {
		return nil, err
	}
	a.liveness()
	return a.problem()
}

// newAnalysis checks the options and binds the graph's tensors and views,
// everything liveness needs.
func newAnalysis(g *ir.Graph, opts Options) (*analysis, error) {
	if opts.Alignment == 0 {
		opts.Alignment = defaultAlignment(false) // DefaultAlignmentOf a graph
	}
	if !isPow2(opts.Alignment) || opts.Alignment >= ir.ByteLimit {
		return nil, fmt.Errorf("alignment %d is not a power of two below 2^62", opts.Alignment)
	}
	if opts.Guard < 0 {
		opts.Guard = DefaultGuard(opts.Alignment)
	}
	if err := ir.CheckSize(opts.Guard); err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	if err := checkSymbols(g, opts.Symbols); err != nil {
		return nil, err
	}
	a := &analysis{g: g, opts: opts, used: map[string]int64{}, stepOf: make([]int, len(g.Nodes))}
	for i := range g.Nodes {
		if isLoaded(g.Nodes[i].Op) {
			continue // step 0: alive from before the first op
		}
		a.stepOf[i] = a.last
		a.last++
	}
	// Every symbol of the graph is recorded with the value it had, even one
	// no shape names any more (ONNX binds symbols while inferring shapes).
	for name, v := range g.Symbols {
		if o, ok := opts.Symbols[name]; ok {
			v = o
		}
		a.used[name] = v
	}
	if err := a.tensors(); err != nil {
		return nil, err
	}
	if err := a.views(); err != nil {
		return nil, err
	}
	return a, nil
}

type analysis struct {
	g    *ir.Graph
	opts Options
	// last is the number of ops, one past the last op's step; stepOf is
	// each node's step. Only ops take steps: inputs, params and constants
	// are loaded before the run, so they take none.
	last   int
	stepOf []int
	byName map[string]int
	infos  []TensorInfo
	step   []int      // producing step of each tensor
	node   []int      // producing node index of each tensor
	pin    []ir.Pin   // the pin each tensor was declared with
	dtype  []ir.DType // each tensor's own dtype, for view offsets
	parent []int      // view parent tensor, -1 if not a view
	inputs [][]int    // tensors read by each node
	output []bool     // graph output
	used   map[string]int64
}

func (a *analysis) errorf(n *ir.Node, format string, args ...any) error {
	return &ir.Error{File: a.g.File, Path: n.Path, Node: n.Name, Msg: fmt.Sprintf(format, args...)}
}

// checkSymbols rejects a value given for a symbol the graph does not
// have: a typo would otherwise be ignored and the plan made with the
// file's own value.
func checkSymbols(g *ir.Graph, values map[string]int64) error {
	var unknown []string
	for name := range values {
		if _, ok := g.Symbols[name]; !ok {
			unknown = append(unknown, ir.Quote(name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	known := make([]string, 0, len(g.Symbols))
	for name := range g.Symbols {
		known = append(known, name)
	}
	slices.Sort(known)
	have := "it has no symbols"
	if len(known) > 0 {
		have = "its symbols are " + strings.Join(known, ", ")
	}
	return &ir.Error{File: g.File, Msg: fmt.Sprintf("%s given a value but not a symbol of this graph (%s)", strings.Join(unknown, ", "), have)}
}

// tensors binds shapes, computes sizes and indexes every tensor by name.
func (a *analysis) tensors() error {
	// Sized up front: growing these by appending was most of the time
	// on graphs of 100,000s of nodes.
	count := 0
	for s := range a.g.Nodes {
		count += len(a.g.Nodes[s].Outputs)
	}
	a.byName = make(map[string]int, count)
	a.infos = make([]TensorInfo, 0, count)
	a.step, a.node, a.pin = make([]int, 0, count), make([]int, 0, count), make([]ir.Pin, 0, count)
	a.dtype = make([]ir.DType, 0, count)
	for s := range a.g.Nodes {
		n := &a.g.Nodes[s]
		for _, t := range n.Outputs {
			if _, dup := a.byName[t.Name]; dup {
				return a.errorf(n, "tensor %s is produced twice", ir.Quote(t.Name))
			}
			shape, err := a.g.Bind(t.Shape, a.opts.Symbols)
			if err != nil {
				return a.errorf(n, "tensor %s: %v", ir.Quote(t.Name), err)
			}
			for _, d := range t.Shape {
				if d.Symbol != "" {
					v, _ := a.g.Bind([]ir.Dim{d}, a.opts.Symbols)
					a.used[d.Symbol] = v[0]
				}
			}
			size, err := a.opts.TensorBytes(shape, t.DType)
			if err != nil {
				return a.errorf(n, "tensor %s of shape %v %s: %v", ir.Quote(t.Name), shape, t.DType, err)
			}
			info := TensorInfo{Name: t.Name, Op: n.Op, Shape: shape, DType: t.DType.String(),
				Size: size, Birth: a.stepOf[s], Death: a.stepOf[s], Buffer: -1, Root: -1}
			if t.Name != n.Name {
				info.Node = n.Name
			}
			info.Phase, info.Path = n.Phase, n.Path
			a.byName[t.Name] = len(a.infos)
			a.infos = append(a.infos, info)
			a.step = append(a.step, s)
			a.node = append(a.node, s)
			a.pin = append(a.pin, t.Pin)
			a.dtype = append(a.dtype, t.DType)
		}
	}
	a.parent = make([]int, len(a.infos))
	a.output = make([]bool, len(a.infos))
	a.inputs = make([][]int, len(a.g.Nodes))
	for s := range a.g.Nodes {
		n := &a.g.Nodes[s]
		for _, in := range n.Inputs {
			if in == "" {
				continue // an omitted optional input
			}
			t, ok := a.byName[in]
			if !ok {
				return a.errorf(n, "input %s is not a tensor of the graph", ir.Quote(in))
			}
			if a.step[t] >= s {
				return a.errorf(n, "input %s is used before the step that produces it", ir.Quote(in))
			}
			a.inputs[s] = append(a.inputs[s], t)
		}
	}
	for _, name := range a.g.Outputs {
		t, ok := a.byName[name]
		if !ok {
			return &ir.Error{Path: "outputs", Msg: fmt.Sprintf("output %s is not a tensor of the graph", ir.Quote(name))}
		}
		a.output[t] = true
	}
	return nil
}

// views links each aliasing tensor to its root with a byte offset.
func (a *analysis) views() error {
	for i := range a.parent {
		a.parent[i] = -1
	}
	for s := range a.g.Nodes {
		n := &a.g.Nodes[s]
		for _, t := range n.Outputs {
			if t.Shares == "" {
				continue
			}
			if err := a.link(n, a.byName[t.Name], a.byName[t.Shares], 0); err != nil {
				return err
			}
		}
		if n.Alias == ir.NoAlias {
			continue
		}
		if len(n.Outputs) != 1 || len(a.inputs[s]) == 0 {
			return a.errorf(n, "a view needs one output and an input to alias")
		}
		self, par := a.byName[n.Outputs[0].Name], a.inputs[s][0]
		pi := &a.infos[par]
		var off int64
		if n.Alias == ir.AliasNarrow {
			if n.Axis != 0 || len(pi.Shape) == 0 {
				return a.errorf(n, "a narrow view must be on axis 0 of a tensor with at least one dimension")
			}
			if n.Start < 0 || n.Len < 0 || n.Start > pi.Shape[0]-n.Len {
				return a.errorf(n, "narrow [%d, %d) is outside axis 0 of %s (length %d)", n.Start, n.Start+n.Len, ir.Quote(pi.Name), pi.Shape[0])
			}
			var err error
			if off, err = ir.NarrowOffset(pi.Shape, a.opts.StoredDType(a.dtype[par]), n.Start); err != nil {
				return a.errorf(n, "view offset: %v", err)
			}
		}
		if err := a.link(n, self, par, off); err != nil {
			return err
		}
	}
	return nil
}

// link makes tensor self a view of par at byte offset off, rooted where
// par is.
func (a *analysis) link(n *ir.Node, self, par int, off int64) error {
	pi, vi := &a.infos[par], &a.infos[self]
	if off > pi.Size-vi.Size {
		return a.errorf(n, "view of %d bytes at offset %d does not fit in %s (%d bytes)", vi.Size, off, ir.Quote(pi.Name), pi.Size)
	}
	a.parent[self] = par
	root := par
	if pi.Root >= 0 {
		root, off = pi.Root, off+pi.ViewOffset
	}
	vi.Root, vi.ViewOffset = root, off
	return nil
}

// liveness sets every tensor's death (and the boundary tensors' birth)
// as REFERENCE R1 says, in time linear in the graph: each read, pin and
// edge is looked at once, however long the view chains and however many
// pins reach back through the same producers. (Walking the view chain per
// read, or the producers per pin, made 200,000-node chains take minutes.)
func (a *analysis) liveness() {
	live := func(t, s int) { a.infos[t].Death = max(a.infos[t].Death, s) }
	// Each tensor's own death: its reads, the run's boundary, plain pins.
	// Views pass theirs up to their parents at the end.
	for s, ins := range a.inputs {
		for _, t := range ins {
			live(t, a.stepOf[s])
		}
	}
	// until[t] is the latest step a pin with producers asks t to live to
	// (-1 for none): t is the pinned tensor or was computed into it.
	until := make([]int, len(a.infos))
	for t := range a.infos {
		until[t] = -1
		switch a.infos[t].Op {
		case ir.OpInput, ir.OpParam, ir.OpConstant:
			a.infos[t].Birth = 0
			live(t, a.last)
		}
		if a.output[t] {
			live(t, a.last)
		}
	}
	for s := range a.g.Nodes {
		n := &a.g.Nodes[s]
		// The inputs of custom ops that must survive to the end, with
		// everything they were computed from.
		if n.Op == ir.OpCustom && strings.HasPrefix(n.Custom, "onnx.") {
			for _, t := range a.inputs[s] {
				until[t] = a.last // min(PinEnd, a.last)
			}
		}
	}
	for t := range a.infos {
		switch p := a.pin[t]; {
		case !p.Pinned():
		case p.Producers:
			until[t] = max(until[t], min(p.Until, a.last))
		default:
			live(t, min(p.Until, a.last))
		}
	}
	// Producers come before their consumers, so walking the nodes
	// backwards finds each tensor's pin final before it is passed on to
	// the node's inputs: the latest over the node's outputs.
	for t := len(a.infos) - 1; t >= 0; {
		s, u := a.node[t], -1
		for ; t >= 0 && a.node[t] == s; t-- {
			u = max(u, until[t])
			live(t, until[t])
		}
		if u >= 0 {
			for _, in := range a.inputs[s] {
				until[in] = max(until[in], u)
			}
		}
	}
	// A view's parent comes before it, so one backward pass hands each
	// view's final death up its whole chain.
	for t := len(a.infos) - 1; t >= 0; t-- {
		if p := a.parent[t]; p >= 0 {
			live(p, a.infos[t].Death)
		}
	}
}

// uniqueReads drops repeats from a node's inputs (x*x reads x once),
// keeping their order.
func uniqueReads(ins []int) []int {
	for i := 1; i < len(ins); i++ {
		if slices.Contains(ins[:i], ins[i]) {
			out := slices.Clone(ins[:i])
			for _, t := range ins[i:] {
				if !slices.Contains(out, t) {
					out = append(out, t)
				}
			}
			return out
		}
	}
	if ins == nil {
		return []int{}
	}
	return ins
}

// isLoaded reports whether a node's op is loaded before the run rather
// than executed in it.
func isLoaded(op string) bool {
	return op == ir.OpInput || op == ir.OpParam || op == ir.OpConstant
}

func (a *analysis) problem() (*Problem, error) {
	o := a.opts
	p := &Problem{
		Name: a.g.Name, File: a.g.File, Tensors: a.infos, Steps: a.last, Alignment: o.Alignment, Options: o,
		Symbols: a.used, Notes: slices.Clone(a.g.Notes),
		Schedule: make([]string, 0, a.last), Buffers: make([]Buffer, 0, len(a.infos)),
	}
	phased := false
	for i := range a.g.Nodes {
		if n := &a.g.Nodes[i]; !isLoaded(n.Op) {
			p.Schedule = append(p.Schedule, n.Name)
			p.Phases = append(p.Phases, n.Phase)
			if n.Phase != "" {
				phased = true
			}
		}
	}
	if !phased {
		p.Phases = nil
	}
	p.Reads = make([][]int, a.last)
	for s, ins := range a.inputs {
		if !isLoaded(a.g.Nodes[s].Op) {
			p.Reads[a.stepOf[s]] = uniqueReads(ins)
		}
	}
	for t := range p.Tensors {
		ti := &p.Tensors[t]
		switch ti.Op {
		case ir.OpInput:
			ti.Kind, ti.Skipped = KindInput, o.SkipInputs
			p.IO.Inputs = append(p.IO.Inputs, ti.Name)
		case ir.OpParam:
			ti.Kind, ti.Skipped = KindParam, o.SkipParams
			p.IO.Params = append(p.IO.Params, ti.Name)
		case ir.OpConstant:
			ti.Kind, ti.Skipped = KindConstant, o.SkipConstants
			p.IO.Constants = append(p.IO.Constants, ti.Name)
		default:
			ti.Kind = KindActivation
			if a.output[t] {
				ti.Kind = KindOutput
			}
		}
		if a.output[t] {
			p.IO.Outputs = append(p.IO.Outputs, ti.Name)
		}
		if ti.Root >= 0 {
			ti.Kind = KindView
			ti.Skipped = p.Tensors[ti.Root].Skipped // roots come first
		}
	}
	used := map[string]bool{}
	for t := range p.Tensors {
		ti := &p.Tensors[t]
		if ti.Skipped || ti.Root >= 0 {
			continue
		}
		b := Buffer{Name: ti.Name, Size: ti.Size, Birth: ti.Birth, Death: ti.Death, Align: o.Alignment, Tensor: t}
		if ti.Size > 0 && (ti.Kind == KindInput || ti.Kind == KindParam || ti.Kind == KindConstant) {
			b.Guard = o.Guard
		}
		if ti.Kind == KindParam && o.SharedWeights != nil {
			if slot, ok := o.SharedWeights.Slots[ti.Name]; ok {
				n := &a.g.Nodes[a.node[t]]
				if slot.Size != ti.Size {
					return nil, a.errorf(n, "param %s is %d bytes here but %d bytes in the forward plan%s", ir.Quote(ti.Name), ti.Size, slot.Size, o.SharedWeights.of())
				}
				if slot.Offset%b.Align != 0 {
					return nil, a.errorf(n, "param %s: offset %d in the forward plan%s is not aligned to %d", ir.Quote(ti.Name), slot.Offset, o.SharedWeights.of(), b.Align)
				}
				b.Fixed, b.Offset, b.Guard = true, slot.Offset, slot.Guard
				used[ti.Name] = true
			}
		}
		ti.Guard = b.Guard
		ti.Buffer = len(p.Buffers)
		p.Buffers = append(p.Buffers, b)
	}
	if o.SharedWeights != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("%d params share the forward plan's weight slots", len(used)))
	}
	return p, nil
}

// WeightLayoutOf takes the slot of every placed param of a forward plan,
// for planning the backward graph of a training pair against it.
func WeightLayoutOf(forward *Plan) *WeightLayout {
	w := &WeightLayout{Slots: map[string]WeightSlot{}}
	for i := range forward.Tensors {
		if t := &forward.Tensors[i]; t.Kind == KindParam && t.Placed() {
			w.Slots[t.Name] = WeightSlot{Offset: t.Offset, Size: t.Size, Guard: t.Guard}
		}
	}
	return w
}
