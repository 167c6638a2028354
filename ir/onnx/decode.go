package onnx

import (
	"container/heap"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"memplan/ir"
)

func init() {
	ir.RegisterFormat("onnx", match, func(name string, data []byte, opts ir.DecodeOptions) (*ir.Source, error) {
		g, err := Decode(name, data, opts)
		if err != nil {
			return nil, err
		}
		return &ir.Source{Graph: g}, nil
	})
}

// match accepts a .onnx file name, or bytes that start like a ModelProto:
// ir_version (field 1, varint, a small number) followed by another field.
func match(name string, data []byte) bool {
	if strings.EqualFold(path.Ext(name), ".onnx") {
		return true
	}
	if len(data) < 3 || data[0] != 0x08 || data[1] == 0 || data[1] > 32 {
		return false
	}
	switch data[2] {
	case 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42: // fields 2..8
		return true
	}
	return false
}

// Decode reads an ONNX model and returns its main graph as a validated
// ir.Graph. Symbolic input dimensions (dim_param) are bound from
// opts.Symbols; every tensor must end with a concrete shape, or Decode
// fails naming the tensors it could not size and the symbols to bind.
func Decode(fileName string, data []byte, opts ir.DecodeOptions) (*ir.Graph, error) {
	var meter *foldMeter
	if opts.MaxMemory > 0 {
		need, err := checkDecodeMemory(fileName, data, opts.MaxMemory)
		if err != nil {
			return nil, err
		}
		meter = &foldMeter{left: (opts.MaxMemory - need) / bytesPerFoldedValue, base: need, limit: opts.MaxMemory}
	}
	m, err := parseModel(data)
	if err != nil {
		var we *wireErr
		if errors.As(err, &we) {
			return nil, &ir.Error{File: fileName, Offset: we.off, HasOffset: true,
				Msg: "corrupt or truncated ONNX file: " + we.msg}
		}
		return nil, &ir.Error{File: fileName, Msg: err.Error()}
	}
	if m.graph == nil {
		// Where a graph was still expected: a file cut at a field boundary
		// looks like this.
		return nil, &ir.Error{File: fileName, Offset: int64(len(data)), HasOffset: true,
			Msg: "not an ONNX model, or truncated: the data ends without a graph"}
	}
	switch opts.IfBranch {
	case "", "then", "else":
	default:
		return nil, &ir.Error{File: fileName, Msg: fmt.Sprintf("the If branch to pick is %s; want then, else or none", quote(opts.IfBranch))}
	}
	d := &decoder{file: fileName, m: m, g: m.graph, opts: opts, meter: meter}
	d.opset = m.opsets[""]
	if d.opset == 0 {
		d.opset = 1 // ONNX says a missing default opset import means version 1
	}
	if err := d.analyze(); err != nil {
		return nil, err
	}
	return d.build()
}

type decoder struct {
	file  string
	m     *model
	g     *graph
	opts  ir.DecodeOptions
	opset int64

	infos   map[string]*tinfo // every main-graph tensor
	inputs  []int             // graph.input indices that are not initializers
	order   []int             // node indices in schedule order
	prod    map[string]int    // tensor name -> index of the node producing it
	extra   [][]string        // implicit (outer-scope) inputs of subgraph nodes
	notes   []string
	symUsed map[string]int64 // bound symbols that appear in the file
	unbound map[string]bool  // symbols seen but not bound
	viMism  int              // value_info dims that disagreed with inference
	viDiff  []string

	scope string // "graph", or the path of a subgraph being inferred
	why   string // the failed rule of the node being inferred
	// invalid: the rule found the node invalid whatever its inputs hold
	// (d.bad), which value_info cannot cover.
	invalid bool
	need    string // what the user could supply to get past it (ir.Error.Need)
	cur     int    // index of the node being inferred

	depth int        // subgraph nesting, for inferSubgraph
	noVI  bool       // tests: ignore value_info to measure inference alone
	outer *decoder   // the scope a subgraph's decoder reads through
	meter *foldMeter // what the memory limit leaves for folded constants; nil: no limit
}

// info is what is known of a tensor of this scope or an enclosing one.
func (d *decoder) info(name string) *tinfo {
	for s := d; s != nil; s = s.outer {
		if t, ok := s.infos[name]; ok {
			return t
		}
	}
	return nil
}

func (d *decoder) errf(format string, args ...any) *ir.Error {
	return &ir.Error{File: d.file, Msg: fmt.Sprintf(format, args...)}
}

