package onnx

import (
	"fmt"
	"math"
	"slices"
)

// Attention: the fused attention ops of onnxruntime (com.microsoft) and of
// ONNX opset 23, with their key/value caches. The shapes follow the
// kernels' own arithmetic (onnxruntime's shape inference where it agrees
// with the kernel), since the plan must hold what the kernel allocates.

var attentionRules = []ruleSet{
	{domains: []string{msDomain}, ops: []string{"Attention"}, rule: ruleMSAttention},
	{domains: []string{msDomain}, ops: []string{"QAttention"}, rule: ruleQAttention},
	{domains: []string{msDomain}, ops: []string{"MultiHeadAttention"}, rule: ruleMultiHeadAttention},
	{domains: []string{msDomain}, ops: []string{"DecoderMaskedMultiHeadAttention"}, rule: ruleDecoderMaskedMHA},
	{domains: []string{msDomain}, ops: []string{"GroupQueryAttention"}, rule: ruleGroupQueryAttention},
	{domains: []string{msDomain}, ops: []string{"RotaryEmbedding"}, rule: ruleMSRotaryEmbedding},
	{ops: []string{"RotaryEmbedding"}, rule: ruleRotaryEmbedding},
	{ops: []string{"Attention"}, rule: ruleAttention},
}

// attFail clears every output and records why: inputs that disagree make
// the node invalid, so no output may look planned.
func attFail(d *decoder, res []tinfo, format string, args ...any) []tinfo {
	clear(res)
	return d.fail(res, format, args...)
}

// attHeads reads a head-count attribute the op cannot do without.
func attHeads(d *decoder, n *node, name string) (int64, bool) {
	a := n.attr(name)
	switch {
	case a == nil:
		d.fail(nil, "attribute %s is missing", name)
		return 0, false
	case a.i <= 0:
		d.fail(nil, "attribute %s is %d; it must be positive", name, a.i)
		return 0, false
	}
	return a.i, true
}

// wants reports whether the node names output i.
func wants(n *node, i int) bool { return i < len(n.outputs) && n.outputs[i] != "" }

// given reports whether the node names input i (present also asks that
// it is not empty).
func given(n *node, i int) bool { return i < len(n.inputs) && n.inputs[i] != "" }

// put sets output i when the node has it.
func put(res []tinfo, i int, t tinfo) {
	if i < len(res) {
		res[i] = t
	}
}

// addOK is a+b for dims, -1 on overflow (which known refuses).
func addOK(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return -1
	}
	return a + b
}

// ruleMSAttention: com.microsoft Attention. input [batch, seq, in_hidden]
// times packed weights [in_hidden, q+k+v hidden] gives [batch, seq,
// v_hidden]; present stacks key and value as [2, batch, heads, past+seq,
// head], or keeps past's shape when past_present_share_buffer is set
// (past is then allocated at the maximum length).
func ruleMSAttention(d *decoder, n *node, res []tinfo) []tinfo {
	return msAttention(d, n, res, dtOf(d.in(n, 0)), 4)
}

// ruleQAttention: com.microsoft QAttention, Attention on a quantized input
// (0) and weights (1), dequantized by input_scale (3) and weight_scale
// (4). Its outputs are in the float type of the bias (2) and the scales;
// past, if any, is input 8.
func ruleQAttention(d *decoder, n *node, res []tinfo) []tinfo {
	if len(n.inputs) < 5 || len(n.inputs) > 9 {
		return d.bad(res, "QAttention needs 5 to 9 inputs (input, weight, bias, input_scale, weight_scale, optional mask_index, input_zero_point, weight_zero_point and past), this node has %d", len(n.inputs))
	}
	for i, what := range []string{"input", "weight", "bias", "input_scale", "weight_scale"} {
		if n.inputs[i] == "" {
			return d.bad(res, "input %d (%s) is missing", i, what)
		}
	}
	if n.attr("num_heads") == nil {
		return d.bad(res, "attribute num_heads is missing")
	}
	return msAttention(d, n, res, dtOf(d.in(n, 2)), 8)
}

