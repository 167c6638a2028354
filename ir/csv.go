package ir

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Buffer CSV columns. Legacy names map to these; "end" is inclusive.
const (
	colID = iota
	colLower
	colUpper
	colSize
	colAlignment
	colOffset
	colIgnored
	numCols
)

var colNames = [numCols]string{"id", "lower", "upper", "size", "alignment", "offset", ""}

// csvHeader maps a header name to its column, as MiniMalloc's converter
// accepts them.
var csvHeader = map[string]int{
	"id": colID, "buffer": colID, "buffer_id": colID,
	"lower": colLower, "start": colLower, "begin": colLower,
	"upper": colUpper, "end": colUpper,
	"size":      colSize,
	"alignment": colAlignment,
	"offset":    colOffset,
	"hint":      colIgnored, "gaps": colIgnored,
}

// DecodeBufferCSV decodes a buffer list in MiniMalloc's CSV format: a
// header naming the columns id, lower, upper and size (and optionally
// alignment and offset), in any order, then one buffer per line with the
// half-open lifetime [lower, upper). A legacy "end" column is inclusive.
// Errors give the line and the column's name.
//
// Fields are split by hand rather than with encoding/csv, which is
// several times slower on the 62k-row instances; the format has no
// quoting in practice, and a quoted field simply fails to parse as an
// integer (ids may be quoted).
func DecodeBufferCSV(fileName string, data []byte) (*BufferTable, error) {
	text := string(data) // one copy; ids are substrings of it
	text = strings.TrimPrefix(text, "\ufeff")
	base := path.Base(fileName)
	t := &BufferTable{Name: strings.TrimSuffix(base, path.Ext(base))}
	errorf := func(line, col int, format string, args ...any) *Error {
		return &Error{File: fileName, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
	}

	// The header: the first non-blank line.
	line := 0
	var header string
	for text != "" && strings.TrimSpace(header) == "" {
		header, text = nextLine(text)
		line++
	}
	if strings.TrimSpace(header) == "" {
		return nil, errorf(max(line, 1), 0, "empty file: want a header such as id,lower,upper,size")
	}
	var cols []int // column kind of each field
	have := [numCols]int{}
	inclusive := false
	for i, field := range strings.Split(header, ",") {
		name := strings.ToLower(unquote(strings.TrimSpace(field)))
		c, ok := csvHeader[name]
		if !ok {
			return nil, errorf(line, 0, "unknown column %s (want id, lower, upper, size, and optionally alignment, offset)", Quote(name))
		}
		if c != colIgnored && have[c] > 0 {
			return nil, errorf(line, 0, "column %s given twice (as %s)", Quote(colNames[c]), headerNames(header, c))
		}
		have[c] = i + 1
		inclusive = inclusive || name == "end"
		cols = append(cols, c)
	}
	for _, c := range []int{colID, colLower, colUpper, colSize} {
		if have[c] == 0 {
			return nil, errorf(line, 0, "missing column %s (header: %s)", Quote(colNames[c]), strings.TrimSpace(header))
		}
	}

	names := make([]string, len(cols)) // as written, for messages
	for k := range cols {
		names[k] = headerName(header, k)
	}
	nameOf := func(c int) string { return names[have[c]-1] }
	hasAlign := have[colAlignment] > 0

	n := strings.Count(text, "\n") + 1
	ids := make(map[string]struct{}, n)
	t.Rows = make([]BufferRow, 0, n)
	starts := make([]int, len(cols)) // 1-based byte column of each field
	for text != "" {
		var raw string
		raw, text = nextLine(text)
		line++
		if strings.TrimSpace(raw) == "" {
			continue
		}
		row := BufferRow{Line: line}
		pos := 0
		for k, kind := range cols {
			if pos > len(raw) {
				return nil, errorf(line, 0, "%d fields, want %d as in the header", k, len(cols))
			}
			end := strings.IndexByte(raw[pos:], ',')
			if end < 0 {
				end = len(raw)
			} else {
				end += pos
			}
			starts[k] = pos + 1
			field := trimSpace(raw[pos:end])
			pos = end + 1
			switch kind {
			case colID:
				row.ID = unquote(field)
				if row.ID == "" {
					return nil, errorf(line, starts[k], "column %s: empty id", Quote(names[k]))
				}
			case colIgnored:
			default:
				v, err := parseInt(field)
				if err != nil {
					what := "is not an integer"
					if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
						what = "is out of range"
					}
					return nil, errorf(line, starts[k], "column %s: %s %s", Quote(names[k]), Quote(field), what)
				}
				switch kind {
				case colLower:
					row.Lower = v
				case colUpper:
					row.Upper = v
				case colSize:
					row.Size = v
				case colAlignment:
					row.Alignment = v
				case colOffset:
					row.Offset, row.HasOffset = v, true
				}
			}
		}
		if pos <= len(raw) {
			return nil, errorf(line, 0, "%d fields, want %d as in the header", strings.Count(raw, ",")+1, len(cols))
		}
		if c, msg := checkRow(&row, inclusive, hasAlign); msg != "" {
			return nil, errorf(line, starts[have[c]-1], "column %s: %s", Quote(nameOf(c)), msg)
		}
		// An id seen before leaves the set's size as it was: one hash and
		// probe per row; the first row with it is looked for only then.
		known := len(ids)
		if ids[row.ID] = struct{}{}; len(ids) == known {
			prev := t.Rows[slices.IndexFunc(t.Rows, func(r BufferRow) bool { return r.ID == row.ID })].Line
			return nil, errorf(line, starts[have[colID]-1], "duplicate id %s (also line %d)", Quote(row.ID), prev)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// checkRow checks one buffer's values and makes an inclusive end
// half-open. It returns the offending column and a message, or "".
func checkRow(r *BufferRow, inclusive, hasAlign bool) (int, string) {
	if r.Lower < 0 {
		return colLower, fmt.Sprintf("%d is negative", r.Lower)
	}
	if inclusive {
		if r.Upper < r.Lower {
			return colUpper, fmt.Sprintf("%d is before the start %d (end is inclusive)", r.Upper, r.Lower)
		}
		if r.Upper == 1<<63-1 {
			return colUpper, fmt.Sprintf("%d is out of range", r.Upper)
		}
		r.Upper++
	}
	if r.Upper <= r.Lower {
		return colUpper, fmt.Sprintf("%d is not greater than lower %d (lifetimes are [lower, upper))", r.Upper, r.Lower)
	}
	if r.Size < 0 {
		return colSize, fmt.Sprintf("%d is negative", r.Size)
	}
	if hasAlign && (r.Alignment <= 0 || r.Alignment&(r.Alignment-1) != 0) {
		return colAlignment, fmt.Sprintf("%d is not a positive power of two", r.Alignment)
	}
	if r.HasOffset && r.Offset < 0 {
		return colOffset, fmt.Sprintf("%d is negative", r.Offset)
	}
	return 0, ""
}

// parseInt is strconv.ParseInt with a fast path for the short decimal
// numbers that make up these files.
func parseInt(s string) (int64, error) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return strconv.ParseInt(s, 10, 64)
	}
	var v int64
	for i := 0; i < len(d); i++ {
		c := d[i] - '0'
		if c > 9 {
			return strconv.ParseInt(s, 10, 64)
		}
		v = v*10 + int64(c)
	}
	if len(d) < len(s) {
		v = -v
	}
	return v, nil
}

// trimSpace is strings.TrimSpace without its cost when there is no space.
func trimSpace(s string) string {
	if s == "" || s[0] > ' ' && s[len(s)-1] > ' ' {
		return s
	}
	return strings.TrimSpace(s)
}

// nextLine splits off the first line, without its "\n" or "\r\n".
func nextLine(s string) (line, rest string) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		line, rest = s, ""
	} else {
		line, rest = s[:i], s[i+1:]
	}
	return strings.TrimSuffix(line, "\r"), rest
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// headerName is the name the header gives field k.
func headerName(header string, k int) string {
	fields := strings.Split(header, ",")
	if k < len(fields) {
		return strings.ToLower(unquote(strings.TrimSpace(fields[k])))
	}
	return ""
}

// headerNames lists the header names that map to column c.
func headerNames(header string, c int) string {
	var names []string
	for _, f := range strings.Split(header, ",") {
		name := strings.ToLower(unquote(strings.TrimSpace(f)))
		if csvHeader[name] == c {
			names = append(names, strconv.Quote(name))
		}
	}
	return strings.Join(names, " and ")
}
