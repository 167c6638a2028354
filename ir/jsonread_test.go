package ir

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// readAny reads any value with r into what encoding/json's Unmarshal into
// an `any` makes of it: maps, slices, float64, strings, bools and nil.
func readAny(r *JSONReader) (any, error) {
	p := &r.p
	switch c := r.begin(); {
	case c == '{':
		m := map[string]any{}
		err := r.Object(func(key string) error {
			v, err := readAny(r)
			m[key] = v
			return err
		})
		return m, err
	case c == '[':
		s := []any{}
		err := r.Array(func(int) error {
			v, err := readAny(r)
			s = append(s, v)
			return err
		})
		return s, err
	case c == '"':
		return r.String()
	case c == '-' || c >= '0' && c <= '9':
		return r.Float()
	case r.Null():
		return nil, nil
	case p.pos < len(p.data) && (p.data[p.pos] == 't' || p.data[p.pos] == 'f'):
		return r.Bool()
	}
	return nil, r.want("a JSON value")
}

func readDocument(data []byte) (any, error) {
	r := NewJSONReader("d.json", data)
	v, err := readAny(r)
	if err == nil {
		err = r.End()
	}
	return v, err
}

// jsonCorpus holds documents for the differential test: tricky escapes,
// numbers, keys that differ only in case, deep nesting.
var jsonCorpus = []string{
	`{}`, `[]`, `0`, `-0`, `1.5e3`, `-1E-2`, `"x"`, `true`, `false`, `null`,
	`{"a":1,"A":2,"b":[1,2,{"c":"d"}]}`,
	`{"offset":19923712,"Offset":20972416}`,
	`{"s":"\u00e9\n\t\"\\\/\b\f\r\ud83d\ude00"}`,
	`{"big":1e308,"small":5e-324,"neg":-123456789012345678901234567890}`,
	`  [ 1 , 2 ,3 ]  `,
	"\ufeff{\"bom\":true}",
	`{"nested":[[[[[[[[[[1]]]]]]]]]]}`,
	`{"name":"\u001b[31mred\u001b[0m"}`,
	`{"a":{"a":{"a":null}}}`,
	`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10}`,
}

// Everything JSONReader accepts, encoding/json reads as the same values
// (it keeps field names as written when decoding into a map, as
// JSON.parse does): the two readers see one document.
func TestJSONReaderAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range jsonCorpus {
		got, err := readDocument([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		checkSameAsEncodingJSON(t, []byte(doc), got)
	}
}

func checkSameAsEncodingJSON(t *testing.T, doc []byte, got any) {
	t.Helper()
	var want any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(doc), "\ufeff")), &want); err != nil {
		t.Fatalf("%q: JSONReader accepts what encoding/json refuses: %v", doc, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: JSONReader reads %#v, encoding/json %#v", doc, got, want)
	}
}

func FuzzJSONReader(f *testing.F) {
	for _, doc := range jsonCorpus {
		f.Add([]byte(doc))
	}
	for _, doc := range []string{`{"a":1,"a":2}`, `{"a":"\ud800"}`, `[1,]`, `{"a" 1}`, `01`, `1.`, "\"\xff\"", `[[[[`} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := readDocument(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "d.json" || e.Msg == "" || e.Line < 1 || e.Column < 1 {
				t.Fatalf("error %#v lacks a file, a place or a message", err)
			}
			return
		}
		checkSameAsEncodingJSON(t, data, got)
	})
}

// longObject is the fields of an object long enough that duplicates are
// found with a map.
var longObject = func() string {
	var b strings.Builder
	for k := range 40 {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, k, k)
	}
	return b.String()
}()

func TestJSONReaderErrors(t *testing.T) {
	type doc struct {
		A int64            `json:"size"`
		B []int64          `json:"b"`
		C map[string]int64 `json:"c"`
	}
	read := func(data string) error {
		r := NewJSONReader("f.json", []byte(data))
		var d doc
		err := r.Object(func(key string) error {
			switch key {
			case "size":
				n, err := r.Int()
				d.A = n
				return err
			case "b":
				return r.Array(func(int) error {
					n, err := r.Int()
					d.B = append(d.B, n)
					return err
				})
			case "c":
				d.C = map[string]int64{}
				return r.Object(func(k string) error {
					n, err := r.Int()
					d.C[k] = n
					return err
				})
			case "d":
				return r.Skip()
			}
			return r.UnknownField(key, []string{"size", "b", "c", "d"})
		})
		if err == nil {
			err = r.End()
		}
		return err
	}
	tests := []errCase{
		{name: "duplicate field", in: `{"size":1,"size":2}`, at: `"size":2`, path: "size", msg: `duplicate field "size"`},
		{name: "duplicate deep", in: `{"c":{"x":1,"y":2,"x":3}}`, at: `"x":3`, path: "c.x", msg: `duplicate field "x"`},
		{name: "duplicate in a long object", in: `{"c":{` + longObject + `,"k3":0}}`, at: `"k3":0`, path: "c.k3", msg: `duplicate field "k3"`},
		{name: "case differs", in: `{"size":1,"Size":2}`, at: `2}`, path: "Size", msg: `unknown field "Size"; did you mean "size"?`},
		{name: "duplicate in a skipped value", in: `{"d":{"x":[{"y":1,"y":1}]}}`, at: `"y":1}`, path: "d.x[0].y", msg: `duplicate field "y"`},
		{name: "wrong type", in: `{"size":"big"}`, at: `"big"`, path: "size", msg: `got string "big", want an integer`},
		{name: "element of the wrong type", in: `{"b":[1,true]}`, at: `true`, path: "b[1]", msg: `got true, want an integer`},
		{name: "fraction", in: `{"size":1.5}`, at: `1.5`, path: "size", msg: `got number 1.5, want an integer`},
		{name: "exponent", in: `{"size":1e12}`, at: `1e12`, path: "size", msg: `got number 1e12, want an integer`},
		{name: "beyond 2^53", in: `{"size":9007199254740993}`, at: `9007`, path: "size", msg: `beyond ±2^53`},
		{name: "beyond int64", in: `{"size":-99999999999999999999}`, at: `-9999`, path: "size", msg: `beyond ±2^53`},
		{name: "trailing data", in: `{"size":1} {}`, at: `{}`, msg: `unexpected '{' after the top-level value`},
		{name: "truncated", in: `{"b":[1,`, line: 1, col: 9, path: "b[1]", msg: `truncated`},
		{name: "not an object", in: `[1]`, at: `[1]`, msg: `got an array, want an object`},
		{name: "empty", in: "  \n", line: 2, col: 1, msg: `empty file`},
		{name: "bad escape", in: `{"c":{"\x":1}}`, at: `"\x"`, path: "c", msg: `invalid escape`},
		{name: "lone surrogate", in: `{"c":{"\ud800":1}}`, at: `"\ud800"`, path: "c", msg: `lone UTF-16 surrogate`},
		{name: "too deep", in: `{"d":` + strings.Repeat("[", 300), line: 1, col: 205, path: "d" + strings.Repeat("[0]", 199), msg: `nested more than 200`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := read(tc.in)
			checkErr(t, tc, err)
			var e *Error
			if errors.As(err, &e) && e.File != "f.json" {
				t.Errorf("file %q, want f.json", e.File)
			}
		})
	}
}

// A front end refuses files over its memory limit / MinExpansion before
// reading them: no format may take less.
func TestMinExpansionBoundsEveryFormat(t *testing.T) {
	for format, x := range decodeExpansion {
		if x < MinExpansion {
			t.Errorf("%s takes %d× its size, below MinExpansion %d", format, x, MinExpansion)
		}
	}
}
