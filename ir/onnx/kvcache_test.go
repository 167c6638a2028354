package onnx

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"memplan/ir"
)

// TestSharedKVCache: GroupQueryAttention's present is a view of past
// exactly when onnxruntime gives it past's shape (a cache as long as the
// total sequence, its shared-buffer mode), and new bytes otherwise.
func TestSharedKVCache(t *testing.T) {
	gqa := func(past, total int64) []byte {
		return modelMS(21,
			input(vinfo("q", tFloat16, 1, 1, 64)), input(vinfo("k", tFloat16, 1, 1, 32)), input(vinfo("v", tFloat16, 1, 1, 32)),
			input(vinfo("past_key", tFloat16, 1, 2, int(past), 16)), input(vinfo("past_value", tFloat16, 1, 2, int(past), 16)),
			input(vinfo("seqlens_k", tInt32, 1)), initz(pb{}.i64(2, tInt32).i64(5, total).str(8, "total")), // int32_data
			msOp("GroupQueryAttention", []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total"},
				[]string{"o", "present_key", "present_value"}, aInt("num_heads", 4), aInt("kv_num_heads", 2)),
			output(vinfo("o", 0)), output(vinfo("present_key", 0)), output(vinfo("present_value", 0)))
	}
	for _, tc := range []struct {
		name        string
		past, total int64
		shares      bool
		presentLen  int64
	}{
		{"cache of the maximum length", 128, 9, true, 128},
		{"cache exactly as long as the sequence", 9, 9, true, 9},
		{"cache that grows by the new token", 8, 9, false, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode("kv.onnx", gqa(tc.past, tc.total), ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range [][2]string{{"present_key", "past_key"}, {"present_value", "past_value"}} {
				tt, _ := g.Tensor(kv[0])
				want := ""
				if tc.shares {
					want = kv[1]
				}
				if tt.Shares != want {
					t.Errorf("%s shares %q, want %q", kv[0], tt.Shares, want)
				}
				if dims := shapeOf(t, g, kv[0]); dims[2] != tc.presentLen {
					t.Errorf("%s has length %d, want %d", kv[0], dims[2], tc.presentLen)
				}
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestInputValueFromSymbol: a one-element integer graph input takes the
// value of the symbol of its name, which the shapes after it need.
func TestInputValueFromSymbol(t *testing.T) {
	model := modelMS(21,
		input(vinfo("q", tFloat16, 1, 1, 64)), input(vinfo("k", tFloat16, 1, 1, 32)), input(vinfo("v", tFloat16, 1, 1, 32)),
		input(vinfo("past_key", tFloat16, 1, 2, 8, 16)), input(vinfo("past_value", tFloat16, 1, 2, 8, 16)),
		input(vinfo("seqlens_k", tInt32, 1)), input(scalar("total_sequence_length", tInt32)),
		msOp("GroupQueryAttention", []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"},
			[]string{"o", "present_key", "present_value"}, aInt("num_heads", 4), aInt("kv_num_heads", 2)))
	if _, err := Decode("kv.onnx", model, ir.DecodeOptions{}); err == nil ||
		!containsAll(err.Error(), "input 6 (total_sequence_length)", "total_sequence_length=N") {
		t.Fatalf("unbound: error %v, want one naming input 6 and how to bind it", err)
	}
	g, err := Decode("kv.onnx", model, ir.DecodeOptions{Symbols: map[string]int64{"total_sequence_length": 9}})
	if err != nil {
		t.Fatal(err)
	}
	if dims := shapeOf(t, g, "present_key"); dims[2] != 9 {
		t.Errorf("present_key has length %d, want 9", dims[2])
	}
	if g.Symbols["total_sequence_length"] != 9 {
		t.Errorf("the plan's symbols do not record total_sequence_length: %v", g.Symbols)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestNonTensorInputSaysSo: a sequence or optional graph input is refused
// as what it is, not as a tensor that lacks a shape.
func TestNonTensorInputSaysSo(t *testing.T) {
	for _, tc := range []struct {
		field protowire.Number
		kind  string
	}{{4, "sequence"}, {9, "optional"}, {5, "map"}} {
		vi := pb{}.str(1, "s").msg(2, pb{}.msg(tc.field, pb{}))
		model := modelP(13, input(vi), op("Identity", []string{"s"}, []string{"y"}))
		_, err := Decode("seq.onnx", model, ir.DecodeOptions{})
		if err == nil || !strings.Contains(err.Error(), "the graph input is a "+tc.kind+", not a tensor") {
			t.Errorf("%s: error %v", tc.kind, err)
		}
	}
}
