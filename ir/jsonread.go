package ir

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// JSONReader reads one JSON document value by value, by graph JSON's
// rules: it shares DecodeGraph's lexer, so both read strings, numbers,
// white space and nesting the same way. Field names match exactly as
// written; a field that appears twice in one object is an error (a
// reader that keeps the last, as JSON.parse does, and one that keeps the
// first, would see two documents); strings are valid UTF-8 without lone
// surrogate escapes; integers are those JSON.parse reads exactly (at most
// 2^53 in magnitude); nesting is bounded; nothing but white space may
// follow the document. A caller walks the document with Object, Array
// and the scalar readers and so reads only the fields it names: any other
// is an error (UnknownField). Every error is an *Error with the file, the
// line:column where the offending value starts and its JSON path.
type JSONReader struct {
	p    jparser
	file string
	at   int // where the value being read starts, for errors
	path []jstep
	keys []string // keys of the open objects, for duplicates
}

// jstep is one step of a JSON path: a field, or an index when i >= 0.
type jstep struct {
	key string
	i   int
}

// MaxJSONInt is the largest integer JSONReader reads: 2^53, the last of
// the run of integers a float64 (and so JavaScript's JSON.parse) holds
// exactly.
const MaxJSONInt = 1 << 53

// NewJSONReader reads data, the contents of file. A byte order mark at
// the start is skipped, as DecodeGraph skips it.
func NewJSONReader(file string, data []byte) *JSONReader {
	r := &JSONReader{p: jparser{data: data, text: string(data)}, file: file}
	r.skipBOM()
	return r
}

func (r *JSONReader) skipBOM() {
	if bytes.HasPrefix(r.p.data, []byte("\ufeff")) {
		r.p.pos = 3
	}
}

// TopLevelString returns the value of field key of a JSON document whose
// top level is an object, when it is a string: a file's "format". It
// reads by JSONReader's rules, as far as that field and no further, and
// copies only the strings it reads. ok is false when the document is
// not an object, has no such string field, or is not JSON up to it.
func TopLevelString(data []byte, key string) (value string, ok bool) {
	r := &JSONReader{p: jparser{data: data}}
	r.skipBOM()
	found := &Error{}
	err := r.Object(func(k string) error {
		if k != key {
			return r.Skip()
		}
		var err error
		if value, err = r.String(); err != nil {
			return err
		}
		return found
	})
	return value, err == found
}

// Path is the JSON path of the value being read, as `tensors[3].offset`.
func (r *JSONReader) Path() string {
	s := ""
	for _, st := range r.path {
		if st.i >= 0 {
			s = index(s, st.i)
		} else {
			s = join(s, st.key)
		}
	}
	return s
}

// Errorf is an error at the value being read: the one whose field or
// element the caller is in, or the last one read.
func (r *JSONReader) Errorf(format string, args ...any) *Error {
	e := &Error{File: r.file, Path: r.Path(), Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = lineCol(r.p.data, r.at)
	return e
}

func (r *JSONReader) syntax(err *parseError) *Error {
	r.at = err.off
	return r.Errorf("%s", err.msg)
}

// begin skips white space before a value and notes where it starts.
func (r *JSONReader) begin() byte {
	p := &r.p
	p.space()
	r.at = p.pos
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

// want is the error for a value of the wrong type (or none) where one of
// kind want belongs.
func (r *JSONReader) want(what string) *Error {
	p := &r.p
	if p.pos >= len(p.data) {
		if len(bytes.TrimLeft(bytes.TrimPrefix(p.data, []byte("\ufeff")), " \t\r\n")) == 0 {
			return r.Errorf("empty file: want %s", what)
		}
		return r.Errorf("unexpected end of file: the JSON is truncated")
	}
	got := ""
	save := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		got = "an object"
	case c == '[':
		got = "an array"
	case c == '"':
		if s, err := p.string(); err == nil {
			got = "string " + Quote(s)
		}
	case c == '-' || c >= '0' && c <= '9':
		if s, err := p.number(); err == nil {
			got = "number " + s
		}
	case p.literal("true"), p.literal("false"), p.literal("null"):
		got = p.sub(save, p.pos)
	}
	p.pos = save
	if got == "" {
		return r.Errorf("unexpected %s: want %s", p.describeAt(), what)
	}
	return r.Errorf("got %s, want %s", got, what)
}

// Object reads an object, calling each with every field's name; each
// must read the field's value (or return an error). Inside each, errors
// are at the field's value and path.
func (r *JSONReader) Object(each func(key string) error) error {
	p := &r.p
	if r.begin() != '{' {
		return r.want("an object")
	}
	if err := p.enter(); err != nil {
		return r.syntax(err)
	}
	defer func() { p.depth-- }()
	p.pos++
	mark := len(r.keys)
	defer func() { r.keys = r.keys[:mark] }()
	var seen map[string]bool
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) {
			return r.syntax(p.errorf("unexpected end of file: the JSON is truncated"))
		}
		if p.data[p.pos] != '"' {
			return r.syntax(p.errorf("unexpected %s: want a quoted field name", p.describeAt()))
		}
		keyOff := p.pos
		key, perr := p.string()
		if perr != nil {
			return r.syntax(perr)
		}
		keys := r.keys[mark:]
		var dup bool
		if seen, dup = duplicateKey(seen, keys, itself, key); dup {
			r.path = append(r.path, jstep{key, -1})
			r.at = keyOff
			return r.Errorf("duplicate field %s: a reader that keeps the first and one that keeps the last would differ", Quote(key))
		}
		r.keys = append(r.keys, key)
		p.space()
		if err := p.expect(':', "after a field name"); err != nil {
			return r.syntax(err)
		}
		r.path = append(r.path, jstep{key, -1})
		r.begin()
		err := each(key)
		r.path = r.path[:len(r.path)-1]
		if err != nil {
			return err
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return nil
		}
		if err := p.expect(',', "or '}' after a field"); err != nil {
			return r.syntax(err)
		}
	}
}

