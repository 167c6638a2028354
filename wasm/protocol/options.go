package protocol

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"memplan/ir"
	"memplan/planner"
)

// One planning option has four spellings: its JSON field in Options (what
// a page sends), the command line's flag, the link's parameter
// (wasm/protocol/link) and the <memplan-plan> attribute. They, the text
// each is written in, its default and the rule its value obeys are one
// row of the table below, so the command line, links, the embed element
// and the page cannot drift apart: tools/memplan registers its flags from
// it, link and EmbedSnippet write and read through it, and
// Options.Validate checks a decoded value by the rules its text is read
// with.

// Option is one planning option in every spelling memplan has for it.
type Option struct {
	// JSON is its field in Options (a FieldError's Field); "" for skip,
	// which the JSON, like the element, spells as three switches.
	JSON string
	// Flag is the command line's flag (without dashes), Param the link's
	// parameter, Attribute the <memplan-plan> attribute; "" where that
	// front end has none.
	Flag, Param, Attribute string
	// Script is its name in the options object of the JavaScript package
	// (npm/, OptionsFromScript): the attribute's words in camelCase (skip,
	// which has none, the flag's).
	Script string
	// Switch: a flag that takes no value, an attribute that is on when
	// present, "1" in a link. Its text is true or false (or 1 or 0).
	Switch bool
	// Element: the <memplan-plan> element turns this switch on when its
	// attribute is absent. A widget in a page of docs shows what a reader
	// came to see: a real model's weights fill most of its arena, so that
	// its activations are a thin strip, and the element leaves params out
	// unless skip-params="false" keeps them.
	Element bool

	id   optionID
	kind optionKind
	// omit is a word option's value that is its default, which a link or
	// a snippet leaves out.
	omit string
}

// optionID names a row, for the code that reads and checks its field.
type optionID uint8

const (
	optStrategy optionID = iota
	optAlignment
	optGuard
	optBudget
	optF32Uniform
	optNoReuse
	optSkip
	optSkipParams
	optSkipInputs
	optSkipConstants
	optSymbols
	optIfBranch
	optWebGPU
	optBinding
	optLimits
	optNodeLimit
	optTimeLimit
	optAutoSlice
	optMaxMemory
)

// optionKind is how an option's text reads.
type optionKind uint8

const (
	wordKind     optionKind = iota // a word, checked against its list
	sizeKind                       // bytes, as planner.ParseSize reads them (128MiB)
	countKind                      // a whole number
	switchKind                     // on or off
	skipKind                       // a comma list of params, inputs, constants
	symbolsKind                    // name=expression definitions, as ir.ParseSymbolDefs reads them
	durationKind                   // a duration in Go's form, as time.ParseDuration reads it (10s, 500ms)
)

// optionTable is the table, in the order a snippet writes attributes and
// a link its parameters. Plain data, so that it costs the wasm programs
// bytes of data rather than code to build it; the words the command
// line's -h prints for each are beside it (words), where only the
// command line links them.
var optionTable = [...]Option{
	{id: optStrategy, Script: "strategy", JSON: "strategy", Flag: "strategy", Param: "strategy", Attribute: "strategy", kind: wordKind, omit: "auto"},
	{id: optAlignment, Script: "alignment", JSON: "alignment", Flag: "align", Param: "align", Attribute: "alignment", kind: sizeKind},
	{id: optGuard, Script: "guard", JSON: "guard", Flag: "guard", Param: "guard", Attribute: "guard", kind: sizeKind},
	{id: optBudget, Script: "budget", JSON: "budget", Flag: "budget", Param: "budget", Attribute: "budget", kind: sizeKind},
	{id: optF32Uniform, Script: "f32Uniform", JSON: "f32_uniform", Flag: "f32-uniform", Param: "f32", Attribute: "f32-uniform", kind: switchKind, Switch: true},
	{id: optNoReuse, Script: "noReuse", JSON: "no_reuse", Flag: "no-reuse", Param: "noreuse", Attribute: "no-reuse", kind: switchKind, Switch: true},
	{id: optSkip, Script: "skip", Flag: "skip", Param: "skip", kind: skipKind},
	{id: optSkipParams, Script: "skipParams", JSON: "skip_params", Attribute: "skip-params", kind: switchKind, Switch: true, Element: true},
	{id: optSkipInputs, Script: "skipInputs", JSON: "skip_inputs", Attribute: "skip-inputs", kind: switchKind, Switch: true},
	{id: optSkipConstants, Script: "skipConstants", JSON: "skip_constants", Attribute: "skip-constants", kind: switchKind, Switch: true},
	{id: optSymbols, Script: "symbols", JSON: "symbols_text", Flag: "set", Param: "sym", Attribute: "symbols", kind: symbolsKind},
	{id: optIfBranch, Script: "ifBranch", JSON: "if_branch", Flag: "if-branch", Param: "ifbranch", Attribute: "if-branch", kind: wordKind},
	{id: optWebGPU, Script: "webgpu", JSON: "webgpu", Flag: "webgpu", Param: "webgpu", Attribute: "webgpu", kind: wordKind},
	{id: optBinding, Script: "binding", JSON: "binding", Flag: "binding", Param: "binding", Attribute: "binding", kind: wordKind, omit: planner.BindArena},
	// Read over the profile's when planning (ResolveGPU).
	{id: optLimits, Script: "limits", JSON: "limits", Flag: "limits", Param: "limits", Attribute: "limits", kind: wordKind},
	{id: optNodeLimit, Script: "nodeLimit", JSON: "node_limit", Flag: "node-limit", Param: "nodelimit", Attribute: "node-limit", kind: countKind},
	// The package's alone among these front ends: the command line has
	// its own --time-limit, --auto-slice and --max-memory (read by
	// package flag, with the same grammar), and a page, a link and an
	// element leave them to the planner.
	{id: optTimeLimit, Script: "timeLimit", kind: durationKind},
	{id: optAutoSlice, Script: "autoSlice", kind: durationKind},
	{id: optMaxMemory, Script: "maxMemory", kind: sizeKind},
}

