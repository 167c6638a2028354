package ir

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Validate checks that the graph is well formed: unique names, known
// symbols and dtypes, sizes that fit in int64 with the default symbol
// values, inputs defined by an earlier node, consistent views and
// narrows, and known outputs. It returns the first problem as an *Error
// whose Path and Node locate it. It runs in time linear in the graph.
func (g *Graph) Validate() error {
	v := validator{g: g}
	return v.run()
}

// Tensor returns the tensor with the given name and the node producing
// it, or nils. It scans the graph: build a map for lookups in a loop.
func (g *Graph) Tensor(name string) (*Tensor, *Node) {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		for k := range n.Outputs {
			if n.Outputs[k].Name == name {
				return &n.Outputs[k], n
			}
		}
	}
	return nil, nil
}

// tensorRef locates a tensor: node index (schedule step) and output index.
type tensorRef struct{ node, out int }

type validator struct {
	g       *Graph
	tensors map[string]tensorRef
	bytes   map[string]int64 // size with default symbols, per tensor
}

func nodeErr(n *Node, path, format string, args ...any) *Error {
	return &Error{Path: path, Node: n.Name, Msg: fmt.Sprintf(format, args...)}
}

// outPath is the path of output k of n. A single output named after its
// node is written on the node itself in graph JSON.
func outPath(n *Node, k int) string {
	if len(n.Outputs) == 1 && n.Outputs[0].Name == n.Name {
		return n.Path
	}
	return fmt.Sprintf("%s.outputs[%d]", n.Path, k)
}

func (v *validator) run() error {
	g := v.g
	syms := make([]string, 0, len(g.Symbols))
	for s := range g.Symbols {
		syms = append(syms, s)
	}
	sort.Strings(syms) // the first error must not depend on map order
	for _, s := range syms {
		if s == "" {
			return &Error{Path: "symbols", Msg: "empty symbol name"}
		}
		if val := g.Symbols[s]; val < 0 {
			return &Error{Path: join("symbols", s), Msg: fmt.Sprintf("symbol %s is %d, want >= 0", Quote(s), val)}
		}
	}

	// Pass 1: names, shapes and sizes; every tensor into the map.
	nodes := make(map[string]int, len(g.Nodes))
	v.tensors = make(map[string]tensorRef, len(g.Nodes))
	v.bytes = make(map[string]int64, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.Name == "" {
			return nodeErr(n, n.Path+".name", "node name is empty")
		}
		if j, dup := nodes[n.Name]; dup {
			return nodeErr(n, n.Path+".name", "duplicate node name %s (also %s)", Quote(n.Name), g.Nodes[j].Path)
		}
		nodes[n.Name] = i
		if n.Op == "" {
			return nodeErr(n, n.Path+".op", "op is empty")
		}
		if len(n.Outputs) == 0 {
			return nodeErr(n, n.Path, "node has no outputs")
		}
		for k := range n.Outputs {
			if err := v.tensor(i, k); err != nil {
				return err
			}
		}
	}

	// Pass 2: inputs in schedule order, then op-specific rules.
	for i := range g.Nodes {
		n := &g.Nodes[i]
		switch n.Op {
		case OpInput, OpParam, OpConstant:
			if len(n.Inputs) > 0 {
				return nodeErr(n, n.Path+".inputs", "op %s takes no inputs, got %d", n.Op, len(n.Inputs))
			}
		}
		for j, in := range n.Inputs {
			ref, ok := v.tensors[in]
			if !ok {
				return nodeErr(n, fmt.Sprintf("%s.inputs[%d]", n.Path, j), "unknown tensor %s", Quote(in))
			}
			if ref.node >= i {
				return v.orderError(i, j)
			}
		}
		if err := v.op(n); err != nil {
			return err
		}
	}

	seen := make(map[string]int, len(g.Outputs))
	for k, name := range g.Outputs {
		path := fmt.Sprintf("outputs[%d]", k)
		if _, ok := v.tensors[name]; !ok {
			return &Error{Path: path, Msg: fmt.Sprintf("graph output %s is not a tensor of the graph", Quote(name))}
		}
		if prev, dup := seen[name]; dup {
			return &Error{Path: path, Msg: fmt.Sprintf("graph output %s is listed twice (also outputs[%d])", Quote(name), prev)}
		}
		seen[name] = k
	}
	return nil
}

