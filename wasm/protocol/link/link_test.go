package link_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"memplan/planner"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/link"
)

func defaults() protocol.Options { return protocol.Options{Options: planner.DefaultOptions()} }

func packed(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A state written to a fragment reads back the same, to the bit.
func TestStateRoundTrip(t *testing.T) {
	graph := []byte(`{"format": "memplan.graph/v1", "name": "tiny", "nodes": [{"name": "x", "op": "input", "shape": [4], "dtype": "f32"}]}`)
	every := defaults()
	every.Strategy, every.Alignment, every.Guard, every.F32Uniform, every.NoReuse = "exact", 256, 0, true, true
	every.SkipParams, every.SkipInputs, every.SkipConstants = true, true, true
	// Symbols bound to expressions keep their text in a link, which
	// resolves to the same values when it opens.
	every.SymbolsText, every.Budget, every.IfBranch = "total=past+seq, past=4095 seq=1", 128<<20, "else"
	every.Symbols = map[string]int64{"total": 4096, "past": 4095, "seq": 1}
	every.WebGPU, every.Binding, every.Limits, every.NodeLimit = "intel", planner.BindTensor, "binding=1GiB,buffer=1GiB", 20000
	for _, c := range []struct {
		name string
		s    link.State
		hash string // when set, the fragment expected
	}{
		{"empty", link.State{Options: defaults(), Step: -1}, ""},
		{"example", link.State{Example: "mlp.json", Options: defaults(), Step: -1}, "ex=mlp.json"},
		{"url and view", link.State{URL: "models/a b.json", Options: defaults(), Step: -1,
			View: &link.View{X0: -1.25, Y0: 0.1, X1: 33.000000000000004, Y1: 2.3074432e+07}},
			"view=-1.25,0.1,33.00000000000001,23074432&url=models/a%20b.json"},
		{"every option", link.State{URL: "https://example.org/m.onnx?x=1&y=2", Options: every, Selected: "l0.ffn/out#1&x=y", Step: 7}, ""},
		{"carried graph", link.State{Name: "tiny.json", Graph: graph, Packed: packed(t, graph), Options: defaults(), Step: 0}, ""},
		{"placing, nothing moved", link.State{Example: "mlp.json", Options: defaults(), Step: -1, Placing: true}, "place=none&ex=mlp.json"},
		{"placing, many moved", link.State{Example: "mlp.json", Options: defaults(), Step: -1, Placing: true, Moves: manyMoves(1000)}, ""},
		{"placing, two moved", link.State{Example: "mlp.json", Options: defaults(), Step: -1, Placing: true,
			Moves: []link.Move{{"a;b@c", 4096}, {"x", 0}}}, "place=a%253Bb%2540c%404096%3Bx%400&ex=mlp.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := link.EncodeHash(c.s)
			if c.hash != "" && h != c.hash {
				t.Errorf("hash %q, want %q", h, c.hash)
			}
			got, err := link.DecodeHash(h)
			if err != nil {
				t.Fatalf("%q: %v", h, err)
			}
			if !reflect.DeepEqual(got, c.s) {
				t.Errorf("%q reads back as\n%+v, want\n%+v", h, got, c.s)
			}
			if again := link.EncodeHash(got); again != h {
				t.Errorf("re-encoded %q, want %q", again, h)
			}
		})
	}
}

// The page's query gives the file's URL when the fragment names none.
func TestDecodeLocation(t *testing.T) {
	for _, c := range []struct{ search, hash, url, example string }{
		{"?url=models/mlp.json", "", "models/mlp.json", ""},
		{"?wheel=always&url=x.csv", "strategy=exact", "x.csv", ""},
		{"?url=models/mlp.json", "url=other.json", "other.json", ""},
		{"?url=models/mlp.json", "ex=mlp.json", "", "mlp.json"},
		{"", "", "", ""},
	} {
		s, err := link.DecodeLocation(c.search, c.hash)
		if err != nil || s.URL != c.url || s.Example != c.example {
			t.Errorf("%q %q: url %q example %q err %v, want %q %q", c.search, c.hash, s.URL, s.Example, err, c.url, c.example)
		}
	}
	if _, err := link.DecodeLocation("?url=javascript:alert(1)", ""); err == nil {
		t.Error("a javascript: URL was taken")
	}
}