// words are what the option does and its default, in the command line's
// words (the value's name in backquotes, as package flag reads it); the
// default is "" for a switch (off).
func (opt *Option) words() (help, deflt string) {
	switch opt.id {
	case optStrategy:
		return "placement `strategy`: " + strings.Join(planner.StrategyNames(), ", "), planner.DefaultStrategy
	case optAlignment:
		return "offset alignment in `bytes`, a power of two", "64 for graphs, 1 for buffer CSVs"
	case optGuard:
		return "tail guard `bytes` after input, param and constant buffers", "max(align, 128)"
	case optBudget:
		return "fail with exit status 3 if the arena exceeds this `size` (bytes, 128MiB, 1GiB); exact looks for an arena that fits it first",
			"none; with --f32-uniform and no --webgpu, WebGPU's 128 MiB binding"
	case optF32Uniform:
		return "store every tensor as f32, 4 bytes an element (WebGPU layout)", ""
	case optNoReuse:
		return "give every buffer its own bytes (the baseline)", ""
	case optSkip:
		return "leave these `kinds` out of the arena: a comma list of params, inputs, constants", "none"
	case optSkipParams, optSkipInputs, optSkipConstants:
		return "leave " + strings.TrimPrefix(opt.JSON, "skip_") + " out of the arena", ""
	case optSymbols:
		return "bind symbolic dimensions, `sym=value`[,sym=value] (repeatable); a value may be an expression of other symbols with + - * and parentheses (total=past+seq)", "the graph's"
	case optIfBranch:
		return "ONNX If nodes whose branches disagree on a shape take this `branch`: then or else", "they must agree"
	case optWebGPU:
		return "plan for a WebGPU device `profile` (" + strings.Join(planner.ProfileNames(), ", ") + "); exit status 3 when the plan does not fit it", "none"
	case optBinding:
		return "with --webgpu, how the runtime binds the arena (its binding `model`): arena, one binding, or tensor, each tensor bound at its own offset",
			planner.BindArena
	case optLimits:
		return "with --webgpu, custom `limits` over the profile's: binding=1GiB,buffer=1GiB,offset-align=256", "the profile's"
	case optNodeLimit:
		return "stop exact and improve after this many search `nodes`, and cap auto's slice and what it adds far above the bound at it: the same input and budget give the same plan on any machine",
			"none: --time-limit"
	case optTimeLimit:
		return "stop exact and improve after this long, a `duration` as the command line's --time-limit reads it: \"10s\", \"500ms\", \"1m30s\"",
			"10s unless nodeLimit is given"
	case optAutoSlice:
		return "a time cap on auto's improving of its portfolio's answer, a `duration` as the command line's --auto-slice reads it (\"250ms\"); \"0s\" for none", "none: its node budget alone, the same plan on any machine"
	case optMaxMemory:
		return "refuse files whose reading and planning would need more `memory` than this (bytes, 512MiB), as the command line's --max-memory; at most " +
			planner.FormatBytes(planner.BrowserMemoryLimit) + ", what the planner's worker holds", planner.FormatBytes(planner.BrowserMemoryLimit)
	}
	return "", ""
}

