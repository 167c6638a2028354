package onnx

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	if !vi.hasShape {
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
	return ti
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
		d.why, d.need, d.cur = "", "", k
		res := d.infer(n)
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
	t := d.infos[n.inputs[i]]
	if t != nil && t.src != nil { // decode initializer contents on first use
		t.val, t.src = tensorValue(t.src), nil
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
	t := d.infos[n.inputs[i]]
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

// broadcast applies ONNX multidirectional (numpy) broadcasting.
func broadcast(shapes ...[]int64) ([]int64, bool) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int64, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, v := range s {
			o := &out[off+i]
			switch {
			case v == *o || v == 1:
			case *o == 1:
				*o = v
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// whyBroadcast says where shapes that do not broadcast conflict.
func whyBroadcast(shapes ...[]int64) string {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	for i := rank - 1; i >= 0; i-- {
		v := int64(1)
		for _, s := range shapes {
			j := i - (rank - len(s))
			if j < 0 {
				continue
			}
			switch x := s[j]; {
			case x == v || x == 1:
			case v == 1:
				v = x
			default:
				return fmt.Sprintf("dim %d of the rank-%d result is %d vs %d, and neither is 1", i, rank, v, x)
			}
		}
	}
	return "the shapes do not broadcast"
}

var unaryOps = map[string]bool{
	"Relu": true, "Sigmoid": true, "Tanh": true, "Erf": true, "Sqrt": true, "Exp": true, "Log": true,
	"Neg": true, "Abs": true, "Clip": true, "LeakyRelu": true, "HardSigmoid": true, "HardSwish": true,
	"Reciprocal": true, "Softplus": true, "Softsign": true, "Gelu": true, "Elu": true, "Selu": true,
	"Celu": true, "ThresholdedRelu": true, "Mish": true, "Floor": true, "Ceil": true, "Round": true,
	"Sin": true, "Cos": true, "Tan": true, "Asin": true, "Acos": true, "Atan": true, "Sinh": true,
	"Cosh": true, "Asinh": true, "Acosh": true, "Atanh": true, "Sign": true, "Identity": true,
	"Softmax": true, "LogSoftmax": true, "Hardmax": true, "CumSum": true, "InstanceNormalization": true,
	"LRN": true, "MeanVarianceNormalization": true, "Shrink": true, "BitwiseNot": true,
}

var binaryOps = map[string]bool{
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Mod": true, "PRelu": true,
	"Min": true, "Max": true, "Sum": true, "Mean": true, "BitShift": true,
	"BitwiseAnd": true, "BitwiseOr": true, "BitwiseXor": true,
}

var boolOps = map[string]bool{
	"Equal": true, "Less": true, "Greater": true, "LessOrEqual": true, "GreaterOrEqual": true,
	"And": true, "Or": true, "Xor": true, "Not": true, "IsNaN": true, "IsInf": true,
}

// infer returns one tinfo per output of n (unknown where it cannot tell).
func (d *decoder) infer(n *node) []tinfo {
	res := make([]tinfo, len(n.outputs))
	if len(res) == 0 {
		return res
	}
	if n.domain == "com.microsoft" {
		return d.inferMicrosoft(n, res)
	}
	if n.domain != "" {
		return d.fail(res, "memplan has no shape rule for ops of domain %s; value_info in the file can give their outputs' shapes", quote(n.domain))
	}
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	var xdt int64
	if x != nil {
		xdt = x.dt
	}
	set := func(t tinfo) []tinfo { res[0] = t; return res }
	op := n.op
	switch {
	case unaryOps[op]:
		if xok {
			res[0] = known(xdt, xs)
			if op == "Identity" || op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Sqrt" {
				res[0].val = unaryFold(op, x.val)
			}
		} else if x != nil {
			res[0].dt = xdt
		}
		return res
	case binaryOps[op] || boolOps[op] || op == "Where":
		var shapes [][]int64
		for i := range n.inputs {
			s, ok := d.shape(n, i)
			if !ok {
				if x != nil {
					res[0].dt = xdt
				}
				if boolOps[op] {
					res[0].dt = tBool
				}
				if n.inputs[i] == "" {
					return d.fail(res, "input %d is missing", i)
				}
				return res
			}
			shapes = append(shapes, s)
		}
		out, ok := broadcast(shapes...)
		dt := xdt
		if boolOps[op] {
			dt = tBool
		} else if op == "Where" {
			if y := d.in(n, 1); y != nil {
				dt = y.dt
			}
		}
		if !ok {
			res[0].dt = dt
			return d.fail(res, "%s broadcasts its inputs: %s", op, whyBroadcast(shapes...))
		}
		res[0] = known(dt, out)
		res[0].val = d.foldElementwise(n, out, dt)
		return res
	}

	switch op {
	case "Constant":
		t := d.constant(n)
		if !t.ok {
			return d.fail(res, "it has no value attribute with a tensor of non-negative dims")
		}
		return set(t)
	case "Dropout":
		if xok {
			res[0] = known(xdt, xs)
			res[0].val = x.val
			if len(res) > 1 {
				res[1] = known(tBool, xs)
			}
		}
	case "Cast":
		to := n.attrInt("to", 0)
		if xok {
			res[0] = known(to, xs)
			res[0].val = castFold(x.val, to)
		} else {
			res[0].dt = to
		}
		if to == 0 {
			return d.fail(res, "it has no \"to\" attribute")
		}
	case "CastLike":
		y := d.in(n, 1)
		if y == nil {
			return d.fail(res, "input 1 (the type to cast to) is missing")
		}
		if xok {
			res[0] = known(y.dt, xs)
			res[0].val = castFold(x.val, y.dt)
		}
	case "Shape":
		if xok {
			r := int64(len(xs))
			start, end := n.attrInt("start", 0), n.attrInt("end", r)
			start, end = clampIndex(start, r), clampIndex(end, r)
			v := []int64{}
			if end > start {
				v = append(v, xs[start:end]...)
			}
			res[0] = known(tInt64, []int64{int64(len(v))})
			res[0].val = &tval{i: v}
		} else {
			res[0].dt = tInt64
		}
	case "Size":
		res[0] = known(tInt64, []int64{})
		if xok {
			res[0].val = &tval{i: []int64{numel(xs)}}
		}
	case "Conv", "ConvInteger", "MaxPool", "AveragePool", "LpPool", "ConvTranspose":
		return d.convPool(n, res)
	case "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool":
		if xok {
			if len(xs) < 2 {
				return d.fail(res, "%s needs rank 2 or more, got rank %d", op, len(xs))
			}
			out := append([]int64(nil), xs...)
			for i := 2; i < len(out); i++ {
				out[i] = 1
			}
			res[0] = known(xdt, out)
		}
	case "BatchNormalization":
		if xok {
			res[0] = known(xdt, xs)
			for i := 1; i < len(res); i++ {
				if len(xs) < 2 {
					return d.fail(res, "BatchNormalization's statistics need rank 2 or more, got rank %d", len(xs))
				}
				res[i] = known(xdt, []int64{xs[1]})
			}
		}
	case "LayerNormalization":
		if xok {
			res[0] = known(xdt, xs)
			ax, ok := normAxis(n.attrInt("axis", -1), len(xs))
			if !ok {
				if len(res) > 1 {
					return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
				}
				break
			}
			st := append([]int64(nil), xs...)
			for i := ax; i < len(st); i++ {
				st[i] = 1
			}
			for i := 1; i < len(res); i++ {
				res[i] = known(n.attrInt("stash_type", tFloat), st)
			}
		}
	case "Gemm":
		bs, bok := d.shape(n, 1)
		if xok && bok {
			if len(xs) != 2 || len(bs) != 2 {
				return d.fail(res, "Gemm needs two rank-2 inputs, got ranks %d and %d", len(xs), len(bs))
			}
			m, k1 := xs[0], xs[1]
			if n.attrInt("transA", 0) != 0 {
				m, k1 = k1, m
			}
			k2, nn := bs[0], bs[1]
			if n.attrInt("transB", 0) != 0 {
				k2, nn = nn, k2
			}
			if k1 != k2 {
				return d.fail(res, "Gemm needs A's columns to equal B's rows (after transA/transB): %d vs %d", k1, k2)
			}
			res[0] = known(xdt, []int64{m, nn})
		}
	case "MatMul", "MatMulInteger":
		bs, bok := d.shape(n, 1)
		if xok && bok {
			out, why := matmulShapeWhy(xs, bs)
			if why != "" {
				return d.fail(res, "%s %s", op, why)
			}
			dt := xdt
			if op == "MatMulInteger" {
				dt = tInt32
			}
			res[0] = known(dt, out)
		}
	case "Concat":
		return d.concat(n, res)
	case "Split":
		return d.split(n, res)
	case "Reshape":
		return d.reshape(n, res)
	case "Flatten":
		if xok {
			ax := n.attrInt("axis", 1)
			if ax < 0 {
				ax += int64(len(xs))
			}
			if ax < 0 || ax > int64(len(xs)) {
				return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", 1), len(xs))
			}
			res[0] = known(xdt, []int64{numel(xs[:ax]), numel(xs[ax:])})
			if res[0].ok {
				res[0].val = x.val
			}
		}
	case "Transpose":
		if xok {
			perm, ok := n.attrInts("perm")
			if !ok {
				for i := len(xs) - 1; i >= 0; i-- {
					perm = append(perm, int64(i))
				}
			}
			out, ok := permute(xs, perm)
			if !ok {
				return d.fail(res, "perm %v is not a permutation of the %d axes", perm, len(xs))
			}
			res[0] = known(xdt, out)
			res[0].val = transposeFold(x.val, xs, perm, out)
		}
	case "Squeeze", "Unsqueeze":
		return d.squeeze(n, res)
	case "Slice":
		return d.slice(n, res)
	case "Gather":
		return d.gather(n, res)
	case "GatherElements":
		if is, ok := d.shape(n, 1); ok && x != nil {
			res[0] = known(xdt, is)
		}
	case "ScatterND", "ScatterElements", "Scatter":
		if xok {
			res[0] = known(xdt, xs)
		}
	case "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin":
		return d.reduce(n, res)
	case "Pad":
		return d.pad(n, res)
	case "Resize", "Upsample":
		return d.resize(n, res)
	case "ConstantOfShape":
		return d.constantOfShape(n, res)
	case "Expand":
		sv, ok := d.constInts(n, 1, "shape")
		if xok && ok {
			out, ok := broadcast(xs, sv)
			if !ok {
				return d.fail(res, "Expand to %v: %s", sv, whyBroadcast(xs, sv))
			}
			res[0] = known(xdt, out)
			res[0].val = expandFold(x.val, xs, out)
		}
	case "Tile":
		rep, ok := d.constInts(n, 1, "repeats")
		if xok && ok {
			if len(rep) != len(xs) {
				return d.fail(res, "Tile needs one repeat per axis: %d repeats for rank %d", len(rep), len(xs))
			}
			out := make([]int64, len(xs))
			for i := range xs {
				if out[i] = mulOK(xs[i], rep[i]); out[i] < 0 {
					return d.fail(res, "repeat %d of axis %d (dim %d) is negative or overflows", rep[i], i, xs[i])
				}
			}
			res[0] = known(xdt, out)
		}
	case "Range":
		return d.rangeOp(n, res)
	case "TopK":
		var k int64
		if d.opset >= 10 {
			kv, ok := d.constInts(n, 1, "k")
			if !ok {
				return res
			}
			if len(kv) != 1 {
				return d.fail(res, "input 1 (k) has %d values, want 1", len(kv))
			}
			k = kv[0]
		} else if a := n.attr("k"); a != nil {
			k = a.i
		} else {
			return d.fail(res, "it has no \"k\" attribute")
		}
		if xok {
			ax, ok := normAxis(n.attrInt("axis", -1), len(xs))
			if !ok {
				return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(xs))
			}
			if k < 0 {
				return d.fail(res, "k is %d", k)
			}
			out := append([]int64(nil), xs...)
			out[ax] = min(k, out[ax])
			res[0] = known(xdt, out)
			if len(res) > 1 {
				res[1] = known(tInt64, out)
			}
		}
	case "DepthToSpace", "SpaceToDepth":
		b := n.attrInt("blocksize", 0)
		if xok {
			if len(xs) != 4 {
				return d.fail(res, "%s needs rank 4, got rank %d", op, len(xs))
			}
			if b <= 0 || b >= 1<<16 {
				return d.fail(res, "blocksize %d is out of range", b)
			}
			// mulOK gives -1 on overflow, which known refuses.
			switch {
			case op == "DepthToSpace" && xs[1]%(b*b) != 0:
				return d.fail(res, "channels %d do not divide by blocksize² %d", xs[1], b*b)
			case op == "DepthToSpace":
				res[0] = known(xdt, []int64{xs[0], xs[1] / (b * b), mulOK(xs[2], b), mulOK(xs[3], b)})
			case xs[2]%b != 0 || xs[3]%b != 0:
				return d.fail(res, "height %d and width %d must divide by blocksize %d", xs[2], xs[3], b)
			default:
				res[0] = known(xdt, []int64{xs[0], mulOK(mulOK(xs[1], b), b), xs[2] / b, xs[3] / b})
			}
		}
	case "LSTM", "GRU", "RNN":
		return d.rnn(n, res)
	case "If":
		return d.ifOutputs(n, res)
	case "Loop":
		return d.loop(n, res)
	case "EyeLike":
		if xok {
			dt := n.attrInt("dtype", xdt)
			res[0] = known(dt, xs)
		}
	case "Trilu", "ReverseSequence":
		if xok {
			res[0] = known(xdt, xs)
		}
	case "QuantizeLinear":
		dt := n.attrInt("output_dtype", tUint8)
		if zp := d.in(n, 2); zp != nil {
			dt = zp.dt
		}
		if xok {
			res[0] = known(dt, xs)
		}
	case "DequantizeLinear":
		sc := d.in(n, 1)
		if sc == nil {
			return d.fail(res, "input 1 (the scale) is missing")
		}
		if xok {
			res[0] = known(sc.dt, xs)
		}
	case "DynamicQuantizeLinear":
		if len(res) != 3 {
			return d.fail(res, "DynamicQuantizeLinear has 3 outputs, this node %d", len(res))
		}
		if xok {
			res[0], res[1], res[2] = known(tUint8, xs), known(tFloat, []int64{}), known(tUint8, []int64{})
		}
	case "GatherND":
		is, iok := d.shape(n, 1)
		bd := n.attrInt("batch_dims", 0)
		if xok && iok {
			if len(is) == 0 {
				return d.fail(res, "the indices must have rank 1 or more")
			}
			last := is[len(is)-1]
			if bd < 0 || bd >= int64(len(is)) || bd+last > int64(len(xs)) {
				return d.fail(res, "batch_dims %d plus the index depth %d exceeds the data rank %d (or batch_dims is out of range)", bd, last, len(xs))
			}
			out := append(append([]int64(nil), is[:len(is)-1]...), xs[bd+last:]...)
			res[0] = known(xdt, out)
		}
	case "OneHot":
		is, iok := d.shape(n, 0)
		vals := d.in(n, 2)
		if vals == nil {
			return d.fail(res, "input 2 (the values) is missing")
		}
		dv, ok := d.constInts(n, 1, "depth")
		if iok && ok {
			if len(dv) != 1 || dv[0] < 0 {
				return d.fail(res, "depth %v must be one non-negative value", dv)
			}
			ax, aok := normAxis(n.attrInt("axis", -1), len(is)+1)
			if !aok {
				return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(is)+1)
			}
			out := slices.Insert(slices.Clone(is), ax, dv[0])
			res[0] = known(vals.dt, out)
		}
	case "Einsum":
		var shapes [][]int64
		for i := range n.inputs {
			s, ok := d.shape(n, i)
			if !ok {
				res[0].dt = xdt
				return res
			}
			shapes = append(shapes, s)
		}
		a := n.attr("equation")
		if a == nil {
			return d.fail(res, "it has no \"equation\" attribute")
		}
		out, ok := einsumShape(string(a.s), shapes)
		if !ok {
			return d.fail(res, "equation %s does not fit the input ranks or dims", quote(string(a.s)))
		}
		res[0] = known(xdt, out)
	case "RoiAlign":
		rs, rok := d.shape(n, 1)
		if xok && rok {
			if len(xs) != 4 || len(rs) != 2 {
				return d.fail(res, "RoiAlign needs rank-4 data and rank-2 rois, got ranks %d and %d", len(xs), len(rs))
			}
			res[0] = known(xdt, []int64{rs[0], xs[1], n.attrInt("output_height", 1), n.attrInt("output_width", 1)})
		}
	case "GridSample":
		gs, gok := d.shape(n, 1)
		if xok && gok {
			if len(xs) < 3 || len(gs) != len(xs) {
				return d.fail(res, "GridSample needs data and grid of the same rank 3 or more, got ranks %d and %d", len(xs), len(gs))
			}
			res[0] = known(xdt, append([]int64{xs[0], xs[1]}, gs[1:len(gs)-1]...))
		}
	default:
		return d.fail(res, "memplan has no shape rule for %s; value_info in the file can give its outputs' shapes", clip(op))
	}
	return res
}

func clampIndex(i, r int64) int64 {
	if i < 0 {
		i += r
	}
	return min(max(i, 0), r)
}

func matmulShape(a, b []int64) ([]int64, bool) {
	out, why := matmulShapeWhy(a, b)
	return out, why == ""
}

// matmulShapeWhy is numpy matmul's output shape, or why there is none.
func matmulShapeWhy(a, b []int64) ([]int64, string) {
	if len(a) == 0 || len(b) == 0 {
		return nil, "needs inputs of rank 1 or more"
	}
	a1, b1 := len(a) == 1, len(b) == 1
	if a1 {
		a = []int64{1, a[0]}
	}
	if b1 {
		b = []int64{b[0], 1}
	}
	if a[len(a)-1] != b[len(b)-2] {
		return nil, fmt.Sprintf("needs A's last dim to equal B's second-to-last: %d vs %d", a[len(a)-1], b[len(b)-2])
	}
	batch, ok := broadcast(a[:len(a)-2], b[:len(b)-2])
	if !ok {
		return nil, "broadcasts the batch dims: " + whyBroadcast(a[:len(a)-2], b[:len(b)-2])
	}
	out := append(batch, a[len(a)-2], b[len(b)-1])
	if b1 {
		out = out[:len(out)-1]
	}
	if a1 { // drop the m dim that was prepended to a
		i := len(out) - 2
		if b1 {
			i = len(out) - 1
		}
		out = append(out[:i], out[i+1:]...)
	}
	return out, ""
}

func permute(s, perm []int64) ([]int64, bool) {
	if len(perm) != len(s) {
		return nil, false
	}
	out := make([]int64, len(s))
	used := make([]bool, len(s))
	for i, p := range perm {
		if p < 0 || p >= int64(len(s)) || used[p] {
			return nil, false
		}
		used[p] = true
		out[i] = s[p]
	}
	return out, true
}

func (d *decoder) constant(n *node) tinfo {
	for _, a := range n.attrs {
		switch a.name {
		case "value", "sparse_value":
			if a.t == nil {
				return tinfo{}
			}
			for _, v := range a.t.dims {
				if v < 0 {
					return tinfo{}
				}
			}
			ti := known(a.t.dtype, a.t.dims)
			ti.val = tensorValue(a.t)
			return ti
		case "value_float":
			ti := known(tFloat, []int64{})
			ti.val = &tval{isF: true, f: []float64{float64(a.f)}}
			return ti
		case "value_floats":
			ti := known(tFloat, []int64{int64(len(a.floats))})
			v := &tval{isF: true}
			for _, f := range a.floats {
				v.f = append(v.f, float64(f))
			}
			ti.val = v
			return ti
		case "value_int":
			ti := known(tInt64, []int64{})
			ti.val = &tval{i: []int64{a.i}}
			return ti
		case "value_ints":
			ti := known(tInt64, []int64{int64(len(a.ints))})
			ti.val = &tval{i: a.ints}
			return ti
		case "value_string":
			return known(tString, []int64{})
		}
	}
	return tinfo{}
}

func (d *decoder) constantOfShape(n *node, res []tinfo) []tinfo {
	dt := int64(tFloat)
	fill := &tval{isF: true, f: []float64{0}}
	if a := n.attr("value"); a != nil && a.t != nil {
		dt = a.t.dtype
		if v := tensorValue(a.t); v != nil && v.len() == 1 {
			fill = v
		}
	}
	sv, ok := d.constInts(n, 0, "shape")
	if !ok {
		res[0].dt = dt
		return res
	}
	res[0] = known(dt, sv)
	// Weights are often ConstantOfShape outputs: only fill tensors small
	// enough to be shape arithmetic.
	if c := numel(sv); res[0].ok && c <= 256 {
		v := &tval{isF: fill.isF}
		for k := int64(0); k < c; k++ {
			if fill.isF {
				v.f = append(v.f, fill.f[0])
			} else {
				v.i = append(v.i, fill.i[0])
			}
		}
		res[0].val = v
	}
	return res
}

func (d *decoder) convPool(n *node, res []tinfo) []tinfo {
	xs, ok := d.shape(n, 0)
	x := d.in(n, 0)
	if x != nil {
		res[0].dt = x.dt
		if n.op == "ConvInteger" {
			res[0].dt = tInt32
		}
	}
	if !ok {
		return res
	}
	if len(xs) < 3 {
		return d.fail(res, "%s needs rank 3 or more, got rank %d", n.op, len(xs))
	}
	sp := len(xs) - 2
	isConv := n.op == "Conv" || n.op == "ConvInteger" || n.op == "ConvTranspose"
	kernel, hasK := n.attrInts("kernel_shape")
	ch := xs[1]
	if isConv {
		ws, wok := d.shape(n, 1)
		if !wok {
			return res
		}
		if len(ws) != len(xs) {
			return d.fail(res, "the weights' rank %d differs from the data's rank %d", len(ws), len(xs))
		}
		if !hasK {
			kernel = ws[2:]
		}
		ch = ws[0]
		if n.op == "ConvTranspose" {
			c, err := ir.MulSize(ws[1], n.attrInt("group", 1))
			if err != nil {
				return d.fail(res, "%d channels × group %d: %v", ws[1], n.attrInt("group", 1), err)
			}
			ch = c
		}
	}
	if len(kernel) != sp {
		return d.fail(res, "kernel_shape %v needs %d spatial dims", kernel, sp)
	}
	get := func(name string, def int64, count int) ([]int64, bool) {
		v, ok := n.attrInts(name)
		if !ok || len(v) == 0 {
			v = make([]int64, count)
			for i := range v {
				v[i] = def
			}
		}
		return v, len(v) == count
	}
	strides, ok1 := get("strides", 1, sp)
	dil, ok2 := get("dilations", 1, sp)
	pads, ok3 := get("pads", 0, 2*sp)
	if !ok1 || !ok2 || !ok3 {
		return d.fail(res, "strides %v, dilations %v and pads %v need %d, %d and %d values", strides, dil, pads, sp, sp, 2*sp)
	}
	// Bounded so the sums below stay far from overflow (dims < 2^62).
	if slices.ContainsFunc(pads, func(p int64) bool { return abs(p) > 1<<40 }) {
		return d.fail(res, "pads %v are out of range", pads)
	}
	autoPad := ""
	if a := n.attr("auto_pad"); a != nil {
		autoPad = string(a.s)
	}
	ceil := n.attrInt("ceil_mode", 0) != 0
	out := []int64{xs[0], ch}
	for i := 0; i < sp; i++ {
		in, k, s, dl := xs[i+2], kernel[i], strides[i], dil[i]
		if k < 1 || s < 1 || dl < 1 || k > 1<<20 || s > 1<<20 || dl > 1<<20 {
			return d.fail(res, "spatial axis %d: kernel %d, stride %d and dilation %d must be in [1, 2^20]", i, k, s, dl)
		}
		ek := (k-1)*dl + 1
		var o int64
		if n.op == "ConvTranspose" {
			if os, ok := n.attrInts("output_shape"); ok && len(os) == sp {
				o = os[i]
			} else if autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" {
				o = mulOK(in, s)
			} else {
				op, _ := get("output_padding", 0, sp)
				if len(op) != sp || abs(op[i]) > 1<<40 {
					return d.fail(res, "output_padding %v needs %d values in range", op, sp)
				}
				pb, pe := pads[i], pads[i+sp]
				if autoPad == "VALID" {
					pb, pe = 0, 0
				}
				if o = mulOK(s, in); o < 0 || o > 1<<62 {
					return d.fail(res, "spatial axis %d: stride %d times dim %d is too large", i, s, in)
				}
				o += -s + op[i] + ek - pb - pe // s*(in-1) + ..., each term bounded
			}
			out = append(out, o)
			continue
		}
		switch autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			o = (in + s - 1) / s
		default:
			pb, pe := pads[i], pads[i+sp]
			if autoPad == "VALID" {
				pb, pe = 0, 0
			}
			span := in + pb + pe - ek
			if span < 0 {
				return d.fail(res, "spatial axis %d: the kernel's extent %d exceeds the padded input %d", i, ek, in+pb+pe)
			}
			if ceil {
				o = (span+s-1)/s + 1
				// The last window must start inside the input or its left
				// padding (as onnxruntime and PyTorch count it).
				if (o-1)*s >= in+pb {
					o--
				}
			} else {
				o = span/s + 1
			}
		}
		out = append(out, o)
	}
	res[0] = known(res[0].dt, out)
	if n.op == "MaxPool" && len(res) > 1 {
		res[1] = known(tInt64, out)
	}
	return res
}

