//go:build !js

package onnx

import (
	"fmt"
	"slices"
)

// The oracle's models: standard-op models memplan decodes already (they
// check the harness itself), two small decoders in the layout onnxruntime
// GenAI's model builder emits, a block in ONNX opset 23's own ops, and one
// model per op for every quantization, attention and normalization op the
// quantized decoders use, so that a wrong shape rule is pinned to its op.

// What onnxruntime's CPU provider does not run has no oracle case:
// refusedCases lists those models, and TestOrtRefuses checks that they
// are still refused (a newer onnxruntime that runs one should move it
// into the oracle).

func oracleCases() []oracleCase {
	var cases []oracleCase
	cases = append(cases, standardCases()...)
	cases = append(cases, decoderCases()...)
	cases = append(cases, opset23Cases()...)
	cases = append(cases, quantCases()...)
	cases = append(cases, attentionCases()...)
	cases = append(cases, miscCases()...)
	cases = append(cases, gapCases()...)
	cases = append(cases, qoperatorCases()...)
	cases = append(cases, visionCases()...)
	return cases
}

// symbols is a dim_param binding from name, value pairs.
func symbols(kv ...any) map[string]int64 {
	m := map[string]int64{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = int64(kv[i+1].(int))
	}
	return m
}

// dim is a static dim, or with symbolic the dim_param name.
func dim(symbolic bool, name string, v int) any {
	if symbolic {
		return name
	}
	return v
}

// standardCases use only ops memplan has rules for today.
func standardCases() []oracleCase {
	mlp := func(elem int64, symbolic bool) func() *oxModel {
		return func() *oxModel {
			m := newModel(21)
			x := m.in("x", elem, dim(symbolic, "batch", 2), dim(symbolic, "seq", 3), 16)
			m.op("MatMul", []string{x, m.w("w", elem, 16, 8)}, []string{"mm"})
			m.op("Add", []string{"mm", m.w("b", elem, 8)}, []string{"add"})
			m.op("Relu", []string{"add"}, []string{"y"})
			m.out(elem, "y", "mm")
			return m
		}
	}
	// The attention-mask preprocessing of GenAI's builder on its own.
	mask := func() *oxModel {
		m := newModel(21)
		m.in("attention_mask", elI64, "batch_size", "total_sequence_length")
		m.fill("attention_mask", 1)
		gqaMaskSubgraph(m)
		m.out(elI32, "seqlens_k", "total_seq_len")
		return m
	}
	// Embedding, SiLU gating and a cast.
	silu := func() *oxModel {
		m := newModel(21)
		ids := m.in("input_ids", elI64, "batch_size", "sequence_length")
		m.op("Gather", []string{m.w("emb", elF16, 50, 32), ids}, []string{"e"})
		m.op("Sigmoid", []string{"e"}, []string{"s"})
		m.op("Mul", []string{"e", "s"}, []string{"silu"})
		m.op("Cast", []string{"silu"}, []string{"y"}, aInt("to", elF32))
		m.out(elF32, "y")
		return m
	}
	return []oracleCase{
		{name: "std_mlp_f32", build: mlp(elF32, false)},
		{name: "std_mlp_f16_sym", build: mlp(elF16, true), syms: symbols("batch", 4, "seq", 7)},
		{name: "std_mask_subgraph", build: mask, syms: symbols("batch_size", 3, "total_sequence_length", 9)},
		{name: "std_embed_silu", build: silu, syms: symbols("batch_size", 2, "sequence_length", 5)},
	}
}

// gqaMaskSubgraph computes GroupQueryAttention's seqlens_k and
// total_seq_len from attention_mask as GenAI's builder does: ReduceSum
// over the sequence, minus one, cast to int32; and the mask's second dim,
// cast to int32.
func gqaMaskSubgraph(m *oxModel) {
	const p = "/model/attn_mask_reformat/attn_mask_subgraph"
	one1 := m.wv("/model/constants/TensorProto.INT64/1D/1", elI64, []int64{1}, 1)
	one0 := m.wv("/model/constants/TensorProto.INT64/0D/1", elI64, nil, 1)
	m.op("ReduceSum", []string{"attention_mask", one1}, []string{p + "/ReduceSum/output_0"}, aInt("keepdims", 0))
	m.op("Sub", []string{p + "/ReduceSum/output_0", one0}, []string{p + "/Sub/output_0"})
	m.op("Cast", []string{p + "/Sub/output_0"}, []string{"seqlens_k"}, aInt("to", elI32))
	m.op("Shape", []string{"attention_mask"}, []string{p + "/Shape/output_0"})
	m.op("Gather", []string{p + "/Shape/output_0", one0}, []string{p + "/Gather/output_0"}, aInt("axis", 0))
	m.op("Cast", []string{p + "/Gather/output_0"}, []string{"total_seq_len"}, aInt("to", elI32))
}

// nbits describes one MatMulNBits weight.
type nbits struct {
	k, n, bits, block int64
	zp                int64 // 0: none; elU8: packed uint8; else unpacked, of A's type
	gidx, bias        bool
	flat              bool // scales and zero points 1-D, as older quantizers wrote them
}

// matmulNBits adds a MatMulNBits node y = a × dequant(weights named
// prefix.*), its weights in the com.microsoft layout: B uint8 [N,
// k_blocks, block*bits/8], scales [N, k_blocks].
func (m *oxModel) matmulNBits(prefix, a, y string, elem int64, q nbits, attrs ...attrFn) {
	kb := (q.k + q.block - 1) / q.block
	ins := []string{a, m.w(prefix+".qweight", elU8, q.n, kb, q.block*q.bits/8)}
	if q.flat {
		ins = append(ins, m.w(prefix+".scales", elem, q.n*kb))
	} else {
		ins = append(ins, m.w(prefix+".scales", elem, q.n, kb))
	}
	switch {
	case q.zp == elU8 && q.flat:
		ins = append(ins, m.w(prefix+".qzeros", elU8, q.n*((kb*q.bits+7)/8)))
	case q.zp == elU8:
		ins = append(ins, m.w(prefix+".qzeros", elU8, q.n, (kb*q.bits+7)/8))
	case q.zp != 0:
		ins = append(ins, m.w(prefix+".qzeros", q.zp, q.n, kb))
	default:
		ins = append(ins, "")
	}
	if q.gidx {
		g := make([]float64, q.k)
		for i := range g {
			g[i] = float64(int64(i) / q.block)
		}
		ins = append(ins, m.wv(prefix+".g_idx", elI32, []int64{q.k}, g...))
	} else {
		ins = append(ins, "")
	}
	if q.bias {
		ins = append(ins, m.w(prefix+".bias", elem, q.n))
	}
	for len(ins) > 0 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	attrs = append([]attrFn{aInt("K", q.k), aInt("N", q.n), aInt("bits", q.bits), aInt("block_size", q.block)}, attrs...)
	m.ms("MatMulNBits", ins, []string{y}, attrs...)
}

// The decoders' sizes: small, but every head count and size distinct.
const (
	decHidden  = 64
	decHeads   = 4
	decKVHeads = 2
	decHead    = 16
	decInter   = 96
	decVocab   = 100
	decLayers  = 2
	decMaxLen  = 64 // rows of the rotary caches
)

// decoderCfg is one decoder variant; the dims are used when not symbolic.
type decoderCfg struct {
	elem     int64
	symbolic bool
	batch    int
	seq      int
	past     int // past_key_values' sequence dim
	total    int // attention_mask's second dim
	probes   bool
}