// Usage is what the option does, as the command line's -h prints it (the
// value's name in backquotes, as package flag reads it).
func (opt *Option) Usage() string { help, _ := opt.words(); return help }

// DefaultWords says the option's default in words ("" for a switch:
// off), for the command line's -h.
func (opt *Option) DefaultWords() string { _, d := opt.words(); return d }

// OptionTable is the table, a copy, in the order a snippet writes
// attributes and a link its parameters.
func OptionTable() []Option { return append([]Option(nil), optionTable[:]...) }

// OptionByJSON is the table's row for a JSON name; nil for none.
func OptionByJSON(name string) *Option {
	for i := range optionTable {
		if optionTable[i].JSON == name {
			opt := optionTable[i]
			return &opt
		}
	}
	return nil
}

// Limits on what an option may hold: far above any real plan, and
// checked the same wherever the value comes from.
const (
	maxAlignment = 1 << 30
	maxGuard     = 1 << 30
	maxLimits    = 200 // characters of the limits text
)

// Parse reads the option's text, as a person writes it after a flag, in
// a link or in an attribute, into o, and checks the value as Validate
// does. A switch's text is "" (on), true, false, 1 or 0. Written out, an
// alignment or a budget of 0 is an error, not the default: leave the
// option out for that.
func (opt *Option) Parse(o *Options, text string) error {
	if opt.kind == skipKind {
		return parseSkip(o, text)
	}
	return opt.parse(o, text)
}

// parseSkip reads skip's comma list (the command line's and a link's; the
// element spells it as three switches).
func parseSkip(o *Options, text string) error {
	o.SkipParams, o.SkipInputs, o.SkipConstants = false, false, false
	for _, part := range strings.Split(text, ",") {
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
}

// parse is Parse for every kind but skip's: an attribute's (the worker
// links only this).
func (opt *Option) parse(o *Options, text string) error {
	switch opt.kind {
	case switchKind:
		on, err := parseSwitch(text)
		*opt.on(o) = on
		return err
	case wordKind:
		*opt.word(o) = text
	case sizeKind:
		n, err := planner.ParseSize(text)
		switch {
		case err != nil:
			return err
		case n == 0 && opt.id == optAlignment:
			return want("a power of two up to 1 GiB", 0, "")
		case n == 0 && opt.id == optBudget:
			return errors.New("want a size above 0 (leave the budget out for none)")
		case n == 0 && opt.id == optMaxMemory:
			return errors.New("want a size above 0 (leave it out for the worker's limit)")
		}
		*opt.number(o) = n
	case countKind:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return want("a whole number", 0, text)
		}
		*opt.number(o) = n
	case durationKind:
		d, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil {
			return want(`a duration such as "10s" or "500ms"`, 0, text)
		}
		if d < 0 {
			return want("a duration of 0 or more", 0, text)
		}
		if d == 0 && opt.id == optAutoSlice {
			d = -1 // planner.PlaceOptions: zero is the default slice, negative none
		}
		*opt.duration(o) = d
	case symbolsKind:
		// Given once (a link, an attribute), the text stays as written and
		// must resolve alone; the command line's repeated --set merges
		// (ParseRepeated) and resolves once every flag is read.
		syms, err := planner.ParseSymbols(text)
		if err != nil {
			return err
		}
		o.SymbolsText = text
		if len(syms) > 0 {
			o.Symbols = syms
		}
	}
	return opt.check(o)
}

// ParseRepeated is Parse for a flag given again: the command line's --set
// repeats, its definitions merging, a later one of a symbol replacing the
// earlier (ir.SymbolDefs.Merge), and the text becomes the merged
// definitions'. Each is read as it comes; they resolve together, once all
// are read (ResolveSymbols), since one may use a symbol the next defines:
// --set total=past+seq --set past=4095,seq=1. Only the command line
// links it.
func (opt *Option) ParseRepeated(o *Options, text string) error {
	if opt.kind != symbolsKind {
		return opt.Parse(o, text)
	}
	later, err := ir.ParseSymbolDefs(text)
	if err != nil {
		return err
	}
	// The text is what the flags set: Symbols come from it (ResolveSymbols).
	o.SymbolsText, o.Symbols = o.SymbolDefs().Merge(later).String(), nil
	return opt.check(o)
}

