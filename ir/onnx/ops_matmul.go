package onnx

import (
	"fmt"
	"strings"
)

// Matrix products.

var matmulRules = []ruleSet{
	{ops: []string{"Det"}, rule: ruleDet},
	{ops: []string{"Gemm"}, rule: ruleGemm},
	{ops: []string{"MatMul", "MatMulInteger"}, rule: ruleMatMul},
	{ops: []string{"Einsum"}, rule: ruleEinsum},
}

func ruleGemm(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	bs, bok := d.shape(n, 1)
	if xok && bok {
		if len(xs) != 2 || len(bs) != 2 {
			return d.fail(res, "Gemm needs two rank-2 inputs, got ranks %d and %d", len(xs), len(bs))
		}
		m, k1 := xs[0], xs[1]
		if n.attrInt("transA", 0) != 0 {
			m, k1 = k1, m
		}
		k2, nn := bs[0], bs[1]
		if n.attrInt("transB", 0) != 0 {
			k2, nn = nn, k2
		}
		if k1 != k2 {
			return d.fail(res, "Gemm needs A's columns to equal B's rows (after transA/transB): %d vs %d", k1, k2)
		}
		res[0] = known(xdt, []int64{m, nn})
	}
	return res
}

func ruleMatMul(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	xdt := dtOf(x)
	bs, bok := d.shape(n, 1)
	if xok && bok {
		out, why := matmulShapeWhy(xs, bs)
		if why != "" {
			return d.fail(res, "%s %s", n.op, why)
		}
		dt := xdt
		if n.op == "MatMulInteger" {
			dt = tInt32
		}
		res[0] = known(dt, out)
	}
	return res
}

func ruleEinsum(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xdt := dtOf(x)
	var shapes [][]int64
	for i := range n.inputs {
		s, ok := d.shape(n, i)
		if !ok {
			res[0].dt = xdt
			return res
		}
		shapes = append(shapes, s)
	}
	a := n.attr("equation")
	if a == nil {
		return d.fail(res, "it has no \"equation\" attribute")
	}
	out, ok := einsumShape(string(a.s), shapes)
	if !ok {
		return d.fail(res, "equation %s does not fit the input ranks or dims", quote(string(a.s)))
	}
	res[0] = known(xdt, out)
	return res
}

func matmulShape(a, b []int64) ([]int64, bool) {
	out, why := matmulShapeWhy(a, b)
	return out, why == ""
}

// matmulShapeWhy is numpy matmul's output shape, or why there is none.
func matmulShapeWhy(a, b []int64) ([]int64, string) {
	if len(a) == 0 || len(b) == 0 {
		return nil, "needs inputs of rank 1 or more"
	}
	a1, b1 := len(a) == 1, len(b) == 1
	if a1 {
		a = []int64{1, a[0]}
	}
	if b1 {
		b = []int64{b[0], 1}
	}
	if a[len(a)-1] != b[len(b)-2] {
		return nil, fmt.Sprintf("needs A's last dim to equal B's second-to-last: %d vs %d", a[len(a)-1], b[len(b)-2])
	}
	batch, ok := broadcast(a[:len(a)-2], b[:len(b)-2])
	if !ok {
		return nil, "broadcasts the batch dims: " + whyBroadcast(a[:len(a)-2], b[:len(b)-2])
	}
	out := append(batch, a[len(a)-2], b[len(b)-1])
	if b1 {
		out = out[:len(out)-1]
	}
	if a1 { // drop the m dim that was prepended to a
		i := len(out) - 2
		if b1 {
			i = len(out) - 1
		}
		out = append(out[:i], out[i+1:]...)
	}
	return out, ""
}

// einsumShape computes an Einsum output shape, with "..." broadcasting and
// the implicit output (letters used once, sorted) when there is no "->".
func einsumShape(eq string, shapes [][]int64) ([]int64, bool) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(shapes) {
		return nil, false
	}
	dims := map[byte]int64{}
	count := map[byte]int{}
	var ell []int64
	hasEll := false
	for i, term := range terms {
		s := shapes[i]
		before, after, dots := strings.Cut(term, "...")
		if !dots {
			before, after = term, ""
		}
		er := len(s) - len(before) - len(after)
		if er < 0 || (!dots && er != 0) {
			return nil, false
		}
		if dots {
			var ok bool
			if ell, ok = broadcast(ell, s[len(before):len(before)+er]); !ok {
				return nil, false
			}
			hasEll = true
		}
		letters := before + after
		for j := 0; j < len(letters); j++ {
			c := letters[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return nil, false
			}
			v := s[j]
			if j >= len(before) {
				v = s[j+er]
			}
			if old, seen := dims[c]; seen && old != v {
				switch {
				case old == 1:
				case v == 1:
					v = old
				default:
					return nil, false
				}
			}
			dims[c] = v
			count[c]++
		}
	}
	if !explicit {
		rhs = ""
		if hasEll {
			rhs = "..."
		}
		for c := byte('A'); c <= 'z'; c++ {
			if count[c] == 1 {
				rhs += string(c)
			}
		}
	}
	out := []int64{}
	for i := 0; i < len(rhs); {
		if strings.HasPrefix(rhs[i:], "...") {
			out = append(out, ell...)
			i += 3
			continue
		}
		v, ok := dims[rhs[i]]
		if !ok {
			return nil, false
		}
		out = append(out, v)
		i++
	}
	return out, true
}

// ruleDet: the determinants of square matrices [*, M, M] are [*].
func ruleDet(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	xs, xok := d.shape(n, 0)
	if !xok {
		if x != nil {
			res[0].dt = x.dt
		}
		return res
	}
	if len(xs) < 2 || xs[len(xs)-1] != xs[len(xs)-2] {
		return d.fail(res, "Det needs square matrices [*, M, M], got %v", xs)
	}
	res[0] = known(x.dt, xs[:len(xs)-2])
	return res
}