// analyze checks names, sorts the nodes and infers every tensor.
func (d *decoder) analyze() error {
	g := d.g
	d.infos = make(map[string]*tinfo, len(g.inits)+len(g.inputs)+2*len(g.nodes))
	d.symUsed = map[string]int64{}
	d.unbound = map[string]bool{}
	if err := d.checkNames(); err != nil {
		return err
	}

	// Sources: initializers, then graph inputs that are not initializers
	// (old IR versions list every initializer among the inputs too).
	initIdx := map[string]int{}
	for i, t := range g.inits {
		if t.name == "" {
			return &ir.Error{File: d.file, Path: fmt.Sprintf("graph.initializer[%d]", i), Msg: "initializer has no name"}
		}
		if _, dup := initIdx[t.name]; dup {
			return &ir.Error{File: d.file, Path: fmt.Sprintf("graph.initializer[%d]", i), Msg: fmt.Sprintf("initializer %s appears twice", quote(t.name))}
		}
		initIdx[t.name] = i
		ti, err := d.initInfo(&g.inits[i])
		if err == nil {
			err = d.sizeErr(t.name, ti)
		}
		if err != nil {
			err.Path = fmt.Sprintf("graph.initializer[%d]", i)
			return err
		}
		if err := d.dataErr(&g.inits[i], "initializer "+quote(t.name), fmt.Sprintf("graph.initializer[%d]", i)); err != nil {
			return err
		}
		d.infos[t.name] = ti
	}
	for i, in := range g.inputs {
		if _, ok := initIdx[in.name]; ok {
			continue
		}
		if in.name == "" {
			return &ir.Error{File: d.file, Path: fmt.Sprintf("graph.input[%d]", i), Msg: "graph input has no name"}
		}
		if _, dup := d.infos[in.name]; dup {
			return &ir.Error{File: d.file, Path: fmt.Sprintf("graph.input[%d]", i), Msg: fmt.Sprintf("graph input %s appears twice", quote(in.name))}
		}
		ti := d.inputInfo(&in, fmt.Sprintf("graph.input[%d]", i))
		if err := d.sizeErr(in.name, ti); err != nil {
			err.Path = fmt.Sprintf("graph.input[%d]", i)
			return err
		}
		d.infos[in.name] = ti
		d.inputs = append(d.inputs, i)
	}
	if err := d.checkProducers(); err != nil {
		return err
	}
	if err := d.checkAttrs(); err != nil {
		return err
	}
	if err := d.sortNodes(); err != nil {
		return err
	}
	return d.inferAll()
}