// msAttention is Attention and QAttention: outputs of type dt, past at
// input pastIdx.
func msAttention(d *decoder, n *node, res []tinfo, dt int64, pastIdx int) []tinfo {
	xs, xok := d.shape(n, 0)
	ws, wok := d.shape(n, 1)
	if !xok || !wok {
		return res
	}
	if len(xs) != 3 || len(ws) != 2 {
		return attFail(d, res, "Attention needs rank-3 input and rank-2 weights, got ranks %d and %d", len(xs), len(ws))
	}
	if ws[0] != xs[2] {
		return attFail(d, res, "weights' rows %d differ from the input's hidden size %d", ws[0], xs[2])
	}
	if bs, ok := d.shape(n, 2); ok && d.present(n, 2) && (len(bs) != 1 || bs[0] != ws[1]) {
		return attFail(d, res, "bias %v must be one dim equal to the weights' columns %d", bs, ws[1])
	}
	var qh, kh, vh int64
	if q, ok := n.attrInts("qkv_hidden_sizes"); ok {
		if len(q) != 3 {
			return attFail(d, res, "qkv_hidden_sizes has %d values; it needs 3", len(q))
		}
		qh, kh, vh = q[0], q[1], q[2]
		if qh <= 0 || kh <= 0 || vh <= 0 || qh != kh || addOK(addOK(qh, kh), vh) != ws[1] {
			return attFail(d, res, "qkv_hidden_sizes %v must be positive, with q equal to k, and sum to the weights' columns %d", q, ws[1])
		}
	} else {
		if ws[1]%3 != 0 {
			return attFail(d, res, "the weights' columns %d do not split into three equal q, k, v parts (set qkv_hidden_sizes)", ws[1])
		}
		qh, kh, vh = ws[1]/3, ws[1]/3, ws[1]/3
	}
	heads := n.attrInt("num_heads", 0)
	if n.attr("num_heads") != nil {
		if heads <= 0 {
			return attFail(d, res, "attribute num_heads is %d; it must be positive", heads)
		}
		if qh%heads != 0 || vh%heads != 0 {
			return attFail(d, res, "hidden sizes q %d and v %d must divide by num_heads %d", qh, vh, heads)
		}
	}
	b, s := xs[0], xs[1]
	res[0] = known(dt, []int64{b, s, vh})
	if !wants(n, 1) {
		return res
	}
	if heads <= 0 {
		return d.fail(res, "attribute num_heads is missing, so present's head size is unknown")
	}
	h := qh / heads
	if !d.present(n, pastIdx) {
		res[1] = known(dt, []int64{2, b, heads, s, h})
		return res
	}
	ps, ok := d.shape(n, pastIdx)
	if !ok {
		return res
	}
	if len(ps) != 5 || ps[0] != 2 || ps[1] != b || ps[2] != heads || ps[4] != h {
		return attFail(d, res, "past %v must be [2, batch %d, num_heads %d, past_seq, head_size %d]", ps, b, heads, h)
	}
	if kh != vh {
		return attFail(d, res, "past needs equal k and v hidden sizes, got %d and %d", kh, vh)
	}
	if n.attrInt("past_present_share_buffer", 0) != 0 {
		res[1] = known(dt, slices.Clone(ps))
	} else {
		res[1] = known(dt, []int64{2, b, heads, addOK(ps[3], s), h})
	}
	return res
}

// mha is what the multi-head attention ops' inputs say.
type mha struct {
	b, s, kvs int64 // batch, query length, key/value length
	heads     int64
	h, vh     int64 // head sizes of q/k and of v
}