// genaiDecoder is a decoder in the layout onnxruntime GenAI's model
// builder emits for an int4 model on CPU: Gather embedding,
// SimplifiedLayerNormalization (default domain) then
// SkipSimplifiedLayerNormalization carrying the residual, MatMulNBits
// projections (zero points in layer 0, none in layer 1), GroupQueryAttention
// with rotary caches and seqlens_k/total_seq_len computed from the mask,
// a SiLU-gated MLP, a final norm and a MatMulNBits lm_head. Probes make
// some intermediates graph outputs as well.
func genaiDecoder(c decoderCfg) *oxModel {
	m := newModel(21).use("com.microsoft", 1)
	batch := dim(c.symbolic, "batch_size", c.batch)
	m.in("input_ids", elI64, batch, dim(c.symbolic, "sequence_length", c.seq))
	m.in("attention_mask", elI64, batch, dim(c.symbolic, "total_sequence_length", c.total))
	m.fill("attention_mask", 1)
	for l := range decLayers {
		for _, kv := range []string{"key", "value"} {
			m.in(fmt.Sprintf("past_key_values.%d.%s", l, kv), c.elem, batch, decKVHeads, dim(c.symbolic, "past_sequence_length", c.past), decHead)
		}
	}
	e := c.elem
	eps := aFloat("epsilon", 1e-5)
	m.op("Gather", []string{m.w("model.embed_tokens.weight", e, decVocab, decHidden), "input_ids"}, []string{"/model/embed_tokens/Gather/output_0"})
	gqaMaskSubgraph(m)
	m.w("cos_cache", e, decMaxLen, decHead/2)
	m.w("sin_cache", e, decMaxLen, decHead/2)

	x, residual := "/model/embed_tokens/Gather/output_0", ""
	for l := range decLayers {
		p := fmt.Sprintf("/model/layers.%d", l)
		w := fmt.Sprintf("model.layers.%d", l)
		ln := p + "/input_layernorm/output_0"
		if l == 0 {
			m.op("SimplifiedLayerNormalization", []string{x, m.w(w+".input_layernorm.weight", e, decHidden)}, []string{ln},
				aInt("axis", -1), eps, aInt("stash_type", 1))
			residual = x
		} else {
			sum := p + "/input_layernorm/output_3"
			m.ms("SkipSimplifiedLayerNormalization", []string{x, residual, m.w(w+".input_layernorm.weight", e, decHidden)},
				[]string{ln, "", "", sum}, eps)
			residual = sum
		}
		zp := int64(0)
		if l == 0 {
			zp = elU8
		}
		attnIn := func(name string, n int64) string {
			y := p + "/attn/" + name + "/MatMul/output_0"
			m.matmulNBits(w+".attn."+name, ln, y, e, nbits{k: decHidden, n: n, bits: 4, block: 32, zp: zp}, aInt("accuracy_level", 4))
			return y
		}
		q, k, v := attnIn("q_proj", decHeads*decHead), attnIn("k_proj", decKVHeads*decHead), attnIn("v_proj", decKVHeads*decHead)
		attn := p + "/attn/GroupQueryAttention/output_0"
		m.ms("GroupQueryAttention", []string{q, k, v,
			fmt.Sprintf("past_key_values.%d.key", l), fmt.Sprintf("past_key_values.%d.value", l),
			"seqlens_k", "total_seq_len", "cos_cache", "sin_cache"},
			[]string{attn, fmt.Sprintf("present.%d.key", l), fmt.Sprintf("present.%d.value", l)},
			aInt("num_heads", decHeads), aInt("kv_num_heads", decKVHeads), aFloat("scale", 0.25),
			aInt("local_window_size", -1), aInt("do_rotary", 1), aInt("rotary_interleaved", 0))
		o := p + "/attn/o_proj/MatMul/output_0"
		m.matmulNBits(w+".attn.o_proj", attn, o, e, nbits{k: decHidden, n: decHidden, bits: 4, block: 32, zp: zp}, aInt("accuracy_level", 4))
		post, sum := p+"/post_attention_layernorm/output_0", p+"/post_attention_layernorm/output_3"
		m.ms("SkipSimplifiedLayerNormalization", []string{o, residual, m.w(w+".post_attention_layernorm.weight", e, decHidden)},
			[]string{post, "", "", sum}, eps)
		residual = sum
		gate, up := p+"/mlp/gate_proj/MatMul/output_0", p+"/mlp/up_proj/MatMul/output_0"
		m.matmulNBits(w+".mlp.gate_proj", post, gate, e, nbits{k: decHidden, n: decInter, bits: 4, block: 32, zp: zp}, aInt("accuracy_level", 4))
		m.matmulNBits(w+".mlp.up_proj", post, up, e, nbits{k: decHidden, n: decInter, bits: 4, block: 32, zp: zp}, aInt("accuracy_level", 4))
		m.op("Sigmoid", []string{gate}, []string{p + "/mlp/act_fn/Sigmoid/output_0"})
		m.op("Mul", []string{gate, p + "/mlp/act_fn/Sigmoid/output_0"}, []string{p + "/mlp/act_fn/Mul/output_0"})
		m.op("Mul", []string{p + "/mlp/act_fn/Mul/output_0", up}, []string{p + "/mlp/Mul/output_0"})
		x = p + "/mlp/down_proj/MatMul/output_0"
		m.matmulNBits(w+".mlp.down_proj", p+"/mlp/Mul/output_0", x, e, nbits{k: decInter, n: decHidden, bits: 4, block: 32, zp: zp}, aInt("accuracy_level", 4))
		if c.probes && l == 0 {
			m.out(e, attn, post, sum, x)
		}
	}
	m.ms("SkipSimplifiedLayerNormalization", []string{x, residual, m.w("model.norm.weight", e, decHidden)},
		[]string{"/model/norm/output_0"}, eps)
	m.matmulNBits("lm_head", "/model/norm/output_0", "logits", e, nbits{k: decHidden, n: decVocab, bits: 4, block: 32}, aInt("accuracy_level", 4))
	m.out(e, "logits")
	for l := range decLayers {
		m.out(e, fmt.Sprintf("present.%d.key", l), fmt.Sprintf("present.%d.value", l))
	}
	if c.probes {
		m.out(elI32, "seqlens_k", "total_seq_len")
	}
	return m
}

// decoderCases: the GenAI-layout decoders, bound for a decode step, a
// prompt and a shared KV buffer.
func decoderCases() []oracleCase {
	dec := func(c decoderCfg) func() *oxModel { return func() *oxModel { return genaiDecoder(c) } }
	genaiSyms := func(batch, seq, past, total int) map[string]int64 {
		return symbols("batch_size", batch, "sequence_length", seq, "past_sequence_length", past, "total_sequence_length", total)
	}
	return []oracleCase{
		// One decode step: batch 2, one new token after 7.
		{name: "genai_decoder_f16_static", build: dec(decoderCfg{elem: elF16, batch: 2, seq: 1, past: 7, total: 8}), save: true},
		{name: "genai_decoder_f32_symbolic", build: dec(decoderCfg{elem: elF32, symbolic: true}), save: true,
			syms: genaiSyms(1, 3, 5, 8)}, // three new tokens after five (batch 1, as GQA needs with a past)
		{name: "genai_decoder_f32_symbolic_prefill", build: dec(decoderCfg{elem: elF32, symbolic: true}),
			syms: genaiSyms(2, 4, 0, 4)}, // the prompt: an empty past
		{name: "genai_decoder_f16_probes", build: dec(decoderCfg{elem: elF16, symbolic: true, probes: true}),
			syms: genaiSyms(2, 1, 7, 8)},
		// The past buffer already at its maximum length (16) while only 8
		// positions are used: past and present share one buffer.
		{name: "genai_decoder_f16_shared_buffer", build: dec(decoderCfg{elem: elF16, batch: 2, seq: 1, past: 16, total: 8, probes: true})},
	}
}

// onnx23Block is a two-layer block in ONNX opset 23's own ops:
// RMSNormalization, RotaryEmbedding and Attention with a KV cache, layer
// 0 on 3-D q/k/v (q_num_heads, kv_num_heads), layer 1 on 4-D ones; float
// attention weights, int4 MLP weights through DequantizeLinear.
func onnx23Block(elem int64, symbolic bool, batch, seq, past int) *oxModel {
	m := newModel(23)
	b, s := dim(symbolic, "batch_size", batch), dim(symbolic, "sequence_length", seq)
	x := m.in("inputs_embeds", elem, b, s, decHidden)
	m.in("position_ids", elI64, b, s)
	for l := range 2 {
		for _, kv := range []string{"key", "value"} {
			m.in(fmt.Sprintf("past_key_values.%d.%s", l, kv), elem, b, decKVHeads, dim(symbolic, "past_sequence_length", past), decHead)
		}
	}
	m.w("cos_cache", elem, decMaxLen, decHead/2)
	m.w("sin_cache", elem, decMaxLen, decHead/2)
	rms := func(name, in string) string {
		m.op("RMSNormalization", []string{in, m.w(name+".weight", elem, decHidden)}, []string{name + "/output_0"},
			aInt("axis", -1), aFloat("epsilon", 1e-5))
		return name + "/output_0"
	}
	matmul := func(name, in string, k, n int64) string {
		m.op("MatMul", []string{in, m.w(name+".weight", elem, k, n)}, []string{name + "/output_0"})
		return name + "/output_0"
	}
	// The MLP's weights are int4, dequantized block-wise (opset 21's
	// DequantizeLinear, 32 rows a block), zero points in layer 0.
	qmatmul := func(name, in string, k, n int64, zp bool) string {
		ins := []string{m.w(name+".weight_q", elI4, k, n), m.w(name+".scale", elem, k/32, n)}
		if zp {
			ins = append(ins, m.w(name+".zero_point", elI4, k/32, n))
		}
		m.op("DequantizeLinear", ins, []string{name + "/weight"}, aInt("axis", 0), aInt("block_size", 32))
		m.op("MatMul", []string{in, name + "/weight"}, []string{name + "/output_0"})
		return name + "/output_0"
	}
	heads4 := m.wv("/model/constants/heads4", elI64, []int64{4}, 0, 0, decHeads, decHead)
	kvHeads4 := m.wv("/model/constants/kv_heads4", elI64, []int64{4}, 0, 0, decKVHeads, decHead)
	hidden3 := m.wv("/model/constants/hidden3", elI64, []int64{3}, 0, 0, decHidden)
	for l := range 2 {
		p := fmt.Sprintf("/model/layers.%d", l)
		h := rms(p+"/input_layernorm", x)
		q := matmul(p+"/attn/q_proj", h, decHidden, decHeads*decHead)
		k := matmul(p+"/attn/k_proj", h, decHidden, decKVHeads*decHead)
		v := matmul(p+"/attn/v_proj", h, decHidden, decKVHeads*decHead)
		pastK, pastV := fmt.Sprintf("past_key_values.%d.key", l), fmt.Sprintf("past_key_values.%d.value", l)
		presK, presV := fmt.Sprintf("present.%d.key", l), fmt.Sprintf("present.%d.value", l)
		attn := p + "/attn/Attention/output_0"
		if l == 0 {
			m.op("RotaryEmbedding", []string{q, "cos_cache", "sin_cache", "position_ids"}, []string{p + "/attn/q_rotary/output_0"}, aInt("num_heads", decHeads))
			m.op("RotaryEmbedding", []string{k, "cos_cache", "sin_cache", "position_ids"}, []string{p + "/attn/k_rotary/output_0"}, aInt("num_heads", decKVHeads))
			m.op("Attention", []string{p + "/attn/q_rotary/output_0", p + "/attn/k_rotary/output_0", v, "", pastK, pastV},
				[]string{attn, presK, presV}, aInt("q_num_heads", decHeads), aInt("kv_num_heads", decKVHeads), aInt("is_causal", 1))
		} else {
			bnsh := func(name, in, shape string) string {
				m.op("Reshape", []string{in, shape}, []string{name + "/Reshape/output_0"})
				m.op("Transpose", []string{name + "/Reshape/output_0"}, []string{name + "/Transpose/output_0"}, aInts("perm", 0, 2, 1, 3))
				return name + "/Transpose/output_0"
			}
			q4, k4, v4 := bnsh(p+"/attn/q", q, heads4), bnsh(p+"/attn/k", k, kvHeads4), bnsh(p+"/attn/v", v, kvHeads4)
			m.op("RotaryEmbedding", []string{q4, "cos_cache", "sin_cache", "position_ids"}, []string{p + "/attn/q_rotary/output_0"})
			m.op("RotaryEmbedding", []string{k4, "cos_cache", "sin_cache", "position_ids"}, []string{p + "/attn/k_rotary/output_0"})
			m.op("Attention", []string{p + "/attn/q_rotary/output_0", p + "/attn/k_rotary/output_0", v4, "", pastK, pastV},
				[]string{p + "/attn/Attention/output_4d", presK, presV}, aInt("is_causal", 1))
			m.op("Transpose", []string{p + "/attn/Attention/output_4d"}, []string{p + "/attn/Transpose/output_0"}, aInts("perm", 0, 2, 1, 3))
			m.op("Reshape", []string{p + "/attn/Transpose/output_0", hidden3}, []string{attn})
		}
		o := matmul(p+"/attn/o_proj", attn, decHidden, decHidden)
		m.op("Add", []string{x, o}, []string{p + "/residual1"})
		h2 := rms(p+"/post_attention_layernorm", p+"/residual1")
		gate, up := qmatmul(p+"/mlp/gate_proj", h2, decHidden, decInter, l == 0), qmatmul(p+"/mlp/up_proj", h2, decHidden, decInter, l == 0)
		m.op("Sigmoid", []string{gate}, []string{p + "/mlp/Sigmoid/output_0"})
		m.op("Mul", []string{gate, p + "/mlp/Sigmoid/output_0"}, []string{p + "/mlp/silu"})
		m.op("Mul", []string{p + "/mlp/silu", up}, []string{p + "/mlp/Mul/output_0"})
		d := qmatmul(p+"/mlp/down_proj", p+"/mlp/Mul/output_0", decInter, decHidden, l == 0)
		m.op("Add", []string{p + "/residual1", d}, []string{p + "/residual2"})
		x = p + "/residual2"
	}
	m.op("RMSNormalization", []string{x, m.w("model.norm.weight", elem, decHidden)}, []string{"last_hidden_state"}, aInt("axis", -1))
	m.out(elem, "last_hidden_state")
	for l := range 2 {
		m.out(elem, fmt.Sprintf("present.%d.key", l), fmt.Sprintf("present.%d.value", l))
	}
	return m
}