// build emits the ir.Graph: sources first, then nodes in schedule order.
func (d *decoder) build() (*ir.Graph, error) {
	g := d.g
	if err := d.unknownShapes(); err != nil {
		return nil, err
	}
	out := &ir.Graph{Name: g.name, Symbols: map[string]int64{}}
	out.Nodes = make([]ir.Node, 0, len(d.inputs)+len(g.inits)+len(g.nodes))
	for _, i := range d.inputs {
		in := g.inputs[i]
		t, err := d.tensor(in.name)
		if err != nil {
			err.Path = fmt.Sprintf("graph.input[%d]", i)
			return nil, err
		}
		out.Nodes = append(out.Nodes, ir.Node{Name: in.name, Op: ir.OpInput, Outputs: []ir.Tensor{t}, Path: fmt.Sprintf("graph.input[%d]", i)})
	}
	for i, in := range g.inits {
		t, err := d.tensor(in.name)
		if err != nil {
			err.Path = fmt.Sprintf("graph.initializer[%d]", i)
			return nil, err
		}
		out.Nodes = append(out.Nodes, ir.Node{Name: in.name, Op: ir.OpParam, Outputs: []ir.Tensor{t}, Path: fmt.Sprintf("graph.initializer[%d]", i)})
	}

	names := map[string]bool{}
	for _, n := range out.Nodes {
		names[n.Name] = true
	}
	for _, k := range d.order {
		n := &g.nodes[k]
		for _, o := range n.outputs {
			if o != "" {
				names[o] = true
			}
		}
	}
	nodeNames := map[string]bool{}
	subgraphs := 0
	for _, k := range d.order {
		n := &g.nodes[k]
		path := fmt.Sprintf("graph.node[%d]", k)
		var outs []ir.Tensor
		for _, o := range n.outputs {
			if o == "" {
				continue
			}
			t, err := d.tensor(o)
			if err != nil {
				err.Path, err.Node = path, n.name
				return nil, err
			}
			outs = append(outs, t)
		}
		if len(outs) == 0 {
			d.notes = append(d.notes, fmt.Sprintf("%s (%s) has no outputs and was dropped", path, clip(n.op)))
			continue
		}
		nn := ir.Node{Op: n.op, Outputs: outs, Path: path}
		if n.domain != "" {
			nn.Op = n.domain + "." + n.op
		}
		// A single-output node takes its tensor's name; a multi-output one
		// keeps its ONNX name when that is unambiguous.
		nn.Name = outs[0].Name
		if len(outs) > 1 && n.name != "" && !names[n.name] && !nodeNames[n.name] {
			nn.Name = n.name
		}
		nodeNames[nn.Name] = true
		for _, in := range n.inputs {
			if in != "" {
				nn.Inputs = append(nn.Inputs, in)
			}
		}
		nn.Inputs = append(nn.Inputs, d.extra[k]...)
		if d.isConstant(n) {
			nn.Op, nn.Inputs = ir.OpConstant, nil
		}
		d.setView(n, &nn)
		d.setShares(n, &nn)
		switch n.op {
		case "If", "Loop", "Scan":
			if n.domain == "" {
				subgraphs++
			}
		}
		out.Nodes = append(out.Nodes, nn)
	}
	for _, o := range g.outputs {
		if o.name != "" {
			out.Outputs = append(out.Outputs, o.name)
		}
	}
	for k, v := range d.symUsed {
		out.Symbols[k] = v
	}
	if subgraphs > 0 {
		d.notes = append(d.notes, fmt.Sprintf("%d If/Loop/Scan nodes: their outputs are produced at their step; tensors inside their subgraphs were not planned", subgraphs))
	}
	var inFiles []string
	for i := range g.inits {
		if g.inits[i].dataFile {
			inFiles = append(inFiles, g.inits[i].name)
		}
	}
	if len(inFiles) > 0 {
		// Sizes come from dims, which is right; but say that no byte of
		// the data was there to read.
		d.notes = append(d.notes, fmt.Sprintf("%d initializers keep their data in files beside the model, which memplan does not read: their sizes come from their dims (%s)", len(inFiles), listNames(inFiles, 5)))
	}
	if d.viMism > 0 {
		d.notes = append(d.notes, fmt.Sprintf("value_info disagrees with shape inference on %d tensors (value_info kept): %s", d.viMism, strings.Join(d.viDiff, ", ")))
	}
	out.Notes = d.notes
	if err := d.validate(out); err != nil {
		return nil, err
	}
	if err := d.checkTotal(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkProducers rejects tensors produced twice, naming all of them, and
// inputs that nothing produces.
// checkAttrs refuses attributes no model may have, whether or not the
// file also gives the shapes they decide: a convolution in no groups.
func (d *decoder) checkAttrs() error {
	for k := range d.g.nodes {
		n := &d.g.nodes[k]
		// ONNX forbids two attributes of one name: which one a runtime
		// reads is anyone's guess.
		seen := make(map[string]int, len(n.attrs))
		for j := range n.attrs {
			if i, dup := seen[n.attrs[j].name]; dup {
				e := d.errf("%s has two attributes named %s (attribute[%d] and attribute[%d])", clip(n.op), quote(n.attrs[j].name), i, j)
				e.Path, e.Node = fmt.Sprintf("graph.node[%d].attribute[%d]", k, j), n.name
				return e
			}
			seen[n.attrs[j].name] = j
		}
		if n.op == "Constant" && n.domain == "" {
			// Its value is planned like an initializer: its data must
			// match its dims just as much.
			out := ""
			if len(n.outputs) > 0 {
				out = n.outputs[0]
			}
			for j := range n.attrs {
				if a := &n.attrs[j]; a.name == "value" && a.t != nil {
					if e := d.dataErr(a.t, "the value of Constant "+quote(out), fmt.Sprintf("graph.node[%d].attribute[%d].t", k, j)); e != nil {
						e.Node = n.name
						return e
					}
				}
			}
		}
		switch n.op {
		case "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv":
			if n.domain != "" {
				continue
			}
			if g := n.attrInt("group", 1); g < 1 {
				e := d.errf("%s: group is %d: want a positive number of groups", n.op, g)
				e.Path, e.Node = fmt.Sprintf("graph.node[%d]", k), n.name
				return e
			}
		}
	}
	return nil
}

func (d *decoder) checkProducers() error {
	g := d.g
	seen := map[string]bool{}
	var dups []string
	dupSeen := map[string]bool{}
	first := -1 // the node that first redefines a tensor, for the error's path
	for k, n := range g.nodes {
		for _, o := range n.outputs {
			if o == "" {
				continue
			}
			if d.info(o) != nil || seen[o] {
				if !dupSeen[o] {
					dupSeen[o] = true
					dups = append(dups, o)
				}
				if first < 0 {
					first = k
				}
			}
			seen[o] = true
		}
	}
	if len(dups) > 0 {
		e := d.errf("%d tensors are produced more than once (an ONNX graph must be in SSA form): %s", len(dups), listNames(dups, 0))
		e.Path, e.Node = fmt.Sprintf("graph.node[%d]", first), g.nodes[first].name
		return e
	}
	firstMissing := -1
	var missing []string
	missSeen := map[string]bool{}
	d.extra = make([][]string, len(g.nodes))
	for k, n := range g.nodes {
		for _, in := range n.inputs {
			if in == "" || seen[in] || d.info(in) != nil || missSeen[in] {
				continue
			}
			missSeen[in] = true
			missing = append(missing, in)
			if firstMissing < 0 {
				firstMissing = k
			}
		}
		// Tensors a subgraph reads from this scope are inputs of its node.
		free := map[string]bool{}
		for _, a := range n.attrs {
			for _, sg := range a.subgraphs() {
				freeNames(sg, free, 0)
			}
		}
		var ex []string
		for name := range free {
			if seen[name] || d.info(name) != nil {
				ex = append(ex, name)
			}
		}
		sort.Strings(ex)
		d.extra[k] = ex
	}
	if len(missing) > 0 {
		e := d.errf("node inputs are not produced by any node, graph input or initializer: %s", listNames(missing, 20))
		e.Path, e.Node = fmt.Sprintf("graph.node[%d]", firstMissing), g.nodes[firstMissing].name
		return e
	}
	return nil
}

func (a *attr) subgraphs() []*graph {
	var gs []*graph
	if a.g != nil {
		gs = append(gs, a.g)
	}
	return append(gs, a.graphs...)
}

// freeNames adds the names sg's nodes read without defining them.
func freeNames(sg *graph, free map[string]bool, depth int) {
	if depth > maxDepth {
		return
	}
	def := map[string]bool{}
	for _, t := range sg.inits {
		def[t.name] = true
	}
	for _, in := range sg.inputs {
		def[in.name] = true
	}
	for _, n := range sg.nodes {
		for _, o := range n.outputs {
			def[o] = true
		}
	}
	use := func(name string) {
		if name != "" && !def[name] {
			free[name] = true
		}
	}
	for _, n := range sg.nodes {
		for _, in := range n.inputs {
			use(in)
		}
		inner := map[string]bool{}
		for _, a := range n.attrs {
			for _, s := range a.subgraphs() {
				freeNames(s, inner, depth+1)
			}
		}
		for name := range inner {
			use(name)
		}
	}
	for _, o := range sg.outputs {
		use(o.name)
	}
}

func listNames(names []string, max int) string {
	q := make([]string, 0, len(names))
	for i, n := range names {
		if max > 0 && i == max {
			q = append(q, fmt.Sprintf("and %d more", len(names)-max))
			break
		}
		q = append(q, quote(n))
	}
	return strings.Join(q, ", ")
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortNodes orders nodes topologically (Kahn), taking the lowest original
// index among ready nodes so a sorted file keeps its order.
func (d *decoder) sortNodes() error {
	g := d.g
	prod := map[string]int{}
	d.prod = prod
	for k, n := range g.nodes {
		for _, o := range n.outputs {
			if o != "" {
				prod[o] = k
			}
		}
	}
	waiting := make([]int, len(g.nodes))
	users := make([][]int, len(g.nodes))
	for k, n := range g.nodes {
		deps := map[int]bool{}
		for _, in := range append(append([]string(nil), n.inputs...), d.extra[k]...) {
			if p, ok := prod[in]; ok && in != "" && !deps[p] {
				deps[p] = true
				users[p] = append(users[p], k)
				waiting[k]++
			}
		}
	}
	h := &intHeap{}
	for k := range g.nodes {
		if waiting[k] == 0 {
			*h = append(*h, k)
		}
	}
	heap.Init(h)
	d.order = make([]int, 0, len(g.nodes))
	for h.Len() > 0 {
		k := heap.Pop(h).(int)
		d.order = append(d.order, k)
		for _, u := range users[k] {
			if waiting[u]--; waiting[u] == 0 {
				heap.Push(h, u)
			}
		}
	}
	if len(d.order) < len(g.nodes) {
		var stuck []string
		for k := range g.nodes {
			if waiting[k] > 0 {
				stuck = append(stuck, fmt.Sprintf("graph.node[%d] (%s %s)", k, clip(g.nodes[k].op), quote(g.nodes[k].name)))
			}
		}
		return d.errf("the graph has a cycle through %d nodes: %s", len(stuck), strings.Join(firstN(stuck, 20), ", "))
	}
	early := 0 // inputs read before the node producing them, in file order
	for k, n := range g.nodes {
		for _, in := range slices.Concat(n.inputs, d.extra[k]) {
			if p, ok := prod[in]; ok && in != "" && p > k {
				early++
			}
		}
	}
	if early > 0 {
		d.notes = append(d.notes, fmt.Sprintf("nodes were not in topological order (%d inputs are read before the node producing them); they were sorted topologically, keeping file order among ready nodes", early))
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// isConstant: Constant nodes, and ConstantOfShape fed only by initializers
// or constants (the light model-zoo graphs make every weight this way).
func (d *decoder) isConstant(n *node) bool {
	if n.domain != "" {
		return false
	}
	switch n.op {
	case "Constant":
		return true
	case "ConstantOfShape":
		if len(n.inputs) == 0 {
			return false
		}
		in := n.inputs[0]
		if t := d.infos[in]; t != nil && t.isInit {
			return true
		}
		if k, ok := d.prod[in]; ok {
			return d.g.nodes[k].op == "Constant" && d.g.nodes[k].domain == ""
		}
	}
	return false
}

// setView marks ONNX ops whose output is their first input's bytes.
func (d *decoder) setView(n *node, nn *ir.Node) {
	if n.domain != "" || len(n.inputs) == 0 || n.inputs[0] == "" || len(nn.Outputs) != 1 || nn.Op == ir.OpConstant {
		return
	}
	src := d.infos[n.inputs[0]]
	dst := d.infos[nn.Outputs[0].Name]
	if src == nil || dst == nil || src.dt != dst.dt {
		return
	}
	switch n.op {
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity":
		if numel(src.shape) == numel(dst.shape) {
			nn.Alias = ir.AliasWhole
		}
	case "Slice":
		if start, length, ok := d.axis0Slice(n, src); ok {
			// Rows of packed 4-bit elements may start inside a byte:
			// such a slice is a copy.
			if _, err := ir.NarrowOffset(src.shape, irDTypes[src.dt], start); err == nil {
				nn.Alias, nn.Axis, nn.Start, nn.Len = ir.AliasNarrow, 0, start, length
			}
		}
	}
}

// axis0Slice reports whether a Slice takes a contiguous row range of axis 0
// (constant starts and ends, step 1, no other axis cut).
func (d *decoder) axis0Slice(n *node, src *tinfo) (start, length int64, ok bool) {
	if !src.ok || len(src.shape) == 0 {
		return 0, 0, false
	}
	sp, ok := d.sliceParams(n, len(src.shape))
	if !ok {
		return 0, 0, false
	}
	start, length = -1, -1
	for i, ax := range sp.axes {
		dim := src.shape[ax]
		b, e := clampSlice(sp.starts[i], sp.ends[i], sp.steps[i], dim)
		if ax != 0 {
			if sp.steps[i] != 1 || b != 0 || e != dim {
				return 0, 0, false // another axis is cut: not contiguous
			}
			continue
		}
		if sp.steps[i] != 1 {
			return 0, 0, false
		}
		start, length = b, max(e-b, 0)
	}
	if start < 0 {
		return 0, 0, false
	}
	return start, length, true
}

// tensor converts an inferred tensor to ir form.
func (d *decoder) tensor(name string) (ir.Tensor, *ir.Error) {
	ti := d.infos[name]
	if ti == nil || !ti.ok {
		return ir.Tensor{}, d.errf("tensor %s has no known shape", quote(name))
	}
	dt, err := d.dtype(name, ti.dt)
	if err != nil {
		return ir.Tensor{}, err
	}
	shape := make([]ir.Dim, len(ti.shape))
	for i, v := range ti.shape {
		shape[i] = ir.Int(v)
	}
	return ir.Tensor{Name: name, Shape: shape, DType: dt}, nil
}

func (d *decoder) dtype(name string, et int64) (ir.DType, *ir.Error) {
	if dt, ok := irDTypes[et]; ok {
		return dt, nil
	}
	if et == 0 {
		return 0, d.errf("tensor %s has no known element type", quote(name))
	}
	return 0, d.errf("tensor %s has element type %s, which memplan cannot plan", quote(name), elemName(et))
}

// validate runs ir's checks, adding the file name to their errors.
func (d *decoder) validate(g *ir.Graph) error {
	err := g.Validate()
	var e *ir.Error
	if errors.As(err, &e) && e.File == "" {
		e.File = d.file
	}
	return err
}