func (d *decoder) concat(n *node, res []tinfo) []tinfo {
	var shapes [][]int64
	var vals []*tval
	var dt int64
	for i := range n.inputs {
		t := d.in(n, i)
		if t == nil || !t.ok {
			return res
		}
		if dt == 0 {
			dt = t.dt
		}
		shapes = append(shapes, t.shape)
		vals = append(vals, t.val)
	}
	res[0].dt = dt
	if len(shapes) == 0 {
		return d.fail(res, "Concat has no inputs")
	}
	r := len(shapes[0])
	ax, ok := normAxis(n.attrInt("axis", 0), r)
	if !ok {
		return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", 0), r)
	}
	out := append([]int64(nil), shapes[0]...)
	out[ax] = 0
	for k, s := range shapes {
		if len(s) != r {
			return d.fail(res, "Concat needs inputs of equal rank: input %d has rank %d, input 0 rank %d", k, len(s), r)
		}
		for i := range s {
			if i != ax && s[i] != out[i] {
				return d.fail(res, "Concat along axis %d needs equal dims elsewhere: dim %d is %d vs %d", ax, i, out[i], s[i])
			}
		}
		var err error
		if out[ax], err = ir.AddSize(out[ax], s[ax]); err != nil {
			return d.fail(res, "Concat along axis %d: the sum of the dims %v", ax, err) // "exceeds memplan's limit…"
		}
	}
	res[0] = known(dt, out)
	if res[0].ok && numel(out) <= maxVal {
		res[0].val = concatFold(vals, shapes, ax)
	}
	return res
}