// mhaInputs reads query, key and value of MultiHeadAttention and
// DecoderMaskedMultiHeadAttention. ok is false when a shape is unknown
// (nothing recorded) or the inputs disagree (d.fail recorded).
func mhaInputs(d *decoder, n *node, dmmha bool) (m mha, ok bool) {
	qs, qok := d.shape(n, 0)
	if !qok {
		return m, false
	}
	if m.heads, ok = attHeads(d, n, "num_heads"); !ok {
		return m, false
	}
	hasK, hasV := d.present(n, 1), d.present(n, 2)
	switch len(qs) {
	case 5: // packed QKV [batch, seq, heads, 3, head]
		if hasK || hasV {
			d.fail(nil, "a rank-5 (packed QKV) query leaves key and value out")
			return m, false
		}
		if qs[2] != m.heads || qs[3] != 3 {
			d.fail(nil, "packed QKV %v must be [batch, seq, num_heads %d, 3, head_size]", qs, m.heads)
			return m, false
		}
		m.b, m.s, m.kvs, m.h, m.vh = qs[0], qs[1], qs[1], qs[4], qs[4]
		return m, true
	case 3:
	default:
		d.fail(nil, "query must have rank 3 (or 5 when packed), got rank %d", len(qs))
		return m, false
	}
	m.b, m.s = qs[0], qs[1]
	if !hasK {
		if hasV {
			d.fail(nil, "value is given without key")
			return m, false
		}
		if !dmmha {
			d.fail(nil, "a rank-3 query needs key and value (packed QKV has rank 5)")
			return m, false
		}
		// DecoderMaskedMultiHeadAttention packs [batch, 1, 3*hidden].
		if qs[2]%(3*m.heads) != 0 {
			d.fail(nil, "packed QKV hidden size %d does not divide by 3*num_heads %d", qs[2], 3*m.heads)
			return m, false
		}
		m.kvs, m.h = m.s, qs[2]/(3*m.heads)
		m.vh = m.h
		return m, true
	}
	if qs[2]%m.heads != 0 {
		d.fail(nil, "query hidden size %d does not divide by num_heads %d", qs[2], m.heads)
		return m, false
	}
	m.h = qs[2] / m.heads
	ks, kok := d.shape(n, 1)
	if !kok {
		return m, false
	}
	if len(ks) == 5 { // packed KV [batch, kv_seq, heads, 2, head]
		if hasV {
			d.fail(nil, "a rank-5 (packed KV) key leaves value out")
			return m, false
		}
		if ks[0] != m.b || ks[2] != m.heads || ks[3] != 2 || ks[4] != m.h {
			d.fail(nil, "packed KV %v must be [batch %d, kv_seq, num_heads %d, 2, head_size %d]", ks, m.b, m.heads, m.h)
			return m, false
		}
		m.kvs, m.vh = ks[1], m.h
		return m, true
	}
	if !hasV {
		d.fail(nil, "key is given without value")
		return m, false
	}
	vs, vok := d.shape(n, 2)
	if !vok {
		return m, false
	}
	switch {
	case len(ks) == 3 && len(vs) == 3: // [batch, kv_seq, hidden]
		if ks[0] != m.b || vs[0] != m.b || ks[2] != qs[2] || vs[1] != ks[1] {
			d.fail(nil, "key %v and value %v must be [batch %d, kv_seq, hidden] with key's hidden equal to the query's %d", ks, vs, m.b, qs[2])
			return m, false
		}
		if vs[2]%m.heads != 0 {
			d.fail(nil, "value hidden size %d does not divide by num_heads %d", vs[2], m.heads)
			return m, false
		}
		m.kvs, m.vh = ks[1], vs[2]/m.heads
	case len(ks) == 4 && len(vs) == 4: // BNSH key/value, as cross attention passes its caches
		if ks[0] != m.b || ks[1] != m.heads || ks[3] != m.h || vs[0] != m.b || vs[1] != m.heads || vs[2] != ks[2] {
			d.fail(nil, "BNSH key %v and value %v must be [batch %d, num_heads %d, kv_seq, head_size %d]", ks, vs, m.b, m.heads, m.h)
			return m, false
		}
		m.kvs, m.vh = ks[2], vs[3]
	default:
		d.fail(nil, "key and value must both have rank 3 or both rank 4 (BNSH), got ranks %d and %d", len(ks), len(vs))
		return m, false
	}
	return m, true
}

