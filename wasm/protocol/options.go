package protocol

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"memplan/ir"
	"memplan/planner"
)

// One planning option has four spellings: its JSON field in Options (what
// a page sends), the command line's flag, the link's parameter
// (wasm/protocol/link) and the <memplan-plan> attribute. They, the text
// each is written in, its default and the rule its value obeys are one
// row of the table below, so the command line, links, the embed element
// and the page cannot drift apart: each reads the table (tools/memplan
// registers its flags from it, link and EmbedSnippet write and read
// through it), and Options.Validate checks a decoded value by the same
// rules the text is read with.

// Option is one planning option in every spelling memplan has for it.
type Option struct {
	// JSON is its field in Options (a FieldError's Field); "" for skip,
	// which the JSON, like the element, spells as three switches.
	JSON string
	// Flag is the command line's flag (without dashes), Param the link's
	// parameter, Attribute the <memplan-plan> attribute; "" where that
	// front end has none.
	Flag, Param, Attribute string
	// Switch: a flag that takes no value, an attribute that is on when
	// present, "1" in a link. Its text is true or false (or 1 or 0).
	Switch bool
	// Help says what the option does, as the command line's -h prints
	// it (the value's name in backquotes, as package flag reads it), and
	// Default the default in words ("" for a switch: off).
	Help, Default string

	parse  func(o *Options, text string) error
	format func(o *Options) (text string, ok bool)
	check  func(o *Options) error
}

// Parse reads the option's text, as a person writes it after a flag, in
// a link or in an attribute, into o; a switch's text is "" (on), true,
// false, 1 or 0. Values are checked as Validate checks them.
func (opt *Option) Parse(o *Options, text string) error {
	if opt.Switch {
		on, err := parseSwitch(text)
		if err != nil {
			return err
		}
		text = strconv.FormatBool(on)
	}
	return opt.parse(o, text)
}

// Format writes o's value of the option as text Parse reads back; ok is
// false when it is the default, which a link or a snippet leaves out. A
// switch that is on writes "true".
func (opt *Option) Format(o *Options) (text string, ok bool) { return opt.format(o) }

// Limits on what an option may hold: far above any real plan, and
// checked the same wherever the value comes from.
const (
	maxAlignment = 1 << 30
	maxGuard     = 1 << 30
	maxLimits    = 200 // characters of the limits text
)

