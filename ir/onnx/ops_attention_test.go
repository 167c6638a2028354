package onnx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"memplan/ir"

	"google.golang.org/protobuf/encoding/protowire"
)

// attCase is a rule case with what running it needs: the values of its
// integer graph inputs and, for a case that must fail, the outputs to
// fetch. Setting MEMPLAN_ATT_ORACLE to a folder writes each model there
// with a JSON sidecar, for checking the shapes against onnxruntime.
type attCase struct {
	ruleCase
	feeds map[string][]int64
	outs  []string
}

// attI32 is an int32 TensorProto with its values in int32_data.
func attI32(name string, dims []int64, vals ...int64) pb {
	var t pb
	for _, d := range dims {
		t = t.i64(1, d)
	}
	t = t.i64(2, tInt32)
	for _, v := range vals {
		t = t.i64(5, v)
	}
	return t.str(8, name)
}

var attElem = map[ir.DType]int64{ir.F32: tFloat, ir.F16: tFloat16, ir.I8: tInt8, ir.U8: tUint8}

func attF(name string, dims ...any) part { return input(vinfo(name, tFloat, dims...)) }

func attW(dt ir.DType, dims ...int64) wantTensor { return wantTensor{shape: dims, dtype: dt} }

func runAttCases(t *testing.T, cases []attCase) {
	t.Helper()
	rcs := make([]ruleCase, len(cases))
	for i, c := range cases {
		rcs[i] = c.ruleCase
	}
	runRuleCases(t, rcs)
	if dir := os.Getenv("MEMPLAN_ATT_ORACLE"); dir != "" {
		attDump(t, dir, cases)
	}
}

