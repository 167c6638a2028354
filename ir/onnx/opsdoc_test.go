//go:build !js

package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// opsDoc renders the rule table: each family, its file, and its ops by
// domain. docs/onnx-ops.md is this text; the test below keeps them one.
func opsDoc() string {
	var b strings.Builder
	b.WriteString("# ONNX ops memplan sizes\n\n")
	b.WriteString("Generated from the shape rules' table in `ir/onnx/rules.go` by\n")
	b.WriteString("`go test ./ir/onnx -run TestOpsDoc -update`; a test fails when the two differ.\n\n")
	b.WriteString("Each op family's rules live in one file of `ir/onnx/`. To add an op, write its\n")
	b.WriteString("rule in its family's file (a `func(d *decoder, n *node, res []tinfo) []tinfo`\n")
	b.WriteString("that gives each output's type and shape, or says with `d.fail` why the inputs\n")
	b.WriteString("disagree), list it in that file's rule sets with its domain, add a row to the\n")
	b.WriteString("family's table-driven test, and regenerate this page. A new family is a new\n")
	b.WriteString("file and one line in `ruleFamilies`.\n\n")
	b.WriteString("An op missing here stops planning with an error that names it and its domain;\n")
	b.WriteString("the shapes it would have given are unknown unless the file records them in\n")
	b.WriteString("`value_info`.\n")
	total := 0
	for _, fam := range ruleFamilies {
		byDomain := map[string][]string{}
		for _, rs := range fam.rules {
			doms := rs.domains
			if len(doms) == 0 {
				doms = []string{""}
			}
			for _, d := range doms {
				byDomain[d] = append(byDomain[d], rs.ops...)
			}
		}
		fmt.Fprintf(&b, "\n## %s\n\n`ir/onnx/%s`\n\n| domain | ops |\n| --- | --- |\n", fam.name, fam.file)
		doms := make([]string, 0, len(byDomain))
		for d := range byDomain {
			doms = append(doms, d)
		}
		slices.Sort(doms)
		for _, d := range doms {
			ops := slices.Clone(byDomain[d])
			slices.Sort(ops)
			total += len(ops)
			name := d
			if name == "" {
				name = "ONNX (default)"
			}
			fmt.Fprintf(&b, "| %s | %s |\n", name, strings.Join(ops, ", "))
		}
	}
	fmt.Fprintf(&b, "\n%d ops in all.\n", total)
	return b.String()
}

func TestOpsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "onnx-ops.md")
	want := opsDoc()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is not what the rule table says: run go test ./ir/onnx -run TestOpsDoc -update", path)
	}
}
