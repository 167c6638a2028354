package typedefs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"memplan/planner"
	"memplan/wasm/protocol"
)

// TypeScript is the npm package's index.d.ts (npm/index.mjs): its
// options from the option table (protocol.OptionTable, by their script
// names), its records and errors from the Go types the planner worker
// sends (planner.Plan, protocol.Error, …), and its functions. tools/npm
// writes it into the package; a test fails when npm/index.d.ts, the
// copy beside the module's source, drifts from it.
func TypeScript() string {
	g := &tsgen{named: map[reflect.Type]string{}}
	var b strings.Builder
	b.WriteString("// Generated from Go by `go generate ./wasm/protocol/typedefs`; do not edit.\n")
	b.WriteString("// The types of memplan's JavaScript module (npm/index.mjs): Go's types are the contract.\n\n")

	b.WriteString("/** Planning options, named as memplan's option table names them for scripts. */\n")
	b.WriteString("export interface Options {\n")
	for _, opt := range protocol.OptionTable() {
		if opt.Script == "" {
			continue
		}
		fmt.Fprintf(&b, "  /** %s */\n", docText(opt.Usage(), opt.DefaultWords()))
		fmt.Fprintf(&b, "  %s?: %s;\n", opt.Script, optionType(&opt))
	}
	b.WriteString("}\n\n")

	// The Go types the functions answer with, named here so that the
	// reflection below reuses the names.
	roots := []struct {
		name string
		t    reflect.Type
	}{
		{"PlanRecord", reflect.TypeFor[planner.Plan]()},
		{"ErrorFields", reflect.TypeFor[protocol.Error]()},
		{"SymbolFit", reflect.TypeFor[planner.SymbolFit]()},
		{"Explanation", reflect.TypeFor[planner.Explanation]()},
		{"Diff", reflect.TypeFor[planner.Diff]()},
		{"Fit", reflect.TypeFor[planner.Fit]()},
	}
	for _, r := range roots {
		g.named[r.t] = r.name
		g.queue = append(g.queue, r.t)
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		b.WriteString(g.iface(t, g.named[t]))
	}
	b.WriteString(api)
	return b.String()
}

// docText is an option's words as a doc comment: the flag package's
// backquotes dropped, and nothing that ends the comment.
func docText(help, deflt string) string {
	s := strings.ReplaceAll(help, "`", "")
	if deflt != "" {
		s += " (default " + deflt + ")"
	}
	return strings.ReplaceAll(s, "*/", "* /")
}

// optionType is an option's TypeScript type, by how its text reads.
func optionType(opt *protocol.Option) string {
	words := func() string {
		var q []string
		for _, c := range opt.Choices() {
			q = append(q, fmt.Sprintf("%q", c))
		}
		return strings.Join(q, " | ")
	}
	switch opt.Kind() {
	case "switch":
		return "boolean"
	case "size":
		return "number | string"
	case "count":
		return "number"
	case "skip":
		return "string | Array<" + words() + ">"
	case "symbols":
		return "string | Record<string, number | string>"
	}
	if len(opt.Choices()) > 0 {
		return words()
	}
	return "string"
}

type tsgen struct {
	named map[reflect.Type]string
	queue []reflect.Type
}

func (g *tsgen) iface(t reflect.Type, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "export interface %s {\n", name)
	for _, f := range g.fields(t) {
		fmt.Fprintf(&b, "  %s: %s;\n", f[0], f[1])
	}
	b.WriteString("}\n\n")
	return b.String()
}

// fields are a struct's JSON members and their types, embedded structs'
// inline; an omitempty member is optional, a pointer may be null.
func (g *tsgen) fields(t reflect.Type) [][2]string {
	var out [][2]string
	for _, m := range jsonMembers(t) {
		name := m.name
		if m.omitempty {
			name += "?"
		}
		out = append(out, [2]string{name, g.tsType(m.typ)})
	}
	return out
}

func (g *tsgen) tsType(t reflect.Type) string {
	if t == rawType || t.Implements(reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()) {
		return "unknown" // its own JSON (ir.Dim: a number or a symbol's name)
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return g.tsType(t.Elem()) + " | null"
	case reflect.Slice, reflect.Array:
		return "Array<" + g.tsType(t.Elem()) + ">"
	case reflect.Map:
		return "Record<string, " + g.tsType(t.Elem()) + ">"
	case reflect.Struct:
		if name, ok := g.named[t]; ok {
			return name
		}
		name := t.Name()
		if name == "" {
			return "object"
		}
		taken := slices.Contains(handWritten, name)
		for _, n := range g.named {
			taken = taken || n == name
		}
		if taken { // the same name twice: the package's in front (PlannerOptions)
			pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]
			name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
		}
		g.named[t] = name
		g.queue = append(g.queue, t)
		return name
	}
	return "unknown"
}

// handWritten are the names api and the options declare.
var handWritten = []string{"Options", "Input", "CallOptions", "PlanOptions", "MemplanError"}

// api is the module's functions (npm/index.mjs), which are JavaScript's.
const api = `/** A file: bytes, a Blob or File, text, in Node a file: URL. */
export type Input = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | string | URL;

/** What every call takes besides the options. */
export interface CallOptions {
  /** The file's name; its extension picks the format (.onnx, .json, .csv); without one, ONNX and JSON are known by their bytes. */
  name?: string;
  /** Cancels the call: its promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The planner's progress, in words. */
  onProgress?: (message: string) => void;
  /** A training pair's forward graph, as the command line's --forward: the file is its backward graph, whose params take the forward plan's weight slots. */
  forward?: Input;
  /** The forward graph's file name; its extension picks the format. */
  forwardName?: string;
}

export type PlanOptions = Options & CallOptions;

/** memplan's error: the message, and where (file, path, node, line) as fields. */
export declare class MemplanError extends Error {
  kind: string;
  /** Why a plan does not fit its device, when that is the error. */
  fit?: Fit;
}
/** The located error's fields, Go's, are the class's too (declaration merging). */
export interface MemplanError extends ErrorFields {}

/** Plans a file: the record ` + "`memplan plan --json`" + ` writes. */
export declare function plan(data: Input, options?: PlanOptions): Promise<PlanRecord>;

/** Judges a record as a plan of its source, as ` + "`memplan verify`" + ` does. */
export declare function verify(record: Input | PlanRecord, data: Input, options?: PlanOptions & { recordName?: string }): Promise<{ ok: boolean; errors: MemplanError[] }>;

/** The largest value of options.symbol whose plan fits options.webgpu's device. */
export declare function fit(data: Input, options: PlanOptions & { symbol: string; webgpu: string }): Promise<SymbolFit>;

/** Why a tensor lives when and sits where it does in the file's plan. */
export declare function explain(data: Input | PlanRecord, tensor: string, options?: PlanOptions): Promise<Explanation>;

/** Compares two plans (files planned with their options, or records); optionsB are side B's whole options (default: options), the command line's -b flags and more. */
export declare function diff(a: Input | PlanRecord, b: Input | PlanRecord, options?: PlanOptions, optionsB?: PlanOptions): Promise<Diff>;

/** The plan's picture, as memplan's widget draws it: SVG text. */
export declare function svg(record: Input | PlanRecord, options?: { width?: number; height?: number; theme?: "light" | "dark"; budget?: number; name?: string; signal?: AbortSignal }): Promise<string>;

/** The largest file, in bytes, the planner reads. */
export declare function maxInputBytes(options?: { signal?: AbortSignal }): Promise<number>;

/** Ends the planner's worker; a later call starts another. */
export declare function close(): void;
`
