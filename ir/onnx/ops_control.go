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