// SymbolDefs are the definitions of the symbols text, nil when there is
// none or it does not read (ResolveSymbols says why).
func (o *Options) SymbolDefs() ir.SymbolDefs {
	defs, err := ir.ParseSymbolDefs(o.SymbolsText)
	if err != nil {
		return nil
	}
	return defs
}

// ResolveSymbols evaluates the symbols text into Symbols, once, before
// anything is decoded or planned: every symbol's value, those bound to
// expressions of others included (ir.SymbolDefs.Resolve), so that
// decoders, the planner and the plan record see only whole numbers (the
// record keeps the values; a link and a snippet keep the text, which
// resolves to the same). Without text, Symbols stay as they are. search,
// when not "", is the symbol a fit search sets at each value it tries
// (FitSearch): it needs no value of its own, and resolves here at 1, the
// search's first value. The error is an *ir.SymbolError, without the
// words of any front end: the command line names --set, the page its
// Symbols field (Resolve).
func (o *Options) ResolveSymbols(search string) error {
	if o.SymbolsText == "" {
		return nil
	}
	defs, err := ir.ParseSymbolDefs(o.SymbolsText)
	if err != nil {
		return err
	}
	var fixed map[string]int64
	if _, ok := defs.Lookup(search); search != "" && !ok {
		fixed = map[string]int64{search: 1}
	}
	syms, err := defs.Resolve(fixed)
	if err != nil {
		return err
	}
	o.Symbols = nil
	if len(syms) > 0 {
		o.Symbols = syms
	}
	return nil
}

// Format writes o's value of the option as text Parse reads back; ok is
// false when it is the default, which a link or a snippet leaves out. A
// switch that is on writes "true".
func (opt *Option) Format(o *Options) (text string, ok bool) {
	switch opt.kind {
	case switchKind:
		return "true", *opt.on(o)
	case wordKind:
		v := *opt.word(o)
		return v, v != "" && v != opt.omit
	case sizeKind, countKind:
		n := *opt.number(o)
		return strconv.FormatInt(n, 10), n > 0 || n == 0 && opt.id == optGuard
	case durationKind:
		d := *opt.duration(o)
		if d < 0 {
			return "0s", true // auto's slice, none
		}
		return d.String(), d > 0
	case skipKind:
		var kinds []string
		for _, k := range [...]struct {
			on   bool
			name string
		}{{o.SkipParams, "params"}, {o.SkipInputs, "inputs"}, {o.SkipConstants, "constants"}} {
			if k.on {
				kinds = append(kinds, k.name)
			}
		}
		return strings.Join(kinds, ","), len(kinds) > 0
	case symbolsKind:
		if o.SymbolsText != "" {
			return o.SymbolsText, true
		}
		return symbolsText(o.Symbols), len(o.Symbols) > 0
	}
	return "", false
}

// Validate checks every option of o by the table's rules, the same that
// read them from a flag, a link or an attribute: the page's options once
// Decode has read them (it calls Validate), the command line's once all
// are read. The first that fails is a *FieldError whose Field is the
// option's JSON name. Limits are read over their profile by ResolveGPU,
// where the planner reads them; Validate checks their length.
func (o *Options) Validate() error {
	for i := range optionTable {
		opt := &optionTable[i]
		if err := opt.check(o); err != nil {
			if fe, ok := err.(*FieldError); ok {
				return fe
			}
			field := opt.JSON
			if field == "" {
				field = opt.Script // the package's alone
			}
			return &FieldError{Field: field, Msg: err.Error()}
		}
	}
	return nil
}

// DefaultOptions are the options every front end starts from: each at
// its default (planner.DefaultOptions; no strategy named is
// planner.DefaultStrategy).
func DefaultOptions() Options { return Options{Options: planner.DefaultOptions()} }

// on, word and number are the option's field in o: one table of them,
// which costs the wasm programs less code than a switch each.
func (opt *Option) on(o *Options) *bool     { return opt.field(o).(*bool) }
func (opt *Option) word(o *Options) *string { return opt.field(o).(*string) }
func (opt *Option) number(o *Options) *int64 {
	return opt.field(o).(*int64)
}
func (opt *Option) duration(o *Options) *time.Duration { return opt.field(o).(*time.Duration) }