// attDump writes each case's model, with its fetched outputs declared as
// graph outputs (a second graph field merges into the first), and a
// sidecar naming the feeds and the shapes memplan expects.
func attDump(t *testing.T, dir string, cases []attCase) {
	t.Helper()
	for _, c := range cases {
		outs := c.outs
		want := map[string]map[string]any{}
		elem := map[string]int64{}
		for name, w := range c.want {
			outs = append(outs, name)
			want[name] = map[string]any{"shape": w.shape, "dtype": w.dtype.String()}
			elem[name] = attElem[w.dtype]
		}
		if len(outs) == 0 { // a failing case fetches the last node's outputs
			m, err := parseModel(c.model)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range m.graph.nodes[len(m.graph.nodes)-1].outputs {
				if o != "" {
					outs = append(outs, o)
				}
			}
		}
		// Declared types: onnxruntime cannot infer a qk output's own type.
		var g pb
		for _, o := range outs {
			et := elem[o]
			if et == 0 {
				et = tFloat
			}
			g = g.msg(12, vinfo(o, et))
		}
		model := append([]byte(nil), c.model...)
		model = protowire.AppendTag(model, 7, protowire.BytesType)
		model = protowire.AppendBytes(model, g)
		side, err := json.Marshal(map[string]any{"feeds": c.feeds, "outs": outs, "want": want, "err": c.errSub})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".onnx"), model, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".json"), side, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAttentionGroupQuery(t *testing.T) {
	heads := []attrFn{aInt("num_heads", 4), aInt("kv_num_heads", 2)}
	gqa := func(ins, outs []string, extra ...attrFn) part {
		return msOp("GroupQueryAttention", ins, outs, append(append([]attrFn{}, heads...), extra...)...)
	}
	qkv := func(s int) []part {
		return []part{attF("q", 2, s, 32), attF("k", 2, s, 16), attF("v", 2, s, 16), input(vinfo("seqlens", tInt32, 2))}
	}
	past := func(p int) []part { return []part{attF("pk", 2, 2, p, 8), attF("pv", 2, 2, p, 8)} }
	total := func(v int64) part { return initz(attI32("total", nil, v)) }
	totalIn := input(scalar("total", tInt32))
	noPast := []string{"q", "k", "v", "", "", "seqlens", "total"}
	withPast := []string{"q", "k", "v", "pk", "pv", "seqlens", "total"}
	kv := []string{"out", "presk", "presv"}
	cat := func(ps ...[]part) []part {
		var all []part
		for _, p := range ps {
			all = append(all, p...)
		}
		return all
	}
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "gqa_prompt_const_total",
			model: modelMS(17, cat(qkv(4), []part{total(4), gqa(noPast, kv)})...),
			want:  map[string]wantTensor{"out": attW(f32, 2, 4, 32), "presk": attW(f32, 2, 2, 4, 8), "presv": attW(f32, 2, 2, 4, 8)}},
			map[string][]int64{"seqlens": {3, 3}}, nil},
		// Without past, total_sequence_length's value is the prompt's
		// length: onnxruntime's inference and kernel agree on it.
		{ruleCase{name: "gqa_prompt_total_input",
			model: modelMS(17, cat(qkv(4), []part{totalIn, gqa(noPast, kv)})...),
			want:  map[string]wantTensor{"out": attW(f32, 2, 4, 32), "presk": attW(f32, 2, 2, 4, 8), "presv": attW(f32, 2, 2, 4, 8)}},
			map[string][]int64{"seqlens": {3, 3}, "total": {4}}, nil},
		{ruleCase{name: "gqa_decode_const_total",
			model: modelMS(17, cat(qkv(1), past(6), []part{total(7), gqa(withPast, kv)})...),
			want:  map[string]wantTensor{"out": attW(f32, 2, 1, 32), "presk": attW(f32, 2, 2, 7, 8), "presv": attW(f32, 2, 2, 7, 8)}},
			map[string][]int64{"seqlens": {6, 6}}, nil},
		// Past already at the maximum length: present keeps it (the
		// shared-buffer mode).
		{ruleCase{name: "gqa_shared_buffer",
			model: modelMS(17, cat(qkv(1), past(16), []part{total(7), gqa(withPast, kv)})...),
			want:  map[string]wantTensor{"presk": attW(f32, 2, 2, 16, 8), "presv": attW(f32, 2, 2, 16, 8)}},
			map[string][]int64{"seqlens": {6, 6}}, nil},
		// A decoding step whose total is data: past+1 for a growing cache,
		// at most past for a shared one, so memplan cannot tell.
		{ruleCase{name: "gqa_decode_total_input",
			model:  modelMS(17, cat(qkv(1), past(6), []part{totalIn, gqa(withPast, kv)})...),
			errSub: "input 6 (total_sequence_length) is not a constant"},
			map[string][]int64{"seqlens": {6, 6}, "total": {7}}, kv},
		// The usual export computes total from the attention mask's shape,
		// which memplan folds once the mask's dims are known.
		{ruleCase{name: "gqa_total_from_mask_shape",
			model: modelMS(17, cat(qkv(1), past(6), []part{
				input(vinfo("mask", tInt64, 2, 7)), initz(tproto("one", tInt64, nil, 1)),
				op("Shape", []string{"mask"}, []string{"mshape"}),
				op("Gather", []string{"mshape", "one"}, []string{"t64"}, aInt("axis", 0)),
				op("Cast", []string{"t64"}, []string{"total"}, aInt("to", tInt32)),
				gqa(withPast, kv)})...),
			want: map[string]wantTensor{"presk": attW(f32, 2, 2, 7, 8), "presv": attW(f32, 2, 2, 7, 8)}},
			map[string][]int64{"seqlens": {6, 6}}, nil},
		// A prompt of batch 2 must have total = its length, past or not.
		{ruleCase{name: "gqa_prompt_past_total_input",
			model: modelMS(17, cat(qkv(4), past(8), []part{totalIn, gqa(withPast, kv)})...),
			want:  map[string]wantTensor{"presk": attW(f32, 2, 2, 8, 8), "presv": attW(f32, 2, 2, 8, 8)}},
			map[string][]int64{"seqlens": {3, 3}, "total": {4}}, nil},
		// Chunked prefill: batch 1 may append several tokens to past.
		{ruleCase{name: "gqa_chunked_prefill",
			model: modelMS(17, attF("q", 1, 3, 32), attF("k", 1, 3, 16), attF("v", 1, 3, 16), input(vinfo("seqlens", tInt32, 1)),
				attF("pk", 1, 2, 6, 8), attF("pv", 1, 2, 6, 8), total(9), gqa(withPast, kv)),
			want: map[string]wantTensor{"out": attW(f32, 1, 3, 32), "presk": attW(f32, 1, 2, 9, 8)}},
			map[string][]int64{"seqlens": {8}}, nil},
		// qk spans total_sequence_length, not the shared buffer's length.
		{ruleCase{name: "gqa_shared_buffer_qk",
			model: modelMS(17, attF("q", 1, 1, 32), attF("k", 1, 1, 16), attF("v", 1, 1, 16), input(vinfo("seqlens", tInt32, 1)),
				attF("pk", 1, 2, 16, 8), attF("pv", 1, 2, 16, 8), total(5),
				gqa(withPast, []string{"out", "presk", "presv", "qk"}, aInt("qk_output", 1))),
			want: map[string]wantTensor{"presk": attW(f32, 1, 2, 16, 8), "qk": attW(f32, 1, 4, 1, 5)}},
			map[string][]int64{"seqlens": {4}}, nil},
		// An empty key with past appends nothing (a layer sharing another's
		// cache); it is not packed QKV.
		{ruleCase{name: "gqa_shared_kv_empty_key",
			model: modelMS(17, attF("q", 1, 1, 32), attF("k", 1, 0, 16), attF("v", 1, 0, 16), input(vinfo("seqlens", tInt32, 1)),
				attF("pk", 1, 2, 6, 8), attF("pv", 1, 2, 6, 8), total(6), gqa(withPast, kv)),
			want: map[string]wantTensor{"out": attW(f32, 1, 1, 32), "presk": attW(f32, 1, 2, 6, 8)}},
			map[string][]int64{"seqlens": {5}}, nil},
		{ruleCase{name: "gqa_packed_qkv",
			model: modelMS(17, attF("q", 2, 4, 64), input(vinfo("seqlens", tInt32, 2)), total(4),
				gqa([]string{"q", "", "", "", "", "seqlens", "total"}, kv)),
			want: map[string]wantTensor{"out": attW(f32, 2, 4, 32), "presk": attW(f32, 2, 2, 4, 8), "presv": attW(f32, 2, 2, 4, 8)}},
			map[string][]int64{"seqlens": {3, 3}}, nil},
		{ruleCase{name: "gqa_qk_output",
			model: modelMS(17, cat(qkv(4), []part{total(4), gqa(noPast, []string{"out", "presk", "presv", "qk"}, aInt("qk_output", 1))})...),
			want:  map[string]wantTensor{"qk": attW(f32, 2, 4, 4, 4), "presk": attW(f32, 2, 2, 4, 8)}},
			map[string][]int64{"seqlens": {3, 3}}, nil},
		{ruleCase{name: "gqa_rotary_fp16",
			model: modelMS(17, input(vinfo("q", tFloat16, 2, 4, 64)), input(vinfo("seqlens", tInt32, 2)), total(4),
				input(vinfo("cos", tFloat16, 8, 8)), input(vinfo("sin", tFloat16, 8, 8)),
				msOp("GroupQueryAttention", []string{"q", "", "", "", "", "seqlens", "total", "cos", "sin"}, kv,
					aInt("num_heads", 2), aInt("kv_num_heads", 1), aInt("do_rotary", 1))),
			want: map[string]wantTensor{"out": attW(ir.F16, 2, 4, 32), "presk": attW(ir.F16, 2, 1, 4, 16)}},
			map[string][]int64{"seqlens": {3, 3}}, nil},
		// A quantized cache keeps its own element type.
		{ruleCase{name: "gqa_int8_cache",
			model: modelMS(17, cat(qkv(1), []part{input(vinfo("pk", tInt8, 2, 2, 6, 8)), input(vinfo("pv", tInt8, 2, 2, 6, 8)),
				total(7), gqa(withPast, kv)})...),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 32), "presk": attW(ir.I8, 2, 2, 7, 8)}},
			map[string][]int64{"seqlens": {6, 6}}, nil},
		{ruleCase{name: "gqa_sliding_window_cache",
			model: modelMS(17, cat(qkv(1), past(4), []part{total(7),
				gqa(withPast, kv, aInt("sliding_window_cache", 1), aInt("local_window_size", 4))})...),
			want: map[string]wantTensor{"presk": attW(f32, 2, 2, 4, 8)}},
			map[string][]int64{"seqlens": {6, 6}}, nil},
		{ruleCase{name: "gqa_heads_not_multiple",
			model: modelMS(17, cat(qkv(4), []part{total(4),
				msOp("GroupQueryAttention", noPast, kv, aInt("num_heads", 3), aInt("kv_num_heads", 2))})...),
			errSub: "num_heads 3 is not a multiple of kv_num_heads 2"}, nil, nil},
		{ruleCase{name: "gqa_hidden_not_divisible",
			model: modelMS(17, attF("q", 2, 4, 30), attF("k", 2, 4, 16), attF("v", 2, 4, 16),
				input(vinfo("seqlens", tInt32, 2)), total(4), gqa(noPast, kv)),
			errSub: "query hidden size 30 does not divide by num_heads 4"}, nil, nil},
		{ruleCase{name: "gqa_key_length_differs",
			model: modelMS(17, attF("q", 2, 4, 32), attF("k", 2, 5, 16), attF("v", 2, 5, 16),
				input(vinfo("seqlens", tInt32, 2)), total(4), gqa(noPast, kv)),
			errSub: "must both be [batch 2, seq 4 (or 0 with past), kv_num_heads*head_size 16]"}, nil, nil},
		{ruleCase{name: "gqa_past_heads_wrong",
			model:  modelMS(17, cat(qkv(1), []part{attF("pk", 2, 4, 6, 8), attF("pv", 2, 4, 6, 8), total(7), gqa(withPast, kv)})...),
			errSub: "past_key [2 4 6 8] and past_value [2 4 6 8] must both be [batch 2, kv_num_heads 2"}, nil, nil},
		{ruleCase{name: "gqa_prompt_total_differs",
			model:  modelMS(17, cat(qkv(4), []part{total(6), gqa(noPast, kv)})...),
			errSub: "query length 4 differs from total_sequence_length 6, which onnxruntime accepts only for batch 1"},
			map[string][]int64{"seqlens": {5, 5}}, kv},
		{ruleCase{name: "gqa_kv_heads_missing",
			model: modelMS(17, cat(qkv(4), []part{total(4),
				msOp("GroupQueryAttention", noPast, kv, aInt("num_heads", 4))})...),
			errSub: "attribute kv_num_heads is missing"}, nil, nil},
		{ruleCase{name: "gqa_key_without_value",
			model: modelMS(17, cat(qkv(4), []part{total(4),
				gqa([]string{"q", "k", "", "", "", "seqlens", "total"}, kv)})...),
			errSub: "key and value must be given together"}, nil, nil},
		// An unknown total blames its producer, not the attention node.
		{ruleCase{name: "gqa_total_unknown_producer",
			model: modelMS(17, cat(qkv(1), past(6), []part{msOp("NoSuchOp", []string{"seqlens"}, []string{"total"}),
				gqa(withPast, kv)})...),
			errSub: "lacks a shape rule for the op NoSuchOp"}, nil, nil},
		{ruleCase{name: "gqa_total_missing",
			model:  modelMS(17, cat(qkv(4), []part{gqa([]string{"q", "k", "v", "", "", "seqlens"}, kv)})...),
			errSub: "input 6 (total_sequence_length) is missing"}, nil, nil},
	})
}

