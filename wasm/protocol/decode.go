package protocol

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// A message reaches Go as a tree of plain values, which wasm/jsconv reads
// off the JavaScript object once: nil (null or undefined), bool, float64
// (any number, NaN and the infinities included), string, []any, map[string]any,
// and Blob for a file's bytes (an ArrayBuffer, a typed array or a Blob,
// left where it is). Decode reads such a tree into a message's Go type
// strictly, so that a value of the wrong kind or out of range is one
// error naming its field, and the message changes nothing.

// Blob is a file's bytes as a message carries them, not yet copied.
type Blob interface {
	// Size is the number of bytes.
	Size() int64
}

// Text is a file sent as a string: its UTF-8 bytes.
type Text string

// Size is the length of the text's UTF-8 encoding.
func (t Text) Size() int64 { return int64(len(t)) }

// FieldError is a message field that does not read.
type FieldError struct {
	Type  string // the message's type
	Field string // its path, "options.alignment", "limits.maxBufferSize"
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("message %q: %s: %s", e.Type, e.Field, e.Msg)
}

// Decode reads tree into out, a pointer to a struct, by its fields' JSON
// names: strings from strings, bools from booleans, numbers from finite
// numbers (integers only whole ones within ±2^53, what a JavaScript number
// holds exactly), structs and maps from objects, slices from arrays, a
// Blob from a file's bytes or a string. A field the tree lacks, or holds
// null, keeps its value; fields Go does not know are ignored, so a host
// may tag its messages. Then each struct that has a Validate method is
// asked to check its values.
func Decode(tree any, out any) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("protocol.Decode: out must point to a struct")
	}
	return decodeValue(tree, v.Elem(), "")
}

type validator interface{ Validate() error }

// defaulter is a struct whose zero value is not its default (Options:
// the guard's default is -1): a message that holds one gets the defaults
// first, then the fields it names.
type defaulter interface{ SetDefaults() }

var blobType = reflect.TypeFor[Blob]()

func decodeValue(t any, v reflect.Value, path string) error {
	if t == nil {
		return nil
	}
	fail := func(want string) error {
		return &FieldError{Field: strings.TrimPrefix(path, "."), Msg: fmt.Sprintf("want %s, got %s", want, describe(t))}
	}
	if v.Type() == blobType {
		switch x := t.(type) {
		case Blob:
			v.Set(reflect.ValueOf(x))
		case string:
			v.Set(reflect.ValueOf(Text(x)))
		default:
			return fail("bytes (an ArrayBuffer, a typed array, a Blob or a string)")
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := t.(string)
		if !ok {
			return fail("a string")
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := t.(bool)
		if !ok {
			return fail("true or false")
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int32, reflect.Int64:
		f, ok := t.(float64)
		if !ok {
			return fail("a number")
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return fail("a whole number")
		}
		if v.OverflowInt(int64(f)) {
			return fail("a number that fits")
		}
		v.SetInt(int64(f))
	case reflect.Float64:
		f, ok := t.(float64)
		if !ok {
			return fail("a number")
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fail("a finite number")
		}
		v.SetFloat(f)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			if d, ok := v.Interface().(defaulter); ok {
				d.SetDefaults()
			}
		}
		return decodeValue(t, v.Elem(), path)
	case reflect.Slice:
		a, ok := t.([]any)
		if !ok {
			return fail("an array")
		}
		s := reflect.MakeSlice(v.Type(), len(a), len(a))
		for i, x := range a {
			if err := decodeValue(x, s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m, ok := t.(map[string]any)
		if !ok || v.Type().Key().Kind() != reflect.String {
			return fail("an object")
		}
		out := reflect.MakeMapWithSize(v.Type(), len(m))
		for k, x := range m {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(x, e, path+"."+k); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(out)
	case reflect.Struct:
		m, ok := t.(map[string]any)
		if !ok {
			return fail("an object")
		}
		if err := decodeFields(m, v, path); err != nil {
			return err
		}
		if val, ok := v.Addr().Interface().(validator); ok {
			if err := val.Validate(); err != nil {
				var fe *FieldError
				if asField(err, &fe) {
					fe.Field = strings.TrimPrefix(path+"."+fe.Field, ".")
					return fe
				}
				return &FieldError{Field: strings.TrimPrefix(path, "."), Msg: err.Error()}
			}
		}
	default:
		panic("protocol.Decode: cannot read into " + v.Type().String())
	}
	return nil
}

// decodeFields reads an object's members into a struct's fields, the
// fields of embedded structs included, as encoding/json does.
func decodeFields(m map[string]any, v reflect.Value, path string) error {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := decodeFields(m, v.Field(i), path); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		x, ok := m[name]
		if !ok {
			continue
		}
		if err := decodeValue(x, v.Field(i), path+"."+name); err != nil {
			return err
		}
	}
	return nil
}

func asField(err error, fe **FieldError) bool {
	e, ok := err.(*FieldError)
	if ok {
		*fe = e
	}
	return ok
}

// describe names a tree value for an error: its kind, and the value when
// short.
func describe(t any) string {
	switch x := t.(type) {
	case string:
		if len(x) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case Blob:
		return "bytes"
	}
	if t == nil {
		return "nothing"
	}
	return fmt.Sprintf("%T", t)
}

// positive checks a number field is finite and above zero (Validate
// methods use it).
func positive(name string, f float64) error {
	if !(f > 0) {
		return &FieldError{Field: name, Msg: "want a number above 0, got " + describe(f)}
	}
	return nil
}

// atLeast checks an integer field is at least min.
func atLeast(name string, n, min int64) error {
	if n < min {
		return &FieldError{Field: name, Msg: fmt.Sprintf("want at least %d, got %d", min, n)}
	}
	return nil
}
