package protocol

import (
	"fmt"
	"strings"
)

// The <memplan-plan> element (web/embed.js) sends the viewer its
// attributes as they are written, and memplan's app asks the viewer for
// the snippet that reproduces what it shows. Both directions read the
// options' table (OptionTable), so the page never restates which
// attribute sets which option, nor any option's default: an attribute
// left out is an option left at its default.

// OptionsFromAttributes reads the planning options a <memplan-plan>
// element's attributes ask for, each read and checked by its row of the
// options' table (limits are read over their profile when the file is
// planned, ResolveGPU). Attributes that are not options (src,
// height, theme, class, …) are ignored; options with no attribute keep
// the element's defaults: the option's own, or the table's Element
// (params skipped).
func OptionsFromAttributes(attrs map[string]string) (Options, error) {
	o := DefaultOptions()
	for i := range optionTable {
		opt := &optionTable[i]
		if opt.Attribute == "" {
			continue
		}
		v, ok := attrs[opt.Attribute]
		if !ok {
			if !opt.Element {
				continue
			}
			v = "true"
		}
		text := strings.TrimSpace(v)
		if opt.Switch && text == opt.Attribute {
			text = "" // HTML's spelling of a present switch: skip-params="skip-params"
		}
		if err := opt.parse(&o, text); err != nil {
			// The attribute as written, then why: <memplan-plan alignment="48">: …
			return o, fmt.Errorf("<memplan-plan %s=%q>: %w", opt.Attribute, v, err)
		}
	}
	return o, nil
}

// EmbedSnippet is the HTML that embeds file planned with o: the script
// tag that loads embed.js from script and a <memplan-plan> element whose
// attributes name the options that differ from the element's defaults,
// so that the element plans what o plans. hasParams says whether the
// file has params: without any, skipping them changes nothing, and the
// snippet does not spell out the element's default. Inside the element
// is the text a page shows while embed.js has not defined it, or when
// it could not load.
func EmbedSnippet(script, file string, o Options, hasParams bool) string {
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
		if opt.Element {
			// A switch the element turns on (skip-params): written off
			// when o has it off and that changes the plan.
			v, ok = "false", !ok && hasParams
		}
		if !ok {
			continue
		}
		b.WriteString(" " + opt.Attribute)
		if !opt.Switch || v == "false" {
			fmt.Fprintf(&b, "=\"%s\"", escapeHTML(v))
		}
	}
	fmt.Fprintf(&b, ">%s</memplan-plan>", escapeHTML(Fallback(file)))
	return b.String()
}

// Fallback is what a <memplan-plan> element of file holds for a page
// to show until embed.js defines the element: and, if it never loads,
// what its host must fix.
func Fallback(file string) string {
	return "memplan draws the memory plan of " + file + " here once embed.js loads. If this text stays, the host of embed.js must send Access-Control-Allow-Origin."
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