func TestAttentionMultiHead(t *testing.T) {
	mha := func(ins, outs []string, extra ...attrFn) part {
		return msOp("MultiHeadAttention", ins, outs, append([]attrFn{aInt("num_heads", 2)}, extra...)...)
	}
	all := []string{"out", "presk", "presv", "qk"}
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "mha_self",
			model: modelMS(17, attF("q", 2, 3, 16), attF("k", 2, 5, 16), attF("v", 2, 5, 24),
				mha([]string{"q", "k", "v"}, all)),
			want: map[string]wantTensor{"out": attW(f32, 2, 3, 24), "presk": attW(f32, 2, 2, 5, 8),
				"presv": attW(f32, 2, 2, 5, 12), "qk": attW(f32, 2, 2, 3, 5)}}, nil, nil},
		{ruleCase{name: "mha_past",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16),
				attF("pk", 2, 2, 4, 8), attF("pv", 2, 2, 4, 8),
				mha([]string{"q", "k", "v", "", "", "", "pk", "pv"}, all)),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 16), "presk": attW(f32, 2, 2, 5, 8),
				"presv": attW(f32, 2, 2, 5, 8), "qk": attW(f32, 2, 2, 1, 5)}}, nil, nil},
		{ruleCase{name: "mha_cross_bnsh",
			model: modelMS(17, attF("q", 2, 3, 16), attF("k", 2, 2, 7, 8), attF("v", 2, 2, 7, 8),
				mha([]string{"q", "k", "v"}, all)),
			want: map[string]wantTensor{"out": attW(f32, 2, 3, 16), "presk": attW(f32, 2, 2, 7, 8),
				"presv": attW(f32, 2, 2, 7, 8), "qk": attW(f32, 2, 2, 3, 7)}}, nil, nil},
		{ruleCase{name: "mha_packed_qkv",
			model: modelMS(17, attF("q", 2, 3, 2, 3, 8), mha([]string{"q"}, []string{"out", "presk", "presv"})),
			want:  map[string]wantTensor{"out": attW(f32, 2, 3, 16), "presk": attW(f32, 2, 2, 3, 8)}}, nil, nil},
		{ruleCase{name: "mha_packed_kv",
			model: modelMS(17, attF("q", 2, 3, 16), attF("k", 2, 5, 2, 2, 8), mha([]string{"q", "k"}, []string{"out", "presk", "presv"})),
			want:  map[string]wantTensor{"out": attW(f32, 2, 3, 16), "presv": attW(f32, 2, 2, 5, 8)}}, nil, nil},
		{ruleCase{name: "mha_share_buffer",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16),
				attF("pk", 2, 2, 10, 8), attF("pv", 2, 2, 10, 8), initz(attI32("psl", nil, 4)),
				mha([]string{"q", "k", "v", "", "", "", "pk", "pv", "psl"}, all)),
			want: map[string]wantTensor{"presk": attW(f32, 2, 2, 10, 8), "presv": attW(f32, 2, 2, 10, 8), "qk": attW(f32, 2, 2, 1, 5)}}, nil, nil},
		{ruleCase{name: "mha_fp16_output_only",
			model: modelMS(17, input(vinfo("q", tFloat16, 2, 3, 16)), input(vinfo("k", tFloat16, 2, 5, 16)), input(vinfo("v", tFloat16, 2, 5, 16)),
				mha([]string{"q", "k", "v"}, []string{"out"})),
			want: map[string]wantTensor{"out": attW(ir.F16, 2, 3, 16)}}, nil, nil},
		{ruleCase{name: "mha_share_buffer_qk_data",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16),
				attF("pk", 2, 2, 10, 8), attF("pv", 2, 2, 10, 8), input(scalar("psl", tInt32)),
				mha([]string{"q", "k", "v", "", "", "", "pk", "pv", "psl"}, all)),
			errSub: "input 8 (past_sequence_length) is not a constant"}, map[string][]int64{"psl": {4}}, all},
		{ruleCase{name: "mha_bnsh_with_past",
			model: modelMS(17, attF("q", 2, 3, 16), attF("k", 2, 2, 7, 8), attF("v", 2, 2, 7, 8),
				attF("pk", 2, 2, 4, 8), attF("pv", 2, 2, 4, 8), mha([]string{"q", "k", "v", "", "", "", "pk", "pv"}, all)),
			want: map[string]wantTensor{"presk": attW(f32, 2, 2, 11, 8), "qk": attW(f32, 2, 2, 3, 11)}}, nil, nil},
		{ruleCase{name: "mha_hidden_not_divisible",
			model:  modelMS(17, attF("q", 2, 3, 15), attF("k", 2, 5, 15), attF("v", 2, 5, 15), mha([]string{"q", "k", "v"}, all)),
			errSub: "query hidden size 15 does not divide by num_heads 2"}, nil, nil},
		{ruleCase{name: "mha_key_hidden_differs",
			model:  modelMS(17, attF("q", 2, 3, 16), attF("k", 2, 5, 8), attF("v", 2, 5, 16), mha([]string{"q", "k", "v"}, all)),
			errSub: "with key's hidden equal to the query's 16"}, nil, nil},
		{ruleCase{name: "mha_no_key",
			model:  modelMS(17, attF("q", 2, 3, 48), mha([]string{"q"}, all)),
			errSub: "a rank-3 query needs key and value"}, nil, nil},
		{ruleCase{name: "mha_past_wrong_head",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16),
				attF("pk", 2, 2, 4, 4), attF("pv", 2, 2, 4, 4),
				mha([]string{"q", "k", "v", "", "", "", "pk", "pv"}, all)),
			errSub: "must be [batch 2, num_heads 2, past_seq, head_size 8"}, nil, nil},
	})
}

