package onnx

import (
	"fmt"
	"sort"
	"strings"

	"memplan/ir"
)

// failure is why a tensor's shape or type is unknown: the place where
// inference first gave up and the rule that failed there. A tensor whose
// inputs are unknown carries its producer's failure, so the error names
// the first failure, not the nodes that consume its result.
type failure struct {
	path   string   // graph.node[k] or graph.input[i]
	node   string   // ONNX node name, if any
	op     string   // op type, or "graph input"
	tensor string   // the first tensor it left unknown
	inputs string   // the input shapes the rule saw
	rule   string   // what failed
	syms   []string // unbound symbols (graph inputs)
	need   string   // ir.Error.Need
}

func (f *failure) msg() string {
	if f.inputs == "" {
		return fmt.Sprintf("cannot determine the shape of %s (%s): %s", quote(f.tensor), f.op, f.rule)
	}
	return fmt.Sprintf("cannot determine the shape of %s (%s): %s: %s", quote(f.tensor), f.op, f.inputs, f.rule)
}

// fail records why the rule for the node being inferred gives no shape
// (the first reason wins) and returns res, so rules can end with it.
func (d *decoder) fail(res []tinfo, format string, args ...any) []tinfo {
	if d.why == "" {
		d.why = fmt.Sprintf(format, args...)
	}
	return res
}

// bad is fail for a node that cannot be valid whatever its inputs hold,
// such as an attribute that contradicts the input's rank: a shape the
// file declares for its outputs does not make it plannable.
func (d *decoder) bad(res []tinfo, format string, args ...any) []tinfo {
	d.invalid = true
	return d.fail(res, format, args...)
}

// constInts is ints for an input the rule needs as a constant, recording
// why when it is missing or computed from data. An input of unknown shape
// records nothing: its own failure is the one reported.
func (d *decoder) constInts(n *node, i int, what string) ([]int64, bool) {
	v, ok := d.ints(n, i)
	if !ok {
		switch t := d.in(n, i); {
		case t == nil:
			d.fail(nil, "input %d (%s) is missing", i, what)
		case t.ok:
			d.fail(nil, "input %d (%s) is not a constant memplan can compute", i, what)
		}
	}
	return v, ok
}

// nodeOp is the op type as messages show it, with a non-default domain.
func nodeOp(n *node) string {
	if n.domain != "" {
		return clip(n.domain + "." + n.op)
	}
	return clip(n.op)
}

