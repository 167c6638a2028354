package onnx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"memplan/ir"
)

// Shape inference. It works on concrete dims only: symbols are bound
// first, and a dim that depends on an unbound symbol leaves its tensor
// unknown rather than guessed.

func (d *decoder) initInfo(t *tensor) (*tinfo, *ir.Error) {
	for _, v := range t.dims {
		if v < 0 {
			return nil, d.errf("initializer %s has negative dimension %d", quote(t.name), v)
		}
	}
	return &tinfo{dt: t.dtype, shape: t.dims, ok: true, src: t, isInit: true}, nil
}

// inputInfo is what a graph input declares; path locates it for the
// failure an unknown shape or type carries.
func (d *decoder) inputInfo(vi *valueInfo, path string) *tinfo {
	ti := &tinfo{dt: vi.elem, ok: vi.hasShape}
	var why string
	var syms []string
	switch {
	case vi.kind != "":
		why = fmt.Sprintf("the graph input is a %s, not a tensor; memplan plans tensors only", vi.kind)
	case !vi.hasShape:
		why = "the graph input declares no shape"
	}
	for i, dim := range vi.dims {
		switch {
		case dim.hasValue && dim.value >= 0:
			ti.shape = append(ti.shape, dim.value)
		case dim.param != "":
			if v, ok := d.opts.Symbols[dim.param]; ok && v >= 0 {
				d.symUsed[dim.param] = v
				ti.shape = append(ti.shape, v)
			} else {
				d.unbound[dim.param] = true
				ti.ok = false
				syms = append(syms, dim.param)
				if why == "" {
					why = fmt.Sprintf("dim %d is the unbound symbol %s", i, quote(dim.param))
				}
			}
		case dim.hasValue:
			ti.ok = false
			if why == "" {
				why = fmt.Sprintf("dim %d is %d", i, dim.value)
			}
		default:
			ti.ok = false
			if why == "" {
				why = fmt.Sprintf("dim %d has neither a value nor a symbol", i)
			}
		}
	}
	if !ti.ok {
		ti.shape = nil
	} else if ti.dt == 0 {
		why = "the graph input declares no element type"
	}
	if why != "" {
		ti.cause = &failure{path: path, op: "graph input", tensor: vi.name, rule: why, syms: syms}
	}
	d.inputValue(vi.name, ti)
	return ti
}

// inputValue gives a one-element integer graph input the value of the
// symbol of its name, where one is bound: exports feed the length a KV
// cache grows to (GroupQueryAttention's total_sequence_length) as such an
// input, and shapes depend on its value, not its shape.
func (d *decoder) inputValue(name string, ti *tinfo) {
	v, ok := d.opts.Symbols[name]
	if !ok || !ti.ok || numel(ti.shape) != 1 || v < 0 {
		return
	}
	switch ti.dt {
	case tInt8, tInt16, tInt32, tInt64, tUint8, tUint16, tUint32, tUint64:
		ti.val = &tval{i: []int64{v}}
		d.symUsed[name] = v
	}
}

// viDims resolves a value_info shape: dim values, and dim_params that are
// bound symbols or expressions of them (`batch*sequence`, `7*batch_size`).
func (d *decoder) viDims(vi *valueInfo) (dims []int64, known []bool) {
	dims = make([]int64, len(vi.dims))
	known = make([]bool, len(vi.dims))
	for i, dim := range vi.dims {
		switch {
		case dim.hasValue && dim.value >= 0:
			dims[i], known[i] = dim.value, true
		case dim.param != "":
			dims[i], known[i] = d.evalDim(dim.param)
		}
	}
	return dims, known
}

// evalDim evaluates a dim_param: a bound symbol, or an expression of bound
// symbols and integers with + - * / and parentheses.
func (d *decoder) evalDim(s string) (int64, bool) {
	if v, ok := d.opts.Symbols[s]; ok {
		if v < 0 {
			return 0, false
		}
		d.symUsed[s] = v
		return v, true
	}
	p := exprParser{s: s, d: d}
	v, ok := p.expr(0)
	p.space()
	if !ok || p.pos != len(s) || v < 0 {
		return 0, false
	}
	return v, true
}