func TestAttentionDecoderMasked(t *testing.T) {
	dm := func(ins, outs []string, extra ...attrFn) part {
		return msOp("DecoderMaskedMultiHeadAttention", ins, outs, append([]attrFn{aInt("num_heads", 2)}, extra...)...)
	}
	self := []part{attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16), attF("pk", 2, 2, 10, 8), attF("pv", 2, 2, 10, 8)}
	all := []string{"out", "presk", "presv", "qk"}
	share := aInt("past_present_share_buffer", 1)
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "dmmha_self_shared",
			model: modelMS(17, append(self, initz(attI32("psl", nil, 4)),
				dm([]string{"q", "k", "v", "", "", "pk", "pv", "psl"}, all, share, aInt("output_qk", 1)))...),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 16), "presk": attW(f32, 2, 2, 10, 8),
				"presv": attW(f32, 2, 2, 10, 8), "qk": attW(f32, 2, 2, 1, 5)}}, nil, nil},
		{ruleCase{name: "dmmha_packed",
			model: modelMS(17, attF("q", 2, 1, 48), attF("pk", 2, 2, 10, 8), attF("pv", 2, 2, 10, 8), initz(attI32("psl", nil, 4)),
				dm([]string{"q", "", "", "", "", "pk", "pv", "psl"}, []string{"out", "presk", "presv"}, share)),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 16), "presk": attW(f32, 2, 2, 10, 8)}}, nil, nil},
		{ruleCase{name: "dmmha_cross",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 2, 7, 8), attF("v", 2, 2, 7, 8),
				dm([]string{"q", "k", "v"}, []string{"out", "", "", "qk"}, aInt("output_qk", 1))),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 16), "qk": attW(f32, 2, 2, 1, 7)}}, nil, nil},
		{ruleCase{name: "dmmha_present_without_past",
			model: modelMS(17, attF("q", 2, 1, 16), attF("k", 2, 1, 16), attF("v", 2, 1, 16),
				dm([]string{"q", "k", "v"}, []string{"out", "presk", "presv"}, share)),
			errSub: "present_key needs past_key and past_value"}, nil, nil},
		{ruleCase{name: "dmmha_qk_data_length",
			model: modelMS(17, append(self, input(scalar("psl", tInt32)),
				dm([]string{"q", "k", "v", "", "", "pk", "pv", "psl"}, all, share, aInt("output_qk", 1)))...),
			errSub: "input 7 (past_sequence_length) is not a constant"}, map[string][]int64{"psl": {4}}, all},
		{ruleCase{name: "dmmha_packed_not_divisible",
			model: modelMS(17, attF("q", 2, 1, 40), attF("pk", 2, 2, 10, 8), attF("pv", 2, 2, 10, 8), initz(attI32("psl", nil, 4)),
				dm([]string{"q", "", "", "", "", "pk", "pv", "psl"}, []string{"out", "presk", "presv"}, share)),
			errSub: "packed QKV hidden size 40 does not divide by 3*num_heads 6"}, nil, nil},
	})
}

