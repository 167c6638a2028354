package planner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"memplan/ir"
)

func TestDecodePlanRoundTrip(t *testing.T) {
	p := loadCSV(t, "testdata/C.1048576.csv")
	pl, err := Place(context.Background(), p, "auto", PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := NewPlan(p, "auto", pl)
	data, _ := json.MarshalIndent(want, "", "  ")
	got, err := DecodePlan("c.plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if got.ComputeFingerprint() != want.Fingerprint || len(got.PlacementOrder) != len(want.PlacementOrder) {
		t.Fatalf("decoded plan differs: fingerprint %s, want %s", got.ComputeFingerprint(), want.Fingerprint)
	}
}

func TestDecodePlanErrors(t *testing.T) {
	const head = "{\n  \"format\": \"memplan.plan/v1\",\n"
	tests := []struct {
		name      string
		in        string
		line, col int
		path, msg string
	}{
		{"syntax", head + "  \"arena_size\": ]\n}", 3, 17, "", "invalid character ']'"},
		{"wrong type", head + "  \"arena_size\": \"big\"\n}", 3, 17, "arena_size", "got a JSON string, want int64"},
		{"nested wrong type", head + "  \"tensors\": [{\"name\": \"a\", \"size\": true}]\n}", 3, 37, "tensors.size", "got a JSON bool, want int64"},
		{"unknown field", head + "  \"arena_sise\": 1\n}", 3, 3, "", `unknown field "arena_sise"`},
		{"ends early", head + "  \"arena_size\": 1", 3, 18, "", "ends early"},
		{"wrong format", "{\"format\": \"memplan.graph/v1\"}", 0, 0, "format", `want "memplan.plan/v1"`},
		{"data after", head + "  \"arena_size\": 1\n} {}", 4, 3, "", "data after the plan record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodePlan("p.json", []byte(tc.in))
			var e *ir.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *ir.Error", err)
			}
			if e.File != "p.json" || e.Line != tc.line || e.Column != tc.col || e.Path != tc.path || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %q (line %d, column %d, path %q); want line %d, column %d, path %q, message with %q",
					err, e.Line, e.Column, e.Path, tc.line, tc.col, tc.path, tc.msg)
			}
		})
	}
}