type exprParser struct {
	s   string
	pos int
	d   *decoder
}

func (p *exprParser) space() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *exprParser) expr(depth int) (int64, bool) {
	if depth > 20 {
		return 0, false
	}
	v, ok := p.term(depth)
	for ok {
		p.space()
		if p.pos >= len(p.s) || (p.s[p.pos] != '+' && p.s[p.pos] != '-') {
			break
		}
		op := p.s[p.pos]
		p.pos++
		var w int64
		w, ok = p.term(depth)
		if op == '+' {
			v += w
		} else {
			v -= w
		}
		if v > 1<<50 || v < -(1<<50) {
			return 0, false
		}
	}
	return v, ok
}

func (p *exprParser) term(depth int) (int64, bool) {
	v, ok := p.factor(depth)
	for ok {
		p.space()
		if p.pos >= len(p.s) || (p.s[p.pos] != '*' && p.s[p.pos] != '/') {
			break
		}
		op := p.s[p.pos]
		p.pos++
		var w int64
		w, ok = p.factor(depth)
		if !ok {
			break
		}
		if op == '*' {
			if w != 0 && (v > 1<<50/abs(w) || v < -(1<<50)/abs(w)) {
				return 0, false
			}
			v *= w
		} else {
			if w == 0 {
				return 0, false
			}
			v /= w
		}
	}
	return v, ok
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (p *exprParser) factor(depth int) (int64, bool) {
	p.space()
	if p.pos >= len(p.s) {
		return 0, false
	}
	if p.s[p.pos] == '(' {
		p.pos++
		v, ok := p.expr(depth + 1)
		p.space()
		if !ok || p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return 0, false
		}
		p.pos++
		return v, true
	}
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune("+-*/() ", rune(p.s[p.pos])) {
		p.pos++
	}
	tok := p.s[start:p.pos]
	if tok == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return n, n <= 1<<50
	}
	v, ok := p.d.opts.Symbols[tok]
	if ok {
		p.d.symUsed[tok] = v
	}
	return v, ok && v >= 0 && v <= 1<<50
}

// inferAll runs inference over the sorted nodes, merging each result with
// the file's value_info. It fails on a tensor too large to plan.
func (d *decoder) inferAll() error {
	vis := map[string]*valueInfo{}
	for i := range d.g.valueInfo {
		vis[d.g.valueInfo[i].name] = &d.g.valueInfo[i]
	}
	for i := range d.g.outputs {
		vis[d.g.outputs[i].name] = &d.g.outputs[i]
	}
	for _, k := range d.order {
		n := &d.g.nodes[k]
		d.why, d.need, d.cur, d.invalid = "", "", k, false
		res := d.infer(n)
		for j := range res {
			if res[j].val != nil {
				d.charge(int64(res[j].val.len()))
			}
		}
		if err := d.overMemory(); err != nil {
			return err
		}
		if d.invalid {
			f := failure{op: nodeOp(n), inputs: d.inputShapes(n), rule: d.why}
			for _, o := range n.outputs {
				if o != "" {
					f.tensor = o
					break
				}
			}
			return &ir.Error{File: d.file, Path: d.nodePath(k), Node: n.name, Msg: f.msg()}
		}
		var cause *failure // shared by the node's unknown outputs
		for j, o := range n.outputs {
			if o == "" {
				continue
			}
			ti := res[j]
			if ti.huge {
				e := d.errf("output %s would have shape %v: more elements than int64 can count", quote(o), ti.shape)
				e.Path, e.Node = d.nodePath(k), n.name
				return e
			}
			if ti.neg {
				d.fail(nil, "output %d would have shape %v, with a negative dim", j, ti.shape)
				ti.shape, ti.neg = nil, false
			}
			if vi := vis[o]; vi != nil && !d.noVI {
				ti = d.merge(o, ti, vi)
			}
			if e := d.sizeErr(o, &ti); e != nil {
				e.Path, e.Node = d.nodePath(k), n.name
				return e
			}
			if unknownInfo(&ti) {
				if cause == nil {
					cause = d.blame(k, n)
					if cause.tensor == "" {
						cause.tensor = o
					}
				}
				ti.cause = cause
			}
			d.infos[o] = &ti
		}
	}
	return nil
}