func TestAttentionMicrosoft(t *testing.T) {
	att := func(ins, outs []string, extra ...attrFn) part {
		return msOp("Attention", ins, outs, append([]attrFn{aInt("num_heads", 2)}, extra...)...)
	}
	base := []part{attF("x", 2, 3, 16), attF("w", 16, 48), attF("bias", 48)}
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "ms_attention_no_past",
			model: modelMS(17, append(base, att([]string{"x", "w", "bias"}, []string{"out", "present"}))...),
			want:  map[string]wantTensor{"out": attW(f32, 2, 3, 16), "present": attW(f32, 2, 2, 2, 3, 8)}}, nil, nil},
		{ruleCase{name: "ms_attention_past",
			model: modelMS(17, append(base, attF("past", 2, 2, 2, 4, 8),
				att([]string{"x", "w", "bias", "", "past"}, []string{"out", "present"}, aInt("unidirectional", 1)))...),
			want: map[string]wantTensor{"out": attW(f32, 2, 3, 16), "present": attW(f32, 2, 2, 2, 7, 8)}}, nil, nil},
		{ruleCase{name: "ms_attention_qkv_hidden_sizes",
			model: modelMS(17, attF("x", 2, 3, 16), attF("w", 16, 40), attF("bias", 40),
				att([]string{"x", "w", "bias"}, []string{"out"}, aInts("qkv_hidden_sizes", 16, 16, 8))),
			want: map[string]wantTensor{"out": attW(f32, 2, 3, 8)}}, nil, nil},
		{ruleCase{name: "ms_attention_share_buffer",
			model: modelMS(17, attF("x", 2, 1, 16), attF("w", 16, 48), attF("bias", 48), attF("past", 2, 2, 2, 10, 8),
				initz(attI32("psl", nil, 4)),
				att([]string{"x", "w", "bias", "", "past", "", "psl"}, []string{"out", "present"},
					aInt("past_present_share_buffer", 1), aInt("unidirectional", 1))),
			want: map[string]wantTensor{"out": attW(f32, 2, 1, 16), "present": attW(f32, 2, 2, 2, 10, 8)}}, nil, nil},
		{ruleCase{name: "ms_attention_weights_rows",
			model:  modelMS(17, attF("x", 2, 3, 16), attF("w", 12, 48), att([]string{"x", "w"}, []string{"out"})),
			errSub: "weights' rows 12 differ from the input's hidden size 16"}, nil, nil},
		{ruleCase{name: "ms_attention_heads_not_dividing",
			model:  modelMS(17, append(base, msOp("Attention", []string{"x", "w", "bias"}, []string{"out"}, aInt("num_heads", 3)))...),
			errSub: "hidden sizes q 16 and v 16 must divide by num_heads 3"}, nil, nil},
		{ruleCase{name: "ms_attention_past_heads",
			model: modelMS(17, append(base, attF("past", 2, 2, 3, 4, 8),
				att([]string{"x", "w", "bias", "", "past"}, []string{"out", "present"}))...),
			errSub: "past [2 2 3 4 8] must be [2, batch 2, num_heads 2, past_seq, head_size 8]"}, nil, nil},
		{ruleCase{name: "ms_attention_present_needs_heads",
			model:  modelMS(17, append(base, msOp("Attention", []string{"x", "w", "bias"}, []string{"out", "present"}))...),
			errSub: "num_heads is missing"}, nil, nil},
		{ruleCase{name: "ms_attention_bias_differs",
			model:  modelMS(17, attF("x", 2, 3, 16), attF("w", 16, 48), attF("bias", 36), att([]string{"x", "w", "bias"}, []string{"out"})),
			errSub: "bias [36] must be one dim equal to the weights' columns 48"}, nil, nil},
	})
}