// opset23Cases: the opset-23 block, bound for a decode step and a prompt.
func opset23Cases() []oracleCase {
	return []oracleCase{
		{name: "onnx23_block_f32_static", build: func() *oxModel { return onnx23Block(elF32, false, 2, 3, 5) }, save: true},
		{name: "onnx23_block_f16_symbolic", build: func() *oxModel { return onnx23Block(elF16, true, 0, 0, 0) },
			syms: symbols("batch_size", 1, "sequence_length", 4, "past_sequence_length", 6)},
		{name: "onnx23_block_f32_prefill", build: func() *oxModel { return onnx23Block(elF32, true, 0, 0, 0) },
			syms: symbols("batch_size", 2, "sequence_length", 5, "past_sequence_length", 0)},
	}
}

// quantCases: the ops of quantized weights and activations.
func quantCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	// MatMulNBits: bits, block sizes, zero points packed or not, g_idx,
	// bias, 2-D and 3-D A, K not a multiple of the block.
	for _, v := range []struct {
		name  string
		elem  int64
		aDims []any
		q     nbits
	}{
		{"b4_bs32", elF32, []any{2, 3, 64}, nbits{k: 64, n: 48, bits: 4, block: 32}},
		{"b4_bs16_zp_f16", elF16, []any{2, 3, 64}, nbits{k: 64, n: 48, bits: 4, block: 16, zp: elU8}},
		{"b4_bs32_zp_float", elF32, []any{5, 64}, nbits{k: 64, n: 24, bits: 4, block: 32, zp: elF32}},
		{"b4_bs32_flat_zp", elF32, []any{1, 2, 64}, nbits{k: 64, n: 24, bits: 4, block: 32, zp: elU8, flat: true}},
		{"b4_bs32_gidx_zp_bias", elF32, []any{2, 3, 64}, nbits{k: 64, n: 40, bits: 4, block: 32, zp: elU8, gidx: true, bias: true}},
		{"b4_bs32_bias_f16", elF16, []any{3, 64}, nbits{k: 64, n: 40, bits: 4, block: 32, bias: true}},
		{"b4_k40_bs32", elF32, []any{2, 40}, nbits{k: 40, n: 16, bits: 4, block: 32, zp: elU8}},
		{"b8_bs128_zp", elF32, []any{2, 3, 128}, nbits{k: 128, n: 16, bits: 8, block: 128, zp: elU8}},
		{"b8_bs32_f16", elF16, []any{4, 64}, nbits{k: 64, n: 20, bits: 8, block: 32}},
		{"b2_bs16", elF32, []any{2, 64}, nbits{k: 64, n: 8, bits: 2, block: 16}},
		{"b4_bs32_rank4", elF32, []any{2, 2, 3, 64}, nbits{k: 64, n: 8, bits: 4, block: 32}},
	} {
		add("op_MatMulNBits_"+v.name, func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			a := m.in("A", v.elem, v.aDims...)
			m.matmulNBits("w", a, "Y", v.elem, v.q)
			m.out(v.elem, "Y")
			return m
		})
	}
	// GatherBlockQuantized: uint8 data packing 4-bit values two to a byte
	// (the output has the unpacked width), 8-bit uint8, int4 data, and
	// gathering on axis 1.
	for _, v := range []struct {
		name          string
		data          int64 // element type of data
		dataDims      []int64
		scaleDims     []int64
		scale         int64
		bits, block   int64
		gather, quant int64
		zp            bool
		idxDims       []any
		idxElem       int64
	}{
		{"u8_b4", elU8, []int64{32, 32}, []int64{32, 2}, elF32, 4, 32, 0, 1, false, []any{2, 3}, elI64},
		{"u8_b4_zp_f16", elU8, []int64{32, 32}, []int64{32, 4}, elF16, 4, 16, 0, 1, true, []any{5}, elI32},
		{"u8_b8", elU8, []int64{32, 64}, []int64{32, 4}, elF32, 8, 16, 0, 1, false, []any{2, 2}, elI64},
		{"i4", elI4, []int64{32, 64}, []int64{32, 2}, elF32, 4, 32, 0, 1, true, []any{2, 3}, elI64},
		{"u4_axis1", elU4, []int64{64, 32}, []int64{4, 32}, elF16, 4, 16, 1, 0, false, []any{5}, elI64},
	} {
		add("op_GatherBlockQuantized_"+v.name, func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			ins := []string{m.w("data", v.data, v.dataDims...), m.in("indices", v.idxElem, v.idxDims...), m.w("scales", v.scale, v.scaleDims...)}
			if v.zp {
				zp := slices.Clone(v.scaleDims)
				if v.data == elU8 && v.bits == 4 {
					zp[len(zp)-1] = (zp[len(zp)-1] + 1) / 2
				}
				ins = append(ins, m.w("zero_points", v.data, zp...))
			}
			m.ms("GatherBlockQuantized", ins, []string{"Y"}, aInt("bits", v.bits), aInt("block_size", v.block),
				aInt("gather_axis", v.gather), aInt("quantize_axis", v.quant))
			m.out(v.scale, "Y")
			return m
		})
	}
	// Block-wise QuantizeLinear / DequantizeLinear (opset 21).
	add("op_DequantizeLinear_block_i8", func() *oxModel {
		m := newModel(21)
		m.op("DequantizeLinear", []string{m.in("x", elI8, 4, 64), m.w("scale", elF32, 4, 2), m.w("zp", elI8, 4, 2)},
			[]string{"y"}, aInt("axis", 1), aInt("block_size", 32))
		m.out(elF32, "y")
		return m
	})
	add("op_DequantizeLinear_block_i4_f16", func() *oxModel {
		m := newModel(21)
		m.op("DequantizeLinear", []string{m.w("x", elI4, 64, 6), m.w("scale", elF16, 4, 6), m.w("zp", elI4, 4, 6)},
			[]string{"y"}, aInt("axis", 0), aInt("block_size", 16))
		m.out(elF16, "y")
		return m
	})
	add("op_DequantizeLinear_block_u4", func() *oxModel {
		m := newModel(21)
		m.op("DequantizeLinear", []string{m.w("x", elU4, 3, 40), m.w("scale", elF32, 3, 2)},
			[]string{"y"}, aInt("axis", -1), aInt("block_size", 32))
		m.out(elF32, "y")
		return m
	})
	add("op_QuantizeLinear_block_u8", func() *oxModel {
		m := newModel(21)
		m.op("QuantizeLinear", []string{m.in("x", elF32, 4, 64), m.w("scale", elF32, 4, 2), m.w("zp", elU8, 4, 2)},
			[]string{"y"}, aInt("axis", 1), aInt("block_size", 32))
		m.out(elU8, "y")
		return m
	})
	add("op_QuantizeLinear_block_i4", func() *oxModel {
		m := newModel(21)
		m.op("QuantizeLinear", []string{m.in("x", elF32, 64, 6), m.w("scale", elF32, 4, 6), m.w("zp", elI4, 4, 6)},
			[]string{"y"}, aInt("axis", 0), aInt("block_size", 16))
		m.out(elI4, "y")
		return m
	})
	add("op_QuantizeLinear_block_output_dtype_u4", func() *oxModel {
		m := newModel(21)
		m.op("QuantizeLinear", []string{m.in("x", elF16, 3, 40), m.w("scale", elF16, 3, 2)},
			[]string{"y"}, aInt("axis", 1), aInt("block_size", 32), aInt("output_dtype", elU4))
		m.out(elU4, "y")
		return m
	})
	// DynamicQuantizeMatMul and MatMulIntegerToFloat.
	add("op_DynamicQuantizeMatMul", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("DynamicQuantizeMatMul", []string{m.in("A", elF32, 2, 3, 16), m.w("B", elI8, 16, 8), m.w("b_scale", elF32, 8),
			m.w("b_zero_point", elI8, 8), m.w("bias", elF32, 8)}, []string{"Y"})
		m.out(elF32, "Y")
		return m
	})
	add("op_DynamicQuantizeMatMul_scalar_u8", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("DynamicQuantizeMatMul", []string{m.in("A", elF32, 5, 16), m.w("B", elU8, 16, 12), m.wv("b_scale", elF32, nil, 1)}, []string{"Y"})
		m.out(elF32, "Y")
		return m
	})
	add("op_MatMulIntegerToFloat", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("MatMulIntegerToFloat", []string{m.in("A", elU8, 2, 3, 16), m.w("B", elI8, 16, 8), m.wv("a_scale", elF32, nil, 1),
			m.w("b_scale", elF32, 8), m.w("a_zero_point", elU8), m.w("b_zero_point", elI8, 8), m.w("bias", elF32, 8)}, []string{"Y"})
		m.out(elF32, "Y")
		return m
	})
	add("op_MatMulIntegerToFloat_f16", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("MatMulIntegerToFloat", []string{m.in("A", elI8, 4, 16), m.w("B", elI8, 16, 8), m.wv("a_scale", elF16, nil, 1),
			m.wv("b_scale", elF16, nil, 1)}, []string{"Y"})
		m.out(elF16, "Y")
		return m
	})
	return cases
}

