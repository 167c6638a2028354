package onnx

import "math"

// Constant folding of small tensors, so that shape arithmetic such as
// Shape -> Gather -> Concat -> Reshape resolves to concrete dims. Every
// function returns nil when it cannot compute the result exactly.

func (v *tval) at(k int) (int64, float64) {
	if v.isF {
		return 0, v.f[k]
	}
	return v.i[k], float64(v.i[k])
}

func (v *tval) push(src *tval, k int) {
	if v.isF {
		v.f = append(v.f, src.f[k])
	} else {
		v.i = append(v.i, src.i[k])
	}
}

func unravel(k int64, shape []int64, idx []int64) {
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 0 {
			idx[i] = k % shape[i]
			k /= shape[i]
		}
	}
}

// bcastIndex maps each flat index of out to the flat index in a tensor of
// shape in that broadcasts to it.
func bcastIndex(out, in []int64) []int {
	n := numel(out)
	res := make([]int, 0, n)
	idx := make([]int64, len(out))
	off := len(out) - len(in)
	for k := int64(0); k < n; k++ {
		unravel(k, out, idx)
		src := int64(0)
		for i, d := range in {
			j := idx[off+i]
			if d == 1 {
				j = 0
			}
			src = src*d + j
		}
		res = append(res, int(src))
	}
	return res
}

func unaryFold(op string, v *tval) *tval {
	if v == nil {
		return nil
	}
	out := &tval{isF: v.isF}
	for k := 0; k < v.len(); k++ {
		i, f := v.at(k)
		switch op {
		case "Identity":
			return v
		case "Neg":
			i, f = -i, -f
		case "Abs":
			i, f = abs(i), math.Abs(f)
		case "Floor":
			f = math.Floor(f)
		case "Ceil":
			f = math.Ceil(f)
		case "Sqrt":
			if !v.isF {
				return nil
			}
			f = math.Sqrt(f)
		}
		if v.isF {
			out.f = append(out.f, f)
		} else {
			out.i = append(out.i, i)
		}
	}
	return out
}

func castFold(v *tval, to int64) *tval {
	if v == nil || to == tString || to == 0 {
		return nil
	}
	switch to {
	case tInt4, tUint4, tFloat4E2M1, tFloat8E4M3FN, tFloat8E4M3FNUZ, tFloat8E5M2, tFloat8E5M2FNUZ, tFloat8E8M0:
		return nil // values in these narrow types are not modelled: no shape comes from them
	}
	out := &tval{isF: isFloat(to)}
	for k := 0; k < v.len(); k++ {
		i, f := v.at(k)
		if out.isF {
			if to == tFloat {
				f = float64(float32(f))
			}
			out.f = append(out.f, f)
			continue
		}
		if v.isF {
			if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
				return nil
			}
			i = int64(f)
			if to == tBool && f != 0 {
				i = 1
			}
		}
		switch to {
		case tBool:
			if i != 0 {
				i = 1
			}
		case tInt32:
			i = int64(int32(i))
		case tInt16:
			i = int64(int16(i))
		case tInt8:
			i = int64(int8(i))
		case tUint8:
			i = int64(uint8(i))
		case tUint16:
			i = int64(uint16(i))
		case tUint32:
			i = int64(uint32(i))
		}
		out.i = append(out.i, i)
	}
	return out
}

// foldElementwise computes a broadcasting op on known inputs.
func (d *decoder) foldElementwise(n *node, out []int64, dt int64) *tval {
	cnt := numel(out)
	if cnt < 0 || cnt > maxVal {
		return nil
	}
	var vals []*tval
	anyF := false
	for i := range n.inputs {
		t := d.in(n, i)
		if t == nil || t.val == nil || int64(t.val.len()) != numel(t.shape) {
			return nil
		}
		if t.val.isF && !(n.op == "Where" && i == 0) {
			anyF = true
		}
		vals = append(vals, t.val)
	}
	if len(vals) == 0 || !d.charge(cnt*int64(len(vals))) { // an index map per input
		return nil
	}
	maps := make([][]int, len(vals))
	for i := range vals {
		maps[i] = bcastIndex(out, d.info(n.inputs[i]).shape)
	}
	fmod := n.attrInt("fmod", 0) != 0
	res := &tval{isF: isFloat(dt)}
	for k := 0; k < int(cnt); k++ {
		var ri int64
		var rf float64
		get := func(j int) (int64, float64) { return vals[j].at(maps[j][k]) }
		ai, af := get(0)
		var bi int64
		var bf float64
		if len(vals) > 1 {
			bi, bf = get(1)
		}
		b2i := func(b bool) int64 {
			if b {
				return 1
			}
			return 0
		}
		switch n.op {
		case "Add", "Sum":
			ri, rf = ai, af
			for j := 1; j < len(vals); j++ {
				x, y := get(j)
				ri, rf = ri+x, rf+y
			}
		case "Sub":
			ri, rf = ai-bi, af-bf
		case "Mul":
			ri, rf = ai*bi, af*bf
		case "Div":
			if !anyF {
				if bi == 0 {
					return nil
				}
				ri = ai / bi
			}
			rf = af / bf
		case "Mod":
			if !anyF {
				if bi == 0 {
					return nil
				}
				ri = ai % bi
				if !fmod && ri != 0 && (ri < 0) != (bi < 0) {
					ri += bi
				}
			}
			rf = math.Mod(af, bf)
			if !fmod && rf != 0 && (rf < 0) != (bf < 0) {
				rf += bf
			}
		case "Min", "Max":
			ri, rf = ai, af
			for j := 1; j < len(vals); j++ {
				x, y := get(j)
				if (n.op == "Min") == (y < rf) && y != rf {
					ri, rf = x, y
				}
			}
		case "Equal":
			if anyF {
				ri = b2i(af == bf)
			} else {
				ri = b2i(ai == bi)
			}
		case "Less":
			ri = b2i(af < bf)
			if !anyF {
				ri = b2i(ai < bi)
			}
		case "Greater":
			ri = b2i(af > bf)
			if !anyF {
				ri = b2i(ai > bi)
			}
		case "LessOrEqual":
			ri = b2i(af <= bf)
			if !anyF {
				ri = b2i(ai <= bi)
			}
		case "GreaterOrEqual":
			ri = b2i(af >= bf)
			if !anyF {
				ri = b2i(ai >= bi)
			}
		case "And":
			ri = b2i(ai != 0 && bi != 0)
		case "Or":
			ri = b2i(ai != 0 || bi != 0)
		case "Xor":
			ri = b2i((ai != 0) != (bi != 0))
		case "Not":
			ri = b2i(ai == 0)
		case "Where":
			if len(vals) != 3 {
				return nil
			}
			ci, _ := get(0)
			ri, rf = get(1)
			if ci == 0 {
				ri, rf = get(2)
			}
		default:
			return nil
		}
		if res.isF {
			if !anyF && n.op != "Where" {
				rf = float64(ri)
			}
			res.f = append(res.f, rf)
		} else {
			if anyF && !boolOps[n.op] {
				return nil // float arithmetic into an integer tensor: not exact
			}
			res.i = append(res.i, ri)
		}
	}
	return res
}