func TestAttentionQuantized(t *testing.T) {
	// QAttention on uint8 input and int8 weights, float16 bias and scales.
	base := []part{input(vinfo("x", tUint8, 2, 3, 16)), input(vinfo("w", tInt8, 16, 48)), input(vinfo("bias", tFloat16, 48)),
		input(scalar("xs", tFloat16)), input(scalar("ws", tFloat16))}
	qatt := func(ins, outs []string, extra ...part) []byte {
		return modelMS(17, append(append(base, extra...), msOp("QAttention", ins, outs, aInt("num_heads", 2)))...)
	}
	f16 := ir.F16
	runRuleCases(t, []ruleCase{
		{name: "qattention is in the bias's float type",
			model: qatt([]string{"x", "w", "bias", "xs", "ws"}, []string{"out", "present"}),
			want:  map[string]wantTensor{"out": attW(f16, 2, 3, 16), "present": attW(f16, 2, 2, 2, 3, 8)}},
		{name: "qattention past is input 8",
			model: qatt([]string{"x", "w", "bias", "xs", "ws", "", "", "", "past"}, []string{"out", "present"}, input(vinfo("past", tFloat16, 2, 2, 2, 4, 8))),
			want:  map[string]wantTensor{"out": attW(f16, 2, 3, 16), "present": attW(f16, 2, 2, 2, 7, 8)}},
		{name: "qattention without weight_scale",
			model:  qatt([]string{"x", "w", "bias", "xs"}, []string{"out"}),
			errSub: "QAttention needs 5 to 9 inputs (input, weight, bias, input_scale, weight_scale, optional mask_index, input_zero_point, weight_zero_point and past), this node has 4"},
		{name: "qattention without a bias",
			model:  qatt([]string{"x", "w", "", "xs", "ws"}, []string{"out"}),
			errSub: "input 2 (bias) is missing"},
		{name: "qattention weights of another hidden size",
			model:  modelMS(17, input(vinfo("x", tUint8, 2, 3, 12)), input(vinfo("w", tInt8, 16, 48)), input(vinfo("bias", tFloat16, 48)), input(scalar("xs", tFloat16)), input(scalar("ws", tFloat16)), msOp("QAttention", []string{"x", "w", "bias", "xs", "ws"}, []string{"out"}, aInt("num_heads", 2))),
			errSub: "weights' rows 16 differ from the input's hidden size 12"},
		{name: "qattention without num_heads",
			model:  modelMS(17, append(base, msOp("QAttention", []string{"x", "w", "bias", "xs", "ws"}, []string{"out"}))...),
			errSub: "attribute num_heads is missing"},
	})
}

