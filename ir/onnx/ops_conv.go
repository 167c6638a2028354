package onnx

import (
	"fmt"
	"slices"

	"memplan/ir"
)

// Convolution and pooling ops, and the spatial samplers beside them.

var convRules = []ruleSet{
	{ops: []string{"Conv", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "ConvTranspose"}, rule: (*decoder).convPool},
	{ops: []string{"MaxUnpool"}, rule: ruleMaxUnpool},
	{ops: []string{"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}, rule: ruleGlobalAveragePool},
	{ops: []string{"RoiAlign"}, rule: ruleRoiAlign},
	{ops: []string{"GridSample"}, rule: ruleGridSample},
	{ops: []string{"DeformConv"}, rule: (*decoder).convPool},
	// onnxruntime fuses Conv and its activation (and an optional sum Z).
	{domains: []string{msDomain}, ops: []string{"FusedConv"}, rule: (*decoder).convPool},
	{ops: []string{"Col2Im"}, rule: ruleCol2Im},
	{ops: []string{"AffineGrid"}, rule: ruleAffineGrid},
}

// convOps are the ops convPool treats as convolutions: weights give the
// output channels and, lacking kernel_shape, the kernel.
var convOps = map[string]bool{"Conv": true, "ConvInteger": true, "QLinearConv": true, "ConvTranspose": true, "DeformConv": true, "FusedConv": true}

func ruleGlobalAveragePool(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		if len(xs) < 2 {
			return d.fail(res, "%s needs rank 2 or more, got rank %d", n.op, len(xs))
		}
		out := append([]int64(nil), xs...)
		for i := 2; i < len(out); i++ {
			out[i] = 1
		}
		res[0] = known(xdt, out)
	}
	return res
}

func ruleRoiAlign(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	rs, rok := d.shape(n, 1)
	if xok && rok {
		if len(xs) != 4 || len(rs) != 2 {
			return d.fail(res, "RoiAlign needs rank-4 data and rank-2 rois, got ranks %d and %d", len(xs), len(rs))
		}
		res[0] = known(xdt, []int64{rs[0], xs[1], n.attrInt("output_height", 1), n.attrInt("output_width", 1)})
	}
	return res
}

func ruleGridSample(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	gs, gok := d.shape(n, 1)
	if xok && gok {
		if len(xs) < 3 || len(gs) != len(xs) {
			return d.fail(res, "GridSample needs data and grid of the same rank 3 or more, got ranks %d and %d", len(xs), len(gs))
		}
		res[0] = known(xdt, append([]int64{xs[0], xs[1]}, gs[1:len(gs)-1]...))
	}
	return res
}

func (d *decoder) convPool(n *node, res []tinfo) []tinfo {
	xs, ok := d.shape(n, 0)
	x := d.in(n, 0)
	// QLinearConv's output has the type of y_zero_point (input 7).
	if x != nil {
		res[0].dt = x.dt
		switch n.op {
		case "ConvInteger":
			res[0].dt = tInt32
		case "QLinearConv":
			if len(n.inputs) < 8 || n.inputs[7] == "" {
				return d.bad(res, "QLinearConv needs 8 or 9 inputs (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, optional B), this node has %d", len(n.inputs))
			}
			res[0].dt = dtOf(d.in(n, 7))
		}
	}
	if !ok {
		return res
	}
	return d.convPoolShape(n, xs, res)
}

// convPoolShape gives output 0 (and MaxPool's indices) the shape a
// convolution or pooling of xs, laid out [N, C, spatial...], takes; res[0]
// already holds the output's type.
func (d *decoder) convPoolShape(n *node, xs []int64, res []tinfo) []tinfo {
	if len(xs) < 3 {
		return d.fail(res, "%s needs rank 3 or more, got rank %d", n.op, len(xs))
	}
	sp := len(xs) - 2
	// QLinearConv's weights are input 3, after x's scale and zero point.
	wi := 1
	if n.op == "QLinearConv" {
		wi = 3
	}
	isConv := convOps[n.op]
	kernel, hasK := n.attrInts("kernel_shape")
	ch := xs[1]
	if isConv {
		if wi >= len(n.inputs) || n.inputs[wi] == "" {
			return d.bad(res, "input %d (W, the weights) is missing", wi)
		}
		ws, wok := d.shape(n, wi)
		if !wok {
			return res
		}
		if len(ws) != len(xs) {
			return d.fail(res, "the weights' rank %d differs from the data's rank %d", len(ws), len(xs))
		}
		if n.op == "QLinearConv" {
			if why := qconvWhy(d, n, xs, ws); why != "" {
				return d.bad(res, "%s", why)
			}
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

// qconvWhy checks what QLinearConv adds to Conv: the weights' input
// channels times group are the data's channels, and the bias, if any, has
// one value per output channel.
func qconvWhy(d *decoder, n *node, xs, ws []int64) string {
	g := n.attrInt("group", 1)
	if g < 1 {
		return fmt.Sprintf("group %d must be 1 or more", g)
	}
	if c := mulOK(ws[1], g); c != xs[1] {
		return fmt.Sprintf("the weights %v take %d input channels × group %d, but the data %v has %d channels", ws, ws[1], g, xs, xs[1])
	}
	if ws[0]%g != 0 {
		return fmt.Sprintf("the weights' %d output channels do not divide into group %d", ws[0], g)
	}
	if d.present(n, 8) {
		if bs, ok := d.shape(n, 8); ok && !slices.Equal(bs, ws[:1]) {
			return fmt.Sprintf("input 8 (B) has shape %v, want [%d], one value per output channel", bs, ws[0])
		}
	}
	return ""
}

// ruleMaxUnpool: the inverse of MaxPool. Each spatial dim is
// (in-1)*stride + kernel - pad_begin - pad_end, unless the output_shape
// input (a constant) gives the whole shape.
func ruleMaxUnpool(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (X) is missing")
	}
	res[0].dt = x.dt
	if len(n.inputs) < 2 || n.inputs[1] == "" {
		return d.bad(res, "input 1 (I, the indices MaxPool gave) is missing")
	}
	xs, xok := d.shape(n, 0)
	is, iok := d.shape(n, 1)
	if !xok || !iok {
		return res
	}
	if len(xs) < 3 {
		return d.bad(res, "MaxUnpool needs data of rank 3 or more, got rank %d", len(xs))
	}
	if !slices.Equal(xs, is) {
		return d.bad(res, "the indices' shape %v differs from the data's %v", is, xs)
	}
	sp := len(xs) - 2
	kernel, ok := n.attrInts("kernel_shape")
	if !ok || len(kernel) != sp {
		return d.bad(res, "kernel_shape %v needs %d values, one per spatial axis", kernel, sp)
	}
	strides, ok := n.attrInts("strides")
	if !ok || len(strides) == 0 {
		strides = slices.Repeat([]int64{1}, sp)
	}
	pads, ok := n.attrInts("pads")
	if !ok || len(pads) == 0 {
		pads = make([]int64, 2*sp)
	}
	if len(strides) != sp || len(pads) != 2*sp {
		return d.bad(res, "strides %v and pads %v need %d and %d values", strides, pads, sp, 2*sp)
	}
	if d.present(n, 2) {
		os, ok := d.constInts(n, 2, "output_shape")
		if !ok {
			return res
		}
		if len(os) != len(xs) || slices.ContainsFunc(os, func(v int64) bool { return v < 0 }) {
			return d.bad(res, "input 2 (output_shape) is %v; it needs %d dims, none negative", os, len(xs))
		}
		if os[0] != xs[0] || os[1] != xs[1] {
			return d.bad(res, "input 2 (output_shape) %v must keep the data's batch %d and channels %d", os, xs[0], xs[1])
		}
		res[0] = known(x.dt, os)
		return res
	}
	out := []int64{xs[0], xs[1]}
	for i := 0; i < sp; i++ {
		k, s, pb, pe := kernel[i], strides[i], pads[i], pads[i+sp]
		if k < 1 || s < 1 || pb < 0 || pe < 0 {
			return d.bad(res, "spatial axis %d: kernel %d and stride %d must be 1 or more, pads %d and %d not negative", i, k, s, pb, pe)
		}
		if xs[i+2] == 0 {
			return d.bad(res, "spatial axis %d of the data is empty", i)
		}
		o, err := ir.MulSize(xs[i+2]-1, s)
		if err == nil {
			o, err = ir.AddSize(o, k)
		}
		if err != nil {
			return d.bad(res, "spatial axis %d: (%d-1)×stride %d + kernel %d: %v", i, xs[i+2], s, k, err)
		}
		p, err := ir.AddSize(pb, pe)
		if err != nil || o <= p {
			return d.bad(res, "spatial axis %d: pads %d and %d leave no output", i, pb, pe)
		}
		out = append(out, o-p)
	}
	res[0] = known(x.dt, out)
	return res
}

// ruleCol2Im: columns [N, C·∏block, L] back to an image [N, C,
// image_shape...]. image_shape and block_shape must be constants, and L
// must be the number of blocks that fit the padded image.
func ruleCol2Im(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (input) is missing")
	}
	res[0].dt = x.dt
	if len(n.inputs) != 3 {
		return d.bad(res, "Col2Im needs 3 inputs (input, image_shape, block_shape), this node has %d", len(n.inputs))
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	img, ok1 := d.constInts(n, 1, "image_shape")
	blk, ok2 := d.constInts(n, 2, "block_shape")
	if !ok1 || !ok2 {
		return res
	}
	sp := len(img)
	if len(xs) != 3 {
		return d.bad(res, "Col2Im needs input [N, C·∏block_shape, L] of rank 3, got rank %d", len(xs))
	}
	if sp == 0 || len(blk) != sp {
		return d.bad(res, "image_shape %v and block_shape %v need the same number of spatial dims, 1 or more", img, blk)
	}
	get := func(name string, def int64, count int) ([]int64, bool) {
		v, ok := n.attrInts(name)
		if !ok || len(v) == 0 {
			return slices.Repeat([]int64{def}, count), true
		}
		return v, len(v) == count
	}
	strides, ok1 := get("strides", 1, sp)
	dil, ok2 := get("dilations", 1, sp)
	pads, ok3 := get("pads", 0, 2*sp)
	if !ok1 || !ok2 || !ok3 {
		return d.bad(res, "strides %v, dilations %v and pads %v need %d, %d and %d values", strides, dil, pads, sp, sp, 2*sp)
	}
	prod, blocks := int64(1), int64(1)
	for i := 0; i < sp; i++ {
		im, b, s, dl, pb, pe := img[i], blk[i], strides[i], dil[i], pads[i], pads[i+sp]
		// Bounded so the sums below stay far from overflow.
		if im < 1 || pb < 0 || pe < 0 || max(im, pb, pe) > 1<<40 || b < 1 || s < 1 || dl < 1 || max(b, s, dl) > 1<<20 {
			return d.bad(res, "spatial axis %d: image %d must be in [1, 2^40], pads %d and %d in [0, 2^40], block %d, stride %d and dilation %d in [1, 2^20]", i, im, pb, pe, b, s, dl)
		}
		span := im + pb + pe - ((b-1)*dl + 1)
		if span < 0 {
			return d.bad(res, "spatial axis %d: the block's extent %d exceeds the padded image %d", i, (b-1)*dl+1, im+pb+pe)
		}
		var err error
		if prod, err = ir.MulSize(prod, b); err == nil {
			blocks, err = ir.MulSize(blocks, span/s+1)
		}
		if err != nil {
			return d.bad(res, "spatial axis %d: %v", i, err)
		}
	}
	if xs[1]%prod != 0 {
		return d.bad(res, "input dim 1 is %d, not a multiple of the block's %d elements", xs[1], prod)
	}
	if xs[2] != blocks {
		return d.bad(res, "input dim 2 is %d, but %d blocks fit image_shape %v", xs[2], blocks, img)
	}
	res[0] = known(x.dt, append([]int64{xs[0], xs[1] / prod}, img...))
	return res
}

// ruleAffineGrid: theta [N, 2, 3] and size [N, C, H, W] give the grid
// [N, H, W, 2]; theta [N, 3, 4] and size [N, C, D, H, W] give [N, D, H,
// W, 3]. size must be a constant.
func ruleAffineGrid(d *decoder, n *node, res []tinfo) []tinfo {
	th := d.in(n, 0)
	if th == nil {
		return d.bad(res, "input 0 (theta) is missing")
	}
	res[0].dt = th.dt
	if len(n.inputs) != 2 {
		return d.bad(res, "AffineGrid needs 2 inputs (theta, size), this node has %d", len(n.inputs))
	}
	ts, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	size, ok := d.constInts(n, 1, "size")
	if !ok {
		return res
	}
	if len(size) != 4 && len(size) != 5 {
		return d.bad(res, "input 1 (size) is %v; it needs 4 values (N, C, H, W) or 5 (N, C, D, H, W)", size)
	}
	sp := int64(len(size) - 2)
	if want := []int64{size[0], sp, sp + 1}; !slices.Equal(ts, want) {
		return d.bad(res, "theta has shape %v; size %v needs %v", ts, size, want)
	}
	if slices.ContainsFunc(size, func(v int64) bool { return v < 0 }) {
		return d.bad(res, "input 1 (size) %v holds a negative size", size)
	}
	res[0] = known(th.dt, append(append([]int64{size[0]}, size[2:]...), sp))
	return res
}
