package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// The <memplan-plan> element (web/embed.js) sends the viewer its
// attributes as they are written, and memplan's app asks the viewer for
// the snippet that reproduces what it shows. Both directions read the
// options' table (OptionTable), so the page never restates which
// attribute sets which option, nor any option's default: an attribute
// left out is an option left at its default.

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
// element's attributes ask for, each read and checked by its row of the
// options' table (limits are read over their profile when the file is
// planned, ResolveGPU). Attributes that are not options (src,
// height, theme, class, …) are ignored; options with no attribute keep
// their defaults.
func OptionsFromAttributes(attrs map[string]string) (Options, error) {
	o := DefaultOptions()
	table := OptionTable()
	for i := range table {
		opt := &table[i]
		v, ok := attrs[opt.Attribute]
		if !ok || opt.Attribute == "" {
			continue
		}
		text := strings.TrimSpace(v)
		if opt.Switch && text == opt.Attribute {
			text = "" // HTML's spelling of a present switch: skip-params="skip-params"
		}
		if err := opt.Parse(&o, text); err != nil {
			return o, &AttributeError{opt.Attribute, v, err}
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
	table := OptionTable()
	for i := range table {
		opt := &table[i]
		if opt.Attribute == "" {
			continue
		}
		v, ok := opt.Format(&o)
		if !ok {
			continue
		}
		b.WriteString(" " + opt.Attribute)
		if !opt.Switch {
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
