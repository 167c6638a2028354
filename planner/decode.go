package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"memplan/ir"
)

// DecodePlan reads a plan record (memplan.plan/v1). Errors say where:
// line and column, and the field when the JSON holds the wrong type.
// Unknown fields are errors, as in graph JSON, so a typo is not silently
// dropped. It does not prove the plan valid: that is Verify's job.
func DecodePlan(name string, data []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Plan
	err := dec.Decode(&p)
	offset := dec.InputOffset()
	if rest := data[offset:]; err == nil && len(bytes.TrimSpace(rest)) > 0 {
		offset += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")))
		err = errors.New("data after the plan record")
	}
	if err != nil {
		e := &ir.Error{File: name, Msg: err.Error()}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			offset = syntax.Offset - 1 // the offending byte is the last read
		case errors.As(err, &typ):
			offset, e.Path = valueStart(data, typ.Offset), typ.Field
			e.Msg = fmt.Sprintf("got a JSON %s, want %s", typ.Value, typ.Type)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			offset, e.Msg = int64(len(data)), "the plan record ends early"
		default:
			// encoding/json names an unknown field but not where it is.
			if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				if at := bytes.Index(data, []byte(f)); at >= 0 {
					offset, e.Msg = int64(at), "unknown field "+f
				}
			}
		}
		e.Line, e.Column = lineColumn(data, offset)
		return nil, e
	}
	if p.Format != PlanFormat {
		return nil, &ir.Error{File: name, Path: "format", Msg: fmt.Sprintf("format is %s, want %s", ir.Quote(p.Format), ir.Quote(PlanFormat))}
	}
	return &p, nil
}

// valueStart finds where the JSON string or literal that ends at end
// starts (encoding/json reports the end of a value of the wrong type).
// Objects and arrays keep end.
func valueStart(data []byte, end int64) int64 {
	i := min(max(end, 0), int64(len(data))) - 1
	switch {
	case i < 0:
		return end
	case data[i] == '"':
		for j := i - 1; j >= 0; j-- {
			if data[j] == '"' && (j == 0 || data[j-1] != '\\') {
				return j
			}
		}
	default:
		j := i
		for j >= 0 && bytes.IndexByte([]byte("0123456789+-.eEabcdefghijklmnopqrstuvwxyz"), data[j]) >= 0 {
			j--
		}
		if j < i {
			return j + 1
		}
	}
	return end
}

// lineColumn turns a byte offset into a 1-based line and column.
func lineColumn(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	return line, int(offset) - bytes.LastIndexByte(before, '\n')
}