// mhaPast checks past_key/past_value [batch, heads, past_seq, head] at
// inputs i, i+1 and returns their shapes; ok is false when absent,
// unknown or wrong (wrong records why).
func mhaPast(d *decoder, n *node, m mha, i int) (pk, pv []int64, has, ok bool) {
	hasK, hasV := d.present(n, i), d.present(n, i+1)
	if !hasK && !hasV {
		return nil, nil, false, false
	}
	if hasK != hasV {
		d.fail(nil, "past_key and past_value must be given together")
		return nil, nil, true, false
	}
	pk, kok := d.shape(n, i)
	pv, vok := d.shape(n, i+1)
	if !kok || !vok {
		return nil, nil, true, false
	}
	if len(pk) != 4 || len(pv) != 4 || pk[0] != m.b || pk[1] != m.heads || pk[3] != m.h ||
		pv[0] != m.b || pv[1] != m.heads || pv[2] != pk[2] || pv[3] != m.vh {
		d.fail(nil, "past_key %v and past_value %v must be [batch %d, num_heads %d, past_seq, head_size %d (value %d)]", pk, pv, m.b, m.heads, m.h, m.vh)
		return nil, nil, true, false
	}
	return pk, pv, true, true
}

// ruleMultiHeadAttention: com.microsoft MultiHeadAttention. Output
// [batch, seq, v_hidden]; present_key/value [batch, heads, past+kv_seq,
// head], where key/value may also come in BNSH (the CPU kernel appends
// them to past too); qk [batch, heads, seq, past+kv_seq], in the query's
// type (its own type constraint is free; the CPU kernel writes the
// query's). Given past_sequence_length (input 8), past and present share
// one buffer of the maximum length: present keeps past's shape and qk
// spans past_sequence_length+kv_seq.
func ruleMultiHeadAttention(d *decoder, n *node, res []tinfo) []tinfo {
	m, ok := mhaInputs(d, n, false)
	if !ok {
		return clearIfFailed(d, res)
	}
	dt := d.in(n, 0).dt
	res[0] = known(dt, []int64{m.b, m.s, mulOK(m.heads, m.vh)})
	pk, pv, hasPast, pok := mhaPast(d, n, m, 6)
	if hasPast && !pok {
		return clearIfFailed(d, res)
	}
	share := hasPast && d.present(n, 8)
	total := m.kvs
	switch {
	case share:
		put(res, 1, known(dt, slices.Clone(pk)))
		put(res, 2, known(dt, slices.Clone(pv)))
	case hasPast:
		total = addOK(pk[2], m.kvs)
		fallthrough
	default:
		put(res, 1, known(dt, []int64{m.b, m.heads, total, m.h}))
		put(res, 2, known(dt, []int64{m.b, m.heads, total, m.vh}))
	}
	if wants(n, 3) {
		if share {
			pl, ok := attScalar(d, n, 8, "past_sequence_length", "qk's last dim is past_sequence_length + kv_sequence_length")
			if !ok {
				return res
			}
			total = addOK(pl, m.kvs)
		}
		res[3] = known(dt, []int64{m.b, m.heads, m.s, total})
	}
	return res
}