// split follows Split as the model's opset defines it. Explicit sizes
// (the split attribute before opset 13, the split input from 13) must
// give one size per output and sum to the axis. Without them the axis
// must divide evenly among the outputs, except that from opset 18
// num_outputs asks for chunks of ceil(n/k) with a smaller last one; an
// uneven split is never made up.
func (d *decoder) split(n *node, res []tinfo) []tinfo {
	xs, ok := d.shape(n, 0)
	x := d.in(n, 0)
	if x != nil {
		for i := range res {
			res[i].dt = x.dt
		}
	}
	if !ok {
		return res
	}
	ax, ok := normAxis(n.attrInt("axis", 0), len(xs))
	if !ok {
		return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", 0), len(xs))
	}
	dim, k := xs[ax], int64(len(res))
	var sizes []int64
	if d.opset >= 13 {
		if d.present(n, 1) {
			if sizes, ok = d.constInts(n, 1, "split"); !ok {
				return res
			}
		}
	} else {
		sizes, _ = n.attrInts("split")
	}
	numOut := n.attr("num_outputs")
	switch {
	case len(sizes) > 0:
		if int64(len(sizes)) != k {
			return d.fail(res, "split sizes %v give %d outputs, the node has %d", sizes, len(sizes), k)
		}
		var sum int64
		for _, v := range sizes {
			var err error
			if v < 0 {
				return d.fail(res, "split sizes %v include a negative size", sizes)
			}
			if sum, err = ir.AddSize(sum, v); err != nil {
				return d.fail(res, "split sizes %v overflow", sizes)
			}
		}
		if sum != dim {
			return d.fail(res, "split sizes %v sum to %d, but axis %d is %d long", sizes, sum, ax, dim)
		}
	case d.opset >= 18 && numOut != nil:
		if numOut.i != k {
			return d.fail(res, "num_outputs is %d, but the node has %d outputs", numOut.i, k)
		}
		// Split-18: chunks of ceil(n/k), the last one smaller. When that
		// leaves the last chunk negative (2 into 4: 1, 1, 1, -1) the spec
		// has no answer, and this is not the place to invent one.
		c := (dim + k - 1) / k
		last := dim - c*(k-1)
		if last < 0 {
			return d.fail(res, "Split-18 cuts axis %d (length %d) into num_outputs %d chunks of ceil(%d/%d) = %d, which leaves %d for the last output",
				ax, dim, k, dim, k, c, last)
		}
		for range k - 1 {
			sizes = append(sizes, c)
		}
		sizes = append(sizes, last)
	default:
		if dim%k != 0 {
			how := fmt.Sprintf("Split at opset %d", d.opset)
			if d.opset >= 18 {
				how += " without num_outputs"
			}
			return d.fail(res, "%s and without split sizes needs axis %d (length %d) to divide evenly into %d outputs",
				how, ax, dim, k)
		}
		for range k {
			sizes = append(sizes, dim/k)
		}
	}
	start := int64(0)
	for i, sz := range sizes {
		out := append([]int64(nil), xs...)
		out[ax] = sz
		res[i] = known(x.dt, out)
		if x.val != nil {
			res[i].val = sliceFold(x.val, xs, []int{ax}, []int64{start}, []int64{1}, out)
		}
		start += sz
	}
	return res
}