// tensor checks output k of node i and records it. Paths are built only
// for errors, since this runs for every tensor of large graphs.
func (v *validator) tensor(i, k int) error {
	n := &v.g.Nodes[i]
	t := &n.Outputs[k]
	if t.Name == "" {
		return nodeErr(n, outPath(n, k)+".name", "tensor name is empty")
	}
	if prev, dup := v.tensors[t.Name]; dup {
		return nodeErr(n, outPath(n, k), "duplicate tensor name %s (also produced by node %s, %s)",
			Quote(t.Name), Quote(v.g.Nodes[prev.node].Name), v.g.Nodes[prev.node].Path)
	}
	v.tensors[t.Name] = tensorRef{i, k}
	if !t.DType.Valid() {
		return nodeErr(n, outPath(n, k)+".dtype", "tensor %s has unknown dtype %s", Quote(t.Name), t.DType)
	}
	// Check every dim for unknown symbols first, then the size with the
	// same arithmetic as TensorBytes, so that what passes here never overflows
	// in the planner.
	dims := make([]int64, len(t.Shape))
	for j, d := range t.Shape {
		val := d.Value
		if d.Symbol != "" {
			var ok bool
			if val, ok = v.g.Symbols[d.Symbol]; !ok {
				return nodeErr(n, fmt.Sprintf("%s.shape[%d]", outPath(n, k), j), "unknown symbol %s: declare it in \"symbols\"", Quote(d.Symbol))
			}
		} else if val < 0 {
			return nodeErr(n, fmt.Sprintf("%s.shape[%d]", outPath(n, k), j), "negative dimension %d", val)
		}
		dims[j] = val
	}
	size, err := TensorBytes(dims, t.DType)
	if err != nil {
		return nodeErr(n, outPath(n, k)+".shape", "tensor %s of shape %s and dtype %s: %v",
			Quote(t.Name), shapeString(t.Shape), t.DType, ErrOverflow)
	}
	v.bytes[t.Name] = size
	if t.Pin.Until < 0 {
		return nodeErr(n, outPath(n, k)+".pin", "pin step %d is negative", t.Pin.Until)
	}
	return nil
}

// op checks the rules of views, narrows and casts on node n, whose inputs
// are known to be defined.
func (v *validator) op(n *Node) error {
	isNarrow := n.Op == OpNarrow || n.Alias == AliasNarrow
	if n.Alias != NoAlias || isNarrow || n.Op == OpCast {
		if len(n.Inputs) == 0 {
			return nodeErr(n, n.Path+".inputs", "op %s needs an input", n.Op)
		}
		if len(n.Outputs) != 1 {
			return nodeErr(n, n.Path+".outputs", "op %s has exactly one output, got %d", n.Op, len(n.Outputs))
		}
	}
	if n.Alias > AliasNarrow {
		return nodeErr(n, n.Path, "unknown alias kind %d", n.Alias)
	}
	if n.Op == OpCast && n.To != n.Outputs[0].DType {
		return nodeErr(n, n.Path+".to", "cast to %s, but the output's dtype is %s", n.To, n.Outputs[0].DType)
	}
	if isNarrow {
		if err := v.narrow(n); err != nil {
			return err
		}
	}
	for k := range n.Outputs {
		if err := v.shares(n, k); err != nil {
			return err
		}
	}
	if n.Alias == AliasWhole {
		in, out := n.Inputs[0], n.Outputs[0].Name
		if v.bytes[out] > v.bytes[in] {
			return nodeErr(n, n.Path+".shape", "view %s (%d bytes) is larger than its input %s (%d bytes)",
				Quote(out), v.bytes[out], Quote(in), v.bytes[in])
		}
	}
	return nil
}

// shares checks an output that is a view of one of its node's inputs: the
// input is the node's, of the same dtype, and holds the output's bytes.
func (v *validator) shares(n *Node, k int) error {
	out := &n.Outputs[k]
	if out.Shares == "" {
		return nil
	}
	path := outPath(n, k) + ".shares"
	if n.Alias != NoAlias {
		return nodeErr(n, path, "output %s shares an input's bytes, but the node is already a view", Quote(out.Name))
	}
	if !slices.Contains(n.Inputs, out.Shares) {
		return nodeErr(n, path, "output %s shares %s, which is not an input of its node", Quote(out.Name), Quote(out.Shares))
	}
	ref := v.tensors[out.Shares]
	in := &v.g.Nodes[ref.node].Outputs[ref.out]
	if in.DType != out.DType {
		return nodeErr(n, path, "output %s (%s) shares input %s of another dtype (%s)", Quote(out.Name), out.DType, Quote(in.Name), in.DType)
	}
	if v.bytes[out.Name] > v.bytes[in.Name] {
		return nodeErr(n, path, "output %s (%d bytes) shares input %s, which has only %d bytes",
			Quote(out.Name), v.bytes[out.Name], Quote(in.Name), v.bytes[in.Name])
	}
	for j := range k {
		if n.Outputs[j].Shares == out.Shares {
			return nodeErr(n, path, "outputs %s and %s both share input %s", Quote(n.Outputs[j].Name), Quote(out.Name), Quote(out.Shares))
		}
	}
	return nil
}