// Struct reads an object whose field names are listed in fields, calling
// each with every field's name; each must read the field's value. A name
// marked with a leading * may be left out; any other left out is an
// error at the object, and so is a field not listed (with the listed one
// it most likely misspells). At most 64 fields. Once it returns, Errorf
// points at the object.
func (r *JSONReader) Struct(fields []string, each func(key string) error) error {
	r.begin()
	start := r.at
	var have uint64 // bit k: fields[k] was read
	err := r.Object(func(key string) error {
		for k, f := range fields {
			if strings.TrimPrefix(f, "*") == key {
				have |= 1 << k
				return each(key)
			}
		}
		names := make([]string, len(fields))
		for k, f := range fields {
			names[k] = strings.TrimPrefix(f, "*")
		}
		return r.UnknownField(key, names)
	})
	if err != nil {
		return err
	}
	r.at = start // later errors about the whole object point at it
	for k, f := range fields {
		if have&(1<<k) == 0 && !strings.HasPrefix(f, "*") {
			return r.Errorf("missing field %s", Quote(f))
		}
	}
	return nil
}

func itself(s string) string { return s }

// Array reads an array, calling each with every element's index; each
// must read the element.
func (r *JSONReader) Array(each func(i int) error) error {
	p := &r.p
	if r.begin() != '[' {
		return r.want("an array")
	}
	if err := p.enter(); err != nil {
		return r.syntax(err)
	}
	defer func() { p.depth-- }()
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		r.path = append(r.path, jstep{"", i})
		r.begin()
		err := each(i)
		r.path = r.path[:len(r.path)-1]
		if err != nil {
			return err
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return nil
		}
		if err := p.expect(',', "or ']' after an array element"); err != nil {
			return r.syntax(err)
		}
	}
}

// String reads a string.
func (r *JSONReader) String() (string, error) {
	if r.begin() != '"' {
		return "", r.want("a string")
	}
	s, err := r.p.string()
	if err != nil {
		return "", r.syntax(err)
	}
	return s, nil
}

// number reads a number's literal text.
func (r *JSONReader) number(want string) (string, error) {
	if c := r.begin(); c != '-' && (c < '0' || c > '9') {
		return "", r.want(want)
	}
	s, err := r.p.number()
	if err != nil {
		return "", r.syntax(err)
	}
	return s, nil
}

// Int reads an integer written without a fraction or exponent, of at
// most MaxJSONInt in magnitude: beyond it JSON.parse would read another
// number than this reader, and the two would disagree.
func (r *JSONReader) Int() (int64, error) {
	s, err := r.number("an integer")
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	switch {
	case perr != nil && strings.ContainsAny(s, ".eE"):
		return 0, r.Errorf("got number %s, want an integer", s)
	case perr != nil || n > MaxJSONInt || n < -MaxJSONInt:
		return 0, r.Errorf("integer %s is beyond ±2^53, where JSON.parse would read another number", s)
	}
	return n, nil
}

// Float reads a number.
func (r *JSONReader) Float() (float64, error) {
	s, err := r.number("a number")
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, r.Errorf("number %s is out of range", s)
	}
	return f, nil
}

// Bool reads true or false.
func (r *JSONReader) Bool() (bool, error) {
	r.begin()
	switch {
	case r.p.literal("true"):
		return true, nil
	case r.p.literal("false"):
		return false, nil
	}
	return false, r.want("true or false")
}

// Null reads null if it comes next, and reports whether it did.
func (r *JSONReader) Null() bool {
	r.begin()
	return r.p.literal("null")
}

// Skip reads any one value.
func (r *JSONReader) Skip() error {
	switch c := r.begin(); {
	case c == '{':
		return r.Object(func(string) error { return r.Skip() })
	case c == '[':
		return r.Array(func(int) error { return r.Skip() })
	case c == '"':
		_, err := r.String()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := r.number("a value")
		return err
	case r.p.literal("true"), r.p.literal("false"), r.p.literal("null"):
		return nil
	}
	return r.want("a JSON value")
}

// End checks that nothing but white space follows the document.
func (r *JSONReader) End() error {
	if r.begin(); r.p.pos < len(r.p.data) {
		return r.Errorf("unexpected %s after the top-level value", r.p.describeAt())
	}
	return nil
}

// UnknownField is the error for a field the caller does not read, with
// the known field it most likely misspells.
func (r *JSONReader) UnknownField(key string, known []string) *Error {
	if near := nearest(key, known); near != "" {
		return r.Errorf("unknown field %s; did you mean %s?", Quote(key), Quote(near))
	}
	return r.Errorf("unknown field %s", Quote(key))
}
