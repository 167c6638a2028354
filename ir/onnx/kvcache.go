package onnx

import (
	"slices"

	"memplan/ir"
)

// The KV cache as runtimes lay it out. onnxruntime's GroupQueryAttention
// writes the new keys and values into past's buffer when past already
// has room for the whole sequence (its shared-buffer mode, which ONNX
// Runtime GenAI uses with a cache of the maximum length): present then
// has past's shape, and is past's bytes, not a second buffer. Otherwise
// present is new memory, past + the new tokens, and both live as the
// schedule says.

// sharedCache maps an op to its (present output, past input) pairs.
// MultiHeadAttention (given past_sequence_length), DecoderMaskedMultiHead-
// Attention and Attention (with past_present_share_buffer) have the same
// mode, and there too present has past's shape only in it.
var sharedCache = map[opKey][][2]int{
	{msDomain, "GroupQueryAttention"}:             {{1, 3}, {2, 4}},
	{msDomain, "MultiHeadAttention"}:              {{1, 6}, {2, 7}},
	{msDomain, "DecoderMaskedMultiHeadAttention"}: {{1, 5}, {2, 6}},
	{msDomain, "Attention"}:                       {{1, 4}},
}

// setShares makes each present output whose shape and type equal its
// past's a view of that past.
func (d *decoder) setShares(n *node, nn *ir.Node) {
	dom := n.domain
	pairs := sharedCache[opKey{dom, n.op}]
	for _, p := range pairs {
		out, in := p[0], p[1]
		if out >= len(n.outputs) || in >= len(n.inputs) || n.outputs[out] == "" || n.inputs[in] == "" {
			continue
		}
		present, past := d.info(n.outputs[out]), d.info(n.inputs[in])
		if present == nil || past == nil || !present.ok || !past.ok ||
			present.dt != past.dt || !slices.Equal(present.shape, past.shape) {
			continue
		}
		for k := range nn.Outputs {
			if nn.Outputs[k].Name == n.outputs[out] {
				nn.Outputs[k].Shares = n.inputs[in]
			}
		}
	}
}