// ruleDecoderMaskedMHA: com.microsoft DecoderMaskedMultiHeadAttention, one
// decoding step. Self attention appends to past_key/past_value (inputs 5,
// 6), which with past_present_share_buffer are the maximum-length buffers
// present keeps; cross attention reads BNSH key/value and has no present.
func ruleDecoderMaskedMHA(d *decoder, n *node, res []tinfo) []tinfo {
	m, ok := mhaInputs(d, n, true)
	if !ok {
		return clearIfFailed(d, res)
	}
	dt := d.in(n, 0).dt
	res[0] = known(dt, []int64{m.b, m.s, mulOK(m.heads, m.vh)})
	pk, pv, hasPast, pok := mhaPast(d, n, m, 5)
	if hasPast && !pok {
		return clearIfFailed(d, res)
	}
	share := n.attrInt("past_present_share_buffer", 0) != 0
	total := m.kvs
	if wants(n, 1) || wants(n, 2) {
		switch {
		case !hasPast:
			return attFail(d, res, "present_key needs past_key and past_value (the kernel writes the cache into them)")
		case share:
			put(res, 1, known(dt, slices.Clone(pk)))
			put(res, 2, known(dt, slices.Clone(pv)))
		default:
			total = addOK(pk[2], m.kvs)
			put(res, 1, known(dt, []int64{m.b, m.heads, total, m.h}))
			put(res, 2, known(dt, []int64{m.b, m.heads, total, m.vh}))
		}
	}
	if wants(n, 3) {
		switch {
		case hasPast && share:
			pl, ok := attScalar(d, n, 7, "past_sequence_length", "qk's last dim is past_sequence_length + 1")
			if !ok {
				return res
			}
			total = addOK(pl, m.kvs)
		case hasPast:
			total = addOK(pk[2], m.kvs)
		}
		res[3] = known(dt, []int64{m.b, m.heads, m.s, total})
	}
	return res
}

// clearIfFailed empties res when the rule recorded a reason: a partial
// result would hide it.
func clearIfFailed(d *decoder, res []tinfo) []tinfo {
	if d.why != "" {
		clear(res)
	}
	return res
}

// attScalar is the value of a one-element integer input that a shape
// depends on; why says which. An input of unknown shape records nothing.
func attScalar(d *decoder, n *node, i int, what, why string) (int64, bool) {
	t := d.in(n, i)
	if v, ok := d.ints(n, i); ok && len(v) == 1 {
		return v[0], true
	}
	switch {
	case t == nil:
		d.fail(nil, "input %d (%s) is missing; %s", i, what, why)
	case t.ok && numel(t.shape) != 1:
		d.fail(nil, "input %d (%s) has shape %v; it must hold one value", i, what, t.shape)
	case t.ok:
		d.fail(nil, "%s, and input %d (%s) is not a constant memplan can compute (it is when it comes from shapes whose symbols are bound%s)", why, i, what, boundAs(d, n, i))
	}
	return 0, false
}

// boundAs says how to give a graph input's value: a symbol of its name.
func boundAs(d *decoder, n *node, i int) string {
	name := n.inputs[i]
	if _, produced := d.prod[name]; produced || d.info(name) == nil || d.info(name).isInit {
		return ""
	}
	return fmt.Sprintf(", or, as a graph input, when a symbol of its name gives its value: %s=N", clip(name))
}

