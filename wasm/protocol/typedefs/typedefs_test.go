package typedefs

import (
	"os"
	"strings"
	"testing"
)

// TestTypedefsAreCurrent: web/protocol-types.js is what Go's types say
// now; a field added, renamed or retyped in Go fails here until the file
// is generated again (go generate ./wasm/protocol/typedefs).
func TestTypedefsAreCurrent(t *testing.T) {
	b, err := os.ReadFile("../../../web/protocol-types.js")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != JSDoc() {
		t.Fatal("web/protocol-types.js is stale: run go generate ./wasm/protocol/typedefs")
	}
	for _, want := range []string{"@typedef {object} WorldCommand", "@property {number} steps", `@property {"memplan"} source`,
		"@typedef {object} SummaryEvent", "@typedef {object} PlanTensor"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the typedefs lack %q", want)
		}
	}
}

// TestTypeScriptIsCurrent: npm/index.d.ts, the npm package's types
// beside its source, is what Go's types and option table say now.
func TestTypeScriptIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../../npm/index.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != TypeScript() {
		t.Fatal("npm/index.d.ts is stale: run go generate ./wasm/protocol/typedefs")
	}
	for _, want := range []string{"export interface Options {", "f32Uniform?: boolean;", `strategy?: "auto" |`, "export interface PlanRecord {",
		"arena_size: number;", "options: PlannerOptions;", "export interface ErrorFields {", "node?: string;", "export declare function plan("} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the declarations lack %q", want)
		}
	}
}
