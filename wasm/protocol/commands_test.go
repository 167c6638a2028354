package protocol

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"memplan/planner"
)

type fakeBlob int64

func (b fakeBlob) Size() int64 { return int64(b) }

func intp(n int) *int { return &n }

// TestDecodeCommand: each command reads from the tree jsconv makes of its
// object; a malformed one is one FieldError naming the message and field.
func TestDecodeCommand(t *testing.T) {
	def := Options{Options: planner.DefaultOptions()}
	withAlign := def
	withAlign.Alignment, withAlign.F32Uniform = 256, true
	tests := []struct {
		name string
		tree any
		want Command
		err  string // a part of the error, "" for none
	}{
		{"ping", map[string]any{"type": "ping"}, &Ping{}, ""},
		{"load with options over the defaults", map[string]any{"type": "load", "name": "m.json", "data": fakeBlob(9),
			"options": map[string]any{"alignment": 256.0, "f32_uniform": true}},
			&Load{Name: "m.json", Data: fakeBlob(9), HostOptions: HostOptions{Options: &withAlign}}, ""},
		{"load of text", map[string]any{"type": "load", "name": "m.csv", "data": "id,lower,upper,size\n"},
			&Load{Name: "m.csv", Data: Text("id,lower,upper,size\n")}, ""},
		{"attributes", map[string]any{"type": "options", "attributes": map[string]any{"f32-uniform": ""}},
			&Replan{HostOptions{Attributes: map[string]string{"f32-uniform": ""}}}, ""},
		{"a host's own tag is ignored", map[string]any{"type": "select", "name": "x", "source": "docs"}, &Select{Name: "x"}, ""},
		{"world", map[string]any{"type": "world", "steps": 12.0, "bytes": 4096.0}, &World{12, 4096}, ""},
		{"cursor by", map[string]any{"type": "cursor", "by": -10.0}, &Cursor{By: intp(-10)}, ""},
		{"camera", map[string]any{"type": "camera", "x0": 0.0, "y0": 0.0, "x1": 4.0, "y1": 1e9}, &Camera{0, 0, 4, 1e9}, ""},

		// The malformed: each names its field.
		{"not an object", "ping", nil, `message: want an object, got the string "ping"`},
		{"no type", map[string]any{"name": "x"}, nil, "type: want a string, got nothing"},
		{"unknown type", map[string]any{"type": "format-disk"}, nil, `unknown message type "format-disk"`},
		{"world NaN", map[string]any{"type": "world", "steps": math.NaN(), "bytes": math.NaN()}, nil, `message "world": steps: want a finite number, got NaN`},
		{"world infinite", map[string]any{"type": "world", "steps": 3.0, "bytes": math.Inf(1)}, nil, `bytes: want a finite number, got Infinity`},
		{"world negative", map[string]any{"type": "world", "steps": -3.0, "bytes": 9.0}, nil, `steps: want a number above 0, got -3`},
		{"camera reversed", map[string]any{"type": "camera", "x0": 5.0, "y0": 0.0, "x1": 4.0, "y1": 9.0}, nil, `x1: want more than x0`},
		{"a name that is a number", map[string]any{"type": "select", "name": 7.0}, nil, `name: want a string, got 7`},
		{"a fractional step", map[string]any{"type": "cursor", "step": 1.5}, nil, `step: want a whole number, got 1.5`},
		{"a step below -1", map[string]any{"type": "cursor", "step": -4.0}, nil, `step: want at least -1, got -4`},
		{"an integer past 2^53", map[string]any{"type": "reveal", "count": 1e300}, nil, `count: want a whole number`},
		{"data that is not bytes", map[string]any{"type": "load", "name": "m.json", "data": 12.0}, nil, `data: want bytes`},
		{"options that are not an object", map[string]any{"type": "load", "name": "m.json", "options": "fast"}, nil, `options: want an object`},
		{"an option of the wrong kind", map[string]any{"type": "options", "options": map[string]any{"f32_uniform": "yes"}}, nil, `options.f32_uniform: want true or false`},
		{"symbols not numbers", map[string]any{"type": "options", "options": map[string]any{"symbols": map[string]any{"batch": "8"}}}, nil, `options.symbols.batch: want a number`},
		{"a theme Go does not know", map[string]any{"type": "theme", "name": "neon"}, nil, `name: want one of`},
		{"an export it cannot make", map[string]any{"type": "export", "what": "exe"}, nil, `what: want one of`},
		{"limits below zero", map[string]any{"type": "profile", "limits": map[string]any{"maxBufferSize": -1.0}}, nil, `limits.maxBufferSize: want at least 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeCommand(tc.tree)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tc.err)
				}
				if _, ok := err.(*FieldError); !ok {
					t.Fatalf("error %T, want *FieldError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestCommandsAreDocumented: every command has a row in docs/embedding.md's
// table, and every row a command.
func TestCommandsAreDocumented(t *testing.T) {
	doc := readDoc(t)
	for _, c := range CommandTypes() {
		if c == "help" {
			continue // viewer.js's own, documented with the page's keys
		}
		if !strings.Contains(doc, "| `"+c+"`") {
			t.Errorf("command %q has no row in docs/embedding.md", c)
		}
	}
}

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
