package onnx

import (
	"fmt"

	"memplan/ir"
)

// Signal processing: Fourier transforms and the windows and filter banks
// that feed them (audio front ends: spectrograms, mel features). Their
// sizes come from input shapes and from small scalar inputs, which must
// be constants for the shape to be known before the run.

var signalRules = []ruleSet{
	{ops: []string{"DFT"}, rule: ruleDFT},
	{ops: []string{"STFT"}, rule: ruleSTFT},
	{ops: []string{"HannWindow", "HammingWindow", "BlackmanWindow"}, rule: ruleWindow},
	{ops: []string{"MelWeightMatrix"}, rule: ruleMelWeightMatrix},
}

// constScalar is the value of input i, a scalar the shape depends on; ok
// is false when it is unknown (the reason recorded) or not one value (the
// node marked invalid).
func (d *decoder) constScalar(n *node, i int, what string) (int64, bool) {
	v, ok := d.constInts(n, i, what)
	if !ok {
		return 0, false
	}
	if len(v) != 1 {
		d.bad(nil, "input %d (%s) must hold one value, it holds %d", i, what, len(v))
		return 0, false
	}
	return v[0], true
}

// ruleDFT: the output is the input's shape with its last dim 2 (complex)
// and the transformed axis dft_length long (the axis's own length when
// no dft_length is given), or dft_length/2+1 when onesided; a one-sided
// inverse gives a real signal (last dim 1). Opset 17 names
// the axis by attribute (default 1), opset 20 by an optional scalar input
// (default -2); either way it is neither the last dim nor out of range.
func ruleDFT(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (the signal) is missing")
	}
	res[0].dt = x.dt
	inverse, onesided := n.attrInt("inverse", 0), n.attrInt("onesided", 0)
	if inverse != 0 && inverse != 1 || onesided != 0 && onesided != 1 {
		return d.bad(res, "inverse %d and onesided %d must each be 0 or 1", inverse, onesided)
	}
	axis, axisWhat := n.attrInt("axis", 1), "the axis attribute"
	if d.opset >= 20 {
		if n.attr("axis") != nil {
			return d.bad(res, "from opset 20 DFT takes its axis as input 2, not as an attribute")
		}
		axis, axisWhat = -2, "the default axis"
		if d.present(n, 2) {
			a, ok := d.constScalar(n, 2, "axis")
			if !ok {
				return res
			}
			axis, axisWhat = a, "input 2 (axis)"
		}
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	r := len(xs)
	if r < 2 || (xs[r-1] != 1 && xs[r-1] != 2) {
		return d.bad(res, "the signal %v needs rank 2 or more and a last dim of 1 (real) or 2 (complex)", xs)
	}
	ax, ok := normAxis(axis, r)
	if !ok || ax == r-1 {
		return d.bad(res, "%s is %d; for a signal of rank %d it must name a dim other than the last, in [%d, %d]", axisWhat, axis, r, -r, r-2)
	}
	// A one-sided forward DFT takes a real signal and keeps half the
	// spectrum; a one-sided inverse takes that half, complex, and gives
	// a real signal, 2*(m-1) long unless dft_length says otherwise.
	switch {
	case onesided == 1 && inverse == 0 && xs[r-1] != 1:
		return d.bad(res, "a one-sided DFT takes a real signal (last dim 1), this one is %v", xs)
	case onesided == 1 && inverse == 1 && xs[r-1] != 2:
		return d.bad(res, "an inverse one-sided DFT takes a complex half spectrum (last dim 2), this one is %v", xs)
	}
	length := xs[ax]
	if onesided == 1 && inverse == 1 && !d.present(n, 1) {
		l, err := ir.MulSize(xs[ax]-1, 2)
		if err != nil || l < 1 {
			return d.bad(res, "an inverse one-sided DFT of %d bins without dft_length would give 2×(%d-1) values; give dft_length", xs[ax], xs[ax])
		}
		length = l
	}
	if d.present(n, 1) {
		l, ok := d.constScalar(n, 1, "dft_length")
		if !ok {
			return res
		}
		if l < 1 {
			return d.bad(res, "input 1 (dft_length) is %d; it must be 1 or more", l)
		}
		length = l
	}
	out := append([]int64(nil), xs...)
	out[ax], out[r-1] = length, 2
	switch {
	case onesided == 1 && inverse == 1:
		out[r-1] = 1
	case onesided == 1:
		out[ax] = length/2 + 1
	}
	res[0] = known(x.dt, out)
	return res
}

