package onnx

// Training losses: negative log-likelihood and softmax cross-entropy,
// whose output is a scalar unless the reduction is "none".

var lossRules = []ruleSet{
	{ops: []string{"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}, rule: ruleLoss},
}

// ruleLoss: scores [N, C, d1, ...] and targets [N, d1, ...]; the loss is
// the targets' shape with reduction "none", else a scalar; SoftmaxCross-
// EntropyLoss's optional second output, the log-probabilities, is the
// scores' shape.
func ruleLoss(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	ts, tok := d.shape(n, 1)
	if !xok || !tok {
		if x != nil {
			res[0].dt = x.dt
		}
		return res
	}
	if len(xs) < 2 || len(ts) != len(xs)-1 || ts[0] != xs[0] {
		return d.fail(res, "%s needs scores [N, C, d1, ...] and targets [N, d1, ...], got %v and %v", n.op, xs, ts)
	}
	for i := 1; i < len(ts); i++ {
		if ts[i] != xs[i+1] {
			return d.fail(res, "%s: the targets %v do not match the scores %v past the class axis", n.op, ts, xs)
		}
	}
	reduction := "mean"
	if a := n.attr("reduction"); a != nil {
		reduction = string(a.s)
	}
	switch reduction {
	case "none":
		res[0] = known(x.dt, ts)
	case "mean", "sum":
		res[0] = known(x.dt, []int64{})
	default:
		return d.fail(res, "reduction %s is not none, mean or sum", quote(reduction))
	}
	if len(res) > 1 {
		res[1] = known(x.dt, xs)
	}
	return res
}