// merge combines inference with value_info. Where both know a dim and
// disagree, value_info wins and the tensor is counted and noted.
func (d *decoder) merge(name string, inf tinfo, vi *valueInfo) tinfo {
	if !vi.hasType {
		return inf
	}
	mism := false
	if vi.elem != 0 {
		if inf.dt != 0 && inf.dt != vi.elem {
			mism = true
			inf.val = nil
		}
		inf.dt = vi.elem
	}
	if vi.hasShape {
		dims, known := d.viDims(vi)
		all := true
		for _, k := range known {
			all = all && k
		}
		switch {
		case inf.ok && len(inf.shape) == len(dims):
			shape := append([]int64(nil), inf.shape...)
			for i := range dims {
				if known[i] && dims[i] != shape[i] {
					shape[i] = dims[i]
					mism = true
					inf.val = nil
				}
			}
			inf.shape = shape
		case all:
			if inf.ok {
				mism = true
			}
			inf.shape, inf.ok, inf.val = dims, true, nil
		}
	}
	if mism {
		d.viMism++
		if len(d.viDiff) < 10 {
			d.viDiff = append(d.viDiff, quote(name))
		}
	}
	return inf
}

func (n *node) attr(name string) *attr {
	for i := range n.attrs {
		if n.attrs[i].name == name {
			return &n.attrs[i]
		}
	}
	return nil
}

func (n *node) attrInt(name string, def int64) int64 {
	if a := n.attr(name); a != nil {
		return a.i
	}
	return def
}

func (n *node) attrInts(name string) ([]int64, bool) {
	if a := n.attr(name); a != nil {
		return a.ints, true
	}
	return nil, false
}

// in returns input i of n, or nil when it is absent or unknown.
func (d *decoder) in(n *node, i int) *tinfo {
	if i >= len(n.inputs) || n.inputs[i] == "" {
		return nil
	}
	t := d.info(n.inputs[i])
	if t != nil && t.src != nil { // decode initializer contents on first use
		t.val, t.src = tensorValue(t.src), nil
		if t.val != nil {
			d.charge(int64(t.val.len()))
		}
	}
	return t
}

func (d *decoder) shape(n *node, i int) ([]int64, bool) {
	t := d.in(n, i)
	if t == nil || !t.ok {
		return nil, false
	}
	return t.shape, true
}

// ints returns the integer contents of input i.
func (d *decoder) ints(n *node, i int) ([]int64, bool) {
	t := d.in(n, i)
	if t == nil || t.val == nil {
		return nil, false
	}
	out := make([]int64, t.val.len())
	for k := range out {
		var ok bool
		if out[k], ok = t.val.int(k); !ok {
			return nil, false
		}
	}
	return out, true
}

// present reports whether optional input i is given and not empty.
func (d *decoder) present(n *node, i int) bool {
	if i >= len(n.inputs) || n.inputs[i] == "" {
		return false
	}
	t := d.info(n.inputs[i])
	return t == nil || !t.ok || numel(t.shape) != 0
}

// known is a tensor of this type and shape. A shape whose element count
// overflows is kept only to be reported (tinfo.huge); one with a negative
// dim is unknown.
func known(dt int64, shape []int64) tinfo {
	if slices.ContainsFunc(shape, func(v int64) bool { return v < 0 }) {
		return tinfo{dt: dt, shape: shape, neg: true}
	}
	if numel(shape) < 0 {
		return tinfo{dt: dt, shape: shape, huge: true}
	}
	return tinfo{dt: dt, shape: shape, ok: true}
}

func normAxis(ax int64, rank int) (int, bool) {
	if ax < 0 {
		ax += int64(rank)
	}
	if ax < 0 || ax >= int64(rank) {
		return 0, false
	}
	return int(ax), true
}
