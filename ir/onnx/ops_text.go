package onnx

import (
	"fmt"
	"slices"
)

// Text features: ops that turn token sequences into fixed-size vectors
// (classic ML pipelines converted to ONNX, such as scikit-learn's).

var textRules = []ruleSet{
	{ops: []string{"TfIdfVectorizer"}, rule: ruleTfIdfVectorizer},
}

// ruleTfIdfVectorizer: a float vector of one slot per n-gram index, so
// max(ngram_indexes)+1 long: [C] gives [D], [N, C] gives [N, D].
func ruleTfIdfVectorizer(d *decoder, n *node, res []tinfo) []tinfo {
	res[0].dt = tFloat
	if why := tfidfAttrsWhy(n); why != "" {
		return d.bad(res, "%s", why)
	}
	xs, ok := d.shape(n, 0)
	if !ok {
		return res
	}
	idx, _ := n.attrInts("ngram_indexes")
	width := slices.Max(idx) + 1
	switch len(xs) {
	case 1:
		res[0] = known(tFloat, []int64{width})
	case 2:
		res[0] = known(tFloat, []int64{xs[0], width})
	default:
		return d.bad(res, "the input %v must be [C] or [N, C]", xs)
	}
	return res
}

// tfidfAttrsWhy checks the attributes that describe the n-gram pool.
func tfidfAttrsWhy(n *node) string {
	mode := ""
	if a := n.attr("mode"); a != nil {
		mode = string(a.s)
	}
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" {
		return fmt.Sprintf("mode %s must be TF, IDF or TFIDF", quote(clip(mode)))
	}
	lo, hi := n.attrInt("min_gram_length", 0), n.attrInt("max_gram_length", 0)
	if lo < 1 || hi < lo {
		return fmt.Sprintf("min_gram_length %d and max_gram_length %d must satisfy 1 <= min <= max", lo, hi)
	}
	if skip := n.attrInt("max_skip_count", 0); skip < 0 {
		return fmt.Sprintf("max_skip_count %d is negative", skip)
	}
	ints, str := n.attr("pool_int64s") != nil, n.attr("pool_strings") != nil
	if ints == str {
		return "exactly one of pool_int64s and pool_strings must be given"
	}
	idx, _ := n.attrInts("ngram_indexes")
	if len(idx) == 0 {
		return "ngram_indexes is empty; it gives each n-gram's output slot"
	}
	if slices.Min(idx) < 0 || slices.Max(idx) >= 1<<40 {
		return fmt.Sprintf("ngram_indexes must lie in [0, 2^40), they span [%d, %d]", slices.Min(idx), slices.Max(idx))
	}
	counts, _ := n.attrInts("ngram_counts")
	if int64(len(counts)) != hi {
		return fmt.Sprintf("ngram_counts has %d starts, want one per n-gram length up to max_gram_length %d", len(counts), hi)
	}
	if ints {
		pool, _ := n.attrInts("pool_int64s")
		for i, c := range counts {
			if c < 0 || c > int64(len(pool)) || i > 0 && c < counts[i-1] {
				return fmt.Sprintf("ngram_counts %v must rise from 0 within the pool's %d tokens", counts, len(pool))
			}
		}
		// The pool holds 1-grams, then 2-grams, ...: each n-gram is one
		// output slot, so the slots are the pool's n-gram count.
		grams := int64(0)
		for i, c := range counts {
			end := int64(len(pool))
			if i+1 < len(counts) {
				end = counts[i+1]
			}
			if (end-c)%int64(i+1) != 0 {
				return fmt.Sprintf("the pool's %d-grams (tokens %d to %d) are not whole", i+1, c, end)
			}
			grams += (end - c) / int64(i+1)
		}
		if grams != int64(len(idx)) {
			return fmt.Sprintf("the pool holds %d n-grams but ngram_indexes has %d", grams, len(idx))
		}
	}
	if w := n.attr("weights"); w != nil && len(w.floats) != len(idx) {
		return fmt.Sprintf("weights has %d values, want one per n-gram (%d)", len(w.floats), len(idx))
	}
	return ""
}