func (d *decoder) reshape(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	var target []int64
	var ok bool
	if d.opset < 5 {
		if target, ok = n.attrInts("shape"); !ok {
			return d.fail(res, "it has no \"shape\" attribute")
		}
	} else {
		target, ok = d.constInts(n, 1, "shape")
	}
	if !ok || !xok {
		return res
	}
	allowZero := n.attrInt("allowzero", 0) != 0
	out := make([]int64, len(target))
	infer := -1
	prod := int64(1)
	for i, v := range target {
		switch {
		case v == 0 && !allowZero:
			if i >= len(xs) {
				return d.fail(res, "target shape %v copies dim %d (a 0), beyond the input's rank %d", target, i, len(xs))
			}
			v = xs[i]
		case v == -1:
			if infer >= 0 {
				return d.fail(res, "target shape %v has more than one -1", target)
			}
			infer = i
			continue
		case v < 0:
			return d.fail(res, "target shape %v has a negative dim", target)
		}
		out[i] = v
		if prod = mulOK(prod, v); prod < 0 {
			return d.fail(res, "target shape %v has more elements than int64 can count", target)
		}
	}
	total := numel(xs)
	if infer >= 0 {
		if prod == 0 || total%prod != 0 {
			return d.fail(res, "target shape %v: the -1 cannot be inferred, %d elements do not divide by %d", target, total, prod)
		}
		out[infer] = total / prod
	} else if prod != total {
		return d.fail(res, "target shape %v has %d elements, the input %d", target, prod, total)
	}
	res[0] = known(x.dt, out)
	res[0].val = x.val
	return res
}

