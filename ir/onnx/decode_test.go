package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

func readModel(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// analyzeModel runs everything but the final all-shapes-known check, so
// tests can measure inference coverage.
func analyzeModel(t testing.TB, name string, syms map[string]int64, noVI bool) *decoder {
	t.Helper()
	m, err := parseModel(readModel(t, name))
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: name, m: m, g: m.graph, opts: ir.DecodeOptions{Symbols: syms}, opset: m.opsets[""], noVI: noVI}
	if err := d.analyze(); err != nil {
		t.Fatal(err)
	}
	return d
}

var pp = map[string]int64{"p2o.DynamicDimension.0": 1, "p2o.DynamicDimension.1": 48, "p2o.DynamicDimension.2": 192}

// staticTwins lists originals whose .static twin records onnxruntime's
// shapes, with the binding the twin was made at. minCover is the share
// of intermediates (in percent) whose inferred shape and dtype must match.
var staticTwins = []struct {
	orig, static string
	syms         map[string]int64
	minCover     float64
}{
	{"mnist.onnx", "mnist.onnx", nil, 100},
	{"light_resnet50.onnx", "light_resnet50.static.onnx", nil, 100},
	{"light_shufflenet.onnx", "light_shufflenet.static.onnx", nil, 100},
	{"light_densenet121.onnx", "light_densenet121.static.onnx", nil, 100},
	{"ppocr_mobile_v2_cls.onnx", "ppocr_mobile_v2_cls.static.onnx", pp, 100},
	{"bert_toy.onnx", "bert_toy.static.onnx", map[string]int64{"batch": 1, "max_seq_len_in_batch": 128}, 100},
	{"silero_vad_op18_16k.onnx", "silero_vad_op18_16k.static.onnx", map[string]int64{"batch": 1, "sequence": 512}, 100},
	// keras2onnx shape arithmetic: 100 % once Shape/Gather/ReduceProd/
	// Concat/Cast/Transpose are folded (onnx 1.12 leaves 1638 shapeless).
	{"tf_bert_qa.onnx", "tf_bert_qa.static.onnx", map[string]int64{"batch_size": 1}, 100},
}

// compareStatic checks every value_info entry of the static twin against
// what inference found on the original.
// compareStatic checks every value_info entry of file against what
// inference found, resolving symbolic dims with d's binding. Entries with
// a dim that is neither a value nor a bound expression are skipped.
func compareStatic(t *testing.T, d *decoder, file string) (match, total int, bad []string) {
	sm, err := parseModel(readModel(t, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, vi := range sm.graph.valueInfo {
		want, kn := d.viDims(&vi)
		if slices.Contains(kn, false) || d.infos[vi.name] == nil {
			continue // unresolvable, or a stale entry naming no tensor
		}
		total++
		got := d.infos[vi.name]
		if got != nil && got.ok && slices.Equal(got.shape, want) && got.dt == vi.elem {
			match++
		} else if len(bad) < 10 {
			desc := "unknown"
			if got != nil {
				desc = elemName(got.dt)
				if got.ok {
					desc += " " + fmtInts(got.shape)
				}
			}
			bad = append(bad, vi.name+": got "+desc+", want "+elemName(vi.elem)+" "+fmtInts(want))
		}
	}
	return match, total, bad
}

// TestInferenceMatchesOwnValueInfo infers files whose value_info is
// (partly) symbolic, ignoring that value_info, at bindings other than the
// .static one, and checks the result against the value_info evaluated at
// the same binding (`7*batch_size`, `batch*sequence`).
func TestInferenceMatchesOwnValueInfo(t *testing.T) {
	for _, tc := range []struct {
		file      string
		syms      map[string]int64
		wantTotal int
	}{
		{"attention_mask1d_fp16.onnx", map[string]int64{"batch": 3, "sequence": 5}, 113},
		{"bert_toy.symbolic.onnx", map[string]int64{"batch": 2, "max_seq_len_in_batch": 7}, 382},
		{"tf_bert_qa.symbolic.onnx", map[string]int64{"batch_size": 3}, 3835},
		{"silero_vad_op18_16k.symbolic.onnx", map[string]int64{"batch": 4}, 44},
		// Branch value_info of the inlined graph: only batch and fixed dims.
		{"silero_vad_op18_16k.onnx", map[string]int64{"batch": 2, "sequence": 512}, 27},
		{"silero_vad_op18.onnx", map[string]int64{"batch": 2, "sequence": 512}, 48},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d := analyzeModel(t, tc.file, tc.syms, true)
			match, total, bad := compareStatic(t, d, tc.file)
			t.Logf("%d/%d value_info entries with resolvable dims match", match, total)
			if match != total || total < tc.wantTotal {
				t.Errorf("%d/%d match, want all of at least %d; first mismatches:\n%s", match, total, tc.wantTotal, strings.Join(bad, "\n"))
			}
		})
	}
}

func fmtInts(s []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(v))
	}
	b.WriteByte(']')
	return b.String()
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var buf []byte
	for v > 0 {
		buf = append([]byte{byte('0' + v%10)}, buf...)
		v /= 10
	}
	if neg {
		buf = append([]byte{'-'}, buf...)
	}
	return string(buf)
}

// TestInferenceMatchesStatic infers each original, once with its own
// value_info and once ignoring it, and compares every intermediate's
// shape and dtype with what onnxruntime recorded in the .static twin.
func TestInferenceMatchesStatic(t *testing.T) {
	for _, tc := range staticTwins {
		for _, noVI := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/noVI=%v", tc.orig, noVI), func(t *testing.T) {
				d := analyzeModel(t, tc.orig, tc.syms, noVI)
				match, total, bad := compareStatic(t, d, tc.static)
				cover := 100 * float64(match) / float64(total)
				t.Logf("%d/%d intermediates match onnxruntime (%.1f%%)", match, total, cover)
				if cover < tc.minCover {
					t.Errorf("coverage %.1f%% < %.1f%%; first mismatches:\n%s", cover, tc.minCover, strings.Join(bad, "\n"))
				}
				if d.viMism != 0 {
					t.Errorf("value_info disagrees with inference on %d tensors: %v", d.viMism, d.viDiff)
				}
			})
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	_, err := Decode("bad_gpt2_past.onnx", readModel(t, "bad_gpt2_past.onnx"), ir.DecodeOptions{})
	var e *ir.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *ir.Error", err)
	}
	t.Log(err)
}
