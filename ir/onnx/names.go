package onnx

import (
	"fmt"
	"unicode/utf8"

	"memplan/ir"
)

// quote and clip are ir's, short names for the many messages here.
func quote(s string) string { return ir.Quote(s) }
func clip(s string) string  { return ir.Clip(s) }

// checkNames rejects names that are not valid UTF-8. Names become graph
// JSON strings and message text; replacing bad bytes with U+FFFD would
// silently merge distinct names, so the file is refused with the place.
func (d *decoder) checkNames() error {
	return d.checkGraphNames(d.g, "graph", 0)
}

func (d *decoder) checkGraphNames(g *graph, path string, depth int) error {
	if depth > maxDepth {
		return nil // parseGraph already refuses deeper nesting
	}
	bad := func(p, node, what, s string) error {
		return &ir.Error{File: d.file, Path: p, Node: node,
			Msg: fmt.Sprintf("%s %s is not valid UTF-8", what, quote(s))}
	}
	if !utf8.ValidString(g.name) {
		return bad(path+".name", "", "graph name", g.name)
	}
	for i, t := range g.inits {
		if !utf8.ValidString(t.name) {
			return bad(fmt.Sprintf("%s.initializer[%d].name", path, i), "", "initializer name", t.name)
		}
	}
	vis := []struct {
		field string
		list  []valueInfo
	}{{"input", g.inputs}, {"output", g.outputs}, {"value_info", g.valueInfo}}
	for _, l := range vis {
		for i, v := range l.list {
			p := fmt.Sprintf("%s.%s[%d]", path, l.field, i)
			if !utf8.ValidString(v.name) {
				return bad(p+".name", "", "tensor name", v.name)
			}
			for j, dim := range v.dims {
				if !utf8.ValidString(dim.param) {
					return bad(fmt.Sprintf("%s.shape.dim[%d].dim_param", p, j), "", "symbol", dim.param)
				}
			}
		}
	}
	for k := range g.nodes {
		n := &g.nodes[k]
		p := fmt.Sprintf("%s.node[%d]", path, k)
		// The node's own name is reported raw-cut, so it cannot be Node.
		if !utf8.ValidString(n.name) {
			return bad(p+".name", "", "node name", n.name)
		}
		if !utf8.ValidString(n.op) {
			return bad(p+".op_type", n.name, "op type", n.op)
		}
		if !utf8.ValidString(n.domain) {
			return bad(p+".domain", n.name, "domain", n.domain)
		}
		for i, s := range n.inputs {
			if !utf8.ValidString(s) {
				return bad(fmt.Sprintf("%s.input[%d]", p, i), n.name, "input name", s)
			}
		}
		for i, s := range n.outputs {
			if !utf8.ValidString(s) {
				return bad(fmt.Sprintf("%s.output[%d]", p, i), n.name, "output name", s)
			}
		}
		for j := range n.attrs {
			a := &n.attrs[j]
			if a.g != nil {
				if err := d.checkGraphNames(a.g, fmt.Sprintf("%s.attribute[%d].g", p, j), depth+1); err != nil {
					return err
				}
			}
			for i, sg := range a.graphs {
				if err := d.checkGraphNames(sg, fmt.Sprintf("%s.attribute[%d].graphs[%d]", p, j, i), depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
