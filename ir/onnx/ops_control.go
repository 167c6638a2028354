package onnx

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"memplan/ir"
)

// Control flow and recurrence: subgraphs (If, Loop) and the recurrent
// layers, whose outputs follow their attributes and sequence length.

var controlRules = []ruleSet{
	{ops: []string{"If"}, rule: (*decoder).ifOutputs},
	{ops: []string{"Loop"}, rule: (*decoder).loop},
	{ops: []string{"Scan"}, rule: (*decoder).scan},
	{ops: []string{"LSTM", "GRU", "RNN"}, rule: (*decoder).rnn},
}

func (d *decoder) rnn(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, ok := d.shape(n, 0)
	if x == nil {
		return res
	}
	for i := range res {
		res[i].dt = x.dt
	}
	h := n.attrInt("hidden_size", -1)
	if !ok {
		return res
	}
	if len(xs) != 3 || h < 0 {
		return d.fail(res, "%s needs rank-3 input and a hidden_size, got rank %d and hidden_size %d", n.op, len(xs), h)
	}
	nd := int64(1)
	if a := n.attr("direction"); a != nil && string(a.s) == "bidirectional" {
		nd = 2
	}
	seq, batch := xs[0], xs[1]
	layout := n.attrInt("layout", 0)
	if layout != 0 {
		seq, batch = batch, seq
	}
	for i := range res {
		var s []int64
		switch {
		case i == 0 && layout == 0:
			s = []int64{seq, nd, batch, h}
		case i == 0:
			s = []int64{batch, seq, nd, h}
		case layout == 0:
			s = []int64{nd, batch, h}
		default:
			s = []int64{batch, nd, h}
		}
		res[i] = known(x.dt, s)
	}
	return res
}

// ifOutputs sizes an If's outputs from its branches. A condition that is
// a known constant picks its branch; otherwise both branches must give
// each output the same dtype and shape, unless DecodeOptions.IfBranch
// picks one: taking the then branch silently would be a guess. Value_info
// for the outputs, merged later, takes precedence.
func (d *decoder) ifOutputs(n *node, res []tinfo) []tinfo {
	pick, picked := d.opts.IfBranch, "picked with --if-branch"
	if c, ok := d.ints(n, 0); ok && len(c) == 1 {
		pick, picked = "else", "the condition is constant false"
		if c[0] != 0 {
			pick, picked = "then", "the condition is constant true"
		}
	}
	graphs := map[string]*graph{}
	for j := range n.attrs {
		a := &n.attrs[j]
		for _, b := range []string{"then", "else"} {
			if a.name == b+"_branch" && a.g != nil {
				graphs[b] = a.g
			}
		}
	}
	outs := map[string][]tinfo{}
	for _, b := range []string{"then", "else"} {
		if pick != "" && b != pick {
			continue
		}
		g := graphs[b]
		if g == nil {
			return d.fail(res, "it has no %s_branch graph", b)
		}
		if len(g.outputs) != len(res) {
			return d.fail(res, "the %s branch has %d outputs, the If node %d", b, len(g.outputs), len(res))
		}
		outs[b] = d.branchOutputs(n, b, g)
	}
	if pick != "" {
		for i, t := range outs[pick] {
			res[i] = t
			if !t.ok || t.dt == 0 {
				d.fail(res, "output %s comes from the %s branch (%s), which gives %s", quote(n.outputs[i]), pick, picked, describe(t))
			}
		}
		return res
	}
	for i := range res {
		t, e := outs["then"][i], outs["else"][i]
		if t.ok && e.ok && t.dt != 0 && t.dt == e.dt && slices.Equal(t.shape, e.shape) {
			res[i] = known(t.dt, t.shape) // not a value: which branch runs is unknown
			continue
		}
		if t.dt == e.dt {
			res[i].dt = t.dt
		}
		if d.why == "" {
			d.need = ir.NeedIfBranch
		}
		d.fail(res, "output %s: the then branch gives %s, the else branch %s; pick one of them",
			quote(n.outputs[i]), describe(t), describe(e))
	}
	return res
}

// branchOutputs infers branch b of If node n: its outputs as inference
// finds them, else as the branch declares them.
func (d *decoder) branchOutputs(n *node, b string, g *graph) []tinfo {
	scope := d.nodePath(d.cur) + ".attribute[" + b + "_branch]"
	res := d.inferSubgraph(g, scope)
	for i := range res {
		if res[i].ok && res[i].dt != 0 {
			continue
		}
		vi := &g.outputs[i]
		if res[i].dt == 0 {
			res[i].dt = vi.elem
		}
		if !vi.hasShape {
			continue
		}
		dims, kn := d.viDims(vi)
		if !slices.Contains(kn, false) {
			cause := res[i].cause
			res[i] = known(res[i].dt, dims)
			if !res[i].ok {
				res[i].cause = cause
			}
		}
	}
	return res
}

