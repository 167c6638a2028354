package onnx

// Random: ops that draw values shaped as their input, of the dtype
// attribute's type or the input's.

var randomRules = []ruleSet{
	{ops: []string{"Bernoulli", "RandomUniformLike", "RandomNormalLike"}, rule: ruleRandomLike},
}

func ruleRandomLike(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	dt := n.attrInt("dtype", dtOf(x))
	if xs, ok := d.shape(n, 0); ok {
		res[0] = known(dt, xs)
	} else {
		res[0].dt = dt
	}
	return res
}
