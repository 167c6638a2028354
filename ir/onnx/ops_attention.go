package onnx

// Attention: the fused attention ops of onnxruntime (com.microsoft) and of
// ONNX opset 23, with their key/value caches.

var attentionRules = []ruleSet{
	{domains: []string{msDomain}, ops: []string{"Attention"}, rule: ruleMSAttention},
}

// ruleMSAttention: com.microsoft Attention, input [batch, seq, input_hidden]
// and packed QKV weights [input_hidden, 3*hidden].
func ruleMSAttention(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	ws, wok := d.shape(n, 1)
	if !xok || !wok {
		return res
	}
	if len(xs) != 3 || len(ws) != 2 {
		return d.fail(res, "Attention needs rank-3 input and rank-2 weights, got ranks %d and %d", len(xs), len(ws))
	}
	h := ws[1] / 3
	if q, ok := n.attrInts("qkv_hidden_sizes"); ok && len(q) == 3 {
		h = q[2]
	}
	res[0] = known(x.dt, []int64{xs[0], xs[1], h})
	return res
}