// describe is a branch output for a message: "[2 3] float", or why it is
// unknown. The reason is cut: nested Ifs would otherwise nest every
// branch's reason into one huge message.
func describe(t tinfo) string {
	const maxWhy = 400
	switch {
	case t.ok && t.dt != 0:
		return fmt.Sprintf("%v %s", t.shape, elemName(t.dt))
	case t.cause != nil:
		why := t.cause.msg()
		if t.cause.path != "" {
			why = t.cause.path + ": " + why
		}
		if len(why) > maxWhy {
			cut := maxWhy
			for cut > 0 && !utf8.RuneStart(why[cut]) {
				cut--
			}
			why = why[:cut] + "…"
		}
		return fmt.Sprintf("an unknown shape (%s)", why)
	case t.ok:
		return fmt.Sprintf("%v of unknown element type", t.shape)
	}
	return "an unknown shape"
}

// inferSubgraph infers a branch graph that reads this scope's tensors and
// returns what it finds for the branch's outputs.
func (d *decoder) inferSubgraph(g *graph, scope string) []tinfo {
	return d.inferSubgraphWith(g, scope, nil)
}

// inferSubgraphWith is inferSubgraph with the subgraph's inputs given
// (one per input, as the caller feeds them) instead of as declared.
func (d *decoder) inferSubgraphWith(g *graph, scope string, ins []tinfo) []tinfo {
	res := make([]tinfo, len(g.outputs))
	unknown := func(rule string) []tinfo {
		f := &failure{path: scope, op: "subgraph", rule: rule}
		if len(g.outputs) > 0 {
			f.tensor = g.outputs[0].name
		}
		for i := range res {
			res[i].cause = f
		}
		return res
	}
	if d.depth >= maxDepth {
		return unknown("subgraphs are nested too deeply to infer")
	}
	// The subgraph reads this scope's tensors through outer: copying them
	// for each subgraph would cost every If node the whole graph so far.
	sub := &decoder{file: d.file, m: d.m, g: g, opts: d.opts, opset: d.opset,
		symUsed: d.symUsed, unbound: d.unbound, depth: d.depth + 1, scope: scope,
		outer: d, meter: d.meter}
	sub.infos = make(map[string]*tinfo, len(g.inits)+len(g.inputs)+len(g.nodes))
	for i := range g.inits {
		if ti, err := sub.initInfo(&g.inits[i]); err == nil {
			sub.infos[g.inits[i].name] = ti
		}
	}
	for i := range g.inputs {
		if ins != nil {
			t := ins[i]
			sub.infos[g.inputs[i].name] = &t
			continue
		}
		sub.infos[g.inputs[i].name] = sub.inputInfo(&g.inputs[i], fmt.Sprintf("%s.input[%d]", scope, i))
	}
	sub.extra = make([][]string, len(g.nodes))
	var e *ir.Error
	if err := sub.sortNodes(); errors.As(err, &e) {
		return unknown(e.Msg)
	}
	if err := sub.inferAll(); errors.As(err, &e) {
		return unknown(e.Path + ": " + e.Msg) // a tensor of the subgraph is too large
	}
	for i, o := range g.outputs {
		if t := sub.info(o.name); t != nil {
			res[i] = *t
			res[i].isInit = false
		}
	}
	return res
}

// loop: a loop-carried value keeps its initial shape when the body
// declares that same shape for it; scan outputs need value_info.
func (d *decoder) loop(n *node, res []tinfo) []tinfo {
	body := n.attr("body")
	if body == nil || body.g == nil {
		return d.fail(res, "it has no body graph")
	}
	for i := range res {
		t := d.in(n, 2+i)
		if t == nil {
			return d.fail(res, "output %d is a scan output, whose shape memplan does not infer; value_info in the file can give it", i)
		}
		if !t.ok {
			return res
		}
		if len(body.g.outputs) <= 1+i {
			return d.fail(res, "the body has %d outputs, too few for loop-carried value %d", len(body.g.outputs), i)
		}
		vi := &body.g.outputs[1+i]
		if !vi.hasShape {
			// The body may change the shape: do not guess.
			return d.fail(res, "the body declares no shape for loop-carried value %d, so it may change from %v", i, t.shape)
		}
		dims, kn := d.viDims(vi)
		if slices.Contains(kn, false) || !slices.Equal(dims, t.shape) {
			return d.fail(res, "the body does not declare loop-carried value %d with its initial shape %v", i, t.shape)
		}
		res[i] = known(t.dt, t.shape)
	}
	return res
}