func (v *validator) narrow(n *Node) error {
	ref := v.tensors[n.Inputs[0]]
	parent := &v.g.Nodes[ref.node].Outputs[ref.out]
	out := &n.Outputs[0]
	rank := int64(len(parent.Shape))
	if n.Axis < 0 || n.Axis >= rank {
		return nodeErr(n, n.Path+".axis", "axis %d is out of range for input %s of rank %d", n.Axis, Quote(parent.Name), rank)
	}
	if n.Alias == AliasNarrow && n.Axis != 0 {
		return nodeErr(n, n.Path+".axis", "a narrow view must be on axis 0, not %d", n.Axis)
	}
	if out.DType != parent.DType {
		return nodeErr(n, outPath(n, 0)+".dtype", "narrow keeps its input's dtype: %s is %s, but the output is %s (cast first)", Quote(parent.Name), parent.DType, out.DType)
	}
	if n.Start < 0 {
		return nodeErr(n, n.Path+".start", "start %d is negative", n.Start)
	}
	if n.Len < 0 {
		return nodeErr(n, n.Path+".len", "len %d is negative", n.Len)
	}
	dims, _ := v.g.Bind(parent.Shape, nil) // checked in pass 1
	if end, err := AddSize(n.Start, n.Len); err != nil || end > dims[n.Axis] {
		return nodeErr(n, n.Path+".len", "start %d + len %d exceeds %d, the size of axis %d of input %s",
			n.Start, n.Len, dims[n.Axis], n.Axis, Quote(parent.Name))
	}
	want := append([]Dim(nil), parent.Shape...)
	want[n.Axis] = Int(n.Len)
	if !sameShape(out.Shape, want) {
		return nodeErr(n, outPath(n, 0)+".shape", "narrow output shape is %s, want %s (input %s with axis %d of size len)",
			shapeString(out.Shape), shapeString(want), Quote(parent.Name), n.Axis)
	}
	if n.Alias == AliasNarrow {
		// A view starts on a byte: with packed 4-bit rows it may not.
		if _, err := NarrowOffset(dims, parent.DType, n.Start); err != nil {
			return nodeErr(n, n.Path+".start", "a narrow view of %s: %v", Quote(parent.Name), err)
		}
	}
	return nil
}

// orderError reports input j of node i, defined at or after step i. If
// the nodes form a cycle, that is what the user needs to hear, since no
// reordering will help; otherwise the order is simply wrong.
func (v *validator) orderError(i, j int) error {
	g := v.g
	n := &g.Nodes[i]
	in := n.Inputs[j]
	def := &g.Nodes[v.tensors[in].node]
	path := fmt.Sprintf("%s.inputs[%d]", n.Path, j)
	if cycle := v.findCycle(); cycle != nil {
		names := make([]string, len(cycle))
		for k, c := range cycle {
			names[k] = g.Nodes[c].Name
		}
		c := &g.Nodes[cycle[0]]
		return nodeErr(c, c.Path, "nodes form a cycle: %s", strings.Join(names, " -> "))
	}
	return nodeErr(n, path, "tensor %s is used before node %s (%s) defines it: order the nodes (or the schedule) so that producers come first",
		Quote(in), Quote(def.Name), def.Path)
}

// findCycle returns the node indexes of one cycle, first node repeated
// at the end, or nil. Kahn's algorithm strips every node not on or after
// a cycle; walking producers among what is left must then loop.
func (v *validator) findCycle() []int {
	g := v.g
	indeg := make([]int, len(g.Nodes))
	consumers := make([][]int, len(g.Nodes))
	for i := range g.Nodes {
		for _, in := range g.Nodes[i].Inputs {
			ref, ok := v.tensors[in]
			if !ok {
				continue // a later error; not an edge
			}
			p := ref.node
			consumers[p] = append(consumers[p], i)
			indeg[i]++
		}
	}
	queue := make([]int, 0, len(g.Nodes))
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	for q := 0; q < len(queue); q++ {
		for _, c := range consumers[queue[q]] {
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if len(queue) == len(g.Nodes) {
		return nil
	}
	start := -1
	for i, d := range indeg {
		if d > 0 {
			start = i
			break
		}
	}
	// Every left node has a producer that is left too: follow them
	// until one repeats.
	pos := make(map[int]int)
	var walk []int
	for cur := start; ; {
		if p, ok := pos[cur]; ok {
			cyc := walk[p:]
			// Walked consumer to producer: print producers first,
			// starting from the node earliest in the schedule.
			first := 0
			for k, c := range cyc {
				if c < cyc[first] {
					first = k
				}
			}
			out := make([]int, 0, len(cyc)+1)
			for k := range len(cyc) + 1 {
				out = append(out, cyc[((first-k)%len(cyc)+len(cyc))%len(cyc)])
			}
			return out
		}
		pos[cur] = len(walk)
		walk = append(walk, cur)
		next := -1
		for _, in := range g.Nodes[cur].Inputs {
			if ref, ok := v.tensors[in]; ok && indeg[ref.node] > 0 {
				p := ref.node
				next = p
				break
			}
		}
		if next < 0 {
			return nil // cannot happen after Kahn's algorithm
		}
		cur = next
	}
}

func sameShape(a, b []Dim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func shapeString(s []Dim) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
