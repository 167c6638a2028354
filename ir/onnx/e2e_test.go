package onnx

import (
	"testing"

	"memplan/ir"
)

// modelSymbols binds each model's symbols to the values its .static twin
// (or the models README) uses.
var modelSymbols = map[string]map[string]int64{
	"mnist.onnx":                        nil,
	"light_resnet50.onnx":               nil,
	"light_resnet50.static.onnx":        nil,
	"light_shufflenet.onnx":             nil,
	"light_shufflenet.static.onnx":      nil,
	"light_densenet121.onnx":            nil,
	"light_densenet121.static.onnx":     nil,
	"ppocr_mobile_v2_cls.onnx":          pp,
	"ppocr_mobile_v2_cls.static.onnx":   nil,
	"bert_toy.onnx":                     {"batch": 1, "max_seq_len_in_batch": 128},
	"bert_toy.static.onnx":              nil,
	"bert_toy.symbolic.onnx":            {"batch": 1, "max_seq_len_in_batch": 128},
	"tf_bert_qa.onnx":                   {"batch_size": 1},
	"tf_bert_qa.static.onnx":            nil,
	"tf_bert_qa.symbolic.onnx":          {"batch_size": 1},
	"attention_mask1d_fp16.onnx":        {"batch": 2, "sequence": 16},
	"silero_vad_op18.onnx":              {"batch": 1, "sequence": 512},
	"silero_vad_op18_16k.onnx":          {"batch": 1, "sequence": 512},
	"silero_vad_op18_16k.static.onnx":   nil,
	"silero_vad_op18_16k.symbolic.onnx": {"batch": 1},
	"silero_vad_16k_op15.onnx":          {"batch": 1, "sequence": 512},
}

func TestDecodeAll(t *testing.T) {
	for name, syms := range modelSymbols {
		t.Run(name, func(t *testing.T) {
			g, err := Decode(name, readModel(t, name), ir.DecodeOptions{Symbols: syms})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d nodes, notes %q", len(g.Nodes), g.Notes)
		})
	}
}
