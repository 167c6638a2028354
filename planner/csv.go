package planner

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"memplan/ir"
)

// printable reports whether every rune of s prints (spaces included).
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// AppendBufferCSV appends the plan's placed buffers to b in the buffer-CSV
// format memplan reads (ir.DecodeBufferCSV): a header id,lower,upper,size,offset,
// then one line per tensor that owns arena bytes, with its half-open life
// [birth, death+1), its size with its guard bytes (the bytes nothing else
// may use while it lives) and its offset. Reading the file back gives a
// problem these offsets solve. Views and skipped tensors own no bytes and
// are left out. A name the format cannot carry as an id (with a comma, a
// quote, a line break or another character that does not print) is an
// error naming the tensor.
func (p *Plan) AppendBufferCSV(b []byte) ([]byte, error) {
	b = append(b, "id,lower,upper,size,offset\n"...)
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if !t.Placed() || t.Offset < 0 {
			continue
		}
		if t.Name == "" || strings.ContainsAny(t.Name, ",\"\r\n") || strings.TrimSpace(t.Name) != t.Name || !printable(t.Name) {
			return nil, fmt.Errorf("buffer CSV: tensor %s: a name that is empty, has a comma, a quote, a line break, a character that does not print or outer spaces cannot be a buffer id", ir.Quote(t.Name))
		}
		b = append(b, t.Name...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Birth), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Death)+1, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, t.Size+t.Guard, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, t.Offset, 10)
		b = append(b, '\n')
	}
	return b, nil
}
