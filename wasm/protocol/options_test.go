package protocol

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
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
		// The text is read where it resolves (TestOptionsResolve).
		{"symbols text", map[string]any{"symbols_text": "batch"}, "", ""},
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
	if o.SymbolsText != "batch=4, seq=16" {
		t.Fatalf("merged text %q", o.SymbolsText)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.ResolveSymbols(""); err != nil || o.Symbols["batch"] != 4 || o.Symbols["seq"] != 16 {
		t.Fatalf("merged %v, %v", o.Symbols, err)
	}
	// A definition may use a symbol a later --set defines: each is read
	// as it comes, and they resolve together.
	o = DefaultOptions()
	for _, text := range []string{"total=past+seq", "past=1", "past=4095, seq=1"} {
		if err := set.ParseRepeated(&o, text); err != nil {
			t.Fatalf("--set %s: %v", text, err)
		}
	}
	if err := o.ResolveSymbols(""); err != nil || o.SymbolsText != "total=past+seq, past=4095, seq=1" || o.Symbols["total"] != 4096 {
		t.Fatalf("text %q resolved to %v, %v", o.SymbolsText, o.Symbols, err)
	}
	// A flag's text that does not read is refused as it comes, with its column.
	var se *ir.SymbolError
	if err := set.ParseRepeated(&o, "seq=1+"); !errors.As(err, &se) || se.Column != 7 || se.Symbol != "seq" {
		t.Fatalf("--set seq=1+: %v, want a *ir.SymbolError at column 7", err)
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

// Resolve (the page's, the worker's) and ResolveSymbols (the command
// line's) evaluate the symbols text once into values; an error is an
// *ir.SymbolError the caller can read, which the page's words name the
// field of. A fit search's symbol needs no value.
func TestOptionsResolve(t *testing.T) {
	tests := []struct {
		name, text, search string
		want               map[string]int64
		err                string // the page's error, "" for none
		unknown            string // the SymbolError's Unknown
		cycle              int    // the length of its Cycle
	}{
		{name: "values", text: "batch=2, seq=9007199254740993", want: map[string]int64{"batch": 2, "seq": 9007199254740993}},
		{name: "a decoder's symbols", text: "total_sequence_length=past_sequence_length+sequence_length, past_sequence_length=4095, sequence_length=1",
			want: map[string]int64{"total_sequence_length": 4096, "past_sequence_length": 4095, "sequence_length": 1}},
		{name: "the searched symbol needs no value", text: "total=past+1", search: "past", want: map[string]int64{"total": 2, "past": 1}},
		{name: "a searched symbol's value stays", text: "total=past+1, past=7", search: "past", want: map[string]int64{"total": 8, "past": 7}},
		{name: "another symbol still needs one", text: "total=past+seq", search: "past", err: "Symbols field: total=past+seq uses seq, which has no value", unknown: "seq"},
		{name: "unknown", text: "total=past+1", err: "Symbols field: total=past+1 uses past, which has no value", unknown: "past"},
		{name: "cycle", text: "a=b+1, b=a", err: "Symbols field: symbols defined by each other: a=b+1, b=a", cycle: 3},
		{name: "syntax", text: "batch", err: `Symbols field: column 1: "batch" is not name=value`},
		{name: "negative", text: "a=2, b=a-3", err: "Symbols field: b=a-3 is -1"},
		{name: "overflow", text: "a=4294967296*4294967296", err: "Symbols field: a=4294967296*4294967296 overflows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.SymbolsText = tt.text
			err := o.ResolveFor(tt.search)
			if tt.err == "" {
				if err != nil || !reflect.DeepEqual(o.Symbols, tt.want) {
					t.Fatalf("%q: %v, %v; want %v", tt.text, o.Symbols, err, tt.want)
				}
				return
			}
			var se *ir.SymbolError
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) || !errors.As(err, &se) || se.Unknown != tt.unknown || len(se.Cycle) != tt.cycle {
				t.Fatalf("%q: %v, want %q wrapping a *ir.SymbolError (unknown %q, cycle of %d)", tt.text, err, tt.err, tt.unknown, tt.cycle)
			}
			// The command line's, without the page's words.
			o.SymbolsText = tt.text
			if err := o.ResolveSymbols(tt.search); err == nil || strings.Contains(err.Error(), "Symbols field") {
				t.Errorf("%q: ResolveSymbols: %v, want the error without the page's words", tt.text, err)
			}
			// An unknown name is a symbol to give a value, as a file's
			// unbound one is: the page's hint names it.
			e := ErrorOf(err)
			if tt.unknown != "" && (e.Need != ir.NeedSymbols || !slices.Equal(e.Symbols, []string{tt.unknown}) || !strings.Contains(e.Hint, "Give "+tt.unknown+" a value under Symbols")) {
				t.Errorf("%q: the page's error %+v does not ask for %s", tt.text, e, tt.unknown)
			}
		})
	}
	// Without text the values stay as set.
	o := DefaultOptions()
	o.Symbols = map[string]int64{"batch": 3}
	if err := o.Resolve(); err != nil || o.Symbols["batch"] != 3 {
		t.Fatalf("values without text: %v, %v", o.Symbols, err)
	}
}

// The page's menu of symbols to search: a plan's symbols with their
// values (not those that follow others), or when the file needs symbol
// values, those, which a search needs none of.
func TestFitChoices(t *testing.T) {
	o := DefaultOptions()
	o.SymbolsText = "total=past+seq, past=4095, seq=1"
	got := PlanFitChoices("dec.onnx", map[string]int64{"past": 4095, "seq": 1, "total": 4096, "batch": 1}, o)
	want := &FitChoices{File: "dec.onnx", Symbols: []FitSymbol{{"batch", "batch (now 1)"}, {"past", "past (now 4095; total follows)"}, {"seq", "seq (now 1; total follows)"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan choices %+v, want %+v", got, want)
	}
	if got := PlanFitChoices("mlp.json", nil, DefaultOptions()); len(got.Symbols) != 0 || got.Note == "" || got.Symbols == nil {
		t.Errorf("no symbols: %+v, want an empty list and a note", got)
	}
	need := ErrorOf(&ir.Error{File: "m.onnx", Msg: "unbound symbols", Need: ir.NeedSymbols, Symbols: []string{"batch", "seq"}})
	got = ErrorFitChoices("m.onnx", need)
	want = &FitChoices{File: "m.onnx", Symbols: []FitSymbol{{"batch", "batch (no value yet)"}, {"seq", "seq (no value yet)"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("error choices %+v, want %+v", got, want)
	}
	if got := ErrorFitChoices("m.onnx", ErrorOf(&ir.Error{File: "m.onnx", Msg: "truncated"})); len(got.Symbols) != 0 || !strings.Contains(got.Note, "m.onnx did not plan") {
		t.Errorf("another error: %+v, want nothing to search and a note", got)
	}
}

// The page's search follows the symbols text's expressions, as the
// command line's does: FitSearch carries the definitions.
func TestFitSearchFollowsTheText(t *testing.T) {
	o := DefaultOptions()
	o.SymbolsText = "total = past+seq, seq=1"
	if err := o.ResolveFor("past"); err != nil {
		t.Fatal(err)
	}
	s := FitSearch(o, "past", nil)
	if s.Defs.String() != "total=past+seq, seq=1" || !slices.Equal(s.Defs.Followers("past"), []string{"total"}) {
		t.Errorf("the search's definitions are %q", s.Defs.String())
	}
}