// OptionTable is the table, in the order a snippet writes attributes. A
// function, not a variable, so that a program that neither reads nor
// checks options links none of it.
func OptionTable() []Option {
	return []Option{
		{
			JSON: "strategy", Flag: "strategy", Param: "strategy", Attribute: "strategy",
			Help: "placement `strategy`: " + strings.Join(planner.StrategyNames(), ", "), Default: planner.DefaultStrategy,
			parse: func(o *Options, v string) error { o.Strategy = v; return checkStrategy(o) },
			format: func(o *Options) (string, bool) {
				return o.Strategy, o.Strategy != "" && o.Strategy != planner.DefaultStrategy
			},
			check: checkStrategy,
		},
		{
			JSON: "alignment", Flag: "align", Param: "align", Attribute: "alignment",
			Help: "offset alignment in `bytes`, a power of two", Default: "64 for graphs, 1 for buffer CSVs",
			parse: func(o *Options, v string) error {
				n, err := planner.ParseSize(v)
				if err == nil {
					o.Alignment = n
					err = checkAlignment(o.Alignment, false)
				}
				return err
			},
			format: func(o *Options) (string, bool) { return decimal(o.Alignment), o.Alignment > 0 },
			check:  func(o *Options) error { return checkAlignment(o.Alignment, true) },
		},
		{
			JSON: "guard", Flag: "guard", Param: "guard", Attribute: "guard",
			Help: "tail guard `bytes` after input, param and constant buffers", Default: "max(align, 128)",
			parse: func(o *Options, v string) error {
				n, err := planner.ParseSize(v)
				if err == nil {
					o.Guard = n
					err = checkGuard(o.Guard, false)
				}
				return err
			},
			format: func(o *Options) (string, bool) { return decimal(o.Guard), o.Guard >= 0 },
			check:  func(o *Options) error { return checkGuard(o.Guard, true) },
		},
		{
			JSON: "budget", Flag: "budget", Param: "budget", Attribute: "budget",
			Help:    "fail with exit status 3 if the arena exceeds this `size` (bytes, 128MiB, 1GiB); exact looks for an arena that fits it first",
			Default: "none; with --f32-uniform and no --webgpu, WebGPU's 128 MiB binding",
			parse: func(o *Options, v string) error {
				n, err := planner.ParseSize(v)
				if err == nil && n == 0 {
					err = errors.New("want a size above 0 (leave the budget out for none)")
				}
				o.Budget = n
				return err
			},
			format: func(o *Options) (string, bool) { return decimal(o.Budget), o.Budget > 0 },
			check: func(o *Options) error {
				if o.Budget < 0 {
					return errors.New("want 0 (none) or a size in bytes, got " + decimal(o.Budget))
				}
				return nil
			},
		},
		switchOption("f32_uniform", "f32-uniform", "f32", "f32-uniform", "store every tensor as f32, 4 bytes an element (WebGPU layout)",
			func(o *Options) *bool { return &o.F32Uniform }),
		switchOption("no_reuse", "no-reuse", "noreuse", "no-reuse", "give every buffer its own bytes (the baseline)",
			func(o *Options) *bool { return &o.NoReuse }),
		{
			Flag: "skip", Param: "skip",
			Help: "leave these `kinds` out of the arena: a comma list of params, inputs, constants", Default: "none",
			parse: func(o *Options, v string) error {
				o.SkipParams, o.SkipInputs, o.SkipConstants = false, false, false
				for _, part := range strings.Split(v, ",") {
					switch strings.TrimSpace(part) {
					case "":
					case "params":
						o.SkipParams = true
					case "inputs":
						o.SkipInputs = true
					case "constants":
						o.SkipConstants = true
					default:
						return errors.New("unknown kind " + ir.Quote(part) + " (want params, inputs, constants)")
					}
				}
				return nil
			},
			format: func(o *Options) (string, bool) {
				var kinds []string
				for _, k := range []struct {
					on   bool
					name string
				}{{o.SkipParams, "params"}, {o.SkipInputs, "inputs"}, {o.SkipConstants, "constants"}} {
					if k.on {
						kinds = append(kinds, k.name)
					}
				}
				return strings.Join(kinds, ","), len(kinds) > 0
			},
		},
		switchOption("skip_params", "", "", "skip-params", "leave params out of the arena", func(o *Options) *bool { return &o.SkipParams }),
		switchOption("skip_inputs", "", "", "skip-inputs", "leave inputs out of the arena", func(o *Options) *bool { return &o.SkipInputs }),
		switchOption("skip_constants", "", "", "skip-constants", "leave constants out of the arena", func(o *Options) *bool { return &o.SkipConstants }),
		{
			JSON: "symbols_text", Flag: "set", Param: "sym", Attribute: "symbols",
			Help: "bind symbolic dimensions, `sym=value`[,sym=value] (repeatable)", Default: "the graph's",
			// Given again (the command line's --set, repeated), the values
			// merge, later ones winning, and the text becomes the merged
			// values'; given once, the text stays as written.
			parse: func(o *Options, v string) error {
				syms, err := planner.ParseSymbols(v)
				if err != nil {
					return err
				}
				merged := make(map[string]int64, len(o.Symbols)+len(syms))
				for k, n := range o.Symbols {
					merged[k] = n
				}
				for k, n := range syms {
					merged[k] = n
				}
				if o.SymbolsText == "" {
					o.SymbolsText = v
				} else {
					o.SymbolsText = symbolsText(merged)
				}
				if len(merged) > 0 {
					o.Symbols = merged
				}
				return nil
			},
			format: func(o *Options) (string, bool) {
				if o.SymbolsText != "" {
					return o.SymbolsText, true
				}
				return symbolsText(o.Symbols), len(o.Symbols) > 0
			},
			check: checkSymbols,
		},
		{
			JSON: "if_branch", Flag: "if-branch", Param: "ifbranch", Attribute: "if-branch",
			Help:    "ONNX If nodes whose branches disagree on a shape take this `branch`: then or else",
			Default: "they must agree",
			parse:   func(o *Options, v string) error { o.IfBranch = v; return checkIfBranch(o) },
			format:  func(o *Options) (string, bool) { return o.IfBranch, o.IfBranch != "" },
			check:   checkIfBranch,
		},
		{
			JSON: "webgpu", Flag: "webgpu", Param: "webgpu", Attribute: "webgpu",
			Help:    "plan for a WebGPU device `profile` (" + strings.Join(planner.ProfileNames(), ", ") + "); exit status 3 when the plan does not fit it",
			Default: "none",
			parse:   func(o *Options, v string) error { o.WebGPU = v; return checkProfile(o) },
			format:  func(o *Options) (string, bool) { return o.WebGPU, o.WebGPU != "" },
			check:   checkProfile,
		},
		{
			JSON: "binding", Flag: "binding", Param: "binding", Attribute: "binding",
			Help:    "with --webgpu, how the runtime binds the arena (its binding `model`): arena, one binding, or tensor, each tensor bound at its own offset",
			Default: planner.BindArena,
			parse:   func(o *Options, v string) error { o.Binding = v; return checkBinding(o) },
			format: func(o *Options) (string, bool) {
				return o.Binding, o.Binding != "" && o.Binding != planner.BindArena
			},
			check: checkBinding,
		},
		{
			JSON: "limits", Flag: "limits", Param: "limits", Attribute: "limits",
			Help:    "with --webgpu, custom `limits` over the profile's: binding=1GiB,buffer=1GiB,offset-align=256",
			Default: "the profile's",
			// Read in full by Validate, once the profile is known: the
			// limits change the profile's.
			parse: func(o *Options, v string) error {
				o.Limits = v
				if len(v) > maxLimits {
					return errors.New("want at most " + strconv.Itoa(maxLimits) + " characters, got " + strconv.Itoa(len(v)))
				}
				return nil
			},
			format: func(o *Options) (string, bool) { return o.Limits, o.Limits != "" },
			check:  checkLimits,
		},
		{
			JSON: "node_limit", Flag: "node-limit", Param: "nodelimit", Attribute: "node-limit",
			Help:    "stop exact and improve after this many search `nodes`, and cap auto's slice at it: the same input and budget give the same plan on any machine",
			Default: "none: --time-limit",
			parse: func(o *Options, v string) error {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return errors.New("want a whole number of search nodes, got " + ir.Quote(v))
				}
				o.NodeLimit = n
				return checkNodeLimit(o)
			},
			format: func(o *Options) (string, bool) { return decimal(o.NodeLimit), o.NodeLimit > 0 },
			check:  checkNodeLimit,
		},
	}
}