func concatFold(vals []*tval, shapes [][]int64, ax int) *tval {
	if len(vals) == 0 || vals[0] == nil {
		return nil
	}
	out := &tval{isF: vals[0].isF}
	for i, v := range vals {
		if v == nil || v.isF != out.isF || int64(v.len()) != numel(shapes[i]) {
			return nil
		}
	}
	outer := numel(shapes[0][:ax])
	for o := int64(0); o < outer; o++ {
		for i, v := range vals {
			chunk := numel(shapes[i][ax:])
			for k := o * chunk; k < (o+1)*chunk; k++ {
				out.push(v, int(k))
			}
		}
	}
	return out
}

// sliceFold copies the elements of a sliced tensor: along each axis in
// axes, element j of the output is element starts+j*steps of the input.
func sliceFold(v *tval, xs []int64, axes []int, starts, steps []int64, out []int64) *tval {
	cnt := numel(out)
	if v == nil || cnt < 0 || cnt > maxVal || int64(v.len()) != numel(xs) {
		return nil
	}
	res := &tval{isF: v.isF}
	idx := make([]int64, len(out))
	for k := int64(0); k < cnt; k++ {
		unravel(k, out, idx)
		for i, ax := range axes {
			idx[ax] = starts[i] + idx[ax]*steps[i]
		}
		src := int64(0)
		for i, d := range xs {
			if idx[i] < 0 || idx[i] >= d {
				return nil
			}
			src = src*d + idx[i]
		}
		res.push(v, int(src))
	}
	return res
}

func gatherFold(v *tval, xs []int64, ax int, idx []int64) *tval {
	if int64(v.len()) != numel(xs) {
		return nil
	}
	outer, dim, inner := numel(xs[:ax]), xs[ax], numel(xs[ax+1:])
	res := &tval{isF: v.isF}
	for o := int64(0); o < outer; o++ {
		for _, j := range idx {
			if j < 0 {
				j += dim
			}
			if j < 0 || j >= dim {
				return nil
			}
			for k := (o*dim + j) * inner; k < (o*dim+j+1)*inner; k++ {
				res.push(v, int(k))
			}
		}
	}
	return res
}

func reduceFold(op string, v *tval, xs []int64, red []bool, outN int64) *tval {
	if outN < 0 || outN > maxVal || int64(v.len()) != numel(xs) {
		return nil
	}
	res := &tval{i: make([]int64, outN)}
	seen := make([]bool, outN)
	idx := make([]int64, len(xs))
	for k := 0; k < v.len(); k++ {
		unravel(int64(k), xs, idx)
		o := int64(0)
		for i, d := range xs {
			if !red[i] {
				o = o*d + idx[i]
			}
		}
		x, r := v.i[k], &res.i[o]
		switch {
		case !seen[o]:
			*r = x
		case op == "ReduceProd":
			*r *= x
		case op == "ReduceSum":
			*r += x
		case op == "ReduceMin":
			*r = min(*r, x)
		case op == "ReduceMax":
			*r = max(*r, x)
		}
		seen[o] = true
	}
	for o, s := range seen {
		if !s { // reducing an empty axis
			switch op {
			case "ReduceProd":
				res.i[o] = 1
			case "ReduceSum":
				res.i[o] = 0
			default:
				return nil
			}
		}
	}
	return res
}

func expandFold(v *tval, xs, out []int64) *tval {
	cnt := numel(out)
	if v == nil || cnt < 0 || cnt > maxVal || int64(v.len()) != numel(xs) {
		return nil
	}
	res := &tval{isF: v.isF}
	for _, k := range bcastIndex(out, xs) {
		res.push(v, k)
	}
	return res
}

func transposeFold(v *tval, xs, perm, out []int64) *tval {
	cnt := numel(out)
	if v == nil || cnt < 0 || cnt > maxVal || int64(v.len()) != numel(xs) {
		return nil
	}
	res := &tval{isF: v.isF}
	idx := make([]int64, len(out))
	src := make([]int64, len(xs))
	for k := int64(0); k < cnt; k++ {
		unravel(k, out, idx)
		for i, p := range perm {
			src[p] = idx[i]
		}
		flat := int64(0)
		for i, d := range xs {
			flat = flat*d + src[i]
		}
		res.push(v, int(flat))
	}
	return res
}