func (opt *Option) field(o *Options) any {
	return [...]any{optStrategy: &o.Strategy, optAlignment: &o.Alignment, optGuard: &o.Guard, optBudget: &o.Budget,
		optF32Uniform: &o.F32Uniform, optNoReuse: &o.NoReuse, optSkip: nil, optSkipParams: &o.SkipParams,
		optSkipInputs: &o.SkipInputs, optSkipConstants: &o.SkipConstants, optSymbols: &o.SymbolsText,
		optIfBranch: &o.IfBranch, optWebGPU: &o.WebGPU, optBinding: &o.Binding, optLimits: &o.Limits,
		optNodeLimit: &o.NodeLimit, optTimeLimit: &o.TimeLimit, optAutoSlice: &o.AutoSlice, optMaxMemory: &o.MaxMemory}[opt.id]
}

// check is the option's rule for its decoded value. (Each message is
// made by one call: in wasm every call site costs code, and both
// programs link this.)
func (opt *Option) check(o *Options) error {
	switch opt.id {
	case optStrategy:
		names := planner.StrategyNames()
		if o.Strategy != "" && !slices.Contains(names, o.Strategy) {
			return errors.New("unknown strategy " + ir.Quote(o.Strategy) + " (want one of " + strings.Join(names, ", ") + ")")
		}
	case optAlignment:
		if n := o.Alignment; n < 0 || n > maxAlignment || n&(n-1) != 0 {
			return want("a power of two up to 1 GiB", n, "")
		}
	case optGuard:
		if n := o.Guard; n < -1 || n > maxGuard {
			return want("-1 (the default) or 0 to 1 GiB", n, "")
		}
	case optBudget:
		if o.Budget < 0 {
			return want("0 (none) or a size in bytes", o.Budget, "")
		}
	case optNodeLimit:
		if o.NodeLimit < 0 {
			return want("0 (none) or more search nodes", o.NodeLimit, "")
		}
	case optTimeLimit:
		if o.TimeLimit < 0 {
			return want("a duration of 0 or more", 0, o.TimeLimit.String())
		}
	case optMaxMemory:
		// The worker's own limit is the most: past it the worker's heap,
		// not the check, would refuse the file.
		if n := o.MaxMemory; n < 0 || n > planner.BrowserMemoryLimit {
			return want("a size above 0 of at most "+planner.FormatBytes(planner.BrowserMemoryLimit)+", what the planner's worker holds", n, "")
		}
	case optSymbols:
		// The text is read where it resolves (ResolveSymbols, Resolve),
		// which every front end does before it plans, so that a
		// definition that does not read and one that does not resolve
		// are told the same way.
		for k, v := range o.Symbols {
			if k == "" || v < 0 {
				return &FieldError{Field: "symbols", Msg: want("names with whole numbers of 0 or more", v, k).Error()}
			}
		}
	case optIfBranch:
		if b := o.IfBranch; b != "" && b != "then" && b != "else" {
			return want("then or else", 0, b)
		}
	case optBinding:
		if b := o.Binding; b != "" && b != planner.BindArena && b != planner.BindTensor {
			return want("arena or tensor", 0, b)
		}
	case optWebGPU:
		if o.WebGPU != "" {
			_, err := planner.ProfileLimits(o.WebGPU)
			return err
		}
	case optLimits:
		// Only their length: limits are read over their profile where
		// planning reads them (ResolveGPU, whose error names the field),
		// which keeps planner.ParseLimits out of the viewer. Without a
		// profile they apply to nothing (planner.ResolveGPU).
		return checkLimitsLength(o)
	}
	return nil
}

func checkLimitsLength(o *Options) error {
	if n := len(o.Limits); n > maxLimits {
		return want("at most 200 characters", int64(n), "")
	}
	return nil
}

// want says what a value should be and what it is: a number, or (when
// text is not "") text, quoted; "name: number" for a symbol.
func want(what string, n int64, text string) error {
	got := strconv.FormatInt(n, 10)
	if text != "" {
		got = ir.Quote(text)
		if n != 0 {
			got += ": " + strconv.FormatInt(n, 10)
		}
	}
	return errors.New("want " + what + ", got " + got)
}

// parseSwitch reads a switch's text: present or true, or false.
func parseSwitch(v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "", "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, want("true or false (or 1 or 0) for a switch", 0, v)
}

func decimal(n int64) string { return strconv.FormatInt(n, 10) }

// SymbolsText writes symbol values as the symbols field, a link and an
// attribute read them, sorted: "batch=8, seq=256".
func SymbolsText(syms map[string]int64) string { return symbolsText(syms) }

// symbolsText writes symbol values in a fixed order (any is right).
func symbolsText(syms map[string]int64) string {
	parts := make([]string, 0, len(syms))
	for k, v := range syms {
		parts = append(parts, k+"="+decimal(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
