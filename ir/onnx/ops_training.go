package onnx

import "slices"

// Training optimizers of ONNX's preview training domain: each updates N
// tensors in one node, its outputs the inputs' new values, shape for
// shape.

const trainingDomain = "ai.onnx.preview.training"

var trainingRules = []ruleSet{
	{domains: []string{trainingDomain}, ops: []string{"Adagrad", "Adam", "Momentum"}, rule: ruleOptimizer},
}

// optimizerStates is, per op, how many per-tensor inputs follow the
// tensors X (G and the states) and how many of them are outputs too.
var optimizerStates = map[string]struct {
	inputs  int      // X, G and the states
	outputs []string // X_new and the new states, in order
}{
	"Adagrad":  {3, []string{"X", "H"}},
	"Momentum": {3, []string{"X", "V"}},
	"Adam":     {4, []string{"X", "V", "H"}},
}

// ruleOptimizer: inputs R, T, then X1..Xn, G1..Gn and the states, each
// group n long; outputs X_new1..n and the new states. Every output has
// its input's shape and type; the gradients match their tensors.
func ruleOptimizer(d *decoder, n *node, res []tinfo) []tinfo {
	st := optimizerStates[n.op]
	groups := len(st.outputs)
	if len(res)%groups != 0 || (len(n.inputs)-2)%st.inputs != 0 || len(n.inputs) < 2+st.inputs ||
		(len(n.inputs)-2)/st.inputs != len(res)/groups {
		return d.bad(res, "%s takes R, T and %d groups of n tensors (%s) and gives %d groups of n; this node has %d inputs and %d outputs",
			n.op, st.inputs, optimizerGroups(n.op), groups, len(n.inputs), len(res))
	}
	count := len(res) / groups
	for k := range res {
		// Output group g (X_new, then the states) is input group 0 for
		// X_new, input group g+1 for the states (G being group 1).
		g, i := k/count, k%count
		in := 2 + i
		if g > 0 {
			in = 2 + (g+1)*count + i
		}
		t := d.in(n, in)
		if t == nil {
			return d.bad(res, "input %d (%s%d) is missing", in, st.outputs[g], i+1)
		}
		res[k].dt = t.dt
		if t.ok {
			res[k] = known(t.dt, t.shape)
		}
	}
	// Each tensor's gradient and states have its shape.
	for i := 0; i < count; i++ {
		xs, ok := d.shape(n, 2+i)
		if !ok {
			continue
		}
		for g := 1; g < st.inputs; g++ {
			if s, ok := d.shape(n, 2+g*count+i); ok && !slices.Equal(s, xs) {
				return d.bad(res, "input %d has shape %v, but the tensor it belongs to (input %d) has %v", 2+g*count+i, s, 2+i, xs)
			}
		}
	}
	return res
}

func optimizerGroups(op string) string {
	switch op {
	case "Adam":
		return "X, G, V, H"
	case "Momentum":
		return "X, G, V"
	}
	return "X, G, H"
}