func TestAttentionRotary(t *testing.T) {
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "ms_rotary",
			model: modelMS(17, attF("x", 2, 3, 16), input(vinfo("pos", tInt64, 2, 3)), attF("cos", 8, 4), attF("sin", 8, 4),
				msOp("RotaryEmbedding", []string{"x", "pos", "cos", "sin"}, []string{"y"})),
			want: map[string]wantTensor{"y": attW(f32, 2, 3, 16)}},
			map[string][]int64{"pos": {0, 1, 2, 0, 1, 2}}, nil},
		{ruleCase{name: "onnx_rotary_4d",
			model: modelP(23, input(vinfo("x", tFloat16, 2, 2, 3, 8)), input(vinfo("cos", tFloat16, 2, 3, 4)), input(vinfo("sin", tFloat16, 2, 3, 4)),
				op("RotaryEmbedding", []string{"x", "cos", "sin"}, []string{"y"})),
			want: map[string]wantTensor{"y": attW(ir.F16, 2, 2, 3, 8)}}, nil, nil},
		{ruleCase{name: "onnx_rotary_3d",
			model: modelP(23, attF("x", 2, 3, 16), attF("cos", 2, 3, 4), attF("sin", 2, 3, 4),
				op("RotaryEmbedding", []string{"x", "cos", "sin"}, []string{"y"}, aInt("num_heads", 2))),
			want: map[string]wantTensor{"y": attW(f32, 2, 3, 16)}}, nil, nil},
		{ruleCase{name: "onnx_rotary_opset22",
			model: modelP(22, attF("x", 2, 2, 3, 8), attF("cos", 2, 3, 4), attF("sin", 2, 3, 4),
				op("RotaryEmbedding", []string{"x", "cos", "sin"}, []string{"y"})),
			errSub: "from opset 23; this model imports opset 22"}, nil, nil},
		{ruleCase{name: "onnx_rotary_3d_no_heads",
			model: modelP(23, attF("x", 2, 3, 16), attF("cos", 2, 3, 4), attF("sin", 2, 3, 4),
				op("RotaryEmbedding", []string{"x", "cos", "sin"}, []string{"y"})),
			errSub: "attribute num_heads is missing"}, nil, nil},
		{ruleCase{name: "ms_rotary_rank2",
			model: modelMS(17, attF("x", 6, 16), input(vinfo("pos", tInt64, 2, 3)), attF("cos", 8, 4), attF("sin", 8, 4),
				msOp("RotaryEmbedding", []string{"x", "pos", "cos", "sin"}, []string{"y"})),
			errSub: "needs a rank-3 or rank-4 input, got rank 2"}, nil, nil},
	})
}

