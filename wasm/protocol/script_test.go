package protocol

import (
	"strings"
	"testing"
	"time"

	"memplan/planner"
)

// TestOptionsFromScript: the package's options object is read by the
// table's rows, each member as its kind's text, and what does not read
// is an error naming the member.
func TestOptionsFromScript(t *testing.T) {
	tests := []struct {
		name  string
		in    any
		check func(o Options) bool
		err   string // a substring of the error; "" for none
	}{
		{"none", nil, func(o Options) bool { return o.Strategy == DefaultOptions().Strategy && o.Guard == -1 }, ""},
		{"words", map[string]any{"strategy": "best-fit", "webgpu": "android", "binding": "tensor", "ifBranch": "else"},
			func(o Options) bool {
				return o.Strategy == "best-fit" && o.WebGPU == "android" && o.Binding == "tensor" && o.IfBranch == "else"
			}, ""},
		{"sizes as numbers and text", map[string]any{"alignment": 256.0, "budget": "1GiB", "guard": 0.0},
			func(o Options) bool { return o.Alignment == 256 && o.Budget == 1<<30 && o.Guard == 0 }, ""},
		{"switches", map[string]any{"f32Uniform": true, "noReuse": false, "skipParams": true},
			func(o Options) bool { return o.F32Uniform && !o.NoReuse && o.SkipParams }, ""},
		{"skip list", map[string]any{"skip": []any{"params", "constants"}},
			func(o Options) bool { return o.SkipParams && o.SkipConstants && !o.SkipInputs }, ""},
		{"symbols object", map[string]any{"symbols": map[string]any{"seq": "past+1", "past": 4.0, "batch": 8.0}},
			func(o Options) bool { return o.SymbolsText == "batch=8,past=4,seq=past+1" && o.Symbols["seq"] == 5 }, ""},
		{"symbols text", map[string]any{"symbols": "batch=2"}, func(o Options) bool { return o.Symbols["batch"] == 2 }, ""},
		{"count", map[string]any{"nodeLimit": 1000.0}, func(o Options) bool { return o.NodeLimit == 1000 }, ""},
		{"null is the default", map[string]any{"strategy": nil}, func(o Options) bool { return o.Strategy == DefaultOptions().Strategy }, ""},
		{"unknown option", map[string]any{"f32_uniform": true}, nil, "f32_uniform: unknown option"},
		{"unknown strategy", map[string]any{"strategy": "fastest"}, nil, "strategy: unknown strategy"},
		{"switch as text", map[string]any{"f32Uniform": "maybe"}, nil, "f32Uniform:"},
		{"word as number", map[string]any{"strategy": 3.0}, nil, "strategy: want a string"},
		{"fraction", map[string]any{"alignment": 64.5}, nil, "alignment: want a whole number"},
		{"alignment not a power of two", map[string]any{"alignment": 48.0}, nil, "alignment:"},
		{"symbol name forging a definition", map[string]any{"symbols": map[string]any{"a=1,b": 2.0}}, nil, "want a symbol's name"},
		{"symbol value", map[string]any{"symbols": map[string]any{"batch": true}}, nil, "batch: want a whole number or an expression"},
		{"not an object", "strategy=auto", nil, "want an object"},
		{"durations", map[string]any{"timeLimit": "1m30s", "autoSlice": "250ms"},
			func(o Options) bool { return o.TimeLimit == 90*time.Second && o.AutoSlice == 250*time.Millisecond }, ""},
		{"no auto slice", map[string]any{"autoSlice": "0s"}, func(o Options) bool { return o.AutoSlice < 0 }, ""},
		{"duration as a number", map[string]any{"timeLimit": 10.0}, nil, `timeLimit: want a duration as a string, such as "10s"`},
		{"duration without a unit", map[string]any{"autoSlice": "10"}, nil, `autoSlice: want a duration such as "10s" or "500ms", got "10"`},
		{"negative duration", map[string]any{"timeLimit": "-1s"}, nil, `timeLimit: want a duration of 0 or more, got "-1s"`},
		{"memory limit", map[string]any{"maxMemory": "64MiB"}, func(o Options) bool { return o.MaxMemory == 64<<20 && o.MemoryLimit() == 64<<20 }, ""},
		{"the worker's memory limit", nil, func(o Options) bool { return o.MemoryLimit() == planner.BrowserMemoryLimit }, ""},
		{"memory limit over the worker's", map[string]any{"maxMemory": "2GiB"}, nil, "maxMemory: want a size above 0 of at most 1 GiB"},
		{"memory limit of 0", map[string]any{"maxMemory": 0.0}, nil, "maxMemory: want a size above 0"},
		{"memory limit as a word", map[string]any{"maxMemory": "lots"}, nil, "maxMemory:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := OptionsFromScript(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				if _, ok := err.(*FieldError); !ok {
					t.Errorf("error %T, want a *FieldError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Errorf("options %+v", o)
			}
		})
	}
}

// TestScriptNames: every option the element or the command line spells
// has a script name, each once.
func TestScriptNames(t *testing.T) {
	seen := map[string]bool{}
	for _, opt := range OptionTable() {
		if opt.Script == "" {
			t.Errorf("option %q (flag %q) has no script name", opt.JSON, opt.Flag)
		}
		if seen[opt.Script] {
			t.Errorf("script name %q twice", opt.Script)
		}
		seen[opt.Script] = true
		if OptionByScript(opt.Script) == nil {
			t.Errorf("OptionByScript(%q) is nil", opt.Script)
		}
	}
}

// TestDecodeScript: a worker request's script object replaces its
// options, on the request and on each side of a diff, and its errors
// name the member under script.
func TestDecodeScript(t *testing.T) {
	r, err := DecodeWorkerRequest(map[string]any{"type": "plan", "id": 1.0, "script": map[string]any{"strategy": "no-reuse"},
		"a": map[string]any{"name": "a.json", "script": map[string]any{"f32Uniform": true}}, "b": map[string]any{"name": "b.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Options.Strategy != "no-reuse" || r.A == nil || !r.A.Options.F32Uniform || r.B == nil || r.B.Options.F32Uniform {
		t.Errorf("decoded %+v, a %+v, b %+v", r.Options, r.A, r.B)
	}
	_, err = DecodeWorkerRequest(map[string]any{"type": "plan", "script": map[string]any{"budget": -1.0}})
	if err == nil || !strings.Contains(err.Error(), "script.budget") {
		t.Errorf("error %v, want one naming script.budget", err)
	}
}

// TestValidateScriptOnly: the package's own options, which have no JSON
// name, are checked by Validate too, and a failure names the script name.
func TestValidateScriptOnly(t *testing.T) {
	for _, tt := range []struct {
		set   func(*Options)
		field string
	}{
		{func(o *Options) { o.TimeLimit = -time.Second }, "timeLimit"},
		{func(o *Options) { o.MaxMemory = planner.BrowserMemoryLimit + 1 }, "maxMemory"},
		{func(o *Options) { o.MaxMemory = -1 }, "maxMemory"},
	} {
		o := DefaultOptions()
		tt.set(&o)
		fe, ok := o.Validate().(*FieldError)
		if !ok || fe.Field != tt.field {
			t.Errorf("Validate of %+v: %v, want an error for %s", o, o.Validate(), tt.field)
		}
	}
	if o := DefaultOptions(); o.Validate() != nil {
		t.Errorf("the defaults: %v", o.Validate())
	}
}
