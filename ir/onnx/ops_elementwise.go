package onnx

import (
	"fmt"
	"slices"
)

// Elementwise ops: one output element per input element, with numpy-style
// broadcasting for ops of several inputs.

var elementwiseRules = []ruleSet{
	{ops: setNames(unaryOps), rule: ruleUnary},
	{ops: append(setNames(binaryOps), "Where"), rule: ruleBroadcast},
	{ops: setNames(boolOps), rule: ruleBroadcast},
	{ops: []string{"Dropout"}, rule: ruleDropout},
	{ops: []string{"Cast"}, rule: ruleCast},
	{ops: []string{"CastLike"}, rule: ruleCastLike},
	{ops: []string{"Trilu", "ReverseSequence"}, rule: sameAsInput},
}

// ruleUnary: the output is the input's type and shape; a few ops that
// shape arithmetic uses are folded.
func ruleUnary(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	switch {
	case xok:
		res[0] = known(x.dt, xs)
		switch n.op {
		case "Identity", "Neg", "Abs", "Floor", "Ceil", "Sqrt":
			res[0].val = unaryFold(n.op, x.val)
		}
	case x != nil:
		res[0].dt = x.dt
	}
	return res
}

// ruleBroadcast: the inputs broadcast to the output's shape; comparisons
// and logic give bools, Where the type of its values.
func ruleBroadcast(d *decoder, n *node, res []tinfo) []tinfo {
	xdt := dtOf(d.in(n, 0))
	dt := xdt
	if boolOps[n.op] {
		dt = tBool
	} else if n.op == "Where" {
		dt = dtOf(d.in(n, 1))
	}
	var shapes [][]int64
	for i := range n.inputs {
		s, ok := d.shape(n, i)
		if !ok {
			res[0].dt = dt
			if n.inputs[i] == "" {
				return d.fail(res, "input %d is missing", i)
			}
			return res
		}
		shapes = append(shapes, s)
	}
	out, ok := broadcast(shapes...)
	if !ok {
		res[0].dt = dt
		return d.fail(res, "%s broadcasts its inputs: %s", n.op, whyBroadcast(shapes...))
	}
	res[0] = known(dt, out)
	res[0].val = d.foldElementwise(n, out, dt)
	return res
}

// setNames lists a set's names in a fixed order, for the rule table.
func setNames(set map[string]bool) []string {
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func ruleDropout(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	if xok {
		res[0] = known(xdt, xs)
		res[0].val = x.val
		if len(res) > 1 {
			res[1] = known(tBool, xs)
		}
	}
	return res
}

func ruleCast(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
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
	return res
}

func ruleCastLike(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	y := d.in(n, 1)
	if y == nil {
		return d.fail(res, "input 1 (the type to cast to) is missing")
	}
	if xok {
		res[0] = known(y.dt, xs)
		res[0].val = castFold(x.val, y.dt)
	}
	return res
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
	"Celu": true, "ThresholdedRelu": true, "Mish": true, "Swish": true, "Floor": true, "Ceil": true, "Round": true,
	"Sin": true, "Cos": true, "Tan": true, "Asin": true, "Acos": true, "Atan": true, "Sinh": true,
	"Cosh": true, "Asinh": true, "Acosh": true, "Atanh": true, "Sign": true, "Identity": true,
	"Softmax": true, "LogSoftmax": true, "Hardmax": true, "CumSum": true, "CumProd": true,
	"Shrink": true, "BitwiseNot": true,
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