func TestAttentionOpset23(t *testing.T) {
	all := []string{"y", "presk", "presv", "qk"}
	gqa3 := []attrFn{aInt("q_num_heads", 4), aInt("kv_num_heads", 2)}
	f32 := ir.F32
	runAttCases(t, []attCase{
		{ruleCase{name: "att23_4d",
			model: modelP(23, attF("q", 2, 4, 3, 8), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 6),
				op("Attention", []string{"q", "k", "v"}, all)),
			want: map[string]wantTensor{"y": attW(f32, 2, 4, 3, 6), "presk": attW(f32, 2, 2, 5, 8),
				"presv": attW(f32, 2, 2, 5, 6), "qk": attW(f32, 2, 4, 3, 5)}}, nil, nil},
		{ruleCase{name: "att23_3d",
			model: modelP(23, attF("q", 2, 3, 32), attF("k", 2, 5, 16), attF("v", 2, 5, 12),
				op("Attention", []string{"q", "k", "v"}, all, gqa3...)),
			want: map[string]wantTensor{"y": attW(f32, 2, 3, 24), "presk": attW(f32, 2, 2, 5, 8),
				"presv": attW(f32, 2, 2, 5, 6), "qk": attW(f32, 2, 4, 3, 5)}}, nil, nil},
		{ruleCase{name: "att23_4d_past",
			model: modelP(23, attF("q", 2, 4, 3, 8), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 6),
				attF("pk", 2, 2, 4, 8), attF("pv", 2, 2, 4, 6),
				op("Attention", []string{"q", "k", "v", "", "pk", "pv"}, all)),
			want: map[string]wantTensor{"y": attW(f32, 2, 4, 3, 6), "presk": attW(f32, 2, 2, 9, 8),
				"presv": attW(f32, 2, 2, 9, 6), "qk": attW(f32, 2, 4, 3, 9)}}, nil, nil},
		{ruleCase{name: "att23_3d_past_mask",
			model: modelP(23, attF("q", 2, 1, 32), attF("k", 2, 1, 16), attF("v", 2, 1, 16), attF("mask", 1, 5),
				attF("pk", 2, 2, 4, 8), attF("pv", 2, 2, 4, 8),
				op("Attention", []string{"q", "k", "v", "mask", "pk", "pv"}, all, gqa3...)),
			want: map[string]wantTensor{"y": attW(f32, 2, 1, 32), "presk": attW(f32, 2, 2, 5, 8),
				"presv": attW(f32, 2, 2, 5, 8), "qk": attW(f32, 2, 4, 1, 5)}}, nil, nil},
		{ruleCase{name: "att23_fp16_y_only",
			model: modelP(23, input(vinfo("q", tFloat16, 1, 2, 3, 8)), input(vinfo("k", tFloat16, 1, 2, 3, 8)), input(vinfo("v", tFloat16, 1, 2, 3, 8)),
				op("Attention", []string{"q", "k", "v"}, []string{"y"}, aInt("is_causal", 1))),
			want: map[string]wantTensor{"y": attW(ir.F16, 1, 2, 3, 8)}}, nil, nil},
		{ruleCase{name: "att23_opset22",
			model:  modelP(22, attF("q", 2, 4, 3, 8), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 6), op("Attention", []string{"q", "k", "v"}, []string{"y"})),
			errSub: "Attention is in the ONNX default domain from opset 23; this model imports opset 22"}, nil, nil},
		{ruleCase{name: "att23_mixed_ranks",
			model:  modelP(23, attF("q", 2, 3, 32), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 8), op("Attention", []string{"q", "k", "v"}, []string{"y"}, gqa3...)),
			errSub: "got ranks 3, 4 and 4"}, nil, nil},
		{ruleCase{name: "att23_heads_not_multiple",
			model:  modelP(23, attF("q", 2, 3, 3, 8), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 8), op("Attention", []string{"q", "k", "v"}, []string{"y"})),
			errSub: "query heads 3 are not a multiple of key/value heads 2"}, nil, nil},
		{ruleCase{name: "att23_3d_no_heads",
			model:  modelP(23, attF("q", 2, 3, 32), attF("k", 2, 5, 16), attF("v", 2, 5, 16), op("Attention", []string{"q", "k", "v"}, []string{"y"})),
			errSub: "attribute q_num_heads is missing"}, nil, nil},
		{ruleCase{name: "att23_head_sizes_differ",
			model:  modelP(23, attF("q", 2, 4, 3, 8), attF("k", 2, 2, 5, 4), attF("v", 2, 2, 5, 8), op("Attention", []string{"q", "k", "v"}, []string{"y"})),
			errSub: "with K's head size equal to Q's 8"}, nil, nil},
		{ruleCase{name: "att23_past_value_head",
			model: modelP(23, attF("q", 2, 4, 3, 8), attF("k", 2, 2, 5, 8), attF("v", 2, 2, 5, 6),
				attF("pk", 2, 2, 4, 8), attF("pv", 2, 2, 4, 8),
				op("Attention", []string{"q", "k", "v", "", "pk", "pv"}, all)),
			errSub: "past_key [2 2 4 8] and past_value [2 2 4 8] must be [batch 2, kv_heads 2, past_seq, head 8 (value 6)]"}, nil, nil},
	})
}