func mulOK(a, b int64) int64 {
	if a < 0 || b < 0 || (b != 0 && a > math.MaxInt64/b) {
		return -1
	}
	return a * b
}

func (d *decoder) squeeze(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	var axes []int64
	hasAxes := false
	if d.opset >= 13 {
		if d.present(n, 1) {
			var ok bool
			if axes, ok = d.constInts(n, 1, "axes"); !ok {
				return res
			}
			hasAxes = true
		}
	} else {
		axes, hasAxes = n.attrInts("axes")
	}
	if !xok {
		return res
	}
	var out []int64
	if n.op == "Squeeze" {
		drop := make([]bool, len(xs))
		for _, a := range axes {
			ax, ok := normAxis(a, len(xs))
			if !ok {
				return d.fail(res, "axis %d is out of range for rank %d", a, len(xs))
			}
			if xs[ax] != 1 {
				return d.fail(res, "Squeeze of axis %d needs dim 1, got %d", ax, xs[ax])
			}
			drop[ax] = true
		}
		for i, v := range xs {
			if hasAxes && len(axes) > 0 {
				if !drop[i] {
					out = append(out, v)
				}
			} else if v != 1 {
				out = append(out, v)
			}
		}
	} else {
		r := len(xs) + len(axes)
		ins := make([]bool, r)
		for _, a := range axes {
			ax, ok := normAxis(a, r)
			if !ok {
				return d.fail(res, "axis %d is out of range for the output rank %d", a, r)
			}
			if ins[ax] {
				return d.fail(res, "axes %v name axis %d twice", axes, ax)
			}
			ins[ax] = true
		}
		k := 0
		for i := 0; i < r; i++ {
			if ins[i] {
				out = append(out, 1)
			} else {
				if k >= len(xs) {
					return d.fail(res, "axes %v do not fit rank %d", axes, len(xs))
				}
				out = append(out, xs[k])
				k++
			}
		}
	}
	if out == nil {
		out = []int64{}
	}
	res[0] = known(x.dt, out)
	res[0].val = x.val
	return res
}

