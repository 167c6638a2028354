package ir

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON written without encoding/json. The planner worker, a wasm
// program the page downloads, writes its events and plan records with
// it: linked for that alone, encoding/json and what it brings weighed 110
// kB of the page's gzipped download. The output is encoding/json's, byte
// for byte, for the kinds of values memplan writes (a test compares the
// two): struct fields by their json tags (omitempty, omitzero, "-", embedded
// structs inlined), maps with sorted keys, nil slices and maps as null,
// strings escaped as encoding/json escapes them, floats in its format,
// and values with a MarshalJSON method (json.RawMessage) as they say.
// []byte, which encoding/json writes in base64, and ",string" fields are
// refused: memplan writes neither.

// jsonMarshaler is encoding/json's Marshaler, by shape.
type jsonMarshaler interface{ MarshalJSON() ([]byte, error) }

// EncodeJSON writes v as JSON; with indent, one member or element a line,
// indented by it, as json.MarshalIndent(v, "", indent) writes it.
func EncodeJSON(v any, indent string) ([]byte, error) {
	w := jsonWriter{indent: indent}
	if err := w.value(reflect.ValueOf(v), 0); err != nil {
		return nil, err
	}
	return w.b, nil
}

type jsonWriter struct {
	b      []byte
	indent string
}

func (w *jsonWriter) newline(depth int) {
	if w.indent == "" {
		return
	}
	w.b = append(w.b, '\n')
	for range depth {
		w.b = append(w.b, w.indent...)
	}
}

var marshalerType = reflect.TypeFor[jsonMarshaler]()

func (w *jsonWriter) value(v reflect.Value, depth int) error {
	if !v.IsValid() {
		w.b = append(w.b, "null"...)
		return nil
	}
	if v.Type().Implements(marshalerType) && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		raw, err := v.Interface().(jsonMarshaler).MarshalJSON()
		if err != nil {
			return err
		}
		return w.raw(raw, depth)
	}
	switch v.Kind() {
	case reflect.Bool:
		w.b = strconv.AppendBool(w.b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.b = strconv.AppendInt(w.b, v.Int(), 10)
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.b = strconv.AppendUint(w.b, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return w.float(v.Float(), v.Type().Bits())
	case reflect.String:
		w.b = AppendJSONString(w.b, v.String())
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return nil
		}
		return w.value(v.Elem(), depth)
	case reflect.Slice:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return errors.New("json: []byte is not written (memplan writes none)")
		}
		fallthrough
	case reflect.Array:
		n := v.Len()
		w.b = append(w.b, '[')
		for i := range n {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(depth + 1)
			if err := w.value(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		if n > 0 {
			w.newline(depth)
		}
		w.b = append(w.b, ']')
	case reflect.Map:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return nil
		}
		keys := make([]string, 0, v.Len())
		vals := map[string]reflect.Value{}
		for it := v.MapRange(); it.Next(); {
			var k string
			switch kv := it.Key(); kv.Kind() {
			case reflect.String:
				k = kv.String()
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				k = strconv.FormatInt(kv.Int(), 10)
			default:
				return errors.New("json: map key of kind " + kv.Kind().String() + " is not written")
			}
			keys = append(keys, k)
			vals[k] = it.Value()
		}
		slices.Sort(keys)
		w.b = append(w.b, '{')
		for i, k := range keys {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(depth + 1)
			w.key(k)
			if err := w.value(vals[k], depth+1); err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			w.newline(depth)
		}
		w.b = append(w.b, '}')
	case reflect.Struct:
		w.b = append(w.b, '{')
		n := 0
		if err := w.fields(v, depth, &n); err != nil {
			return err
		}
		if n > 0 {
			w.newline(depth)
		}
		w.b = append(w.b, '}')
	default:
		return errors.New("json: a " + v.Kind().String() + " is not written")
	}
	return nil
}

// fields writes a struct's members, embedded structs' inline; n counts
// the members written so far.
func (w *jsonWriter) fields(v reflect.Value, depth int, n *int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if f.Type.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue
					}
					fv = fv.Elem()
				} else if !f.IsExported() && !hasExported(ft) {
					continue
				}
				if err := w.fields(fv, depth, n); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if strings.Contains(opts, "string") {
			return errors.New("json: ,string fields are not written")
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && isEmpty(fv) ||
			strings.Contains(opts, "omitzero") && fv.IsZero() {
			continue
		}
		if *n > 0 {
			w.b = append(w.b, ',')
		}
		*n++
		w.newline(depth + 1)
		w.key(name)
		if err := w.value(fv, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func hasExported(t reflect.Type) bool {
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			return true
		}
	}
	return false
}

func (w *jsonWriter) key(k string) {
	w.b = AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
	if w.indent != "" {
		w.b = append(w.b, ' ')
	}
}

// raw writes a Marshaler's JSON: compact, it goes in as it is; indented,
// it is indented as encoding/json indents it.
func (w *jsonWriter) raw(raw []byte, depth int) error {
	if w.indent == "" {
		w.b = append(w.b, raw...)
		return nil
	}
	// memplan's Marshalers write strings, numbers or compact arrays and
	// objects of them: re-indent the structural characters outside
	// strings.
	inString, escaped := false, false
	level := depth
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			w.b = append(w.b, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			w.b = append(w.b, c)
		case '{', '[':
			w.b = append(w.b, c)
			if i+1 < len(raw) && (raw[i+1] == '}' || raw[i+1] == ']') {
				w.b = append(w.b, raw[i+1])
				i++
				continue
			}
			level++
			w.newline(level)
		case '}', ']':
			level--
			w.newline(level)
			w.b = append(w.b, c)
		case ',':
			w.b = append(w.b, c)
			w.newline(level)
		case ':':
			w.b = append(w.b, ':', ' ')
		default:
			w.b = append(w.b, c)
		}
	}
	return nil
}

// float writes f as encoding/json does: the shortest form that reads
// back, with an exponent only for very small or large magnitudes.
func (w *jsonWriter) float(f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, bits))
	}
	fmtByte := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			fmtByte = 'e'
		}
	}
	start := len(w.b)
	w.b = strconv.AppendFloat(w.b, f, fmtByte, -1, bits)
	if fmtByte == 'e' {
		// clean up e-09 to e-9
		n := len(w.b) - start
		if n >= 4 && w.b[len(w.b)-4] == 'e' && w.b[len(w.b)-3] == '-' && w.b[len(w.b)-2] == '0' {
			w.b[len(w.b)-2] = w.b[len(w.b)-1]
			w.b = w.b[:len(w.b)-1]
		}
	}
	return nil
}

// isEmpty is omitempty's test: false, 0, "", and nil or empty slices,
// maps, pointers and interfaces.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

const hexDigits = "0123456789abcdef"

// AppendJSONString quotes s as encoding/json does: <, > and & escaped for
// HTML, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