// ruleGroupQueryAttention: com.microsoft GroupQueryAttention. query [batch,
// seq, num_heads*head] with key/value [batch, seq, kv_num_heads*head], or
// packed QKV [batch, seq, (num_heads+2*kv_num_heads)*head]. present_key/
// value are BNSH [batch, kv_num_heads, present_seq, head] where the kernel
// takes present_seq = max(past_seq, total_sequence_length); with
// sliding_window_cache the caches keep past's shape.
func ruleGroupQueryAttention(d *decoder, n *node, res []tinfo) []tinfo {
	q := d.in(n, 0)
	qs, qok := d.shape(n, 0)
	if !qok {
		return res
	}
	if len(qs) != 3 {
		return attFail(d, res, "GroupQueryAttention needs a rank-3 query [batch, seq, hidden], got rank %d", len(qs))
	}
	nh, ok1 := attHeads(d, n, "num_heads")
	kvh, ok2 := attHeads(d, n, "kv_num_heads")
	if !ok1 || !ok2 {
		return res
	}
	if nh%kvh != 0 {
		return attFail(d, res, "num_heads %d is not a multiple of kv_num_heads %d", nh, kvh)
	}
	b, s := qs[0], qs[1]
	// Given, not present: an empty key with past is the shared-KV case,
	// not packed QKV.
	hasK, hasV := given(n, 1), given(n, 2)
	hasPast, hasPastV := given(n, 3), given(n, 4)
	var head int64
	switch {
	case hasK != hasV:
		return attFail(d, res, "key and value must be given together, or both left out for packed QKV")
	case !hasK:
		w := addOK(nh, mulOK(2, kvh))
		if w <= 0 || qs[2]%w != 0 {
			return attFail(d, res, "packed QKV hidden size %d does not divide by num_heads + 2*kv_num_heads = %d", qs[2], w)
		}
		head = qs[2] / w
	default:
		if qs[2]%nh != 0 {
			return attFail(d, res, "query hidden size %d does not divide by num_heads %d", qs[2], nh)
		}
		head = qs[2] / nh
		ks, kok := d.shape(n, 1)
		vs, vok := d.shape(n, 2)
		if kok && vok {
			kvHidden := mulOK(kvh, head)
			if len(ks) != 3 || !slices.Equal(ks, vs) || ks[0] != b || ks[2] != kvHidden ||
				(ks[1] != s && (ks[1] != 0 || !hasPast)) {
				return attFail(d, res, "key %v and value %v must both be [batch %d, seq %d (or 0 with past), kv_num_heads*head_size %d]", ks, vs, b, s, kvHidden)
			}
		}
	}
	res[0] = known(q.dt, []int64{b, s, mulOK(nh, head)})
	if d.present(n, 7) != d.present(n, 8) {
		return attFail(d, res, "cos_cache and sin_cache must be given together")
	}
	cs, cok := d.shape(n, 7)
	ss, sok := d.shape(n, 8)
	if cok && sok && (len(cs) != 2 || !slices.Equal(cs, ss)) {
		return attFail(d, res, "cos_cache %v and sin_cache %v must both be [max_seq, rotary_dim/2]", cs, ss)
	}

	if hasPast != hasPastV {
		return attFail(d, res, "past_key and past_value must be given together")
	}
	var pk []int64
	cacheDT := q.dt
	if hasPast {
		var ok bool
		if pk, ok = d.shape(n, 3); !ok {
			return res
		}
		pv, ok := d.shape(n, 4)
		if !ok {
			return res
		}
		if len(pk) != 4 || !slices.Equal(pk, pv) || pk[0] != b || pk[1] != kvh || pk[3] != head {
			return attFail(d, res, "past_key %v and past_value %v must both be [batch %d, kv_num_heads %d, past_seq, head_size %d]", pk, pv, b, kvh, head)
		}
		cacheDT = d.in(n, 3).dt // quantized caches keep their own type
	}
	if !wants(n, 1) && !wants(n, 2) && !wants(n, 3) {
		return res
	}
	if hasPast && n.attrInt("sliding_window_cache", 0) == 1 {
		put(res, 1, known(cacheDT, slices.Clone(pk)))
		put(res, 2, known(cacheDT, slices.Clone(pk)))
		if wants(n, 3) {
			t, ok, bad := gqaTotal(d, n, b, s, pk)
			if bad {
				clear(res)
			} else if ok {
				res[3] = known(q.dt, []int64{b, nh, s, t})
			}
		}
		return res
	}
	// Output 0 stays known when only total's value is: the failure then
	// names the caches.
	t, ok, bad := gqaTotal(d, n, b, s, pk)
	if bad {
		clear(res)
	}
	if !ok {
		return res
	}
	ps := t
	if hasPast {
		ps = max(pk[2], t)
	}
	put(res, 1, known(cacheDT, []int64{b, kvh, ps, head}))
	put(res, 2, known(cacheDT, []int64{b, kvh, ps, head}))
	if wants(n, 3) {
		res[3] = known(q.dt, []int64{b, nh, s, t})
	}
	return res
}

