package ir

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"
)

// TestSchemaInSync keeps docs/graph.schema.json and the decoder in step:
// the same field names at each level, the same dtypes, and the same
// op-specific fields.
func TestSchemaInSync(t *testing.T) {
	data, err := os.ReadFile("../docs/graph.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	type object struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		AllOf      []struct {
			If struct {
				Properties struct {
					Op struct {
						Const string `json:"const"`
					} `json:"op"`
				} `json:"properties"`
			} `json:"if"`
			Then struct {
				Required []string `json:"required"`
			} `json:"then"`
		} `json:"allOf"`
		Enum  []string `json:"enum"`
		Const string   `json:"const"`
	}
	var schema struct {
		Schema string `json:"$schema"`
		object
		Defs map[string]object `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("schema is not valid JSON: %v", err)
	}
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %q", schema.Schema)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var k []string
		for name := range m {
			k = append(k, name)
		}
		sort.Strings(k)
		return k
	}
	sorted := func(s []string) []string {
		s = slices.Clone(s)
		sort.Strings(s)
		return s
	}
	for _, tc := range []struct {
		what   string
		schema []string
		ours   []string
	}{
		{"graph fields", keys(schema.Properties), sorted(graphFields)},
		{"node fields", keys(schema.Defs["node"].Properties), sorted(nodeFields)},
		{"output fields", keys(schema.Defs["output"].Properties), sorted(outputFields)},
		{"dtypes", schema.Defs["dtype"].Enum, DTypeNames()},
		{"required graph fields", sorted(schema.Required), []string{"format", "nodes"}},
		{"required node fields", sorted(schema.Defs["node"].Required), []string{"name", "op"}},
		{"required output fields", sorted(schema.Defs["output"].Required), []string{"dtype", "name", "shape"}},
	} {
		if !slices.Equal(tc.schema, tc.ours) {
			t.Errorf("%s: schema has %v, decoder %v", tc.what, tc.schema, tc.ours)
		}
	}
	var format struct {
		Const string `json:"const"`
	}
	if err := json.Unmarshal(schema.Properties["format"], &format); err != nil || format.Const != Format {
		t.Errorf("format const %q, want %q (%v)", format.Const, Format, err)
	}

	// Each op-specific field is required by its op in the schema, as in
	// the decoder.
	required := map[string]string{}
	for _, rule := range schema.Defs["node"].AllOf {
		for _, f := range rule.Then.Required {
			required[f] = rule.If.Properties.Op.Const
		}
	}
	if len(required) != len(opFields) {
		t.Errorf("schema op fields %v, decoder %v", required, opFields)
	}
	for f, op := range opFields {
		if required[f] != op {
			t.Errorf("field %q: schema ties it to op %q, decoder to %q", f, required[f], op)
		}
	}
}
