package protocol

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"memplan/planner"
)

// The spellings users type are frozen: the command line's flags, the
// link's parameters and the element's attributes (README and
// docs/embedding.md list them). Each is unique in its front end, and
// every JSON field of Options has its row.
func TestOptionSpellings(t *testing.T) {
	var flags, params, attrs, fields []string
	for _, opt := range OptionTable() {
		for _, s := range []struct {
			name string
			list *[]string
		}{{opt.Flag, &flags}, {opt.Param, &params}, {opt.Attribute, &attrs}, {opt.JSON, &fields}} {
			if s.name != "" {
				*s.list = append(*s.list, s.name)
			}
		}
		if opt.Usage() == "" || opt.Switch != (opt.DefaultWords() == "") {
			t.Errorf("%+v: help %q, default %q", opt, opt.Usage(), opt.DefaultWords())
		}
	}
	want := map[string][]string{
		"flags":      {"strategy", "align", "guard", "budget", "f32-uniform", "no-reuse", "skip", "set", "if-branch", "webgpu", "binding", "limits", "node-limit"},
		"params":     {"strategy", "align", "guard", "budget", "f32", "noreuse", "skip", "sym", "ifbranch", "webgpu", "binding", "limits", "nodelimit"},
		"attributes": {"strategy", "alignment", "guard", "budget", "f32-uniform", "no-reuse", "skip-params", "skip-inputs", "skip-constants", "symbols", "if-branch", "webgpu", "binding", "limits", "node-limit"},
	}
	for name, got := range map[string][]string{"flags": flags, "params": params, "attributes": attrs} {
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s %q, want %q", name, got, want[name])
		}
	}
	// Options' JSON fields, the embedded planner.Options' included; the
	// symbols map is checked with its text (symbols_text's row).
	var tags []string
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous:
				walk(f.Type)
			case name != "-" && name != "symbols":
				tags = append(tags, name)
			}
		}
	}
	walk(reflect.TypeFor[Options]())
	slices.Sort(tags)
	slices.Sort(fields)
	if !slices.Equal(tags, fields) {
		t.Errorf("the table's JSON names %q, Options' fields %q", fields, tags)
	}
}

// The table's default strategy is the planner's.
func TestOptionDefaults(t *testing.T) {
	d := OptionByJSON("strategy")
	if f, _ := d.Format(&Options{Strategy: planner.DefaultStrategy}); d.DefaultWords() != planner.DefaultStrategy || d.omit != planner.DefaultStrategy || f != planner.DefaultStrategy {
		t.Errorf("strategy's default %q, left out at %q; the planner's is %q", d.DefaultWords(), d.omit, planner.DefaultStrategy)
	}
}

// Every option's text reads back to the value it was written from, and
// a value at its default writes nothing.
func TestOptionTextRoundTrip(t *testing.T) {
	texts := map[string]string{
		"strategy": "exact", "align": "256", "guard": "0", "budget": "134217728", "f32-uniform": "true", "no-reuse": "true",
		"skip": "params,constants", "set": "batch=8, seq=256", "if-branch": "then", "webgpu": "ios", "binding": "tensor",
		"limits": "binding=256MiB", "node-limit": "5000",
	}
	for _, opt := range OptionTable() {
		if opt.Flag == "" {
			continue
		}
		def := DefaultOptions()
		if _, ok := opt.Format(&def); ok {
			t.Errorf("--%s: the default writes itself", opt.Flag)
		}
		o := DefaultOptions()
		if err := opt.Parse(&o, texts[opt.Flag]); err != nil {
			t.Fatalf("--%s %s: %v", opt.Flag, texts[opt.Flag], err)
		}
		if got, ok := opt.Format(&o); !ok || got != texts[opt.Flag] {
			t.Errorf("--%s %s writes back %q (%v)", opt.Flag, texts[opt.Flag], got, ok)
		}
		if err := o.Validate(); err != nil {
			t.Errorf("--%s %s: %v", opt.Flag, texts[opt.Flag], err)
		}
	}
}