type sliceSpec struct {
	axes, starts, ends, steps []int64
}

// sliceParams reads a Slice's constant parameters (attributes before
// opset 10, inputs after), with axes normalized to [0, rank).
func (d *decoder) sliceParams(n *node, rank int) (sliceSpec, bool) {
	var sp sliceSpec
	var ok bool
	if d.opset < 10 {
		if sp.starts, ok = n.attrInts("starts"); !ok {
			d.fail(nil, "it has no \"starts\" attribute")
			return sp, false
		}
		if sp.ends, ok = n.attrInts("ends"); !ok {
			d.fail(nil, "it has no \"ends\" attribute")
			return sp, false
		}
		sp.axes, _ = n.attrInts("axes")
	} else {
		if sp.starts, ok = d.constInts(n, 1, "starts"); !ok {
			return sp, false
		}
		if sp.ends, ok = d.constInts(n, 2, "ends"); !ok {
			return sp, false
		}
		if d.present(n, 3) {
			if sp.axes, ok = d.constInts(n, 3, "axes"); !ok {
				return sp, false
			}
		}
		if d.present(n, 4) {
			if sp.steps, ok = d.constInts(n, 4, "steps"); !ok {
				return sp, false
			}
		}
	}
	k := len(sp.starts)
	if len(sp.ends) != k {
		d.fail(nil, "starts %v and ends %v differ in length", sp.starts, sp.ends)
		return sp, false
	}
	if len(sp.axes) == 0 {
		for i := 0; i < k; i++ {
			sp.axes = append(sp.axes, int64(i))
		}
	}
	if len(sp.steps) == 0 {
		for i := 0; i < k; i++ {
			sp.steps = append(sp.steps, 1)
		}
	}
	if len(sp.axes) != k || len(sp.steps) != k {
		d.fail(nil, "axes %v and steps %v need %d values, one per start", sp.axes, sp.steps, k)
		return sp, false
	}
	seen := make([]bool, rank)
	for i, a := range sp.axes {
		ax, ok := normAxis(a, rank)
		if !ok || seen[ax] || sp.steps[i] == 0 {
			d.fail(nil, "axes %v and steps %v: each axis must be in range for rank %d and appear once, each step non-zero", sp.axes, sp.steps, rank)
			return sp, false
		}
		seen[ax] = true
		sp.axes[i] = int64(ax)
	}
	return sp, true
}

// clampSlice resolves negative indices and clamps them as ONNX Slice does,
// returning the effective start and end for the given step.
func clampSlice(start, end, step, dim int64) (int64, int64) {
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	if step > 0 {
		return min(max(start, 0), dim), min(max(end, 0), dim)
	}
	return min(max(start, 0), dim-1), min(max(end, -1), dim-1)
}

// sliceCount is ceil((e-b)/step), written so a huge step cannot overflow.
func sliceCount(b, e, step int64) int64 {
	if step > 0 {
		if e <= b {
			return 0
		}
		return (e-b-1)/step + 1
	}
	if b <= e {
		return 0
	}
	// -step overflows for MinInt64; b-e-1 < 2^63 then divides to 0.
	if step == math.MinInt64 {
		return 1
	}
	return (b-e-1)/(-step) + 1
}

func (d *decoder) slice(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	if !xok {
		return res
	}
	sp, ok := d.sliceParams(n, len(xs))
	if !ok {
		return res
	}
	out := append([]int64(nil), xs...)
	axes := make([]int, len(sp.axes))
	starts := make([]int64, len(sp.axes))
	for i, a := range sp.axes {
		ax := int(a)
		b, e := clampSlice(sp.starts[i], sp.ends[i], sp.steps[i], xs[ax])
		out[ax] = sliceCount(b, e, sp.steps[i])
		axes[i], starts[i] = ax, b
	}
	res[0] = known(x.dt, out)
	if x.val != nil {
		res[0].val = sliceFold(x.val, xs, axes, starts, sp.steps, out)
	}
	return res
}

func (d *decoder) gather(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	is, iok := d.shape(n, 1)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	if !xok || !iok {
		return res
	}
	ax, ok := normAxis(n.attrInt("axis", 0), len(xs))
	if !ok {
		return d.fail(res, "axis %d is out of range for rank %d", n.attrInt("axis", 0), len(xs))
	}
	out := append(append(append([]int64(nil), xs[:ax]...), is...), xs[ax+1:]...)
	res[0] = known(x.dt, out)
	if idx, ok := d.ints(n, 1); ok && x.val != nil && res[0].ok && numel(out) <= maxVal {
		res[0].val = gatherFold(x.val, xs, ax, idx)
	}
	return res
}