// scan: the body runs once per slice of the scan inputs along their scan
// axes, carrying N state values. memplan infers the body with the states'
// shapes and one slice of each scan input: a final state has its initial
// shape when the body keeps it, and a scan output is the body's
// per-iteration output stacked along its scan axis. Opset 8's Scan has a
// leading batch axis on every input and output and an optional
// sequence_lens input first, which memplan does not read: it assumes the
// full length.
func (d *decoder) scan(n *node, res []tinfo) []tinfo {
	body := n.attr("body")
	if body == nil || body.g == nil {
		return d.bad(res, "it has no body graph")
	}
	g := body.g
	m := n.attrInt("num_scan_inputs", 0)
	ins := n.inputs
	batch := d.opset < 9
	first := 0 // index of the first state input
	if batch {
		first = 1
	}
	if first > len(ins) || m < 1 || m > int64(len(ins)-first) {
		return d.bad(res, "num_scan_inputs %d must be 1 or more and at most the node's %d inputs", m, len(ins)-first)
	}
	states := len(ins) - first - int(m)
	if states > len(res) {
		return d.bad(res, "the node has %d state inputs but only %d outputs", states, len(res))
	}
	k := len(res) - states
	if len(g.inputs) != states+int(m) || len(g.outputs) != states+k {
		return d.bad(res, "the body has %d inputs and %d outputs; %d states, %d scan inputs and %d scan outputs need %d and %d",
			len(g.inputs), len(g.outputs), states, m, k, states+int(m), states+k)
	}
	axesOf := func(name string, count int) ([]int64, bool) {
		v, ok := n.attrInts(name)
		if !ok || len(v) == 0 {
			return make([]int64, count), true
		}
		return v, len(v) == count
	}
	inAxes, ok1 := axesOf("scan_input_axes", int(m))
	outAxes, ok2 := axesOf("scan_output_axes", k)
	if !ok1 || !ok2 {
		return d.bad(res, "scan_input_axes and scan_output_axes need %d and %d values", m, k)
	}
	if batch && (n.attr("scan_input_axes") != nil || n.attr("scan_output_axes") != nil) {
		return d.bad(res, "Scan before opset 9 has no scan axes attributes")
	}
	// What the body is fed: each state as it comes, each scan input
	// without its scan axis (and batch axis, before opset 9).
	feed := make([]tinfo, len(g.inputs))
	var batchN int64
	seq := int64(-1)
	for i := 0; i < states+int(m); i++ {
		t := d.in(n, first+i)
		if t == nil {
			return d.bad(res, "input %d is missing", first+i)
		}
		if i < states {
			res[i].dt = t.dt
		}
		if !t.ok {
			return res
		}
		sh := t.shape
		if batch {
			if len(sh) < 1 {
				return d.bad(res, "input %d is a scalar; before opset 9 every input has a batch axis", first+i)
			}
			if i == 0 {
				batchN = sh[0]
			} else if sh[0] != batchN {
				return d.bad(res, "input %d has batch %d, input %d batch %d", first+i, sh[0], first, batchN)
			}
			sh = sh[1:]
		}
		if i < states {
			feed[i] = known(t.dt, sh)
			continue
		}
		ax, ok := normAxis(inAxes[i-states], len(sh))
		if batch {
			ax, ok = 0, len(sh) > 0
		}
		if !ok {
			return d.bad(res, "scan input %d (input %d, %v) has no axis %d to scan", i-states, first+i, t.shape, inAxes[i-states])
		}
		if seq >= 0 && sh[ax] != seq {
			return d.bad(res, "scan input %d has %d slices along its axis, scan input 0 has %d", i-states, sh[ax], seq)
		}
		seq = sh[ax]
		feed[i] = known(t.dt, slices.Delete(slices.Clone(sh), ax, ax+1))
	}
	out := d.inferSubgraphWith(g, d.nodePath(d.cur)+".attribute[body]", feed)
	for i := range res {
		o := out[i]
		if !o.ok || o.dt == 0 {
			res[i].dt = o.dt
			return d.fail(res, "the body gives its output %d %s", i, describe(o))
		}
		var sh []int64
		if i < states {
			if !slices.Equal(o.shape, feed[i].shape) || o.dt != feed[i].dt {
				return d.fail(res, "the body turns state %d from %v %s into %v %s, so its shape may change every iteration",
					i, feed[i].shape, elemName(feed[i].dt), o.shape, elemName(o.dt))
			}
			sh = slices.Clone(o.shape)
		} else {
			ax, ok := normAxis(outAxes[i-states], len(o.shape)+1)
			if batch {
				ax, ok = 0, true
			}
			if !ok {
				return d.bad(res, "scan_output_axes %d is out of range for the body's rank-%d output %d", outAxes[i-states], len(o.shape), i)
			}
			sh = slices.Insert(slices.Clone(o.shape), ax, seq)
		}
		if batch {
			sh = append([]int64{batchN}, sh...)
		}
		res[i] = known(o.dt, sh)
	}
	return res
}
