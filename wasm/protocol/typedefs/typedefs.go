// Package typedefs writes the protocol's messages as JSDoc typedefs for
// the page scripts (web/protocol-types.js): Go's types are the contract,
// and a test fails when the file drifts from them.
package typedefs

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
)

//go:generate go run ./gen ../../../web/protocol-types.js
//go:generate go run ./gen -ts ../../../npm/index.d.ts

// All is every viewer event, one value of each type, and the
// <memplan-plan> element's own picture event (protocol.Picture).
var All = []protocol.Event{protocol.Picture{}, events.Ready{}, events.Pong{}, events.Busy{}, events.Progress{}, events.Summary{}, events.Tensors{}, events.ErrorEvent{},
	events.Hover{}, events.Selected{}, events.CursorMoved{}, events.Explained{}, events.State{}, events.RecordEvent{},
	events.ProfileEvent{}, events.CameraMoved{}, events.LargestEvent{}, events.WordsWritten{}, events.Placed{}}

// JSDoc writes the protocol's messages as JSDoc typedefs, for the page
// scripts: each command and event with its type field, and the types
// they hold. web/protocol-types.js is this text; a test fails when the
// two drift apart, so the page scripts' shapes are Go's.
func JSDoc() string {
	g := &jsdoc{named: map[reflect.Type]string{}}
	var b strings.Builder
	b.WriteString("// Generated from Go by `go generate ./wasm/protocol/typedefs`; do not edit.\n")
	b.WriteString("// The messages between a host page and memplan's viewer (docs/embedding.md),\n")
	b.WriteString("// as JSDoc typedefs for the page scripts: Go's types are the contract.\n")
	for _, t := range protocol.CommandTypes() {
		c := protocol.NewCommand(t)
		b.WriteString(g.message(reflect.TypeOf(c).Elem(), t, "Command", false))
	}
	evs := slices.Clone(All)
	sort.Slice(evs, func(i, j int) bool { return evs[i].Type() < evs[j].Type() })
	for _, ev := range evs {
		b.WriteString(g.message(reflect.TypeOf(ev), ev.Type(), "Event", true))
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		b.WriteString(g.typedef(t, g.named[t], nil))
	}
	b.WriteString("export {};\n")
	return b.String()
}

type jsdoc struct {
	named map[reflect.Type]string
	queue []reflect.Type
}

func (g *jsdoc) message(t reflect.Type, typ, suffix string, event bool) string {
	name := typeName(typ) + suffix
	head := [][2]string{{"type", fmt.Sprintf("%q", typ)}}
	if event {
		head = append([][2]string{{"source", `"memplan"`}}, head...)
	}
	return g.typedef(t, name, head)
}

// typeName is a message type as a JSDoc name: "world" → "World".
func typeName(typ string) string {
	var b strings.Builder
	up := true
	for _, r := range typ {
		if r == '-' || r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (g *jsdoc) typedef(t reflect.Type, name string, head [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n/**\n * @typedef {object} %s\n", name)
	for _, f := range head {
		fmt.Fprintf(&b, " * @property {%s} %s\n", f[1], f[0])
	}
	for _, f := range g.fields(t) {
		fmt.Fprintf(&b, " * @property {%s} %s\n", f[1], f[0])
	}
	b.WriteString(" */\n")
	return b.String()
}

// fields are a struct's JSON members and their JSDoc types, embedded
// structs' inline. An omitempty member or a pointer is optional ([name]).
func (g *jsdoc) fields(t reflect.Type) [][2]string {
	var out [][2]string
	for _, m := range jsonMembers(t) {
		name := m.name
		if m.omitempty || m.typ.Kind() == reflect.Pointer {
			name = "[" + name + "]"
		}
		out = append(out, [2]string{name, g.jsType(m.typ)})
	}
	return out
}

// member is one JSON member of a struct: its name, whether the tag says
// omitempty, and its Go type.
type member struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// jsonMembers are the members encoding/json writes for struct type t,
// in order, with embedded structs' members inline. Both generators (JSDoc
// and TypeScript) read a struct through it.
func jsonMembers(t reflect.Type) []member {
	var out []member
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonMembers(f.Type)...)
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out = append(out, member{name: tag, omitempty: strings.Contains(opts, "omitempty"), typ: f.Type})
	}
	return out
}

var (
	blobType = reflect.TypeFor[protocol.Blob]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

func (g *jsdoc) jsType(t reflect.Type) string {
	switch {
	case t == blobType:
		return "ArrayBuffer|ArrayBufferView|Blob|string"
	case t == rawType:
		return "*"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return g.jsType(t.Elem()) + "|null"
	case reflect.Slice:
		return "Array<" + g.jsType(t.Elem()) + ">"
	case reflect.Array:
		return "Array<" + g.jsType(t.Elem()) + ">"
	case reflect.Map:
		return "Object<string, " + g.jsType(t.Elem()) + ">"
	case reflect.Interface:
		return "*"
	case reflect.Struct:
		if name, ok := g.named[t]; ok {
			return name
		}
		name := t.Name()
		if name == "" {
			return "object"
		}
		for _, n := range g.named {
			if n == name {
				name = strings.ToUpper(t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:][:1]) + t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+2:] + name
			}
		}
		g.named[t] = name
		g.queue = append(g.queue, t)
		return name
	}
	return "*"
}