// switchOption is a row for a boolean option.
func switchOption(json, flag, param, attr, help string, field func(*Options) *bool) Option {
	return Option{
		JSON: json, Flag: flag, Param: param, Attribute: attr, Switch: true, Help: help,
		parse:  func(o *Options, v string) error { *field(o) = v == "true"; return nil },
		format: func(o *Options) (string, bool) { return "true", *field(o) },
	}
}

// parseSwitch reads a switch's text: present or true, or false.
func parseSwitch(v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "", "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, errors.New("is a switch: want true or false (or 1 or 0), got " + ir.Quote(v))
}

func decimal(n int64) string { return strconv.FormatInt(n, 10) }

// symbolsText writes symbol values in a fixed order (any is right).
func symbolsText(syms map[string]int64) string {
	parts := make([]string, 0, len(syms))
	for k, v := range syms {
		parts = append(parts, k+"="+decimal(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func checkStrategy(o *Options) error {
	names := planner.StrategyNames()
	for _, n := range names {
		if o.Strategy == n {
			return nil
		}
	}
	if o.Strategy == "" {
		return nil
	}
	return errors.New("unknown strategy " + ir.Quote(o.Strategy) + " (want one of " + strings.Join(names, ", ") + ")")
}

// checkAlignment: a power of two up to maxAlignment, or, decoded, 0 for
// the input's default. Written as text, 0 is as wrong as 48: leave the
// option out for the default.
func checkAlignment(n int64, zeroIsDefault bool) error {
	if n == 0 && zeroIsDefault || n > 0 && n <= maxAlignment && n&(n-1) == 0 {
		return nil
	}
	want := "want a power of two up to 1 GiB"
	if zeroIsDefault {
		want += " (0: the input's default)"
	}
	return errors.New(want + ", got " + decimal(n))
}

// checkGuard: bytes up to maxGuard, or, decoded, -1 for the default.
func checkGuard(n int64, minusOneIsDefault bool) error {
	if n >= 0 && n <= maxGuard || n == -1 && minusOneIsDefault {
		return nil
	}
	want := "want 0 to 1 GiB"
	if minusOneIsDefault {
		want += " (-1: the default)"
	}
	return errors.New(want + ", got " + decimal(n))
}

func checkSymbols(o *Options) error {
	if o.SymbolsText != "" {
		if _, err := planner.ParseSymbols(o.SymbolsText); err != nil {
			return err
		}
	}
	for k, v := range o.Symbols {
		if k == "" || v < 0 {
			return &FieldError{Field: "symbols", Msg: "want name: whole number of 0 or more, got " + ir.Quote(k) + ": " + decimal(v)}
		}
	}
	return nil
}

func checkIfBranch(o *Options) error {
	switch o.IfBranch {
	case "", "then", "else":
		return nil
	}
	return errors.New("want then or else, got " + ir.Quote(o.IfBranch))
}

func checkProfile(o *Options) error {
	if o.WebGPU == "" {
		return nil
	}
	_, err := planner.ProfileLimits(o.WebGPU)
	return err
}

func checkBinding(o *Options) error {
	switch o.Binding {
	case "", planner.BindArena, planner.BindTensor:
		return nil
	}
	return errors.New("want " + planner.BindArena + " or " + planner.BindTensor + ", got " + ir.Quote(o.Binding))
}

// checkLimits reads the limits over the profile's, as planning will.
// Without a profile they apply to nothing (ResolveGPU) and only their
// length is checked: the page's limits field keeps its text while no
// device is chosen.
func checkLimits(o *Options) error {
	if len(o.Limits) > maxLimits {
		return errors.New("want at most " + strconv.Itoa(maxLimits) + " characters, got " + strconv.Itoa(len(o.Limits)))
	}
	if o.WebGPU == "" || o.Limits == "" {
		return nil
	}
	base, err := planner.ProfileLimits(o.WebGPU)
	if err != nil {
		return nil // the webgpu field's error
	}
	_, err = planner.ParseLimits(base, o.Limits)
	return err
}

func checkNodeLimit(o *Options) error {
	if o.NodeLimit < 0 {
		return errors.New("want 0 (none) or more search nodes, got " + decimal(o.NodeLimit))
	}
	return nil
}

// Validate checks every option of o by the table's rules, the same that
// read them from a flag, a link or an attribute: the page's options once
// Decode has read them (it calls Validate), the command line's and a
// link's once all are read. The first that fails is a *FieldError whose
// Field is the option's JSON name.
func (o *Options) Validate() error {
	for _, opt := range OptionTable() {
		if opt.check == nil {
			continue
		}
		if err := opt.check(o); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return fe
			}
			return &FieldError{Field: opt.JSON, Msg: err.Error()}
		}
	}
	return nil
}

// OptionByJSON is the table's row for a JSON name; nil for none.
func OptionByJSON(name string) *Option {
	for _, opt := range OptionTable() {
		if opt.JSON == name {
			return &opt
		}
	}
	return nil
}

// DefaultOptions are the options every front end starts from: each at
// its default (planner.DefaultOptions; no strategy named is
// planner.DefaultStrategy).
func DefaultOptions() Options { return Options{Options: planner.DefaultOptions()} }
