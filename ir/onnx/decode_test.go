package onnx

import (
	"errors"
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
func analyzeModel(t testing.TB, name string, syms map[string]int64) *decoder {
	t.Helper()
	m, err := parseModel(readModel(t, name))
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: name, m: m, g: m.graph, opts: ir.DecodeOptions{Symbols: syms}, opset: m.opsets[""]}
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
	{"tf_bert_qa.onnx", "tf_bert_qa.static.onnx", map[string]int64{"batch_size": 1}, 0},
}

// compareStatic checks every value_info entry of the static twin against
// what inference found on the original.
func compareStatic(t *testing.T, d *decoder, static string) (match, total int, bad []string) {
	sm, err := parseModel(readModel(t, static))
	if err != nil {
		t.Fatal(err)
	}
	for _, vi := range sm.graph.valueInfo {
		total++
		want := make([]int64, len(vi.dims))
		for i, dim := range vi.dims {
			want[i] = dim.value
		}
		got := d.infos[vi.name]
		if got != nil && got.ok && slices.Equal(got.shape, want) && got.dt == vi.elem {
			match++
		} else if len(bad) < 10 {
			desc := "unknown"
			if got != nil {
				desc = elemName(got.dt)
				if got.ok {
					desc += " " + strings.Trim(strings.ReplaceAll(strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtInts(got.shape), "[]")), ","), " "), " ", ","), ",")
				}
			}
			bad = append(bad, vi.name+": got "+desc+", want "+elemName(vi.elem)+" "+fmtInts(want))
		}
	}
	return match, total, bad
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

func TestInferenceMatchesStatic(t *testing.T) {
	for _, tc := range staticTwins {
		t.Run(tc.orig, func(t *testing.T) {
			d := analyzeModel(t, tc.orig, tc.syms)
			match, total, bad := compareStatic(t, d, tc.static)
			cover := 100 * float64(match) / float64(total)
			t.Logf("%s: %d/%d intermediates match onnxruntime (%.1f%%), value_info disagreements %d", tc.orig, match, total, cover, d.viMism)
			if cover < tc.minCover {
				t.Errorf("coverage %.1f%% < %.1f%%; first mismatches:\n%s", cover, tc.minCover, strings.Join(bad, "\n"))
			}
		})
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