// Validate checks the page's options, once decoded, by the rules their
// text is read with, and names the field (its JSON name) that fails.
func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name  string
		tree  map[string]any // the options as a page sends them
		field string         // "" when valid
		msg   string
	}{
		{"nothing: every default", map[string]any{}, "", ""},
		{"the page's form", map[string]any{"strategy": "auto", "alignment": 0.0, "guard": -1.0, "f32_uniform": true, "skip_params": true,
			"webgpu": "default", "binding": "tensor", "limits": "binding=64MiB", "symbols_text": "batch=8, seq=256", "budget": 0.0}, "", ""},
		{"binding and limits without a device", map[string]any{"binding": "tensor", "limits": "binding=64MiB"}, "", ""},
		{"alignment", map[string]any{"alignment": 3.0}, "options.alignment", "want a power of two up to 1 GiB, got 3"},
		{"huge alignment", map[string]any{"alignment": float64(1 << 31)}, "options.alignment", "want a power of two up to 1 GiB"},
		{"negative alignment", map[string]any{"alignment": -64.0}, "options.alignment", "got -64"},
		{"guard", map[string]any{"guard": -2.0}, "options.guard", "want -1 (the default) or 0 to 1 GiB, got -2"},
		{"budget", map[string]any{"budget": -1.0}, "options.budget", "want 0 (none) or a size in bytes, got -1"},
		{"strategy", map[string]any{"strategy": "fastest"}, "options.strategy", `unknown strategy "fastest"`},
		{"if branch", map[string]any{"if_branch": "maybe"}, "options.if_branch", `want then or else, got "maybe"`},
		{"profile", map[string]any{"webgpu": "gtx"}, "options.webgpu", `unknown WebGPU profile "gtx"`},
		{"binding", map[string]any{"binding": "buffer"}, "options.binding", `want arena or tensor, got "buffer"`},
		// Limits are read over their profile where planning reads them
		// (ResolveGPU); Validate checks their length.
		{"limits over the profile", map[string]any{"webgpu": "default", "limits": "binding=2GiB"}, "", ""},
		{"long limits", map[string]any{"limits": strings.Repeat("x", 201)}, "options.limits", "want at most 200 characters"},
		{"symbols text", map[string]any{"symbols_text": "batch"}, "options.symbols_text", `"batch" is not name=value`},
		{"symbol value", map[string]any{"symbols": map[string]any{"batch": -1.0}}, "options.symbols", `got "batch": -1`},
		{"node limit", map[string]any{"node_limit": -1.0}, "options.node_limit", "want 0 (none) or more search nodes, got -1"},
		{"a type Decode refuses first", map[string]any{"alignment": "64"}, "options.alignment", `want a number, got the string "64"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req PlanRequest
			err := Decode(map[string]any{"options": tt.tree}, &req)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			fe, ok := err.(*FieldError)
			if !ok || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
				t.Fatalf("error %#v, want field %s saying %q", err, tt.field, tt.msg)
			}
		})
	}
}

// The command line's --set repeats, later values winning
// (ParseRepeated); a link's and an attribute's symbols, given once, keep
// their text as written.
func TestSymbolsOptionMerges(t *testing.T) {
	set := OptionByJSON("symbols_text")
	o := DefaultOptions()
	for _, text := range []string{"batch=2,seq=16", "batch=4"} {
		if err := set.ParseRepeated(&o, text); err != nil {
			t.Fatal(err)
		}
	}
	if o.Symbols["batch"] != 4 || o.Symbols["seq"] != 16 || o.SymbolsText != "batch=4, seq=16" {
		t.Fatalf("merged %v, text %q", o.Symbols, o.SymbolsText)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	once := DefaultOptions()
	if err := set.Parse(&once, "seq=16,batch=2"); err != nil || once.SymbolsText != "seq=16,batch=2" {
		t.Fatalf("once: text %q, %v", once.SymbolsText, err)
	}
}

// One GPU rule for the page and the command line (planner.ResolveGPU):
// a profile names the device; binding and limits apply only with one.
func TestResolveGPUNeedsAProfile(t *testing.T) {
	tests := []struct {
		o    Options
		want string // "binding profile", "none", or part of the error
	}{
		{Options{Binding: planner.BindTensor, Limits: "binding=64MiB"}, "none"},
		{Options{WebGPU: "ios"}, "arena ios"},
		{Options{WebGPU: "ios", Binding: planner.BindTensor, Limits: "binding=64MiB"}, "tensor custom"},
		{Options{WebGPU: "default", Limits: "binding=lots"}, "WebGPU limits field: limits: binding"},
		{Options{WebGPU: "default", Limits: "binding=2GiB"}, "WebGPU limits field: limits: maxStorageBufferBindingSize 2147483648 is larger than maxBufferSize"},
		{Options{WebGPU: "gtx"}, `unknown WebGPU profile "gtx"`},
	}
	for _, tt := range tests {
		o := tt.o
		err := ResolveGPU(&o)
		got := "none"
		switch {
		case err != nil:
			got = err.Error()
		case o.GPU != nil:
			got = o.GPU.Binding + " " + o.GPU.Limits.Profile
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.o, got, tt.want)
		}
	}
}