// inputShapes describes the shapes of n's inputs for a message:
// "inputs [2 3] and [4 5]".
func (d *decoder) inputShapes(n *node) string {
	const max = 8
	var s []string
	for i, in := range n.inputs {
		if i == max {
			s = append(s, fmt.Sprintf("%d more", len(n.inputs)-max))
			break
		}
		t := d.info(in)
		switch {
		case in == "":
			s = append(s, "none")
		case t == nil || !t.ok:
			s = append(s, "unknown")
		default:
			s = append(s, fmt.Sprint(t.shape))
		}
	}
	switch len(s) {
	case 0:
		return "no inputs"
	case 1:
		return "input " + s[0]
	}
	return "inputs " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// nodePath is the path of node k of the graph being inferred.
func (d *decoder) nodePath(k int) string {
	if d.scope == "" {
		return fmt.Sprintf("graph.node[%d]", k)
	}
	return fmt.Sprintf("%s.node[%d]", d.scope, k)
}

func unknownInfo(t *tinfo) bool { return t == nil || !t.ok || t.dt == 0 }

// blame is the failure behind the unknown outputs of node k: the first
// unknown input's, or the node's own rule (d.why).
func (d *decoder) blame(k int, n *node) *failure {
	for _, in := range n.inputs {
		if t := d.info(in); in != "" && unknownInfo(t) && t != nil && t.cause != nil {
			return t.cause
		}
	}
	for _, in := range d.extra[k] {
		if t := d.info(in); unknownInfo(t) && t != nil && t.cause != nil {
			return t.cause
		}
	}
	f := &failure{path: d.nodePath(k), node: n.name, op: nodeOp(n),
		inputs: d.inputShapes(n), rule: d.why, need: d.need}
	if f.rule == "" && (len(n.inputs) == 0 || n.inputs[0] == "") {
		f.rule = "input 0 is missing"
	}
	if f.rule == "" {
		f.rule = fmt.Sprintf("the %s rule gives no shape or element type for this output", f.op)
	}
	return f
}

// unknownShapes fails when any tensor's shape or type is unknown. It
// reports the first failure in schedule order, where the fault is, with
// the tensors that depend on it; or the unbound symbols when those are
// the cause.
func (d *decoder) unknownShapes() error {
	var first *failure
	var group []string // tensors blamed on first, in order (up to 20)
	inGroup, count := 0, 0
	// The other failures, in order, and how many tensors each leaves
	// unknown: the message names them, not just their count.
	var others []*failure
	otherCount := map[*failure]int{}
	add := func(name, what string, t *tinfo) {
		if !unknownInfo(t) {
			return
		}
		count++
		f := t.cause
		if f == nil {
			f = &failure{tensor: name, op: what, rule: "its element type is unknown"}
		}
		if first == nil {
			first = f
		}
		// All inputs short of a symbol share one remedy: bind them.
		if f == first || (len(f.syms) > 0 && len(first.syms) > 0) {
			inGroup++
			if len(group) < 20 {
				group = append(group, fmt.Sprintf("%s (%s)", quote(name), what))
			}
			return
		}
		if otherCount[f] == 0 {
			others = append(others, f)
		}
		otherCount[f]++
	}
	for _, i := range d.inputs {
		name := d.g.inputs[i].name
		add(name, "graph input", d.info(name))
	}
	for _, k := range d.order {
		n := &d.g.nodes[k]
		for _, o := range n.outputs {
			if o != "" {
				add(o, nodeOp(n), d.info(o))
			}
		}
	}
	if count == 0 {
		return nil
	}
	list := func(names []string, total int) string {
		s := strings.Join(names, ", ")
		if total > len(names) {
			s += fmt.Sprintf(" and %d more", total-len(names))
		}
		return s
	}
	e := &ir.Error{File: d.file, Path: first.path, Node: first.node, Need: first.need}
	if len(first.syms) > 0 {
		syms := make([]string, 0, len(d.unbound))
		for s := range d.unbound {
			syms = append(syms, s)
		}
		sort.Strings(syms)
		have := "symbols %s have no values"
		if len(syms) == 1 {
			have = "symbol %s has no value"
		}
		e.Msg = fmt.Sprintf("unbound "+have+"; until then the shapes of %d tensors are unknown: %s",
			strings.Join(syms, ", "), inGroup, list(group, inGroup))
		e.Need, e.Symbols = ir.NeedSymbols, syms
	} else {
		e.Msg = first.msg()
		if inGroup > 1 {
			verb := "tensors depend"
			if inGroup == 2 {
				verb = "tensor depends"
			}
			e.Msg += fmt.Sprintf("; %d %s on it: %s", inGroup-1, verb, list(group[1:], inGroup-1))
		}
	}
	if rest := count - inGroup; rest > 0 {
		verb := "tensors are"
		if rest == 1 {
			verb = "tensor is"
		}
		e.Msg += fmt.Sprintf("; %d more %s unknown for other reasons: ", rest, verb)
		const shown = 3
		for i, f := range others[:min(len(others), shown)] {
			if i > 0 {
				e.Msg += "; "
			}
			where := f.path
			if where == "" {
				where = "graph input"
			}
			e.Msg += fmt.Sprintf("at %s, %s (%d %s)", where, f.msg(), otherCount[f], plural(otherCount[f], "tensor", "tensors"))
		}
		if len(others) > shown {
			e.Msg += fmt.Sprintf("; and %d more %s", len(others)-shown, plural(len(others)-shown, "cause", "causes"))
		}
	}
	return e
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
