package onnx

// Data-dependent sizes: ops whose output length counts something in their
// inputs' values (true conditions, non-zero or distinct elements, boxes
// kept). memplan knows those values only for constants; otherwise the
// rule gives the outputs' types and says the size is known at run time.

var dataRules = []ruleSet{
	{ops: []string{"Compress"}, rule: ruleCompress},
	{ops: []string{"NonZero"}, rule: ruleNonZero},
	{ops: []string{"Unique"}, rule: ruleUnique},
	{ops: []string{"NonMaxSuppression"}, rule: ruleNonMaxSuppression},
}

// runTime records that output sizes depend on the values of input i.
func (d *decoder) runTime(res []tinfo, i int, what string) []tinfo {
	return d.fail(res, "its output's length is %s, which depends on the values of input %d, known only at run time", what, i)
}

// ruleCompress: the elements (or slices along axis) whose condition is
// true; with a constant condition, the count of its true values.
func ruleCompress(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (the data) is missing")
	}
	res[0].dt = x.dt
	cs, cok := d.shape(n, 1)
	if !cok {
		if d.in(n, 1) == nil {
			return d.bad(res, "input 1 (the condition) is missing")
		}
		return res
	}
	if len(cs) != 1 {
		return d.bad(res, "input 1 (the condition) has shape %v; it must be 1-D", cs)
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	// Without an axis the data is flattened.
	span, ax := numel(xs), -1
	if a := n.attr("axis"); a != nil {
		var ok bool
		if ax, ok = normAxis(a.i, len(xs)); !ok {
			return d.bad(res, "axis %d is out of range for rank %d", a.i, len(xs))
		}
		span = xs[ax]
	}
	if cs[0] > span {
		return d.bad(res, "the condition has %d values, more than the %d it selects among", cs[0], span)
	}
	cond, ok := d.ints(n, 1)
	if !ok {
		return d.runTime(res, 1, "the number of true conditions")
	}
	kept := int64(0)
	for _, c := range cond {
		if c != 0 {
			kept++
		}
	}
	if ax < 0 {
		res[0] = known(x.dt, []int64{kept})
		return res
	}
	out := append([]int64(nil), xs...)
	out[ax] = kept
	res[0] = known(x.dt, out)
	return res
}

// ruleNonZero: [rank, count of non-zero elements], int64.
func ruleNonZero(d *decoder, n *node, res []tinfo) []tinfo {
	res[0].dt = tInt64
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	vals, ok := d.ints(n, 0)
	if !ok {
		return d.runTime(res, 0, "the number of non-zero elements")
	}
	nz := int64(0)
	for _, v := range vals {
		if v != 0 {
			nz++
		}
	}
	res[0] = known(tInt64, []int64{int64(len(xs)), nz})
	return res
}

// ruleUnique gives its outputs' types: Y the input's, the index and count
// outputs int64; their lengths count distinct values.
func ruleUnique(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (X) is missing")
	}
	res[0].dt = x.dt
	for i := 1; i < len(res); i++ {
		res[i].dt = tInt64
	}
	if xs, ok := d.shape(n, 0); ok {
		if a := n.attr("axis"); a != nil {
			if _, ok := normAxis(a.i, len(xs)); !ok {
				return d.bad(res, "axis %d is out of range for rank %d", a.i, len(xs))
			}
		}
	}
	return d.runTime(res, 0, "the number of distinct values")
}

// ruleNonMaxSuppression: [boxes kept, 3] int64; it checks the boxes
// [batch, boxes, 4] against the scores [batch, classes, boxes].
func ruleNonMaxSuppression(d *decoder, n *node, res []tinfo) []tinfo {
	res[0].dt = tInt64
	bs, bok := d.shape(n, 0)
	ss, sok := d.shape(n, 1)
	if !bok || !sok {
		return res
	}
	if len(bs) != 3 || bs[2] != 4 || len(ss) != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
		return d.bad(res, "the boxes %v must be [batch, boxes, 4] and the scores %v [batch, classes, boxes]", bs, ss)
	}
	if c := n.attrInt("center_point_box", 0); c != 0 && c != 1 {
		return d.bad(res, "center_point_box is %d; it must be 0 or 1", c)
	}
	return d.runTime(res, 1, "the number of boxes kept")
}
