package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded plan differs from the one written: fingerprint %s, want %s", got.ComputeFingerprint(), want.Fingerprint)
	}
}

// Every sample record reads back as the plan that wrote it, and as what
// a second reader (encoding/json's generic decoding, which keeps field
// names as written and so reads what JSON.parse reads) finds in it.
func TestDecodePlanAgreesWithASecondReader(t *testing.T) {
	for _, s := range sampleRecords(t) {
		t.Run(s.name, func(t *testing.T) {
			data := recordJSON(t, s.plan)
			got, err := DecodePlan("r.json", data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s.plan) {
				t.Fatal("decoded plan differs from the one written")
			}
			if err := sameAsGeneric(data, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// sameAsGeneric checks a decoded plan against encoding/json's generic
// reading of the same bytes: each field JSON names (exactly, as it is
// spelled) holds the value the plan holds under that JSON name, and the
// plan holds nothing the JSON does not say.
func sameAsGeneric(data []byte, plan *Plan) error {
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		return fmt.Errorf("the second reader refuses what DecodePlan read: %v", err)
	}
	return sameValue("", reflect.ValueOf(plan).Elem(), g)
}

func sameValue(path string, v reflect.Value, g any) error {
	differ := func() error { return fmt.Errorf("%s: DecodePlan read %v, the second reader %v", path, v, g) }
	switch v.Kind() {
	case reflect.Pointer:
		if g == nil {
			if !v.IsNil() {
				return differ()
			}
			return nil
		}
		if v.IsNil() {
			return differ()
		}
		return sameValue(path, v.Elem(), g)
	case reflect.Struct:
		m, ok := g.(map[string]any)
		if !ok {
			return differ()
		}
		seen := map[string]bool{}
		if err := sameFields(path, v, m, seen); err != nil {
			return err
		}
		for k := range m {
			if !seen[k] {
				return fmt.Errorf("%s: field %q is in the JSON, but DecodePlan read no field of that name", path, k)
			}
		}
		return nil
	case reflect.Slice:
		if g == nil {
			if v.Len() != 0 {
				return differ()
			}
			return nil
		}
		s, ok := g.([]any)
		if !ok || len(s) != v.Len() {
			return differ()
		}
		for i := range s {
			if err := sameValue(fmt.Sprintf("%s[%d]", path, i), v.Index(i), s[i]); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		m, ok := g.(map[string]any)
		if !ok || len(m) != v.Len() {
			return differ()
		}
		for k, gv := range m {
			mv := v.MapIndex(reflect.ValueOf(k))
			if !mv.IsValid() {
				return differ()
			}
			if err := sameValue(path+"."+k, mv, gv); err != nil {
				return err
			}
		}
		return nil
	case reflect.Int, reflect.Int64:
		if f, ok := g.(float64); !ok || f != float64(v.Int()) {
			return differ()
		}
	case reflect.Float64:
		if f, ok := g.(float64); !ok || f != v.Float() {
			return differ()
		}
	case reflect.String:
		if s, ok := g.(string); !ok || s != v.String() {
			return differ()
		}
	case reflect.Bool:
		if b, ok := g.(bool); !ok || b != v.Bool() {
			return differ()
		}
	default:
		return fmt.Errorf("%s: no comparison for %s", path, v.Kind())
	}
	return nil
}

// sameFields compares a struct's fields by their JSON names, embedded
// structs' fields as the struct's own (as encoding/json writes them).
func sameFields(path string, v reflect.Value, m map[string]any, seen map[string]bool) error {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			fv := v.Field(i)
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue // its fields must then be absent: seen stays false
				}
				fv = fv.Elem()
			}
			if err := sameFields(path, fv, m, seen); err != nil {
				return err
			}
			continue
		}
		g, ok := m[name]
		if !ok {
			if !v.Field(i).IsZero() {
				return fmt.Errorf("%s.%s: DecodePlan holds %v, but the JSON has no such field", path, name, v.Field(i))
			}
			continue
		}
		seen[name] = true
		if err := sameValue(path+"."+name, v.Field(i), g); err != nil {
			return err
		}
	}
	return nil
}

// The record of the issue: a second "offset" spelled "Offset". Go's
// encoding/json matched it case-insensitively and kept the last, so
// verify saw one plan and JSON.parse another. Every such trick is refused
// with its place.
func TestDecodePlanReadsOneDocument(t *testing.T) {
	s := sampleRecords(t)[0]
	good := string(recordJSON(t, s.plan))
	first := strings.Index(good, `"offset": `)
	tests := []struct {
		name      string
		edit      func(string) string
		path, msg string
	}{
		{"a field in another case", func(d string) string {
			return d[:first] + `"Offset": 20972416, ` + d[first:]
		}, "tensors[0].Offset", `unknown field "Offset"; did you mean "offset"?`},
		{"a field twice", func(d string) string {
			return d[:first] + `"offset": 20972416, ` + d[first:]
		}, "tensors[0].offset", `duplicate field "offset"`},
		{"a top-level field twice", func(d string) string {
			return strings.Replace(d, `"saved": `, `"saved": 0, "saved": `, 1)
		}, "saved", `duplicate field "saved"`},
		{"a field left out", func(d string) string {
			return strings.Replace(d, `"aligned_lower_bound": `, `"aligned_lower_boun": `, 1)
		}, "aligned_lower_boun", `unknown field "aligned_lower_boun"; did you mean "aligned_lower_bound"?`},
		{"an integer JSON.parse rounds", func(d string) string {
			return d[:first] + `"offset": 9007199254740993, ` + strings.Replace(d[first:], `"offset": `, `"x": `, 1)
		}, "tensors[0].offset", "beyond ±2^53"},
		{"an integer as a fraction", func(d string) string {
			return strings.Replace(d, `"steps": `, `"steps": 1e12, "x": `, 1)
		}, "steps", "got number 1e12, want an integer"},
		{"a string for a number", func(d string) string {
			return strings.Replace(d, `"arena_size": `, `"arena_size": "big", "x": `, 1)
		}, "arena_size", `got string "big", want an integer`},
		{"null for a number", func(d string) string {
			return strings.Replace(d, `"arena_size": `, `"arena_size": null, "x": `, 1)
		}, "arena_size", `got null, want an integer`},
		{"another format", func(d string) string {
			return strings.Replace(d, `"memplan.plan/v1"`, `"memplan.plan/v2"`, 1)
		}, "format", `format is "memplan.plan/v2", want "memplan.plan/v1"`},
		{"data after", func(d string) string { return d + " {}" }, "", "after the top-level value"},
		{"truncated", func(d string) string { return d[:len(d)/2] }, "", "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.edit(good))
			_, err := DecodePlan("p.json", data)
			var e *ir.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *ir.Error", err)
			}
			if e.File != "p.json" || e.Line < 1 || e.Column < 1 || !strings.HasPrefix(e.Path, tc.path) || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %q (line %d, column %d, path %q); want a line and column, path %q, message with %q",
					err, e.Line, e.Column, e.Path, tc.path, tc.msg)
			}
		})
	}
}

