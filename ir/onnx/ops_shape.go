package onnx

import (
	"fmt"
	"math"
	"slices"

	"memplan/ir"
)

// Shape and indexing ops: they move, pick or make elements; many are
// computed from constants (shape arithmetic), so their contents are folded.

var shapeRules = []ruleSet{
	{ops: []string{"TensorScatter"}, rule: ruleTensorScatter},
	{ops: []string{"Constant"}, rule: ruleConstant},
	{ops: []string{"Shape"}, rule: ruleShape},
	{ops: []string{"Size"}, rule: ruleSize},
	{ops: []string{"Concat"}, rule: (*decoder).concat},
	{ops: []string{"Split"}, rule: (*decoder).split},
	{ops: []string{"Reshape"}, rule: (*decoder).reshape},
	{ops: []string{"Flatten"}, rule: ruleFlatten},
	{ops: []string{"Transpose"}, rule: ruleTranspose},
	{ops: []string{"Squeeze", "Unsqueeze"}, rule: (*decoder).squeeze},
	{ops: []string{"Slice"}, rule: (*decoder).slice},
	{ops: []string{"Gather"}, rule: (*decoder).gather},
	{ops: []string{"GatherElements"}, rule: ruleGatherElements},
	{ops: []string{"ScatterND", "ScatterElements", "Scatter"}, rule: sameAsInput},
	{ops: []string{"Pad"}, rule: (*decoder).pad},
	{ops: []string{"CenterCropPad"}, rule: ruleCenterCropPad},
	{ops: []string{"Resize", "Upsample"}, rule: (*decoder).resize},
	{ops: []string{"ConstantOfShape"}, rule: (*decoder).constantOfShape},
	{ops: []string{"Expand"}, rule: ruleExpand},
	{ops: []string{"Tile"}, rule: ruleTile},
	{ops: []string{"Range"}, rule: (*decoder).rangeOp},
	{ops: []string{"DepthToSpace", "SpaceToDepth"}, rule: ruleDepthToSpace},
	{ops: []string{"EyeLike"}, rule: likeInput},
	{ops: []string{"GatherND"}, rule: ruleGatherND},
	{ops: []string{"OneHot"}, rule: ruleOneHot},
}

func ruleConstant(d *decoder, n *node, res []tinfo) []tinfo {
	set := func(t tinfo) []tinfo { res[0] = t; return res }
	t := d.constant(n)
	if !t.ok {
		return d.fail(res, "it has no value attribute with a tensor of non-negative dims")
	}
	return set(t)
}

func ruleShape(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
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
	return res
}

func ruleSize(d *decoder, n *node, res []tinfo) []tinfo {
	xs, xok := d.shape(n, 0)
	res[0] = known(tInt64, []int64{})
	if xok {
		res[0].val = &tval{i: []int64{numel(xs)}}
	}
	return res
}

func ruleFlatten(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		ax := n.attrInt("axis", 1)
		if ax < 0 {
			ax += int64(len(xs))
		}
		if ax < 0 || ax > int64(len(xs)) {
			return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", 1), len(xs))
		}
		res[0] = known(xdt, []int64{numel(xs[:ax]), numel(xs[ax:])})
		if res[0].ok {
			res[0].val = x.val
		}
	}
	return res
}

func ruleTranspose(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		perm, ok := n.attrInts("perm")
		if !ok {
			for i := len(xs) - 1; i >= 0; i-- {
				perm = append(perm, int64(i))
			}
		}
		out, ok := permute(xs, perm)
		if !ok {
			return d.bad(res, "perm %s is not a permutation of the %d axes", clipInts(perm), len(xs))
		}
		res[0] = known(xdt, out)
		res[0].val = transposeFold(x.val, xs, perm, out)
	}
	return res
}

func ruleGatherElements(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xdt := dtOf(x)
	if is, ok := d.shape(n, 1); ok && x != nil {
		res[0] = known(xdt, is)
	}
	return res
}

func ruleExpand(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	sv, ok := d.constInts(n, 1, "shape")
	if xok && ok {
		out, ok := broadcast(xs, sv)
		if !ok {
			return d.fail(res, "Expand to %v: %s", sv, whyBroadcast(xs, sv))
		}
		res[0] = known(xdt, out)
		res[0].val = expandFold(x.val, xs, out)
	}
	return res
}

func ruleTile(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
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
	return res
}

func ruleDepthToSpace(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	b := n.attrInt("blocksize", 0)
	if xok {
		if len(xs) != 4 {
			return d.fail(res, "%s needs rank 4, got rank %d", n.op, len(xs))
		}
		if b <= 0 || b >= 1<<16 {
			return d.fail(res, "blocksize %d is out of range", b)
		}
		// mulOK gives -1 on overflow, which known refuses.
		switch {
		case n.op == "DepthToSpace" && xs[1]%(b*b) != 0:
			return d.fail(res, "channels %d do not divide by blocksize² %d", xs[1], b*b)
		case n.op == "DepthToSpace":
			res[0] = known(xdt, []int64{xs[0], xs[1] / (b * b), mulOK(xs[2], b), mulOK(xs[3], b)})
		case xs[2]%b != 0 || xs[3]%b != 0:
			return d.fail(res, "height %d and width %d must divide by blocksize %d", xs[2], xs[3], b)
		default:
			res[0] = known(xdt, []int64{xs[0], mulOK(mulOK(xs[1], b), b), xs[2] / b, xs[3] / b})
		}
	}
	return res
}

