//go:build js && wasm

// Package jsconv moves messages between JavaScript and Go for both of
// memplan's wasm programs, the viewer and the planner worker: Tree reads
// a JavaScript value once into plain Go values, which protocol.Decode
// reads into a message's type strictly, and Encode makes a JavaScript
// object of a Go value in one JSON.parse. A file's bytes are left where
// they are (Bytes) until the program copies them, once.
package jsconv

import (
	"errors"
	"fmt"
	"syscall/js"

	"memplan/ir"
	"memplan/wasm/protocol"
)

// Limits on a message's tree: a host's message is a few fields, so a
// deeper or larger one (or a cyclic one, which postMessage allows) is
// refused rather than walked.
const (
	maxDepth = 16
	maxNodes = 10_000
)

var (
	object      = js.Global().Get("Object")
	array       = js.Global().Get("Array")
	arrayBuffer = js.Global().Get("ArrayBuffer")
	uint8Array  = js.Global().Get("Uint8Array")
	blob        = js.Global().Get("Blob")
	jsJSON      = js.Global().Get("JSON")
)

// Bytes is a file's bytes as a message holds them: an ArrayBuffer, a
// typed array or DataView, or a Blob, not yet copied into Go.
type Bytes struct{ v js.Value }

// Size is the number of bytes.
func (b Bytes) Size() int64 {
	if b.v.InstanceOf(blob) {
		return int64(b.v.Get("size").Float())
	}
	return int64(b.v.Get("byteLength").Float())
}

// Value is the JavaScript value itself.
func (b Bytes) Value() js.Value { return b.v }

// Tree reads v into nil, bool, float64, string, []any, map[string]any and
// Bytes (protocol.Decode's input).
func Tree(v js.Value) (any, error) {
	n := 0
	return tree(v, 0, &n)
}

func tree(v js.Value, depth int, nodes *int) (any, error) {
	if *nodes++; *nodes > maxNodes {
		return nil, fmt.Errorf("the message has over %d values", maxNodes)
	}
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return nil, nil
	case js.TypeBoolean:
		return v.Bool(), nil
	case js.TypeNumber:
		return v.Float(), nil
	case js.TypeString:
		return v.String(), nil
	case js.TypeObject:
	default:
		return nil, fmt.Errorf("the message holds a %s", v.Type())
	}
	if v.InstanceOf(arrayBuffer) || arrayBuffer.Call("isView", v).Bool() || v.InstanceOf(blob) {
		return Bytes{v}, nil
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("the message nests deeper than %d", maxDepth)
	}
	if array.Call("isArray", v).Bool() {
		n := v.Length()
		if n > maxNodes {
			return nil, fmt.Errorf("the message has over %d values", maxNodes)
		}
		out := make([]any, n)
		for i := range n {
			x, err := tree(v.Index(i), depth+1, nodes)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	keys := object.Call("keys", v)
	n := keys.Length()
	if n > maxNodes {
		return nil, fmt.Errorf("the message has over %d values", maxNodes)
	}
	out := make(map[string]any, n)
	for i := range n {
		k := keys.Index(i).String()
		x, err := tree(v.Get(k), depth+1, nodes)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

// Decode reads v into out (a pointer to a message struct) through Tree
// and protocol.Decode.
func Decode(v js.Value, out any) error {
	t, err := Tree(v)
	if err != nil {
		return &protocol.FieldError{Field: "message", Msg: err.Error()}
	}
	return protocol.Decode(t, out)
}

// DecodeCommand reads a viewer command.
func DecodeCommand(v js.Value) (protocol.Command, error) {
	t, err := Tree(v)
	if err != nil {
		return nil, &protocol.FieldError{Field: "message", Msg: err.Error()}
	}
	return protocol.DecodeCommand(t)
}

// ErrAsync is a Blob's bytes, which only a promise gives: the caller
// reads them in JavaScript first.
var ErrAsync = errors.New("the bytes are in a Blob: read them first")

// Copy copies a message's bytes into Go: the file's one copy.
func Copy(b protocol.Blob) ([]byte, error) {
	switch x := b.(type) {
	case protocol.Text:
		return []byte(x), nil
	case Bytes:
		u, err := array8(x.v)
		if err != nil {
			return nil, err
		}
		out := make([]byte, u.Get("byteLength").Int())
		js.CopyBytesToGo(out, u)
		return out, nil
	}
	return nil, fmt.Errorf("no bytes in a %T", b)
}

// Uint8Array is a message's bytes as a JavaScript Uint8Array (or the
// Blob itself), without copying them into Go: the viewer only passes a
// file on to the planner.
func Uint8Array(b protocol.Blob) js.Value {
	switch x := b.(type) {
	case protocol.Text:
		return js.Global().Get("TextEncoder").New().Call("encode", string(x))
	case Bytes:
		if x.v.InstanceOf(blob) {
			return x.v
		}
		u, _ := array8(x.v)
		return u
	}
	return js.Undefined()
}

func array8(v js.Value) (js.Value, error) {
	switch {
	case v.InstanceOf(arrayBuffer):
		return uint8Array.New(v), nil
	case v.InstanceOf(uint8Array):
		return v, nil
	case arrayBuffer.Call("isView", v).Bool():
		return uint8Array.New(v.Get("buffer"), v.Get("byteOffset"), v.Get("byteLength")), nil
	case v.InstanceOf(blob):
		return js.Undefined(), ErrAsync
	}
	return js.Undefined(), errors.New("not bytes")
}

// FromGo copies Go bytes into a new Uint8Array.
func FromGo(b []byte) js.Value {
	u := uint8Array.New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// Encode makes a JavaScript value of v by its JSON encoding: one
// JSON.parse, where building objects field by field would cost a
// JavaScript call a field. Events are protocol's types; one that does not
// encode is a bug, reported as an error object.
func Encode(v any) js.Value {
	b, err := ir.EncodeJSON(v, "")
	if err != nil {
		b, _ = ir.EncodeJSON(map[string]string{"source": "memplan", "type": "error", "kind": "bug", "message": "memplan bug: an event did not encode: " + err.Error()}, "")
	}
	return jsJSON.Call("parse", string(b))
}