func (d *decoder) reduce(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	dt := x.dt
	arg := n.op == "ArgMax" || n.op == "ArgMin"
	if arg {
		dt = tInt64
	}
	res[0].dt = dt
	if !xok {
		return res
	}
	keep := n.attrInt("keepdims", 1) != 0
	var axes []int64
	switch {
	case arg:
		axes = []int64{n.attrInt("axis", 0)}
	case d.opset >= 18 || (n.op == "ReduceSum" && d.opset >= 13):
		if d.present(n, 1) {
			var ok bool
			if axes, ok = d.constInts(n, 1, "axes"); !ok {
				return res
			}
		}
	default:
		axes, _ = n.attrInts("axes")
	}
	red := make([]bool, len(xs))
	if len(axes) == 0 {
		if n.attrInt("noop_with_empty_axes", 0) != 0 {
			res[0] = known(dt, xs)
			res[0].val = x.val
			return res
		}
		for i := range red {
			red[i] = true
		}
	}
	for _, a := range axes {
		ax, ok := normAxis(a, len(xs))
		if !ok {
			return d.fail(res, "axis %d is out of range for rank %d", a, len(xs))
		}
		red[ax] = true
	}
	out := []int64{}
	for i, v := range xs {
		switch {
		case !red[i]:
			out = append(out, v)
		case keep:
			out = append(out, 1)
		}
	}
	res[0] = known(dt, out)
	if x.val != nil && !x.val.isF && (n.op == "ReduceProd" || n.op == "ReduceSum" || n.op == "ReduceMin" || n.op == "ReduceMax") {
		res[0].val = reduceFold(n.op, x.val, xs, red, numel(out))
	}
	return res
}

func (d *decoder) pad(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	var pads []int64
	var ok bool
	switch {
	case d.opset >= 11:
		pads, ok = d.constInts(n, 1, "pads")
	case d.opset >= 2:
		if pads, ok = n.attrInts("pads"); !ok {
			return d.fail(res, "it has no \"pads\" attribute")
		}
	default:
		if pads, ok = n.attrInts("paddings"); !ok {
			return d.fail(res, "it has no \"paddings\" attribute")
		}
	}
	if !ok || !xok {
		return res
	}
	axes := make([]int64, len(xs))
	for i := range axes {
		axes[i] = int64(i)
	}
	if d.opset >= 18 && d.present(n, 3) {
		if axes, ok = d.constInts(n, 3, "axes"); !ok {
			return res
		}
	}
	if len(pads) != 2*len(axes) {
		return d.fail(res, "pads %v need 2 values per padded axis (%d axes)", pads, len(axes))
	}
	out := append([]int64(nil), xs...)
	for i, a := range axes {
		ax, ok := normAxis(a, len(xs))
		if !ok {
			return d.fail(res, "axis %d is out of range for rank %d", a, len(xs))
		}
		pb, pe := pads[i], pads[i+len(axes)]
		if abs(pb) > 1<<40 || abs(pe) > 1<<40 {
			return d.fail(res, "pads %d and %d of axis %d are out of range", pb, pe, ax)
		}
		out[ax] += pb + pe
		if out[ax] < 0 {
			return d.fail(res, "pads %d and %d make axis %d (dim %d) negative", pb, pe, ax, xs[ax])
		}
	}
	res[0] = known(x.dt, out)
	return res
}

func (d *decoder) resize(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	if !xok {
		return res
	}
	scalesIn, sizesIn := 2, 3
	if n.op == "Upsample" || d.opset < 11 {
		scalesIn, sizesIn = 1, -1
	}
	axes, hasAxes := n.attrInts("axes")
	if !hasAxes {
		for i := range xs {
			axes = append(axes, int64(i))
		}
	}
	out := append([]int64(nil), xs...)
	if sizesIn > 0 && d.present(n, sizesIn) {
		sizes, ok := d.constInts(n, sizesIn, "sizes")
		if !ok {
			return res
		}
		if len(sizes) != len(axes) {
			return d.fail(res, "sizes %v need one value per axis of %v", sizes, axes)
		}
		policy := "stretch"
		if a := n.attr("keep_aspect_ratio_policy"); a != nil {
			policy = string(a.s)
		}
		// not_larger / not_smaller: one scale for all axes, the smallest
		// or largest of sizes/input, applied with rounding.
		var scale float32
		for i, a := range axes {
			ax, ok := normAxis(a, len(xs))
			if !ok || sizes[i] < 0 || sizes[i] > 1<<40 {
				return d.fail(res, "axis %d or its size %d is out of range for rank %d", a, sizes[i], len(xs))
			}
			out[ax] = sizes[i]
			if xs[ax] == 0 {
				continue
			}
			r := float32(sizes[i]) / float32(xs[ax])
			if i == 0 || (policy == "not_larger" && r < scale) || (policy == "not_smaller" && r > scale) {
				scale = r
			}
		}
		if policy == "not_larger" || policy == "not_smaller" {
			for _, a := range axes {
				ax, _ := normAxis(a, len(xs))
				out[ax] = int64(math.Round(float64(scale * float32(xs[ax]))))
			}
		}
		res[0] = known(x.dt, out)
		return res
	}
	var scales []float64
	if n.op == "Upsample" && d.opset < 9 {
		a := n.attr("scales")
		if a == nil {
			return d.fail(res, "it has no \"scales\" attribute")
		}
		for _, f := range a.floats {
			scales = append(scales, float64(f))
		}
	} else {
		t := d.in(n, scalesIn)
		switch {
		case t == nil:
			return d.fail(res, "it has neither scales nor sizes")
		case t.val == nil && t.ok:
			return d.fail(res, "input %d (scales) is not a constant memplan can compute", scalesIn)
		case t.val == nil:
			return res
		}
		for k := 0; k < t.val.len(); k++ {
			scales = append(scales, t.val.float(k))
		}
	}
	if len(scales) != len(axes) {
		return d.fail(res, "scales %v need one value per axis of %v", scales, axes)
	}
	for i, a := range axes {
		ax, ok := normAxis(a, len(xs))
		s := scales[i]
		if !ok || !(s >= 0) || s > 1<<20 {
			return d.fail(res, "axis %d or its scale %g is out of range for rank %d", a, s, len(xs))
		}
		// In float32, as onnxruntime computes it: 10 * 0.7f is 7, not 6.
		o := math.Floor(float64(float32(xs[ax]) * float32(s)))
		if o > 1<<50 {
			return d.fail(res, "axis %d: dim %d times scale %g is too large", ax, xs[ax], s)
		}
		out[ax] = int64(o)
	}
	res[0] = known(x.dt, out)
	return res
}