// gqaIns feeds GroupQueryAttention's seqlens_k (total-1 for every batch
// entry) and total_sequence_length, or makes the latter a constant.
// present's sequence dim is max(past's, total_sequence_length's value)
// in onnxruntime: where past is at least as long as the total (a shared
// buffer) only the value tells, so those cases make it a constant.
func gqaIns(m *oxModel, batch, total int, constTotal bool) (string, string) {
	m.in("seqlens_k", elI32, batch)
	m.fill("seqlens_k", float64(total-1))
	if constTotal {
		m.wv("total_sequence_length", elI32, nil, float64(total))
	} else {
		m.scalarIn("total_sequence_length", elI32)
		m.values("total_sequence_length", float64(total))
	}
	return "seqlens_k", "total_sequence_length"
}

// attentionCases: the attention and rotary ops, onnxruntime's and ONNX's.
func attentionCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	const nh, kvh, hd = 4, 2, 16
	// GroupQueryAttention: separate and packed QKV, with and without
	// rotary, with a past shorter than the total or as long as the
	// buffer, and without a past.
	for _, v := range []struct {
		name              string
		elem              int64
		batch, seq, total int
		past              int // -1: no past inputs
		packed, rotary    bool
		qkOut             bool
		constTotal        bool
	}{
		{"past", elF32, 2, 1, 8, 7, false, false, false, false},
		{"past_const_total", elF32, 2, 1, 8, 7, false, false, false, true},
		{"past_rotary_f16", elF16, 2, 1, 8, 7, false, true, false, false},
		{"packed_rotary", elF32, 1, 3, 8, 5, true, true, false, false},
		{"packed_f16", elF16, 2, 1, 6, 5, true, false, false, false},
		{"shared_buffer", elF32, 2, 1, 8, 16, false, false, false, true},
		{"shared_buffer_packed_f16", elF16, 1, 3, 8, 12, true, true, false, true},
		{"shared_buffer_full", elF32, 2, 1, 7, 7, false, false, false, true},
		{"prompt_no_past", elF32, 2, 5, 5, -1, false, false, false, false},
		{"prompt_empty_past", elF32, 2, 5, 5, 0, false, true, false, false},
		{"qk_output", elF32, 2, 1, 8, 7, false, false, true, false},
	} {
		// A fed total_sequence_length's value is bound as a symbol of its
		// name, as a user would; the prompt without a past needs none.
		var syms map[string]int64
		if !v.constTotal && v.past > 0 {
			syms = symbols("total_sequence_length", v.total)
		}
		cases = append(cases, oracleCase{name: "op_GroupQueryAttention_" + v.name, syms: syms, build: func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			e := v.elem
			var q, k, val string
			if v.packed {
				q = m.in("qkv", e, v.batch, v.seq, (nh+2*kvh)*hd)
			} else {
				q, k, val = m.in("query", e, v.batch, v.seq, nh*hd), m.in("key", e, v.batch, v.seq, kvh*hd), m.in("value", e, v.batch, v.seq, kvh*hd)
			}
			pk, pv := "", ""
			if v.past >= 0 {
				pk, pv = m.in("past_key", e, v.batch, kvh, v.past, hd), m.in("past_value", e, v.batch, kvh, v.past, hd)
			}
			sl, tl := gqaIns(m, v.batch, v.total, v.constTotal)
			ins := []string{q, k, val, pk, pv, sl, tl}
			attrs := []attrFn{aInt("num_heads", nh), aInt("kv_num_heads", kvh)}
			if v.rotary {
				ins = append(ins, m.w("cos_cache", e, 32, hd/2), m.w("sin_cache", e, 32, hd/2))
				attrs = append(attrs, aInt("do_rotary", 1))
			}
			outs := []string{"output", "present_key", "present_value"}
			if v.qkOut {
				outs = append(outs, "output_qk")
				attrs = append(attrs, aInt("qk_output", 1))
			}
			m.ms("GroupQueryAttention", ins, outs, attrs...)
			m.out(e, outs...)
			return m
		}})
	}
	// MultiHeadAttention: self, cross with a different value width, packed
	// QKV and packed KV, cross with BNSH key/value, past and present,
	// projection bias.
	mha := func(name string, elem int64, f func(m *oxModel) ([]string, []string)) {
		add("op_MultiHeadAttention_"+name, func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			ins, outs := f(m)
			m.ms("MultiHeadAttention", ins, outs, aInt("num_heads", nh))
			m.out(elem, outs...)
			return m
		})
	}
	mha("self", elF32, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF32, 2, 5, nh*hd), m.in("k", elF32, 2, 5, nh*hd), m.in("v", elF32, 2, 5, nh*hd)}, []string{"output"}
	})
	mha("cross_v32_f16", elF16, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF16, 2, 3, nh*hd), m.in("k", elF16, 2, 7, nh*hd), m.in("v", elF16, 2, 7, nh*8)}, []string{"output"}
	})
	mha("cross_bnsh_kv", elF32, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF32, 2, 3, nh*hd), m.in("k", elF32, 2, nh, 6, hd), m.in("v", elF32, 2, nh, 6, hd)}, []string{"output"}
	})
	mha("past_present", elF32, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF32, 2, 1, nh*hd), m.in("k", elF32, 2, 1, nh*hd), m.in("v", elF32, 2, 1, nh*hd), "", "", "",
			m.in("past_key", elF32, 2, nh, 5, hd), m.in("past_value", elF32, 2, nh, 5, hd)}, []string{"output", "present_key", "present_value"}
	})
	mha("past_present_bias_f16", elF16, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF16, 2, 3, nh*hd), m.in("k", elF16, 2, 3, nh*hd), m.in("v", elF16, 2, 3, nh*hd), m.w("bias", elF16, 3*nh*hd), "", "",
			m.in("past_key", elF16, 2, nh, 4, hd), m.in("past_value", elF16, 2, nh, 4, hd)}, []string{"output", "present_key", "present_value"}
	})
	mha("qk", elF32, func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF32, 2, 3, nh*hd), m.in("k", elF32, 2, 3, nh*hd), m.in("v", elF32, 2, 3, nh*hd), "", "", "",
			m.in("past_key", elF32, 2, nh, 4, hd), m.in("past_value", elF32, 2, nh, 4, hd)}, []string{"output", "present_key", "present_value", "qk"}
	})
	// DecoderMaskedMultiHeadAttention: one new token, self attention with
	// a past shared with present (the CPU kernel takes no other), the qk
	// output, cross attention on BNSH key and value.
	dmmhaSyms := map[string]map[string]int64{}
	dmmha := func(name string, f func(m *oxModel) ([]string, []string, []attrFn)) {
		full := "op_DecoderMaskedMultiHeadAttention_" + name
		cases = append(cases, oracleCase{name: full, syms: dmmhaSyms[full], build: func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			ins, outs, attrs := f(m)
			m.ms("DecoderMaskedMultiHeadAttention", ins, outs, append([]attrFn{aInt("num_heads", nh)}, attrs...)...)
			m.out(elF32, outs...)
			return m
		}})
	}
	pastLen := func(m *oxModel, v int) string {
		m.in("past_sequence_length", elI32, 1)
		m.values("past_sequence_length", float64(v))
		return "past_sequence_length"
	}
	dmmha("shared_buffer", func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("query", elF32, 2, 1, nh*hd), m.in("key", elF32, 2, 1, nh*hd), m.in("value", elF32, 2, 1, nh*hd), "", "",
				m.in("past_key", elF32, 2, nh, 16, hd), m.in("past_value", elF32, 2, nh, 16, hd), pastLen(m, 7)},
			[]string{"output", "present_key", "present_value"}, []attrFn{aInt("past_present_share_buffer", 1)}
	})
	// qk's length is past_sequence_length's value + 1: bound as a symbol.
	dmmhaSyms["op_DecoderMaskedMultiHeadAttention_shared_buffer_qk"] = symbols("past_sequence_length", 5)
	dmmha("shared_buffer_qk", func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("query", elF32, 2, 1, nh*hd), m.in("key", elF32, 2, 1, nh*hd), m.in("value", elF32, 2, 1, nh*hd), "", "",
				m.in("past_key", elF32, 2, nh, 16, hd), m.in("past_value", elF32, 2, nh, 16, hd), pastLen(m, 5)},
			[]string{"output", "present_key", "present_value", "qk"}, []attrFn{aInt("past_present_share_buffer", 1), aInt("output_qk", 1)}
	})
	dmmha("cross", func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("query", elF32, 2, 1, nh*hd), m.in("key", elF32, 2, nh, 6, hd), m.in("value", elF32, 2, nh, 6, hd)},
			[]string{"output"}, nil
	})
	// com.microsoft Attention: packed projection weights, a past of both
	// key and value, and different v width without a past.
	add("op_MsAttention_past", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("Attention", []string{m.in("input", elF32, 2, 3, 32), m.w("weights", elF32, 32, 96), m.w("bias", elF32, 96), "",
			m.in("past", elF32, 2, 2, 4, 5, 8)}, []string{"output", "present"}, aInt("num_heads", 4), aInt("unidirectional", 1))
		m.out(elF32, "output", "present")
		return m
	})
	add("op_MsAttention_qkv_sizes_f16", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("Attention", []string{m.in("input", elF16, 2, 3, 32), m.w("weights", elF16, 32, 80), m.w("bias", elF16, 80)},
			[]string{"output"}, aInt("num_heads", 4), aInts("qkv_hidden_sizes", 32, 32, 16))
		m.out(elF16, "output")
		return m
	})
	// ONNX Attention (opset 23): 4-D and 3-D, with and without a past,
	// a value head size of its own, the qk output, a boolean mask.
	att := func(name string, elem int64, f func(m *oxModel) ([]string, []string, []attrFn)) {
		add("op_Attention23_"+name, func() *oxModel {
			m := newModel(23)
			ins, outs, attrs := f(m)
			m.op("Attention", ins, outs, attrs...)
			m.out(elem, outs...)
			return m
		})
	}
	att("4d", elF32, func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("Q", elF32, 2, nh, 3, hd), m.in("K", elF32, 2, kvh, 5, hd), m.in("V", elF32, 2, kvh, 5, 8)}, []string{"Y"}, nil
	})
	att("4d_past_f16", elF16, func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("Q", elF16, 2, nh, 3, hd), m.in("K", elF16, 2, kvh, 3, hd), m.in("V", elF16, 2, kvh, 3, hd), "",
				m.in("past_key", elF16, 2, kvh, 6, hd), m.in("past_value", elF16, 2, kvh, 6, hd)},
			[]string{"Y", "present_key", "present_value"}, []attrFn{aInt("is_causal", 1)}
	})
	att("3d", elF32, func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("Q", elF32, 2, 3, nh*hd), m.in("K", elF32, 2, 5, kvh*hd), m.in("V", elF32, 2, 5, kvh*8)}, []string{"Y"},
			[]attrFn{aInt("q_num_heads", nh), aInt("kv_num_heads", kvh)}
	})
	att("3d_past_mask", elF32, func(m *oxModel) ([]string, []string, []attrFn) {
		mask := m.in("attn_mask", elBool, 3, 7)
		m.fill(mask, 1)
		return []string{m.in("Q", elF32, 2, 3, nh*hd), m.in("K", elF32, 2, 3, kvh*hd), m.in("V", elF32, 2, 3, kvh*hd), mask,
				m.in("past_key", elF32, 2, kvh, 4, hd), m.in("past_value", elF32, 2, kvh, 4, hd)},
			[]string{"Y", "present_key", "present_value"}, []attrFn{aInt("q_num_heads", nh), aInt("kv_num_heads", kvh)}
	})
	att("4d_qk_output", elF32, func(m *oxModel) ([]string, []string, []attrFn) {
		return []string{m.in("Q", elF32, 2, nh, 3, hd), m.in("K", elF32, 2, nh, 3, hd), m.in("V", elF32, 2, nh, 3, hd), "",
				m.in("past_key", elF32, 2, nh, 2, hd), m.in("past_value", elF32, 2, nh, 2, hd)},
			[]string{"Y", "present_key", "present_value", "qk_matmul_output"}, []attrFn{aInt("qk_matmul_output_mode", 1)}
	})
	// RotaryEmbedding: com.microsoft (input, position_ids, cos, sin) and
	// ONNX 23 (X, cos, sin, position_ids), 3-D and 4-D, interleaved, a
	// partial rotary dim, caches indexed by batch and sequence.
	add("op_MsRotaryEmbedding_3d", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("RotaryEmbedding", []string{m.in("input", elF32, 2, 3, nh*hd), m.in("position_ids", elI64, 2, 3), m.w("cos", elF32, 32, hd/2), m.w("sin", elF32, 32, hd/2)},
			[]string{"output"}, aInt("num_heads", nh), aInt("rotary_embedding_dim", hd))
		m.out(elF32, "output")
		return m
	})
	add("op_MsRotaryEmbedding_4d_interleaved_f16", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("RotaryEmbedding", []string{m.in("input", elF16, 2, nh, 3, hd), m.in("position_ids", elI64, 2, 3), m.w("cos", elF16, 32, hd/2), m.w("sin", elF16, 32, hd/2)},
			[]string{"output"}, aInt("interleaved", 1))
		m.out(elF16, "output")
		return m
	})
	add("op_RotaryEmbedding23_4d", func() *oxModel {
		m := newModel(23)
		m.op("RotaryEmbedding", []string{m.in("X", elF32, 2, nh, 3, hd), m.w("cos", elF32, 32, hd/2), m.w("sin", elF32, 32, hd/2), m.in("position_ids", elI64, 2, 3)}, []string{"Y"})
		m.out(elF32, "Y")
		return m
	})
	add("op_RotaryEmbedding23_3d_partial_f16", func() *oxModel {
		m := newModel(23)
		m.op("RotaryEmbedding", []string{m.in("X", elF16, 2, 3, nh*hd), m.w("cos", elF16, 32, 4), m.w("sin", elF16, 32, 4), m.in("position_ids", elI64, 2, 3)},
			[]string{"Y"}, aInt("num_heads", nh), aInt("rotary_embedding_dim", 8), aInt("interleaved", 1))
		m.out(elF16, "Y")
		return m
	})
	add("op_RotaryEmbedding23_no_position_ids", func() *oxModel {
		m := newModel(23)
		m.op("RotaryEmbedding", []string{m.in("X", elF32, 2, nh, 3, hd), m.in("cos", elF32, 2, 3, hd/2), m.in("sin", elF32, 2, 3, hd/2)}, []string{"Y"})
		m.out(elF32, "Y")
		return m
	})
	return cases
}

func miscCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	add("op_SimplifiedLayerNormalization", func() *oxModel {
		m := newModel(21)
		m.op("SimplifiedLayerNormalization", []string{m.in("X", elF32, 2, 3, 64), m.w("scale", elF32, 64)}, []string{"Y", "inv_std_var"},
			aInt("axis", -1), aFloat("epsilon", 1e-5))
		m.out(elF32, "Y", "inv_std_var")
		return m
	})
	add("op_SimplifiedLayerNormalization_axis1_f16", func() *oxModel {
		m := newModel(21)
		m.op("SimplifiedLayerNormalization", []string{m.in("X", elF16, 2, 3, 64), m.w("scale", elF16, 3, 64)}, []string{"Y", "inv_std_var"},
			aInt("axis", 1), aInt("stash_type", 1))
		m.out(elF16, "Y")
		m.out(elF32, "inv_std_var")
		return m
	})
	add("op_SkipSimplifiedLayerNormalization_all_outputs", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("SkipSimplifiedLayerNormalization", []string{m.in("input", elF32, 2, 3, 64), m.in("skip", elF32, 2, 3, 64), m.w("gamma", elF32, 64), m.w("bias", elF32, 64)},
			[]string{"output", "mean", "inv_std_var", "input_skip_bias_sum"}, aFloat("epsilon", 1e-6))
		m.out(elF32, "output", "mean", "inv_std_var", "input_skip_bias_sum")
		return m
	})
	add("op_SkipSimplifiedLayerNormalization_2d_f16", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("SkipSimplifiedLayerNormalization", []string{m.in("input", elF16, 5, 64), m.in("skip", elF16, 5, 64), m.w("gamma", elF16, 64)},
			[]string{"output", "", "inv_std_var", "input_skip_bias_sum"})
		m.out(elF16, "output", "input_skip_bias_sum")
		m.out(elF32, "inv_std_var")
		return m
	})
	add("op_RMSNormalization", func() *oxModel {
		m := newModel(23)
		m.op("RMSNormalization", []string{m.in("X", elF32, 2, 3, 64), m.w("scale", elF32, 64)}, []string{"Y"}, aFloat("epsilon", 1e-5))
		m.out(elF32, "Y")
		return m
	})
	add("op_RMSNormalization_axis1_f16", func() *oxModel {
		m := newModel(23)
		m.op("RMSNormalization", []string{m.in("X", elF16, 2, 3, 64), m.w("scale", elF16, 3, 64)}, []string{"Y"}, aInt("axis", 1))
		m.out(elF16, "Y")
		return m
	})
	// Activations.
	add("op_QuickGelu", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("QuickGelu", []string{m.in("X", elF32, 2, 3, 8)}, []string{"Y"}, aFloat("alpha", 1.702))
		m.out(elF32, "Y")
		return m
	})
	add("op_FastGelu_bias_f16", func() *oxModel {
		m := newModel(21).use("com.microsoft", 1)
		m.ms("FastGelu", []string{m.in("X", elF16, 2, 3, 8), m.w("bias", elF16, 8)}, []string{"Y"})
		m.out(elF16, "Y")
		return m
	})
	add("op_Gelu20_tanh", func() *oxModel {
		m := newModel(20)
		m.op("Gelu", []string{m.in("X", elF32, 2, 3, 8)}, []string{"Y"}, aStr("approximate", "tanh"))
		m.out(elF32, "Y")
		return m
	})
	add("op_Swish24", func() *oxModel {
		m := newModel(24)
		m.op("Swish", []string{m.in("X", elF32, 2, 3, 8)}, []string{"Y"}, aFloat("alpha", 1.5))
		m.out(elF32, "Y")
		return m
	})
	add("op_TensorScatter24", func() *oxModel {
		m := newModel(24)
		m.in("write_indices", elI64, 2)
		m.values("write_indices", 3, 5)
		m.op("TensorScatter", []string{m.in("past_cache", elF32, 2, decKVHeads, 16, 8), m.in("update", elF32, 2, decKVHeads, 1, 8), "write_indices"},
			[]string{"present_cache"}, aInt("axis", -2))
		m.out(elF32, "present_cache")
		return m
	})
	add("op_TensorScatter24_circular_f16", func() *oxModel {
		m := newModel(24)
		m.op("TensorScatter", []string{m.in("past_cache", elF16, 3, 16, decKVHeads, 8), m.in("update", elF16, 3, 2, decKVHeads, 8)},
			[]string{"present_cache"}, aInt("axis", 1), aStr("mode", "circular"))
		m.out(elF16, "present_cache")
		return m
	})
	return cases
}

