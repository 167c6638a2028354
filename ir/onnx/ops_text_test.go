package onnx

import (
	"maps"
	"math"
	"slices"
	"testing"

	"memplan/ir"

	"google.golang.org/protobuf/encoding/protowire"
)

// aStrs is a STRINGS attribute.
func aStrs(name string, vs ...string) attrFn {
	return func(b pb) pb {
		a := pb{}.str(1, name).i64(20, 8)
		for _, v := range vs {
			a = a.str(9, v)
		}
		return b.msg(5, a)
	}
}

// aFloats is a FLOATS attribute, packed.
func aFloats(name string, vs ...float32) attrFn {
	return func(b pb) pb {
		var packed []byte
		for _, v := range vs {
			packed = protowire.AppendFixed32(packed, math.Float32bits(v))
		}
		a := pb{}.str(1, name).i64(20, 6)
		a = protowire.AppendTag(a, 7, protowire.BytesType)
		return b.msg(5, protowire.AppendBytes(a, packed))
	}
}

func TestTextRules(t *testing.T) {
	// A pool of four 1-grams (2 3 5 4) and three 2-grams (5 6, 7 8, 6 7),
	// their slots 0..6 in order unless indexes says otherwise.
	pool := aInts("pool_int64s", 2, 3, 5, 4, 5, 6, 7, 8, 6, 7)
	tfidf := func(x pb, attrs ...attrFn) []byte {
		return modelP(9, input(x), op("TfIdfVectorizer", []string{"x"}, []string{"y"}, attrs...))
	}
	// base is a valid node's attributes, those named in with replaced
	// and the rest of with added.
	base := func(with ...attrFn) []attrFn {
		attrs := map[string]attrFn{"mode": aStr("mode", "TF"), "min_gram_length": aInt("min_gram_length", 2),
			"max_gram_length": aInt("max_gram_length", 2), "max_skip_count": aInt("max_skip_count", 0),
			"ngram_counts": aInts("ngram_counts", 0, 4), "ngram_indexes": aInts("ngram_indexes", 0, 1, 2, 3, 4, 5, 6), "pool_int64s": pool}
		for _, a := range with {
			attrs[attrName(a)] = a
		}
		var out []attrFn
		for _, k := range slices.Sorted(maps.Keys(attrs)) {
			out = append(out, attrs[k])
		}
		return out
	}
	f32 := func(shape ...int64) wantTensor { return wantTensor{shape, ir.F32} }
	cases := []ruleCase{
		{name: "tfidf 1-D", model: tfidf(vinfo("x", tInt32, 12), base()...), want: map[string]wantTensor{"y": f32(7)}},
		{name: "tfidf 2-D int64", model: tfidf(vinfo("x", tInt64, 2, 6), base()...), want: map[string]wantTensor{"y": f32(2, 7)}},
		{name: "tfidf slots beyond the n-grams", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_indexes", 9, 1, 2, 3, 4, 5, 6), aFloats("weights", 1, 1, 1, 1, 1, 1, 1))...),
			want: map[string]wantTensor{"y": f32(10)}},
		{name: "tfidf string pool", model: tfidf(vinfo("x", tInt32, 3, 5), aStr("mode", "IDF"), aInt("min_gram_length", 1), aInt("max_gram_length", 1),
			aInts("ngram_counts", 0), aInts("ngram_indexes", 0, 1), aStrs("pool_strings", "a", "b")),
			want: map[string]wantTensor{"y": f32(3, 2)}},
		{name: "tfidf unknown mode", model: tfidf(vinfo("x", tInt32, 12), base(aStr("mode", "BM25"))...),
			errSub: `mode "BM25" must be TF, IDF or TFIDF`},
		{name: "tfidf gram lengths backwards", model: tfidf(vinfo("x", tInt32, 12), base(aInt("min_gram_length", 3))...),
			errSub: "min_gram_length 3 and max_gram_length 2 must satisfy 1 <= min <= max"},
		{name: "tfidf two pools", model: tfidf(vinfo("x", tInt32, 12), base(aStrs("pool_strings", "a"))...),
			errSub: "exactly one of pool_int64s and pool_strings must be given"},
		{name: "tfidf negative slot", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_indexes", 0, 1, 2, 3, 4, 5, -6))...),
			errSub: "ngram_indexes must lie in [0, 2^40), they span [-6, 5]"},
		{name: "tfidf indexes and pool disagree", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_indexes", 0, 1, 2))...),
			errSub: "the pool holds 7 n-grams but ngram_indexes has 3"},
		{name: "tfidf 2-grams not whole", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_counts", 0, 3))...),
			errSub: "the pool's 2-grams (tokens 3 to 10) are not whole"},
		{name: "tfidf counts past the pool", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_counts", 0, 11))...),
			errSub: "ngram_counts [0 11] must rise from 0 within the pool's 10 tokens"},
		{name: "tfidf counts per length", model: tfidf(vinfo("x", tInt32, 12), base(aInts("ngram_counts", 0))...),
			errSub: "ngram_counts has 1 starts, want one per n-gram length up to max_gram_length 2"},
		{name: "tfidf weights per n-gram", model: tfidf(vinfo("x", tInt32, 12), base(aFloats("weights", 1, 2))...),
			errSub: "weights has 2 values, want one per n-gram (7)"},
		{name: "tfidf rank 3", model: tfidf(vinfo("x", tInt32, 2, 2, 3), base()...),
			errSub: "the input [2 2 3] must be [C] or [N, C]"},
	}
	runRuleCases(t, cases)
}

// attrName is the name an attrFn writes.
func attrName(a attrFn) string {
	b := a(nil)
	_, _, n := protowire.ConsumeTag(b)
	body, _ := protowire.ConsumeBytes(b[n:])
	_, _, n = protowire.ConsumeTag(body)
	name, _ := protowire.ConsumeString(body[n:])
	return name
}