// gqaTotal is total_sequence_length (input 6): its constant value, or the
// value the kernel's checks leave it: the query length for a first prompt
// without past (as onnxruntime's own inference assumes), and for a prompt
// of a batch of more than one, which the kernel accepts only when the
// query length is the total. A decoding step with past has no such bound:
// total is then past+seq for a growing cache and at most past for a
// shared buffer, so the value must be known. bad says the node is
// invalid, not just data-dependent.
func gqaTotal(d *decoder, n *node, b, s int64, past []int64) (t int64, ok, bad bool) {
	if v, ok := d.ints(n, 6); ok && len(v) == 1 {
		t := v[0]
		switch {
		case t <= 0:
			d.fail(nil, "total_sequence_length is %d; it must be positive", t)
			return 0, false, true
		case s > 1 && s != t && b != 1:
			d.fail(nil, "query length %d differs from total_sequence_length %d, which onnxruntime accepts only for batch 1 (batch is %d)", s, t, b)
			return 0, false, true
		}
		return t, true, false
	}
	in := d.in(n, 6)
	switch {
	case in == nil:
		d.fail(nil, "input 6 (total_sequence_length) is missing")
		return 0, false, true
	case !in.ok:
		return 0, false, false // its producer's failure is the one to report
	}
	if past == nil || (s > 1 && b != 1) {
		return s, true, false
	}
	attScalar(d, n, 6, "total_sequence_length",
		"present_key's length is max(past_key's length, total_sequence_length)")
	return 0, false, numel(in.shape) != 1
}

// ruleMSRotaryEmbedding: com.microsoft RotaryEmbedding keeps the input's
// shape, [batch, seq, hidden] or [batch, seq, heads, head].
func ruleMSRotaryEmbedding(d *decoder, n *node, res []tinfo) []tinfo {
	if xs, ok := d.shape(n, 0); ok && len(xs) != 3 && len(xs) != 4 {
		return attFail(d, res, "RotaryEmbedding needs a rank-3 or rank-4 input, got rank %d", len(xs))
	}
	return sameAsInput(d, n, res)
}

// ruleRotaryEmbedding: ONNX RotaryEmbedding (opset 23) keeps the input's
// shape, [batch, heads, seq, head] or [batch, seq, hidden] with num_heads.
func ruleRotaryEmbedding(d *decoder, n *node, res []tinfo) []tinfo {
	if d.opset < 23 {
		return d.fail(res, "RotaryEmbedding is in the ONNX default domain from opset 23; this model imports opset %d (onnxruntime's is in domain com.microsoft)", d.opset)
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return sameAsInput(d, n, res)
	}
	switch len(xs) {
	case 4:
	case 3:
		nh, ok := attHeads(d, n, "num_heads")
		if !ok {
			return res
		}
		if xs[2]%nh != 0 {
			return attFail(d, res, "hidden size %d does not divide by num_heads %d", xs[2], nh)
		}
	default:
		return attFail(d, res, "RotaryEmbedding needs a rank-3 or rank-4 input, got rank %d", len(xs))
	}
	return sameAsInput(d, n, res)
}