// refusedCases are models onnxruntime's CPU provider refuses: ops with
// GPU kernels only, and variants its CPU kernel does not implement.
func refusedCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	ms := func(op string, outElem int64, ins func(m *oxModel) []string, outs []string, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			m.ms(op, ins(m), outs, attrs...)
			m.out(outElem, outs...)
			return m
		}
	}
	add("op_GroupNorm", ms("GroupNorm", elF32, func(m *oxModel) []string {
		return []string{m.in("X", elF32, 2, 4, 4, 32), m.w("gamma", elF32, 32), m.w("beta", elF32, 32)}
	}, []string{"Y"}, aInt("groups", 4), aInt("activation", 0), aInt("channels_last", 1), aFloat("epsilon", 1e-5)))
	add("op_SkipGroupNorm", ms("SkipGroupNorm", elF32, func(m *oxModel) []string {
		return []string{m.in("X", elF32, 2, 4, 4, 32), m.w("gamma", elF32, 32), m.w("beta", elF32, 32), m.in("skip", elF32, 2, 4, 4, 32), m.w("bias", elF32, 32)}
	}, []string{"Y", "S"}, aInt("groups", 4), aInt("activation", 1), aInt("channels_last", 1)))
	add("op_BiasSplitGelu", ms("BiasSplitGelu", elF32, func(m *oxModel) []string {
		return []string{m.in("X", elF32, 2, 4, 64), m.w("bias", elF32, 64)}
	}, []string{"Y"}))
	add("op_BiasAdd", ms("BiasAdd", elF32, func(m *oxModel) []string {
		return []string{m.in("X", elF32, 2, 4, 32), m.w("bias", elF32, 32), m.in("skip", elF32, 2, 4, 32)}
	}, []string{"Y"}))
	const nh, hd = 4, 16
	mha := func(name string, f func(m *oxModel) ([]string, []string)) {
		add("op_MultiHeadAttention_"+name, func() *oxModel {
			m := newModel(21).use("com.microsoft", 1)
			ins, outs := f(m)
			m.ms("MultiHeadAttention", ins, outs, aInt("num_heads", nh))
			m.out(elF32, outs...)
			return m
		})
	}
	mha("packed_qkv", func(m *oxModel) ([]string, []string) {
		return []string{m.in("qkv", elF32, 2, 5, nh, 3, hd)}, []string{"output"}
	})
	mha("packed_kv", func(m *oxModel) ([]string, []string) {
		return []string{m.in("q", elF32, 2, 3, nh*hd), m.in("kv", elF32, 2, 6, nh, 2, hd)}, []string{"output"}
	})
	add("op_DecoderMaskedMultiHeadAttention_past_not_shared", ms("DecoderMaskedMultiHeadAttention", elF32, func(m *oxModel) []string {
		m.in("past_sequence_length", elI32, 1)
		m.values("past_sequence_length", 7)
		return []string{m.in("query", elF32, 2, 1, nh*hd), m.in("key", elF32, 2, 1, nh*hd), m.in("value", elF32, 2, 1, nh*hd), "", "",
			m.in("past_key", elF32, 2, nh, 7, hd), m.in("past_value", elF32, 2, nh, 7, hd), "past_sequence_length"}
	}, []string{"output", "present_key", "present_value"}, aInt("num_heads", nh)))
	// The preview training optimizers run only in onnxruntime's training
	// builds.
	optimizer := func(op string, groups ...string) func() *oxModel {
		return func() *oxModel {
			m := newModel(17).use(trainingDomain, 1)
			ins := []string{m.wv("r", elF32, nil, 0.1), m.wv("t", elI64, nil, 0)}
			var outs []string
			for _, g := range groups {
				ins = append(ins, m.in(g, elF32, 3, 4))
				if g != "G" {
					outs = append(outs, g+"_new")
				}
			}
			m.node(trainingDomain, op, ins, outs)
			m.out(elF32, outs...)
			return m
		}
	}
	add("op_Adagrad", optimizer("Adagrad", "X", "G", "H"))
	// QLinearReduceMean has a schema but no CPU kernel.
	add("op_QLinearReduceMean", ms("QLinearReduceMean", elU8, func(m *oxModel) []string {
		return []string{m.in("X", elU8, 2, 3, 4, 5), m.wv("xs", elF32, nil, 1), m.w("xz", elU8), m.wv("ys", elF32, nil, 1), m.w("yz", elU8)}
	}, []string{"Y"}, aInts("axes", 2, 3), aInt("keepdims", 1)))
	add("op_Adam", optimizer("Adam", "X", "G", "V", "H"))
	add("op_Momentum", optimizer("Momentum", "X", "G", "V"))
	return cases
}

