package onnx

import (
	"fmt"
	"testing"
)

func TestZZ(t *testing.T) {
	d := analyzeModel(t, "silero_vad_16k_op15.onnx", map[string]int64{"batch": 1, "sequence": 512})
	for _, k := range d.order[:40] {
		n := d.g.nodes[k]
		fmt.Printf("%s %v -> %v\n", n.op, n.inputs, n.outputs)
		for _, in := range n.inputs {
			if ti := d.infos[in]; ti != nil {
				fmt.Printf("   %s dt=%d ok=%v %v val=%v\n", in, ti.dt, ti.ok, ti.shape, ti.val)
			}
		}
	}
}