// Hostile and malformed links: each is an error naming the parameter.
func TestStateHostile(t *testing.T) {
	deflate := func(data []byte) string {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		w.Write(data)
		w.Close()
		return base64.RawURLEncoding.EncodeToString(b.Bytes())
	}
	bomb := deflate(make([]byte, link.MaxGraph+1)) // 16 MiB of zeros packs to a few kB
	for _, c := range []struct{ hash, param, says string }{
		{"align=abc", "align", "bad size"},
		{"align=3", "align", "power of two"},
		{"align=-64", "align", "bad size"},
		{"align=0", "align", "want a power of two up to 1 GiB, got 0"},
		{"align=99999999999999999999999", "align", "exceeds memplan's limit"},
		{"align=4611686018427387904", "align", "exceeds memplan's limit"},
		{"align=2147483648", "align", "want a power of two up to 1 GiB"},
		{"guard=2GiB", "guard", "want -1 (the default) or 0 to 1 GiB, got 2147483648"},
		{"strategy=fastest", "strategy", "unknown strategy"},
		{"f32=yes", "f32", "want true or false (or 1 or 0)"},
		{"skip=params,weights", "skip", "unknown kind"},
		{"sym=batch", "sym", `column 1: "batch" is not name=value`},
		{"sym=total%3Dpast%2B1", "sym", "total=past+1 uses past, which has no value"},
		{"sym=a%3Db,b%3Da", "sym", "symbols defined by each other: a=b, b=a"},
		{"sym=a%3D3-4", "sym", "a=3-4 is -1"},
		{"budget=0", "budget", "want a size above 0"},
		{"ifbranch=maybe", "ifbranch", "then or else"},
		{"webgpu=gtx", "webgpu", "unknown WebGPU profile"},
		{"binding=buffer", "binding", "want arena or tensor"},
		{"limits=" + strings.Repeat("x", 201), "limits", "want at most 200 characters"},
		{"nodelimit=-1", "nodelimit", "want 0 (none) or more"},
		{"nodelimit=lots", "nodelimit", "want a whole number"},
		{"view=1,2,3", "view", "four numbers"},
		{"place=a", "place", "not name@offset"},
		{"place=a@-64", "place", "outside 0"},
		{"place=a@1;a@2", "place", "once"},
		{"place=@64", "place", "once"},
		{"place=a@x", "place", "not a whole number"},
		{"view=0,0,NaN,1", "view", "finite"},
		{"view=0,0,Inf,1", "view", "finite"},
		{"view=0,0,1e300,1", "view", "finite"},
		{"view=5,0,1,1", "view", "x0 < x1"},
		{"step=-1", "step", "outside"},
		{"step=1e3", "step", "not a whole number"},
		{"url=javascript:alert(1)", "url", "only http"},
		{"url=file:///etc/passwd", "url", "only http"},
		{"ex=../secret", "ex", "not an example"},
		{"name=../x.json&g=" + deflate([]byte("{}")), "name", "not a file name"},
		{"name=x.json", "name", "carries none"},
		{"g=!!!", "g", "not base64url"},
		{"g=" + base64.RawURLEncoding.EncodeToString([]byte("plain text, not deflate")), "g", "not deflate"},
		{"g=" + bomb, "g", "inflates to over"},
		{"g=" + strings.Repeat("A", link.MaxPackedGraph*2), "g", "over the"},
		{"url=a.json&ex=mlp.json", "", "more than one file"},
		{"sel=a&sel=b", "sel", "more than once"},
		{"sel=" + strings.Repeat("x", 5000), "sel", "characters long"},
		{"align=%zz", "align", "bad escape"}, {"align=6%4", "align", "cut-off"},
		{strings.Repeat("x", link.MaxHash+1), "", "characters long"},
	} {
		s, err := link.DecodeHash(c.hash)
		var se *link.Error
		if !errors.As(err, &se) {
			t.Errorf("%.60q: err = %v, want a StateError", c.hash, err)
			continue
		}
		if se.Param != c.param || !strings.Contains(err.Error(), c.says) || (c.param != "" && !strings.Contains(err.Error(), c.param)) {
			t.Errorf("%.60q: %v; want parameter %q and %q", c.hash, err, c.param, c.says)
		}
		_ = s
		// The page hears it as a link error naming the parameter.
		if e := protocol.ErrorOf(err); e.Kind != "link" || e.Param != c.param {
			t.Errorf("%.60q: ErrorOf gives kind %q param %q", c.hash, e.Kind, e.Param)
		}
	}
}

// Any fragment reads without panicking, and one that reads writes back to
// a fragment that reads the same.
func FuzzDecodeHash(f *testing.F) {
	for _, h := range []string{"", "strategy=exact&align=64&view=0,0,1,1&sel=x&step=3&ex=mlp.json",
		"g=80jNyclXKM8vyklRBAA&name=a.txt", "url=a.json&sym=batch%3D8", "skip=params,inputs&f32=1"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		s, err := link.DecodeHash(h)
		if err != nil {
			return
		}
		again, err := link.DecodeHash(link.EncodeHash(s))
		if err != nil {
			t.Fatalf("%q: its own encoding does not read: %v", h, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("%q: %+v reads back as %+v", h, s, again)
		}
	})
}

// A link's parameters are each read and checked alone, by the options'
// table; limits are read over their profile when the file is planned
// (protocol.ResolveGPU, in the planner worker), so a link that carries
// limits its profile cannot have opens, and planning names the field.
func TestLinkLimitsAreReadWithTheProfile(t *testing.T) {
	s, err := link.DecodeHash("limits=binding%3D2GiB&webgpu=default&ex=mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Options.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := protocol.ResolveGPU(&s.Options); err == nil || !strings.Contains(err.Error(), "WebGPU limits field: limits: maxStorageBufferBindingSize") {
		t.Fatalf("ResolveGPU: %v, want the limits field refused", err)
	}
}

// manyMoves are n tensors placed by hand: a link longer than any one
// option may be.
func manyMoves(n int) []link.Move {
	out := make([]link.Move, n)
	for i := range out {
		out[i] = link.Move{Name: "layer." + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "." + fmt.Sprint(i), Offset: int64(i) * 4096}
	}
	return out
}