func TestDecodePlanErrorPlaces(t *testing.T) {
	const head = "{\n  \"format\": \"memplan.plan/v1\",\n"
	tests := []struct {
		name      string
		in        string
		line, col int
		path, msg string
	}{
		{"syntax", head + "  \"arena_size\": ]\n}", 3, 17, "arena_size", "unexpected ']': want an integer"},
		{"nested wrong type", head + "  \"tensors\": [{\"name\": \"a\", \"size\": true}]\n}", 3, 37, "tensors[0].size", "got true, want an integer"},
		{"unknown field", head + "  \"arena_sise\": 1\n}", 3, 17, "arena_sise", `unknown field "arena_sise"; did you mean "arena_size"?`},
		{"missing field", head + "  \"name\": \"x\"\n}", 1, 1, "", `missing field "arena_size"`},
		{"missing tensor field", head + "  \"tensors\": [\n    {\"name\": \"a\"}]\n}", 4, 5, "tensors[0]", `missing field "op"`},
		{"ends early", head + "  \"arena_size\": 1", 3, 18, "", "truncated"},
		{"wrong format", "{\"format\": \"memplan.graph/v1\"}", 1, 12, "format", `want "memplan.plan/v1"`},
		{"buffer without its offset", head + "  \"tensors\": [{\"name\": \"a\", \"op\": \"x\", \"kind\": \"x\", \"shape\": [], \"dtype\": \"\", \"size\": 1, \"offset\": 0, \"guard\": 0, \"birth\": 0, \"death\": 0, \"view_offset\": 0, \"buffer\": 0}]\n}", 3, 15, "tensors[0]", "buffer and buffer_offset come together"},
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

// A record is one by its top-level "format" field, not by the string
// appearing in its first bytes.
func TestIsPlanRecord(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"a record", `{"format": "memplan.plan/v1", "name": "x"}`, true},
		{"format not first", `{"name": "x", "tensors": [{"a": [1, {"b": "c"}]}], "format": "memplan.plan/v1"}`, true},
		{"a byte order mark and space", "\ufeff \n{\"format\":\"memplan.plan/v1\"}", true},
		{"a graph named like a record", `{"format": "memplan.graph/v1", "name": "memplan.plan/v1", "nodes": []}`, false},
		{"the format nested", `{"meta": {"format": "memplan.plan/v1"}, "format": "memplan.graph/v1"}`, false},
		{"the format in a string", `{"name": "\"format\": \"memplan.plan/v1\"", "nodes": []}`, false},
		{"not an object", `["memplan.plan/v1"]`, false},
		{"broken before the format", `{"name": tru, "format": "memplan.plan/v1"}`, false},
		{"format not a string", `{"format": 1}`, false},
		{"a CSV", "id,lower,upper,size\n", false},
	}
	for _, tc := range tests {
		if got := IsPlanRecord([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: IsPlanRecord = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzDecodePlan(f *testing.F) {
	for _, s := range sampleRecords(f) {
		data, _ := json.Marshal(s.plan)
		f.Add(data)
	}
	f.Add([]byte(`{"format":"memplan.plan/v1","tensors":[{"offset":1,"Offset":2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		plan, err := DecodePlan("f.json", data)
		if err != nil {
			var e *ir.Error
			if !errors.As(err, &e) || e.File != "f.json" || e.Msg == "" {
				t.Fatalf("error %#v is not a located *ir.Error", err)
			}
			return
		}
		if err := sameAsGeneric(bytes.TrimPrefix(data, []byte("\ufeff")), plan); err != nil {
			t.Fatal(err)
		}
		Verify(plan) // must not panic, whatever the record says
	})
}

func BenchmarkDecodePlanGenerated100k(b *testing.B) {
	p := Generate(100_000, 1)
	pl, err := Place(b.Context(), p, "first-use", PlaceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := json.Marshal(NewPlan(p, pl.Strategy, pl))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := DecodePlan("g.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