func ruleGatherND(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
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
	return res
}

func ruleOneHot(d *decoder, n *node, res []tinfo) []tinfo {

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
			return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -1), len(is)+1)
		}
		out := slices.Insert(slices.Clone(is), ax, dv[0])
		res[0] = known(vals.dt, out)
	}
	return res
}

func clampIndex(i, r int64) int64 {
	if i < 0 {
		i += r
	}
	return min(max(i, 0), r)
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
	out, ax, ok := d.concatShape(n, shapes)
	if !ok {
		return res
	}
	res[0] = known(dt, out)
	if res[0].ok && numel(out) <= maxVal {
		res[0].val = concatFold(vals, shapes, ax)
	}
	return res
}

// concatShape joins shapes along n's axis attribute, recording why with
// d.fail (d.bad for an axis out of range) when they do not join.
func (d *decoder) concatShape(n *node, shapes [][]int64) ([]int64, int, bool) {
	r := len(shapes[0])
	ax, ok := normAxis(n.attrInt("axis", 0), r)
	if !ok {
		d.bad(nil, "axis %d is out of range for rank %d", n.attrInt("axis", 0), r)
		return nil, 0, false
	}
	out := append([]int64(nil), shapes[0]...)
	out[ax] = 0
	for k, s := range shapes {
		if len(s) != r {
			d.fail(nil, "%s needs inputs of equal rank: input %d has rank %d, input 0 rank %d", n.op, k, len(s), r)
			return nil, 0, false
		}
		for i := range s {
			if i != ax && s[i] != out[i] {
				d.fail(nil, "%s along axis %d needs equal dims elsewhere: dim %d is %d vs %d", n.op, ax, i, out[i], s[i])
				return nil, 0, false
			}
		}
		var err error
		if out[ax], err = ir.AddSize(out[ax], s[ax]); err != nil {
			d.fail(nil, "%s along axis %d: the sum of the dims %v", n.op, ax, err) // "exceeds memplan's limit…"
			return nil, 0, false
		}
	}
	return out, ax, true
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
		return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", 0), len(xs))
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
				return d.bad(res, "axis %d is out of range for rank %d", a, len(xs))
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
				return d.bad(res, "axis %d is out of range for the output rank %d", a, r)
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
		return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", 0), len(xs))
	}
	out := append(append(append([]int64(nil), xs[:ax]...), is...), xs[ax+1:]...)
	res[0] = known(x.dt, out)
	if idx, ok := d.ints(n, 1); ok && x.val != nil && res[0].ok && numel(out) <= maxVal {
		res[0].val = gatherFold(x.val, xs, ax, idx)
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
			return d.bad(res, "axis %d is out of range for rank %d", a, len(xs))
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

// ruleTensorScatter: opset 24's cache update writes update's rows into a
// copy of past_cache along axis (default -2); present_cache is shaped as
// the past.
func ruleTensorScatter(d *decoder, n *node, res []tinfo) []tinfo {
	past := d.in(n, 0)
	ps, pok := d.shape(n, 0)
	if !pok {
		return res
	}
	ax, ok := normAxis(n.attrInt("axis", -2), len(ps))
	if !ok {
		return d.bad(res, "axis %d is out of range for rank %d", n.attrInt("axis", -2), len(ps))
	}
	if us, ok := d.shape(n, 1); ok {
		bad := len(us) != len(ps)
		for i := 0; !bad && i < len(us); i++ {
			bad = i != ax && us[i] != ps[i] || i == ax && us[i] > ps[i]
		}
		if bad {
			return d.fail(res, "the update %v must match the cache %v except along axis %d, where it may be shorter", us, ps, ax)
		}
	}
	res[0] = known(past.dt, ps)
	return res
}

// clipInts prints a list of ints, its middle elided past a few: an
// attribute may hold 200,000 of them.
func clipInts(v []int64) string {
	const show = 8
	if len(v) <= show {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v … %v (%d values)", v[:show/2], v[len(v)-show/2:], len(v))
}

// ruleCenterCropPad: the input with the dims along axes (all of them when
// the attribute is absent) set to the shape input's values, which must be
// a constant.
func ruleCenterCropPad(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (input_data) is missing")
	}
	res[0].dt = x.dt
	if len(n.inputs) != 2 || n.inputs[1] == "" {
		return d.bad(res, "CenterCropPad needs 2 inputs (input_data, shape), this node has %d", len(n.inputs))
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	want, ok := d.constInts(n, 1, "shape")
	if !ok {
		return res
	}
	axes, has := n.attrInts("axes")
	if !has {
		axes = make([]int64, len(xs))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	if len(want) != len(axes) {
		return d.bad(res, "input 1 (shape) has %d values for %d axes", len(want), len(axes))
	}
	out := slices.Clone(xs)
	seen := make([]bool, len(xs))
	for i, a := range axes {
		ax, ok := normAxis(a, len(xs))
		switch {
		case !ok:
			return d.bad(res, "axis %d is out of range for rank %d", a, len(xs))
		case seen[ax]:
			return d.bad(res, "axis %d is listed twice", a)
		case want[i] < 0:
			return d.bad(res, "input 1 (shape) %v holds a negative size", want)
		}
		seen[ax] = true
		out[ax] = want[i]
	}
	res[0] = known(x.dt, out)
	return res
}
