package onnx

// Random: ops that draw values shaped as their input, of the dtype
// attribute's type or the input's.

var randomRules = []ruleSet{
	{ops: []string{"Bernoulli", "RandomUniformLike", "RandomNormalLike"}, rule: likeInput},
}