// ruleAttention: ONNX Attention (opset 23). Q, K, V are all 4-D [batch,
// heads, seq, head] or all 3-D [batch, seq, heads*head] with q_num_heads
// and kv_num_heads. Y keeps Q's layout with V's head size; present_key/
// value are [batch, kv_heads, past+kv_seq, head]; qk_matmul_output is
// [batch, q_heads, q_seq, past+kv_seq].
func ruleAttention(d *decoder, n *node, res []tinfo) []tinfo {
	if d.opset < 23 {
		return d.fail(res, "Attention is in the ONNX default domain from opset 23; this model imports opset %d (onnxruntime's fused Attention is in domain com.microsoft)", d.opset)
	}
	q, k, v := d.in(n, 0), d.in(n, 1), d.in(n, 2)
	qs, qok := d.shape(n, 0)
	ks, kok := d.shape(n, 1)
	vs, vok := d.shape(n, 2)
	if !qok || !kok || !vok {
		return res
	}
	if len(qs) != len(ks) || len(qs) != len(vs) || (len(qs) != 3 && len(qs) != 4) {
		return attFail(d, res, "Q, K and V must all have rank 3 or all rank 4, got ranks %d, %d and %d", len(qs), len(ks), len(vs))
	}
	var b, qh, kvh, sq, skv, e, ev int64
	b = qs[0]
	if len(qs) == 4 {
		qh, sq, e = qs[1], qs[2], qs[3]
		kvh, skv, ev = ks[1], ks[2], vs[3]
		if ks[0] != b || vs[0] != b || vs[1] != kvh || vs[2] != skv || ks[3] != e {
			return attFail(d, res, "K %v and V %v must be [batch %d, kv_heads, kv_seq, head] with K's head size equal to Q's %d", ks, vs, b, e)
		}
	} else {
		var ok1, ok2 bool
		qh, ok1 = attHeads(d, n, "q_num_heads")
		kvh, ok2 = attHeads(d, n, "kv_num_heads")
		if !ok1 || !ok2 {
			return res
		}
		if qs[2]%qh != 0 || ks[2]%kvh != 0 || vs[2]%kvh != 0 {
			return attFail(d, res, "hidden sizes Q %d, K %d, V %d must divide by q_num_heads %d, kv_num_heads %d, kv_num_heads", qs[2], ks[2], vs[2], qh, kvh)
		}
		sq, e, skv, ev = qs[1], qs[2]/qh, ks[1], vs[2]/kvh
		if ks[0] != b || vs[0] != b || vs[1] != skv || ks[2]/kvh != e {
			return attFail(d, res, "K %v and V %v must be [batch %d, kv_seq, kv_num_heads*head] with K's head size equal to Q's %d", ks, vs, b, e)
		}
	}
	if kvh <= 0 || qh%kvh != 0 {
		return attFail(d, res, "query heads %d are not a multiple of key/value heads %d", qh, kvh)
	}
	if len(qs) == 4 {
		res[0] = known(q.dt, []int64{b, qh, sq, ev})
	} else {
		res[0] = known(q.dt, []int64{b, sq, mulOK(qh, ev)})
	}
	hasPK, hasPV := d.present(n, 4), d.present(n, 5)
	if hasPK != hasPV {
		return attFail(d, res, "past_key and past_value must be given together")
	}
	past := int64(0)
	kdt, vdt := k.dt, v.dt
	if hasPK {
		pk, ok1 := d.shape(n, 4)
		pv, ok2 := d.shape(n, 5)
		if !ok1 || !ok2 {
			return res
		}
		if len(pk) != 4 || len(pv) != 4 || pk[0] != b || pk[1] != kvh || pk[3] != e ||
			pv[0] != b || pv[1] != kvh || pv[2] != pk[2] || pv[3] != ev {
			return attFail(d, res, "past_key %v and past_value %v must be [batch %d, kv_heads %d, past_seq, head %d (value %d)]", pk, pv, b, kvh, e, ev)
		}
		past = pk[2]
		kdt, vdt = d.in(n, 4).dt, d.in(n, 5).dt
	}
	total := addOK(past, skv)
	if len(res) > 1 {
		res[1] = known(kdt, []int64{b, kvh, total, e})
	}
	if len(res) > 2 {
		res[2] = known(vdt, []int64{b, kvh, total, ev})
	}
	if len(res) > 3 {
		res[3] = known(q.dt, []int64{b, qh, sq, total})
	}
	return res
}