// ruleSTFT: a signal [batch, length, 1 or 2] cut into frames of
// frame_length every frame_step gives [batch, frames, bins, 2], frames =
// (length-frame_length)/frame_step + 1 and bins = frame_length/2+1 when
// onesided (the default), else frame_length. frame_length is input 3,
// else the window's length.
func ruleSTFT(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if x == nil {
		return d.bad(res, "input 0 (the signal) is missing")
	}
	res[0].dt = x.dt
	onesided := n.attrInt("onesided", 1)
	if onesided != 0 && onesided != 1 {
		return d.bad(res, "onesided is %d; it must be 0 or 1", onesided)
	}
	if len(n.inputs) < 2 || n.inputs[1] == "" {
		return d.bad(res, "input 1 (frame_step) is missing")
	}
	xs, xok := d.shape(n, 0)
	if xok && (len(xs) != 3 || (xs[2] != 1 && xs[2] != 2)) {
		return d.bad(res, "the signal %v must be [batch, length, 1 or 2]", xs)
	}
	step, ok := d.constScalar(n, 1, "frame_step")
	if !ok {
		return res
	}
	if step < 1 {
		return d.bad(res, "input 1 (frame_step) is %d; it must be 1 or more", step)
	}
	frame, haveFrame := int64(0), false
	if d.present(n, 2) {
		ws, ok := d.shape(n, 2)
		if !ok {
			return res
		}
		if len(ws) != 1 {
			return d.bad(res, "input 2 (window) has shape %v; it must be 1-D", ws)
		}
		frame, haveFrame = ws[0], true
	}
	if d.present(n, 3) {
		f, ok := d.constScalar(n, 3, "frame_length")
		if !ok {
			return res
		}
		if haveFrame && f != frame {
			return d.bad(res, "input 3 (frame_length) is %d but the window is %d long", f, frame)
		}
		frame, haveFrame = f, true
	}
	if !haveFrame {
		return d.bad(res, "STFT needs a window (input 2) or a frame_length (input 3)")
	}
	if !xok {
		return res
	}
	if frame < 1 || frame > xs[1] {
		return d.bad(res, "the frame length %d must be in [1, %d], the signal's length", frame, xs[1])
	}
	bins := frame
	if onesided == 1 {
		bins = frame/2 + 1
	}
	res[0] = known(x.dt, []int64{xs[0], (xs[1]-frame)/step + 1, bins, 2})
	return res
}

// outputDatatype is the output_datatype attribute of the window and mel
// ops (default float), which must be a numeric type memplan plans.
func (d *decoder) outputDatatype(n *node) (int64, string) {
	dt := n.attrInt("output_datatype", tFloat)
	if _, ok := irDTypes[dt]; !ok || dt == tBool {
		return 0, fmt.Sprintf("output_datatype %d (%s) is not a numeric type", dt, elemName(dt))
	}
	return dt, ""
}

// ruleWindow: a window of `size` values (input 0, a scalar).
func ruleWindow(d *decoder, n *node, res []tinfo) []tinfo {
	dt, why := d.outputDatatype(n)
	if why != "" {
		return d.bad(res, "%s", why)
	}
	res[0].dt = dt
	if p := n.attrInt("periodic", 1); p != 0 && p != 1 {
		return d.bad(res, "periodic is %d; it must be 0 or 1", p)
	}
	size, ok := d.constScalar(n, 0, "size")
	if !ok {
		return res
	}
	if size < 0 {
		return d.bad(res, "input 0 (size) is %d; a window cannot be negative", size)
	}
	res[0] = known(dt, []int64{size})
	return res
}

// ruleMelWeightMatrix: [dft_length/2+1, num_mel_bins], a filter bank that
// maps a one-sided spectrum onto mel bins.
func ruleMelWeightMatrix(d *decoder, n *node, res []tinfo) []tinfo {
	dt, why := d.outputDatatype(n)
	if why != "" {
		return d.bad(res, "%s", why)
	}
	res[0].dt = dt
	if len(n.inputs) != 5 {
		return d.bad(res, "MelWeightMatrix takes 5 inputs (num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz), this node %d", len(n.inputs))
	}
	bins, ok := d.constScalar(n, 0, "num_mel_bins")
	if !ok {
		return res
	}
	dft, ok := d.constScalar(n, 1, "dft_length")
	if !ok {
		return res
	}
	if bins < 1 || dft < 1 {
		return d.bad(res, "num_mel_bins %d and dft_length %d must be 1 or more", bins, dft)
	}
	out := []int64{dft/2 + 1, bins}
	if _, err := ir.MulSize(out[0], out[1]); err != nil {
		return d.bad(res, "a %d×%d matrix: %v", out[0], out[1], err)
	}
	res[0] = known(dt, out)
	return res
}
