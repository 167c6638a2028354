package protocol

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"memplan/planner"
)

// The JavaScript package (npm/index.mjs) takes its options as one object
// whose members are named by the table's Script column: {strategy:
// "best-fit", f32Uniform: true, symbols: {batch: 8}}. The package passes
// the object on as it is; Go reads it here, by the same rows the command
// line's flags and the element's attributes are read by, so the package
// states no option, default or rule of its own.

// OptionByScript is the table's row for a script name; nil for none.
func OptionByScript(name string) *Option {
	for i := range optionTable {
		if optionTable[i].Script == name {
			opt := optionTable[i]
			return &opt
		}
	}
	return nil
}

// ScriptNames are the script names of the options, in the table's order.
func ScriptNames() []string {
	var names []string
	for i := range optionTable {
		if s := optionTable[i].Script; s != "" {
			names = append(names, s)
		}
	}
	return names
}

// OptionsFromScript reads a package caller's options object (a message
// tree, as Decode reads: nil, bool, float64, string, []any, map[string]any)
// over the default options. Each member is read as its row's text: a
// string as written, a boolean for a switch, a whole number for a size
// or a count (bytes), an object of symbol values for symbols and an
// array of kinds for skip. An error is a FieldError naming the member.
func OptionsFromScript(tree any) (Options, error) {
	o := DefaultOptions()
	if tree == nil {
		return o, nil
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return o, &FieldError{Field: "options", Msg: "want an object, got " + describe(tree)}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// In the table's order, so that skip's list and its three switches
	// combine the same way whatever order the object was written in.
	slices.SortFunc(keys, func(a, b string) int { return scriptIndex(a) - scriptIndex(b) })
	for _, k := range keys {
		if m[k] == nil {
			continue // undefined or null: the default
		}
		opt := OptionByScript(k)
		if opt == nil {
			return o, &FieldError{Field: k, Msg: "unknown option (want one of " + strings.Join(ScriptNames(), ", ") + ")"}
		}
		text, err := scriptText(opt, m[k])
		if err == nil {
			err = opt.Parse(&o, text)
		}
		if err != nil {
			return o, &FieldError{Field: k, Msg: err.Error()}
		}
	}
	return o, nil
}

func scriptIndex(name string) int {
	for i := range optionTable {
		if optionTable[i].Script == name {
			return i
		}
	}
	return len(optionTable)
}

// scriptText is one member's value as the row's text.
func scriptText(opt *Option, v any) (string, error) {
	wrong := func(want string) error { return fmt.Errorf("want %s, got %s", want, describe(v)) }
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		if !opt.Switch {
			return "", wrong("a string")
		}
		return strconv.FormatBool(x), nil
	case float64:
		if opt.kind == durationKind {
			// One form, the command line's: a bare number's unit would be a guess.
			return "", wrong(`a duration as a string, such as "10s" or "500ms"`)
		}
		if opt.kind != sizeKind && opt.kind != countKind {
			return "", wrong("a string")
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return "", wrong("a whole number")
		}
		return strconv.FormatInt(int64(x), 10), nil
	case []any:
		if opt.kind != skipKind {
			return "", wrong("a string")
		}
		parts := make([]string, len(x))
		for i, p := range x {
			s, ok := p.(string)
			if !ok {
				return "", fmt.Errorf("[%d]: want a string, got %s", i, describe(p))
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		if opt.kind != symbolsKind {
			return "", wrong("a string")
		}
		// {batch: 8, seq: "past+1"}: the definitions the symbols text
		// writes, sorted, each value a whole number or an expression.
		names := make([]string, 0, len(x))
		for name := range x {
			names = append(names, name)
		}
		slices.Sort(names)
		defs := make([]string, len(names))
		for i, name := range names {
			if strings.ContainsAny(name, "=,") {
				return "", fmt.Errorf("%q: want a symbol's name", name)
			}
			switch val := x[name].(type) {
			case float64:
				if math.IsNaN(val) || math.IsInf(val, 0) || val != math.Trunc(val) || math.Abs(val) > 1<<53 {
					return "", fmt.Errorf("%s: want a whole number, got %s", name, describe(val))
				}
				defs[i] = name + "=" + strconv.FormatInt(int64(val), 10)
			case string:
				defs[i] = name + "=" + val
			default:
				return "", fmt.Errorf("%s: want a whole number or an expression, got %s", name, describe(val))
			}
		}
		return strings.Join(defs, ","), nil
	}
	return "", wrong("a string")
}

// Kind is how the option's text reads, for the package's types
// (wasm/protocol/typedefs): "word", "size" (bytes: a number or 128MiB),
// "count", "switch", "skip" (kinds to leave out), "symbols" or
// "duration" (Go's form: "10s").
func (opt *Option) Kind() string {
	return [...]string{wordKind: "word", sizeKind: "size", countKind: "count", switchKind: "switch", skipKind: "skip", symbolsKind: "symbols", durationKind: "duration"}[opt.kind]
}

// Choices are the words a word option takes, where the table's rule
// lists them (limits are free text); nil for none.
func (opt *Option) Choices() []string {
	switch opt.id {
	case optStrategy:
		return planner.StrategyNames()
	case optIfBranch:
		return []string{"then", "else"}
	case optBinding:
		return []string{planner.BindArena, planner.BindTensor}
	case optWebGPU:
		return planner.ProfileNames()
	case optSkip:
		return []string{"params", "inputs", "constants"}
	}
	return nil
}
