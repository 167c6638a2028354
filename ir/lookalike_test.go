package ir

import (
	"strings"
	"testing"
)

func TestLookAlikeNames(t *testing.T) {
	graph := func(names ...string) string {
		var nodes []string
		for _, n := range names {
			nodes = append(nodes, `{"name":"`+n+`","op":"input","shape":[4],"dtype":"f32"}`)
		}
		return `{"format":"memplan.graph/v1","nodes":[` + strings.Join(nodes, ",") + `]}`
	}
	for _, tc := range []struct {
		name  string
		names []string
		want  string // "" for no note
	}{
		{"distinct names", []string{"x", "y", "é"}, ""},
		{"case", []string{"a", "A"}, `names that look alike are distinct tensors: tensors that differ only in case: "a" and "A"`},
		{"combining mark", []string{"\u00e9", "e\u0301"}, "names that look alike are distinct tensors: tensors whose names hold a combining mark or an invisible character, which may print as another name: \"e\u0301\" (U+0301)"},
		{"zero-width space", []string{"w\u200b"}, `(U+200B)`},
		{"many, bounded", []string{"a", "A", "b", "B", "c", "C", "d", "D"}, `"a" and "A", "b" and "B", "c" and "C" and 1 more`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := Decode("g.json", []byte(graph(tc.names...)), DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(src.Graph.Notes, "\n")
			if tc.want == "" {
				if strings.Contains(notes, "look alike") {
					t.Fatalf("note %q for distinct names", notes)
				}
				return
			}
			if !strings.Contains(notes, tc.want) {
				t.Fatalf("notes %q, want one containing %q", notes, tc.want)
			}
		})
	}
}
