package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"memplan/planner"
)

func TestOptionsFromAttributes(t *testing.T) {
	// The element's defaults: params left out unless skip-params="false".
	def := Options{Options: planner.DefaultOptions()}
	def.SkipParams = true
	with := func(f func(*Options)) Options { o := def; f(&o); return o }
	tests := []struct {
		name  string
		attrs map[string]string
		want  Options
		err   string // part of the error, "" for none
	}{
		{"none: every default", map[string]string{"src": "m.json", "height": "420", "class": "x"}, def, ""},
		{"strategy", map[string]string{"strategy": "auto"}, with(func(o *Options) { o.Strategy = "auto" }), ""},
		{"flags bare", map[string]string{"f32-uniform": "", "no-reuse": "", "skip-params": "", "skip-inputs": "true", "skip-constants": "skip-constants"},
			with(func(o *Options) {
				o.F32Uniform, o.NoReuse, o.SkipParams, o.SkipInputs, o.SkipConstants = true, true, true, true, true
			}), ""},
		{"flag false", map[string]string{"f32-uniform": "false"}, def, ""},
		{"params kept", map[string]string{"skip-params": "false"}, with(func(o *Options) { o.SkipParams = false }), ""},
		{"sizes", map[string]string{"alignment": "256", "guard": "0", "budget": "128MiB"},
			with(func(o *Options) { o.Alignment, o.Guard, o.Budget = 256, 0, 128<<20 }), ""},
		{"symbols", map[string]string{"symbols": "batch=8, seq=16"},
			with(func(o *Options) {
				o.SymbolsText, o.Symbols = "batch=8, seq=16", map[string]int64{"batch": 8, "seq": 16}
			}), ""},
		{"if-branch", map[string]string{"if-branch": "then"}, with(func(o *Options) { o.IfBranch = "then" }), ""},
		{"unknown strategy", map[string]string{"strategy": "fastest"}, def, `<memplan-plan strategy="fastest">: unknown strategy`},
		{"bad switch", map[string]string{"no-reuse": "yes"}, def, `<memplan-plan no-reuse="yes">: want true or false (or 1 or 0) for a switch, got "yes"`},
		{"bad size", map[string]string{"guard": "-5"}, def, `<memplan-plan guard="-5">`},
		{"symbols bound to expressions", map[string]string{"symbols": "total=past+seq, past=4095, seq=1"},
			with(func(o *Options) {
				o.SymbolsText, o.Symbols = "total=past+seq, past=4095, seq=1", map[string]int64{"total": 4096, "past": 4095, "seq": 1}
			}), ""},
		{"bad symbols", map[string]string{"symbols": "batch"}, def, `<memplan-plan symbols="batch">: column 1: "batch" is not name=value`},
		{"symbols unresolved", map[string]string{"symbols": "total=past+1"}, def, `<memplan-plan symbols="total=past+1">: total=past+1 uses past, which has no value`},
		{"symbols in a cycle", map[string]string{"symbols": "a=b, b=a"}, def, `<memplan-plan symbols="a=b, b=a">: symbols defined by each other: a=b, b=a`},
		{"a device", map[string]string{"webgpu": "intel", "binding": "tensor", "limits": "binding=1GiB,buffer=1GiB", "node-limit": "5000"},
			with(func(o *Options) {
				o.WebGPU, o.Binding, o.Limits, o.NodeLimit = "intel", "tensor", "binding=1GiB,buffer=1GiB", 5000
			}), ""},
		{"alignment 0 is written out", map[string]string{"alignment": "0"}, def, `<memplan-plan alignment="0">: want a power of two`},
		{"alignment not a power of two", map[string]string{"alignment": "48"}, def, `<memplan-plan alignment="48">: want a power of two up to 1 GiB, got 48`},
		{"budget 0", map[string]string{"budget": "0"}, def, `<memplan-plan budget="0">: want a size above 0`},
		{"unknown profile", map[string]string{"webgpu": "gtx"}, def, `<memplan-plan webgpu="gtx">: unknown WebGPU profile`},
		// Each attribute is checked alone; limits are read over their
		// profile when the file is planned (ResolveGPU).
		{"limits over the profile", map[string]string{"limits": "binding=2GiB", "webgpu": "default"},
			with(func(o *Options) { o.Limits, o.WebGPU = "binding=2GiB", "default" }), ""},
		{"limits too long", map[string]string{"limits": strings.Repeat("x", 201)}, def, `: want at most 200 characters`},
		{"negative node limit", map[string]string{"node-limit": "-3"}, def, `<memplan-plan node-limit="-3">: want 0 (none) or more`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := OptionsFromAttributes(tc.attrs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || errors.Unwrap(err) == nil {
					t.Fatalf("error %v, want one that wraps why, containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The snippet names only what differs from the element's defaults, and
// reading its attributes back gives the options it was made from: the
// element plans what the app showed.
func TestEmbedSnippetRoundTrip(t *testing.T) {
	def := Options{Options: planner.DefaultOptions()}
	with := func(f func(*Options)) Options { o := def; f(&o); return o }
	tests := []struct {
		name   string
		o      Options
		params bool   // the file has params
		want   string // the element's attributes
	}{
		{"defaults", def, true, `src="m.json" skip-params="false"`},
		{"defaults, a file without params", def, false, `src="m.json"`},
		{"params skipped", with(func(o *Options) { o.SkipParams = true }), true, `src="m.json"`},
		{"issue's example", with(func(o *Options) { o.Strategy, o.F32Uniform = "exact", true }), false,
			`src="m.json" strategy="exact" f32-uniform`},
		{"a device", with(func(o *Options) { o.WebGPU, o.Binding, o.Limits, o.NodeLimit = "ios", "tensor", "buffer=512MiB", 100 }), false,
			`src="m.json" webgpu="ios" binding="tensor" limits="buffer=512MiB" node-limit="100"`},
		{"everything", with(func(o *Options) {
			o.Strategy, o.Alignment, o.Guard, o.Budget = "best-fit", 128, 0, 1<<20
			o.NoReuse, o.SkipParams, o.SkipInputs, o.SkipConstants = true, true, true, true
			o.Symbols, o.IfBranch = map[string]int64{"seq": 4, "batch": 2}, "else"
		}), true, `src="m.json" strategy="best-fit" alignment="128" guard="0" budget="1048576" no-reuse skip-inputs skip-constants symbols="batch=2, seq=4" if-branch="else"`},
		// Expressions stay text in the snippet; the element resolves them
		// to the values the app planned with.
		{"symbols bound to expressions", with(func(o *Options) {
			o.SymbolsText, o.Symbols = "total=past+seq, past=4095, seq=1", map[string]int64{"total": 4096, "past": 4095, "seq": 1}
		}), false, `src="m.json" symbols="total=past+seq, past=4095, seq=1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := EmbedSnippet("https://docs.example/memplan/embed.js", "m.json", tc.o, tc.params)
			script, elem, _ := strings.Cut(s, "\n")
			want := "<memplan-plan " + tc.want + ">" + escapeHTML(Fallback("m.json")) + "</memplan-plan>"
			if script != `<script type="module" src="https://docs.example/memplan/embed.js"></script>` || elem != want {
				t.Fatalf("snippet\n%s\nwant the element\n%s", s, want)
			}
			back, err := OptionsFromAttributes(parseAttributes(t, elem))
			if err != nil {
				t.Fatal(err)
			}
			back.SymbolsText = tc.o.SymbolsText // the snippet writes symbols as text; the map is what counts
			if !tc.params {
				back.SkipParams = tc.o.SkipParams // no params: skipping them changes nothing
			}
			if !reflect.DeepEqual(back, tc.o) {
				t.Errorf("read back %+v, want %+v", back, tc.o)
			}
		})
	}
	if s := EmbedSnippet("e.js", "m.json", with(func(o *Options) { o.Strategy = "auto" }), false); strings.Contains(s, "strategy") {
		t.Errorf("the default strategy, named, is written: %s", s)
	}
	if s := EmbedSnippet("e.js", `a"<b>.json`, def, false); !strings.Contains(s, `src="a&#34;&lt;b&gt;.json"`) || strings.Contains(s, `<b>`) {
		t.Errorf("file name not escaped: %s", s)
	}
}

// parseAttributes reads the attributes of the one tag in s, as simply as
// the snippets need (values never hold a quote: they are escaped).
func parseAttributes(t *testing.T, s string) map[string]string {
	t.Helper()
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "<memplan-plan "), ">")
	out := map[string]string{}
	for s != "" {
		name, rest, _ := strings.Cut(s, " ")
		if k, v, ok := strings.Cut(s, `="`); ok && !strings.Contains(k, " ") {
			val, after, _ := strings.Cut(v, `"`)
			out[k] = val
			s = strings.TrimPrefix(after, " ")
			continue
		}
		out[name] = ""
		s = rest
	}
	return out
}