// gapCases: ops whose rules came later than the families above (quantized
// and unpooling convolutions, the signal ops, text vectorizing), one model
// per form of each, so that a wrong shape rule is pinned to its form.
func gapCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	// onnxruntime runs uint8 data with uint8 output and int8 data with
	// int8 output, the weights int8 either way.
	qconv := func(el int64, xDims []any, w []int64, group int64, bias bool, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(10)
			ins := []string{m.in("x", el, xDims...),
				m.wv("xs", elF32, nil, 1), m.w("xz", el), m.w("w", elI8, w...),
				m.wv("ws", elF32, nil, 1), m.w("wz", elI8), m.wv("ys", elF32, nil, 1), m.w("yz", el)}
			if bias {
				ins = append(ins, m.w("b", elI32, w[0]))
			}
			m.op("QLinearConv", ins, []string{"y"}, append(attrs, aInt("group", group))...)
			m.out(el, "y")
			return m
		}
	}
	add("op_QLinearConv_pads_strides", qconv(elU8, []any{1, 4, 9, 9}, []int64{6, 4, 3, 3}, 1, false,
		aInts("pads", 1, 0, 1, 0), aInts("strides", 2, 2)))
	add("op_QLinearConv_grouped_bias", qconv(elI8, []any{2, 4, 7, 6}, []int64{6, 2, 2, 3}, 2, true,
		aInts("dilations", 2, 1)))
	add("op_ConvInteger", func() *oxModel {
		m := newModel(10)
		m.op("ConvInteger", []string{m.in("x", elU8, 1, 3, 8, 8), m.w("w", elU8, 5, 3, 3, 3)}, []string{"y"}, aInts("pads", 1, 1, 1, 1))
		m.out(elI32, "y")
		return m
	})
	unpool := func(withShape bool, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(11)
			ins := []string{m.in("x", elF32, 1, 2, 3, 3), m.in("i", elI64, 1, 2, 3, 3)}
			if withShape {
				ins = append(ins, m.wv("os", elI64, []int64{4}, 1, 2, 7, 8))
			}
			m.op("MaxUnpool", ins, []string{"y"}, attrs...)
			m.out(elF32, "y")
			return m
		}
	}
	add("op_MaxUnpool_strides_pads", unpool(false, aInts("kernel_shape", 3, 2), aInts("strides", 2, 3), aInts("pads", 1, 0, 0, 1)))
	add("op_MaxUnpool_output_shape", unpool(true, aInts("kernel_shape", 2, 2), aInts("strides", 2, 2)))
	// DFT in its opset 17 form (axis attribute) and its opset 20 form
	// (axis input), each with and without dft_length and onesided.
	dft := func(opset int64, dims []any, length, axis int64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(opset)
			ins := []string{m.in("x", elF32, dims...), ""}
			if length > 0 {
				ins[1] = m.wv("len", elI64, nil, float64(length))
			}
			if opset >= 20 && axis != 0 {
				ins = append(ins, m.wv("axis", elI64, nil, float64(axis)))
			} else if axis != 0 {
				attrs = append(attrs, aInt("axis", axis))
			}
			m.op("DFT", ins, []string{"y"}, attrs...)
			m.out(elF32, "y")
			return m
		}
	}
	add("op_DFT17_default_axis", dft(17, []any{2, 10, 6, 1}, 0, 0))
	add("op_DFT17_onesided_length", dft(17, []any{2, 10, 6, 1}, 16, 1, aInt("onesided", 1)))
	add("op_DFT17_axis2_inverse_complex", dft(17, []any{2, 10, 6, 2}, 0, 2, aInt("inverse", 1)))
	add("op_DFT17_negative_axis_length", dft(17, []any{2, 10, 6, 1}, 4, -2))
	add("op_DFT20_inverse_onesided_length", dft(20, []any{2, 5, 2}, 9, 0, aInt("onesided", 1), aInt("inverse", 1)))
	add("op_DFT20_inverse_onesided_axis1", dft(20, []any{3, 5, 4, 2}, 0, 1, aInt("onesided", 1), aInt("inverse", 1)))
	add("op_DFT17_inverse_onesided", dft(17, []any{2, 5, 2}, 0, 0, aInt("onesided", 1), aInt("inverse", 1)))
	add("op_DFT20_default_axis_onesided", dft(20, []any{2, 10, 7, 1}, 0, 0, aInt("onesided", 1)))
	add("op_DFT20_axis_input_length", dft(20, []any{2, 10, 7, 2}, 5, 1))
	add("op_DFT20_negative_axis_onesided_length", dft(20, []any{3, 4, 9, 1}, 12, -3, aInt("onesided", 1)))
	stft := func(dims []any, step, window, frame int64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(17)
			ins := []string{m.in("x", elF32, dims...), m.wv("step", elI64, nil, float64(step)), "", ""}
			if window > 0 {
				ins[2] = m.wv("w", elF32, []int64{window})
			}
			if frame > 0 {
				ins[3] = m.wv("len", elI64, nil, float64(frame))
			}
			m.op("STFT", ins, []string{"y"}, attrs...)
			m.out(elF32, "y")
			return m
		}
	}
	add("op_STFT_window", stft([]any{2, 128, 1}, 8, 16, 0))
	add("op_STFT_frame_length_twosided", stft([]any{1, 100, 1}, 30, 0, 20, aInt("onesided", 0)))
	add("op_STFT_window_and_length_odd", stft([]any{1, 50, 1}, 7, 15, 15))
	add("op_STFT_complex_onesided", stft([]any{1, 50, 2}, 7, 15, 15))
	for _, w := range []string{"HannWindow", "HammingWindow", "BlackmanWindow"} {
		add("op_"+w, func() *oxModel {
			m := newModel(17)
			m.op(w, []string{m.wv("n", elI64, nil, 10)}, []string{"y"}, aInt("periodic", 0))
			m.out(elF32, "y")
			return m
		})
	}
	add("op_HannWindow_double", func() *oxModel {
		m := newModel(17)
		m.op("HannWindow", []string{m.wv("n", elI32, nil, 7)}, []string{"y"}, aInt("output_datatype", elF64))
		m.out(elF64, "y")
		return m
	})
	add("op_MelWeightMatrix", func() *oxModel {
		m := newModel(17)
		m.op("MelWeightMatrix", []string{m.wv("bins", elI64, nil, 8), m.wv("dft", elI64, nil, 63), m.wv("sr", elI64, nil, 16000),
			m.wv("lo", elF32, nil, 100), m.wv("hi", elF32, nil, 6000)}, []string{"y"})
		m.out(elF32, "y")
		return m
	})
	tfidf := func(dims []any, indexes []int64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(9)
			m.op("TfIdfVectorizer", []string{m.in("x", elI64, dims...)}, []string{"y"}, append(attrs,
				aStr("mode", "TFIDF"), aInt("min_gram_length", 1), aInt("max_gram_length", 2), aInt("max_skip_count", 1),
				aInts("ngram_counts", 0, 4), aInts("ngram_indexes", indexes...), aInts("pool_int64s", 2, 3, 5, 4, 5, 6, 7, 8, 6, 7))...)
			m.out(elF32, "y")
			return m
		}
	}
	add("op_TfIdfVectorizer_1d", tfidf([]any{12}, []int64{0, 1, 2, 3, 4, 5, 6}))
	add("op_TfIdfVectorizer_2d_sparse_slots", tfidf([]any{3, 5}, []int64{10, 1, 2, 3, 4, 5, 6}))
	// Data-dependent lengths, from constants.
	compress := func(cond []float64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(11)
			m.op("Compress", []string{m.in("x", elF32, 3, 4), m.wv("c", elBool, []int64{int64(len(cond))}, cond...)}, []string{"y"}, attrs...)
			m.out(elF32, "y")
			return m
		}
	}
	add("op_Compress_axis", compress([]float64{0, 1, 1}, aInt("axis", -2)))
	add("op_Compress_flat_short", compress([]float64{1, 0, 1, 1, 0, 1, 1}))
	// Scan: a running sum as state, a scan output per slice.
	scanBody := graphP(input(vinfo("s", elF32, 3)), input(vinfo("x", elF32, 3)),
		op("Add", []string{"s", "x"}, []string{"s2"}), op("Mul", []string{"s2", "x"}, []string{"e"}),
		output(vinfo("s2", elF32, 3)), output(vinfo("e", elF32, 3)))
	add("op_Scan_axes", func() *oxModel {
		m := newModel(16)
		m.op("Scan", []string{m.in("s0", elF32, 3), m.in("xs", elF32, 3, 6)}, []string{"final", "ys"},
			aGraph("body", scanBody), aInt("num_scan_inputs", 1), aInts("scan_input_axes", 1), aInts("scan_output_axes", 1))
		m.out(elF32, "final", "ys")
		return m
	})
	add("op_Scan8_batch", func() *oxModel {
		m := newModel(8)
		m.op("Scan", []string{"", m.in("s0", elF32, 2, 3), m.in("xs", elF32, 2, 5, 3)}, []string{"final", "ys"},
			aGraph("body", scanBody), aInt("num_scan_inputs", 1))
		m.out(elF32, "final", "ys")
		return m
	})
	add("op_NonZero_constant", func() *oxModel {
		m := newModel(13)
		m.op("NonZero", []string{m.wv("x", elI64, []int64{2, 3}, 0, 5, 0, 1, 1)}, []string{"y"})
		m.out(elI64, "y")
		return m
	})
	return cases
}

