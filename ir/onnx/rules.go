package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// The shape rules: a table from (domain, op) to the function that gives a
// node's output types and shapes. Each op family has its own file
// (ops_*.go) holding its rules and its list of ops; adding a family is one
// file and one line in ruleFamilies.

// rule returns one tinfo per output of n (unknown where it cannot tell);
// res is ready for it, one zero tinfo per output. A rule that cannot give
// a shape from known inputs says why with d.fail; one whose inputs are
// unknown returns without a reason, so the error names their producer.
type rule func(d *decoder, n *node, res []tinfo) []tinfo

// ruleSet binds ops of one domain to a rule.
type ruleSet struct {
	// domains the ops are registered in; none means the ONNX default
	// domain ("" or "ai.onnx").
	domains []string
	ops     []string
	rule    rule
}

const msDomain = "com.microsoft"

// family is one op family: its rules and the file that holds them.
type family struct {
	name  string // as docs/onnx-ops.md titles it
	file  string
	rules []ruleSet
}

var ruleFamilies = []family{
	{"Elementwise and broadcasting", "ops_elementwise.go", elementwiseRules},
	{"Shape and indexing", "ops_shape.go", shapeRules},
	{"Data-dependent sizes", "ops_data.go", dataRules},
	{"Convolution and pooling", "ops_conv.go", convRules},
	{"Signal processing", "ops_signal.go", signalRules},
	{"Text features", "ops_text.go", textRules},
	{"Reductions", "ops_reduce.go", reduceRules},
	{"Training losses", "ops_loss.go", lossRules},
	{"Random", "ops_random.go", randomRules},
	{"Training optimizers", "ops_training.go", trainingRules},
	{"Matrix products", "ops_matmul.go", matmulRules},
	{"Normalization", "ops_norm.go", normRules},
	{"Quantization", "ops_quant.go", quantRules},
	{"Attention", "ops_attention.go", attentionRules},
	{"Control flow and recurrence", "ops_control.go", controlRules},
	{"onnxruntime contrib", "ops_contrib.go", contribRules},
}

type opKey struct{ domain, op string }

// rules is built in init: the rules of If and Loop infer their subgraphs
// through it, which a variable's initializer may not refer back to.
var rules map[opKey]rule

func init() { rules = indexRules(ruleFamilies) }

// indexRules builds the lookup table. An op listed twice for a domain is a
// programming error, caught by the package's tests at start-up.
func indexRules(families []family) map[opKey]rule {
	m := map[opKey]rule{}
	for _, fam := range families {
		for _, rs := range fam.rules {
			doms := rs.domains
			if len(doms) == 0 {
				doms = []string{""}
			}
			for _, dom := range doms {
				for _, op := range rs.ops {
					k := opKey{dom, op}
					if _, dup := m[k]; dup {
						panic(fmt.Sprintf("onnx: two shape rules for %s.%s", dom, op))
					}
					m[k] = rs.rule
				}
			}
		}
	}
	return m
}

// ruleFor finds n's rule; ai.onnx is the default domain's other name.
func ruleFor(n *node) (rule, bool) {
	dom := n.domain
	if dom == "ai.onnx" {
		dom = ""
	}
	r, ok := rules[opKey{dom, n.op}]
	return r, ok
}

// infer returns one tinfo per output of n (unknown where it cannot tell).
func (d *decoder) infer(n *node) []tinfo {
	res := make([]tinfo, len(n.outputs))
	if len(res) == 0 {
		return res
	}
	r, ok := ruleFor(n)
	if !ok {
		return d.fail(res, "%s", noRule(n))
	}
	return r(d, n, res)
}

// noRule says what a user can act on: which op of which domain memplan
// lacks a rule for, and what would give the shapes anyway.
func noRule(n *node) string {
	dom := n.domain
	if dom == "" || dom == "ai.onnx" {
		dom = "the ONNX default domain"
	} else {
		dom = "domain " + quote(dom)
	}
	var sib []string
	for k := range rules {
		if k.op == n.op && k.domain != n.domain {
			if k.domain == "" {
				sib = append(sib, "the default domain")
			} else {
				sib = append(sib, quote(k.domain))
			}
		}
	}
	slices.Sort(sib)
	also := ""
	if len(sib) > 0 {
		also = fmt.Sprintf(" (it has one for %s in %s)", clip(n.op), strings.Join(sib, " and "))
	}
	return fmt.Sprintf("memplan lacks a shape rule for the op %s of %s%s, so its outputs' sizes, and those of every tensor computed from them, are unknown", clip(n.op), dom, also)
}

// dtOf is a tensor's element type, 0 when the tensor is absent.
func dtOf(t *tinfo) int64 {
	if t == nil {
		return 0
	}
	return t.dt
}

// sameAsInput gives output 0 input 0's type and shape.
func sameAsInput(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	if xs, ok := d.shape(n, 0); ok {
		res[0] = known(x.dt, xs)
	} else if x != nil {
		res[0].dt = x.dt
	}
	return res
}

// likeInput gives output 0 input 0's shape, in the type its dtype
// attribute names, else input 0's (EyeLike, the random -Like ops).
func likeInput(d *decoder, n *node, res []tinfo) []tinfo {
	x := d.in(n, 0)
	dt := n.attrInt("dtype", dtOf(x))
	if xs, ok := d.shape(n, 0); ok {
		res[0] = known(dt, xs)
	} else {
		res[0].dt = dt
	}
	return res
}