func (d *decoder) rangeOp(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return res
	}
	res[0].dt = x.dt
	var sv [3]*tval
	for i, what := range []string{"start", "limit", "delta"} {
		t := d.in(n, i)
		switch {
		case t == nil:
			return d.fail(res, "input %d (%s) is missing", i, what)
		case t.val == nil && t.ok:
			return d.fail(res, "input %d (%s) is not a constant memplan can compute", i, what)
		case t.val == nil:
			return res
		case t.val.len() != 1:
			return d.fail(res, "input %d (%s) has %d values, want 1", i, what, t.val.len())
		}
		sv[i] = t.val
	}
	start, limit, delta := sv[0].float(0), sv[1].float(0), sv[2].float(0)
	if delta == 0 || math.IsNaN(start+limit+delta) || math.Abs(start) > 1e15 || math.Abs(limit) > 1e15 {
		return d.fail(res, "start %g, limit %g and delta %g: delta must be non-zero and the bounds within 1e15", start, limit, delta)
	}
	fcnt := max(math.Ceil((limit-start)/delta), 0)
	if fcnt > 1<<50 {
		return d.fail(res, "start %g, limit %g and delta %g give %g elements", start, limit, delta, fcnt)
	}
	cnt := int64(fcnt)
	if !sv[0].isF && !sv[1].isF && !sv[2].isF {
		cnt = sliceCount(sv[0].i[0], sv[1].i[0], sv[2].i[0])
	}
	res[0] = known(x.dt, []int64{cnt})
	if cnt <= maxVal {
		v := &tval{isF: sv[0].isF}
		for k := int64(0); k < cnt; k++ {
			if v.isF {
				v.f = append(v.f, start+float64(k)*delta)
			} else {
				v.i = append(v.i, sv[0].i[0]+k*sv[2].i[0])
			}
		}
		res[0].val = v
	}
	return res
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
	sub := &decoder{file: d.file, m: d.m, g: g, opts: d.opts, opset: d.opset,
		symUsed: d.symUsed, unbound: d.unbound, depth: d.depth + 1, scope: scope}
	sub.infos = make(map[string]*tinfo, len(d.infos)+len(g.nodes))
	for k, v := range d.infos {
		sub.infos[k] = v
	}
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
		if t := sub.infos[o.name]; t != nil {
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

// einsumShape computes an Einsum output shape, with "..." broadcasting and
// the implicit output (letters used once, sorted) when there is no "->".
func einsumShape(eq string, shapes [][]int64) ([]int64, bool) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(shapes) {
		return nil, false
	}
	dims := map[byte]int64{}
	count := map[byte]int{}
	var ell []int64
	hasEll := false
	for i, term := range terms {
		s := shapes[i]
		before, after, dots := strings.Cut(term, "...")
		if !dots {
			before, after = term, ""
		}
		er := len(s) - len(before) - len(after)
		if er < 0 || (!dots && er != 0) {
			return nil, false
		}
		if dots {
			var ok bool
			if ell, ok = broadcast(ell, s[len(before):len(before)+er]); !ok {
				return nil, false
			}
			hasEll = true
		}
		letters := before + after
		for j := 0; j < len(letters); j++ {
			c := letters[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return nil, false
			}
			v := s[j]
			if j >= len(before) {
				v = s[j+er]
			}
			if old, seen := dims[c]; seen && old != v {
				switch {
				case old == 1:
				case v == 1:
					v = old
				default:
					return nil, false
				}
			}
			dims[c] = v
			count[c]++
		}
	}
	if !explicit {
		rhs = ""
		if hasEll {
			rhs = "..."
		}
		for c := byte('A'); c <= 'z'; c++ {
			if count[c] == 1 {
				rhs += string(c)
			}
		}
	}
	out := []int64{}
	for i := 0; i < len(rhs); {
		if strings.HasPrefix(rhs[i:], "...") {
			out = append(out, ell...)
			i += 3
			continue
		}
		v, ok := dims[rhs[i]]
		if !ok {
			return nil, false
		}
		out = append(out, v)
		i++
	}
	return out, true
}

// inferMicrosoft covers the onnxruntime contrib ops that optimized
// transformer exports use most.
func (d *decoder) inferMicrosoft(n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if x == nil || !xok {
		return res
	}
	switch n.op {
	case "Gelu", "FastGelu", "BiasGelu", "QuickGelu", "BiasAdd", "BiasDropout":
		res[0] = known(x.dt, xs)
	case "SkipLayerNormalization", "SkipSimplifiedLayerNormalization", "LayerNormalization", "SimplifiedLayerNormalization":
		res[0] = known(x.dt, xs)
		st := slices.Clone(xs)
		if len(st) > 0 {
			st[len(st)-1] = 1
		}
		for i := 1; i < len(res); i++ {
			if i == 3 { // SkipLayerNormalization's input + skip sum
				res[i] = known(x.dt, xs)
			} else {
				res[i] = known(tFloat, st)
			}
		}
	case "FusedMatMul":
		bs, bok := d.shape(n, 1)
		if !bok {
			return res
		}
		if len(xs) < 2 || len(bs) < 2 {
			return d.fail(res, "FusedMatMul needs inputs of rank 2 or more, got ranks %d and %d", len(xs), len(bs))
		}
		a, b := slices.Clone(xs), slices.Clone(bs)
		if n.attrInt("transA", 0) != 0 {
			a[len(a)-1], a[len(a)-2] = a[len(a)-2], a[len(a)-1]
		}
		if n.attrInt("transB", 0) != 0 {
			b[len(b)-1], b[len(b)-2] = b[len(b)-2], b[len(b)-1]
		}
		out, why := matmulShapeWhy(a, b)
		if why != "" {
			return d.fail(res, "FusedMatMul %s", why)
		}
		res[0] = known(x.dt, out)
	case "Attention":
		ws, wok := d.shape(n, 1)
		if !wok {
			return res
		}
		if len(xs) != 3 || len(ws) != 2 {
			return d.fail(res, "Attention needs rank-3 input and rank-2 weights, got ranks %d and %d", len(xs), len(ws))
		}
		h := ws[1] / 3
		if q, ok := n.attrInts("qkv_hidden_sizes"); ok && len(q) == 3 {
			h = q[2]
		}
		res[0] = known(x.dt, []int64{xs[0], xs[1], h})
	case "EmbedLayerNormalization":
		ws, wok := d.shape(n, 2)
		if !wok {
			return res
		}
		if len(xs) != 2 || len(ws) != 2 {
			return d.fail(res, "EmbedLayerNormalization needs rank-2 ids and word embeddings, got ranks %d and %d", len(xs), len(ws))
		}
		we := d.in(n, 2)
		res[0] = known(we.dt, []int64{xs[0], xs[1], ws[1]})
		if len(res) > 1 {
			res[1] = known(tInt32, []int64{xs[0]})
		}
		if len(res) > 2 {
			res[2] = known(we.dt, []int64{xs[0], xs[1], ws[1]})
		}
	default:
		return d.fail(res, "memplan has no shape rule for com.microsoft.%s; value_info in the file can give its outputs' shapes", clip(n.op))
	}
	return res
}
