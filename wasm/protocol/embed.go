package protocol

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"memplan/ir"
	"memplan/planner"
)

// The <memplan-plan> element (web/embed.js) sends the viewer its
// attributes as they are written, and memplan's app asks the viewer for
// the snippet that reproduces what it shows. Both directions read this
// one table, so the page never restates which attribute sets which
// option, nor any option's default: an attribute left out is an option
// left at its default.
type attribute struct {
	name string
	// set reads the attribute's text into o.
	set func(o *Options, v string) error
	// get writes o's value as the attribute's text; ok is false when o
	// has the default, so the snippet leaves the attribute out.
	get func(o *Options) (v string, ok bool)
}

// flag is a boolean attribute: present (empty, or "true") sets it,
// "false" clears it.
func flag(name string, field func(*Options) *bool) attribute {
	return attribute{
		name: name,
		set: func(o *Options, v string) error {
			switch v {
			case "", "true", name:
				*field(o) = true
			case "false":
				*field(o) = false
			default:
				return fmt.Errorf("is a flag: write it bare, or =\"false\"; got %s", ir.Quote(v))
			}
			return nil
		},
		get: func(o *Options) (string, bool) { return "", *field(o) },
	}
}

// size is an attribute holding a byte count (1024, 64KiB); negative
// values are refused, except that none is also the default when deflt
// is -1.
func size(name string, field func(*Options) *int64, deflt int64) attribute {
	return attribute{
		name: name,
		set: func(o *Options, v string) error {
			n, err := planner.ParseSize(v)
			if err != nil {
				return err
			}
			*field(o) = n
			return nil
		},
		get: func(o *Options) (string, bool) {
			n := *field(o)
			return strconv.FormatInt(n, 10), n != deflt && n >= 0
		},
	}
}

// attributes is the table. A function, not a variable, so a program that
// never reads attributes (the planner worker) links none of it.
func attributes() []attribute {
	return []attribute{
		{
			name: "strategy",
			set: func(o *Options, v string) error {
				if !slices.Contains(planner.StrategyNames(), v) {
					return fmt.Errorf("unknown strategy %s (one of %s)", ir.Quote(v), strings.Join(planner.StrategyNames(), ", "))
				}
				o.Strategy = v
				return nil
			},
			get: func(o *Options) (string, bool) { return o.Strategy, o.Strategy != "" },
		},
		size("alignment", func(o *Options) *int64 { return &o.Alignment }, 0),
		size("guard", func(o *Options) *int64 { return &o.Guard }, -1),
		size("budget", func(o *Options) *int64 { return &o.Budget }, 0),
		flag("f32-uniform", func(o *Options) *bool { return &o.F32Uniform }),
		flag("no-reuse", func(o *Options) *bool { return &o.NoReuse }),
		flag("skip-params", func(o *Options) *bool { return &o.SkipParams }),
		flag("skip-inputs", func(o *Options) *bool { return &o.SkipInputs }),
		flag("skip-constants", func(o *Options) *bool { return &o.SkipConstants }),
		{
			name: "symbols",
			set: func(o *Options, v string) error {
				o.SymbolsText = v
				return o.Resolve()
			},
			get: func(o *Options) (string, bool) {
				if o.SymbolsText != "" {
					return o.SymbolsText, true
				}
				var parts []string
				for k, v := range o.Symbols {
					parts = append(parts, k+"="+strconv.FormatInt(v, 10))
				}
				sort.Strings(parts) // a fixed order; any is right
				return strings.Join(parts, ", "), len(parts) > 0
			},
		},
		{
			name: "if-branch",
			set: func(o *Options, v string) error {
				o.IfBranch = v
				return nil
			},
			get: func(o *Options) (string, bool) { return o.IfBranch, o.IfBranch != "" },
		},
	}
}

// AttributeError is an attribute of <memplan-plan> whose value the
// viewer cannot read.
type AttributeError struct {
	Name, Value string
	Err         error
}

func (e *AttributeError) Error() string {
	return fmt.Sprintf("<memplan-plan %s=%s>: %v", e.Name, strconv.Quote(e.Value), e.Err)
}

func (e *AttributeError) Unwrap() error { return e.Err }

// OptionsFromAttributes reads the planning options a <memplan-plan>
// element's attributes ask for. Attributes that are not options (src,
// height, theme, class, …) are ignored; options with no attribute keep
// their defaults.
func OptionsFromAttributes(attrs map[string]string) (Options, error) {
	o := Options{Options: planner.DefaultOptions()}
	for _, a := range attributes() {
		v, ok := attrs[a.name]
		if !ok {
			continue
		}
		if err := a.set(&o, strings.TrimSpace(v)); err != nil {
			return o, &AttributeError{a.name, v, err}
		}
	}
	return o, nil
}

// EmbedSnippet is the HTML that embeds file planned with o: the script
// tag that loads embed.js from script and a <memplan-plan> element whose
// attributes name the options that differ from their defaults.
func EmbedSnippet(script, file string, o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<script type=\"module\" src=\"%s\"></script>\n", escapeHTML(script))
	fmt.Fprintf(&b, "<memplan-plan src=\"%s\"", escapeHTML(file))
	for _, a := range attributes() {
		v, ok := a.get(&o)
		if !ok {
			continue
		}
		b.WriteString(" " + a.name)
		if v != "" {
			fmt.Fprintf(&b, "=\"%s\"", escapeHTML(v))
		}
	}
	b.WriteString("></memplan-plan>")
	return b.String()
}

// escapeHTML makes text safe inside a double-quoted attribute (the html
// package would do, but brings its entity table into the viewer's wasm).
func escapeHTML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