// qoperatorCases: the com.microsoft QLinear ops of onnxruntime's QOperator
// quantization format, one model per form of each, uint8 and int8.
func qoperatorCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	// q is a quantized tensor's scale (1) and zero point, as inputs of a
	// QLinear op; zp false leaves the optional zero point out.
	q := func(m *oxModel, name string, el int64, zp bool) []string {
		ins := []string{m.wv(name+"_scale", elF32, nil, 1)}
		if zp {
			ins = append(ins, m.w(name+"_zp", el))
		}
		return ins
	}
	// in is a graph input, rank 0 when dims is empty.
	in := func(m *oxModel, name string, el int64, dims []any) string {
		if len(dims) == 0 {
			return m.scalarIn(name, el)
		}
		return m.in(name, el, dims...)
	}
	binary := func(op string, el int64, a, b []any, zp bool) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			ins := append([]string{m.in("A", el, a...)}, q(m, "A", el, true)...)
			ins = append(append(ins, in(m, "B", el, b)), q(m, "B", el, true)...)
			ins = append(ins, q(m, "C", el, zp)...)
			m.ms(op, ins, []string{"C"})
			m.out(el, "C")
			return m
		}
	}
	add("op_QLinearAdd_u8_broadcast", binary("QLinearAdd", elU8, []any{2, 3, 4}, []any{4}, true))
	add("op_QLinearAdd_i8_both_ways", binary("QLinearAdd", elI8, []any{2, 1, 4}, []any{3, 1}, true))
	add("op_QLinearMul_u8_no_c_zero_point", binary("QLinearMul", elU8, []any{1, 8, 5, 5}, []any{1, 8, 1, 1}, false))
	add("op_QLinearMul_i8_scalar", binary("QLinearMul", elI8, []any{2, 6}, []any{}, true))
	unary := func(op string, el int64, dims []any, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			ins := append(append([]string{m.in("X", el, dims...)}, q(m, "X", el, true)...), q(m, "Y", el, true)...)
			m.ms(op, ins, []string{"Y"}, attrs...)
			m.out(el, "Y")
			return m
		}
	}
	add("op_QLinearSigmoid_u8", unary("QLinearSigmoid", elU8, []any{2, 3, 5}))
	add("op_QLinearSigmoid_i8", unary("QLinearSigmoid", elI8, []any{7}))
	add("op_QLinearLeakyRelu_u8", unary("QLinearLeakyRelu", elU8, []any{1, 4, 3, 3}, aFloat("alpha", 0.1)))
	add("op_QLinearLeakyRelu_i8", unary("QLinearLeakyRelu", elI8, []any{2, 5}, aFloat("alpha", 0.2)))
	add("op_QLinearSoftmax_u8_opset13", unary("QLinearSoftmax", elU8, []any{2, 3, 10}, aInt("axis", -1), aInt("opset", 13)))
	add("op_QLinearSoftmax_i8_opset12_axis1", unary("QLinearSoftmax", elI8, []any{2, 3, 10}, aInt("axis", 1), aInt("opset", 12)))
	add("op_QLinearGlobalAveragePool_nchw_u8", unary("QLinearGlobalAveragePool", elU8, []any{2, 8, 5, 7}))
	add("op_QLinearGlobalAveragePool_nhwc_i8", unary("QLinearGlobalAveragePool", elI8, []any{2, 5, 7, 8}, aInt("channels_last", 1)))
	add("op_QLinearGlobalAveragePool_1d_u8", unary("QLinearGlobalAveragePool", elU8, []any{1, 3, 9}))
	add("op_QLinearAveragePool_pads_strides_u8", unary("QLinearAveragePool", elU8, []any{1, 4, 9, 8},
		aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1), aInt("count_include_pad", 1)))
	add("op_QLinearAveragePool_ceil_i8", unary("QLinearAveragePool", elI8, []any{2, 3, 10, 7},
		aInts("kernel_shape", 3, 2), aInts("strides", 3, 2), aInt("ceil_mode", 1)))
	add("op_QLinearAveragePool_nhwc_u8", unary("QLinearAveragePool", elU8, []any{1, 9, 8, 4},
		aInts("kernel_shape", 3, 2), aInts("strides", 2, 2), aInt("channels_last", 1)))
	add("op_QLinearAveragePool_same_upper_u8", unary("QLinearAveragePool", elU8, []any{1, 2, 7, 7},
		aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aStr("auto_pad", "SAME_UPPER")))
	add("op_QLinearAveragePool_1d_i8", unary("QLinearAveragePool", elI8, []any{2, 3, 11}, aInts("kernel_shape", 4), aInts("strides", 3)))
	concat := func(el int64, axis int64, dims ...[]any) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			ins := q(m, "Y", el, true)
			for i, d := range dims {
				x := fmt.Sprintf("X%d", i)
				ins = append(append(ins, m.in(x, el, d...)), q(m, x, el, true)...)
			}
			m.ms("QLinearConcat", ins, []string{"Y"}, aInt("axis", axis))
			m.out(el, "Y")
			return m
		}
	}
	add("op_QLinearConcat_u8_axis1", concat(elU8, 1, []any{1, 3, 4, 4}, []any{1, 5, 4, 4}, []any{1, 2, 4, 4}))
	add("op_QLinearConcat_i8_negative_axis", concat(elI8, -1, []any{2, 3}, []any{2, 6}))
	add("op_QLinearConcat_u8_one_input", concat(elU8, 0, []any{4, 2}))
	where := func(el int64, c, x, y []any) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			ins := []string{m.in("cond", elBool, c...), in(m, "X", el, x)}
			ins = append(ins, q(m, "X", el, true)...)
			ins = append(append(ins, m.in("Yv", el, y...)), q(m, "Yv", el, true)...)
			ins = append(ins, q(m, "Z", el, true)...)
			m.ms("QLinearWhere", ins, []string{"Z"})
			m.out(el, "Z")
			return m
		}
	}
	// QAttention: uint8 input, int8 or uint8 weights, float outputs; with
	// a past its present grows by the sequence.
	qattention := func(wEl int64, past bool) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			ins := []string{m.in("input", elU8, 2, 3, 32), m.w("weight", wEl, 32, 96), m.w("bias", elF32, 96),
				m.wv("input_scale", elF32, nil, 1), m.wv("weight_scale", elF32, nil, 1), "", m.w("input_zp", elU8), m.w("weight_zp", wEl)}
			outs := []string{"output"}
			if past {
				ins = append(ins, m.in("past", elF32, 2, 2, 4, 5, 8))
				outs = append(outs, "present")
			}
			m.ms("QAttention", ins, outs, aInt("num_heads", 4), aInt("unidirectional", 1))
			m.out(elF32, outs...)
			return m
		}
	}
	add("op_QAttention_u8_i8", qattention(elI8, false))
	add("op_QAttention_u8_u8_past", qattention(elU8, true))
	add("op_QLinearWhere_u8_broadcast", where(elU8, []any{3, 1}, []any{1, 4}, []any{3, 4}))
	add("op_QLinearWhere_i8_scalar_values", where(elI8, []any{2, 3, 4}, []any{}, []any{4}))
	return cases
}

// visionCases: ONNX ops of diffusion and vision exports (group and Lp
// norms, crops, col2im, affine grids, deformable convolution) and
// onnxruntime's fused convolution.
func visionCases() []oracleCase {
	var cases []oracleCase
	add := func(name string, build func() *oxModel) {
		cases = append(cases, oracleCase{name: name, build: build})
	}
	groupNorm := func(opset int64, el int64, dims []any, groups, per int64) func() *oxModel {
		return func() *oxModel {
			m := newModel(opset)
			m.op("GroupNormalization", []string{m.in("X", el, dims...), m.w("scale", el, per), m.w("bias", el, per)}, []string{"Y"},
				aInt("num_groups", groups), aFloat("epsilon", 1e-5))
			m.out(el, "Y")
			return m
		}
	}
	add("op_GroupNormalization18", groupNorm(18, elF32, []any{2, 8, 5, 5}, 4, 4))
	add("op_GroupNormalization21", groupNorm(21, elF32, []any{2, 8, 5, 5}, 4, 8))
	add("op_GroupNormalization21_3d_f16", groupNorm(21, elF16, []any{1, 6, 10}, 3, 6))
	lpNorm := func(dims []any, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(17)
			m.op("LpNormalization", []string{m.in("X", elF32, dims...)}, []string{"Y"}, attrs...)
			m.out(elF32, "Y")
			return m
		}
	}
	add("op_LpNormalization", lpNorm([]any{2, 3, 4}))
	add("op_LpNormalization_p1_axis0", lpNorm([]any{2, 3, 4}, aInt("p", 1), aInt("axis", 0)))
	add("op_CumProd", func() *oxModel {
		m := newModel(26)
		m.op("CumProd", []string{m.in("X", elF32, 2, 5), m.wv("axis", elI64, nil, 1)}, []string{"Y"}, aInt("exclusive", 1))
		m.out(elF32, "Y")
		return m
	})
	crop := func(dims []any, shape []float64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(18)
			m.op("CenterCropPad", []string{m.in("X", elF32, dims...), m.wv("shape", elI64, []int64{int64(len(shape))}, shape...)}, []string{"Y"}, attrs...)
			m.out(elF32, "Y")
			return m
		}
	}
	add("op_CenterCropPad_crop_and_pad", crop([]any{3, 10, 8}, []float64{3, 6, 12}))
	add("op_CenterCropPad_axes", crop([]any{2, 3, 10, 8}, []float64{7, 4}, aInts("axes", -2, 3)))
	col2im := func(dims []any, img, blk []float64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(18)
			m.op("Col2Im", []string{m.in("X", elF32, dims...), m.wv("image_shape", elI64, []int64{int64(len(img))}, img...),
				m.wv("block_shape", elI64, []int64{int64(len(blk))}, blk...)}, []string{"Y"}, attrs...)
			m.out(elF32, "Y")
			return m
		}
	}
	add("op_Col2Im", col2im([]any{1, 5, 5}, []float64{5, 5}, []float64{1, 5}))
	add("op_Col2Im_strides_pads_dilations", col2im([]any{2, 12, 12}, []float64{6, 7}, []float64{2, 2},
		aInts("strides", 2, 2), aInts("pads", 1, 0, 1, 1), aInts("dilations", 2, 1)))
	affine := func(theta []any, size []float64) func() *oxModel {
		return func() *oxModel {
			m := newModel(20)
			m.op("AffineGrid", []string{m.in("theta", elF32, theta...), m.wv("size", elI64, []int64{int64(len(size))}, size...)}, []string{"grid"},
				aInt("align_corners", 1))
			m.out(elF32, "grid")
			return m
		}
	}
	add("op_AffineGrid_2d", affine([]any{2, 2, 3}, []float64{2, 3, 5, 7}))
	add("op_AffineGrid_3d", affine([]any{1, 3, 4}, []float64{1, 1, 4, 5, 6}))
	deform := func(x []any, w []int64, offset []any, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(19)
			m.op("DeformConv", []string{m.in("X", elF32, x...), m.w("W", elF32, w...), m.in("offset", elF32, offset...)}, []string{"Y"}, attrs...)
			m.out(elF32, "Y")
			return m
		}
	}
	add("op_DeformConv", deform([]any{1, 2, 6, 6}, []int64{4, 2, 3, 3}, []any{1, 18, 4, 4}))
	add("op_DeformConv_strides_pads_groups", deform([]any{1, 4, 7, 7}, []int64{6, 2, 3, 3}, []any{1, 36, 4, 4},
		aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1), aInt("group", 2), aInt("offset_group", 2)))
	fused := func(x []any, w []int64, attrs ...attrFn) func() *oxModel {
		return func() *oxModel {
			m := newModel(13).use("com.microsoft", 1)
			m.ms("FusedConv", []string{m.in("X", elF32, x...), m.w("W", elF32, w...), m.w("B", elF32, w[0])}, []string{"Y"},
				append(attrs, aStr("activation", "Relu"))...)
			m.out(elF32, "Y")
			return m
		}
	}
	add("op_FusedConv_relu", fused([]any{1, 3, 8, 8}, []int64{4, 3, 3, 3}, aInts("pads", 1, 1, 1, 1)))
	add("op_FusedConv_strides_groups", fused([]any{2, 4, 9, 7}, []int64{6, 2, 3, 2}, aInts("strides", 2, 1), aInt("group", 2)))
	return cases
}
