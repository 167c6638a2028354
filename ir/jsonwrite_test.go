package ir

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

type jwInner struct {
	A int     `json:"a"`
	B string  `json:"b,omitempty"`
	F float64 `json:"f"`
}

type jwEmbedded struct {
	E1 string `json:"e1"`
}

type jwOuter struct {
	jwEmbedded
	*jwInner
	Name   string            `json:"name"`
	Skip   string            `json:"-"`
	Dash   string            `json:"-,"`
	Ptr    *jwInner          `json:"ptr"`
	NilPtr *jwInner          `json:"nil_ptr,omitempty"`
	List   []jwInner         `json:"list"`
	Nil    []int             `json:"nil"`
	Empty  []int             `json:"empty"`
	Map    map[string]int64  `json:"map"`
	IntMap map[int]string    `json:"int_map"`
	Raw    json.RawMessage   `json:"raw"`
	Dims   []Dim             `json:"dims"`
	Any    any               `json:"any"`
	Pairs  [][2]string       `json:"pairs"`
	Bools  map[string]bool   `json:"bools,omitempty"`
	Nested map[string][]uint `json:"nested"`
	// omitzero leaves out a nil list but keeps an empty one.
	ZeroNil   []int  `json:"zero_nil,omitzero"`
	ZeroEmpty []int  `json:"zero_empty,omitzero"`
	ZeroInt   int    `json:"zero_int,omitzero"`
	ZeroStr   string `json:"zero_str,omitzero"`
	plain     int
}

// TestEncodeJSONAsEncodingJSON: EncodeJSON writes what encoding/json
// writes, compact and indented, for the kinds of values memplan writes.
func TestEncodeJSONAsEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, 0, -7, int64(math.MaxInt64), uint32(9), 0.1, 1e-7, 1e21, 123456789.0, -0.000001, 1.5e300, float32(0.1),
		"", "plain", "quote \" and \\ and \n\t\r\b\f and <a>&", "\u2028\u2029", "bad \xff utf-8", "control \x01",
		[]int{}, []string(nil), map[string]int{"b": 2, "a": 1}, map[string]any{},
		jwOuter{
			jwEmbedded: jwEmbedded{E1: "e"}, jwInner: &jwInner{A: 1, F: 2.5},
			Name: "n", Skip: "s", Dash: "d", Ptr: &jwInner{A: 3, B: "x"}, List: []jwInner{{A: 1}, {B: "y"}},
			Empty: []int{}, Map: map[string]int64{"z": 1, "a": -2}, IntMap: map[int]string{10: "ten", 2: "two"},
			Raw: json.RawMessage(`{"k":[1,2,{"x":"a,b:c"}],"e":{},"l":[]}`), Dims: []Dim{{Value: 4}, {Symbol: "batch"}},
			Any: map[string]any{"q": []any{1.0, "s", nil}}, Pairs: [][2]string{{"a", "b"}},
			Nested: map[string][]uint{"n": {1, 2}}, ZeroEmpty: []int{}, ZeroStr: "z", plain: 5,
		},
		jwOuter{},
	}
	for i, v := range values {
		for _, indent := range []string{"", "  "} {
			var want []byte
			var err error
			if indent == "" {
				want, err = json.Marshal(v)
			} else {
				want, err = json.MarshalIndent(v, "", indent)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := EncodeJSON(v, indent)
			if err != nil {
				t.Fatalf("value %d: %v", i, err)
			}
			if string(got) != string(want) {
				t.Errorf("value %d, indent %q:\n got %s\nwant %s", i, indent, got, want)
			}
		}
	}
}

// TestEncodeJSONRefuses: what encoding/json would write differently, or
// not at all, is an error rather than other bytes.
func TestEncodeJSONRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(-1), []byte("x"), map[float64]int{1: 1}, make(chan int),
		struct {
			N int `json:"n,string"`
		}{}} {
		if b, err := EncodeJSON(v, ""); err == nil {
			t.Errorf("%T: wrote %s, want an error", v, b)
		} else if !strings.HasPrefix(err.Error(), "json: ") {
			t.Errorf("%T: error %q", v, err)
		}
	}
}
